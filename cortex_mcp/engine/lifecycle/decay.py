"""Decay: each category forgets at its own pace, down to its own floor; use slows forgetting.

score = importance × (floor + (1 − floor) × e^(−rate × days since last use)), where the rate
is divided by 1 + 0.5 × recalls (each recall is a review) and "last use" is the latest recall
or change. Identity never decays; preferences, skills and relationships decay slowly and keep
half their weight; decisions decay over months; facts over weeks; to-dos and context over days.
A core memory whose score falls below `archive_threshold` moves to the archive (still
searchable, and later compressed into a monthly summary). Summaries and the profile are exempt.
"""

import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from cortex_mcp.clock import to_text
from cortex_mcp.engine.lifecycle.plan import After, Before, Change, Row, State, expecting
from cortex_mcp.models import Category, Layer, Memory


@dataclass(frozen=True)
class Curve:
    """How fast a category is forgotten (per day) and the share of importance it always keeps."""

    rate_per_day: float
    floor: float


CURVES: dict[Category, Curve] = {
    Category.IDENTITY: Curve(0.0, 1.0),
    Category.PREFERENCE: Curve(0.002, 0.5),
    Category.RULE: Curve(0.002, 0.5),
    Category.SKILL: Curve(0.002, 0.5),
    Category.RELATIONSHIP: Curve(0.002, 0.4),
    Category.DECISION: Curve(0.004, 0.3),
    Category.CORRECTION: Curve(0.004, 0.3),
    Category.INSIGHT: Curve(0.008, 0.2),
    Category.PROJECT_STATE: Curve(0.012, 0.1),
    Category.FACT: Curve(0.023, 0.1),
    Category.TODO: Curve(0.099, 0.0),
    Category.CONTEXT: Curve(0.099, 0.0),
}
"""Half-lives: preference ~350 d, decision ~175 d, fact ~30 d, todo/context ~7 d."""
EXEMPT = frozenset({Category.SUMMARY, Category.PROFILE})
RECALL_REVIEW = 0.5
MAX_COUNTED_RECALLS = 20
SCORE_CHANGE_WORTH_WRITING = 0.005


def decay_score(memory: Row | Memory, now: datetime) -> float:
    """The memory's current weight by its category's curve, recency and recalls."""
    curve = CURVES.get(memory.category, CURVES[Category.FACT])
    last_use = max(memory.last_accessed or memory.updated_at, memory.updated_at)
    days = max(0.0, (now - last_use).total_seconds() / 86400)
    reviews = 1 + RECALL_REVIEW * min(memory.access_count, MAX_COUNTED_RECALLS)
    retention = math.exp(-curve.rate_per_day / reviews * days)
    return round(memory.importance * (curve.floor + (1 - curve.floor) * retention), 4)


def plan_decay(state: State, threshold: float) -> tuple[list[Change], list[tuple[str, float]]]:
    """Archive core memories that decayed below `threshold`; every changed score to record."""
    changes: list[Change] = []
    scores: list[tuple[str, float]] = []
    for memory in state.in_layer(Layer.CORE):
        if memory.category in EXEMPT:
            continue
        score = decay_score(memory, state.now)
        curve = CURVES.get(memory.category, CURVES[Category.FACT])
        if score < threshold and curve.rate_per_day > 0:
            _, edit = state.changed(
                memory, _archived(to_text(state.now)), layer=Layer.ARCHIVE, decay_score=score
            )
            changes.append(
                Change(
                    action="archive",
                    expect=expecting(memory),
                    updates=[edit],
                    details={
                        "score": score,
                        "before": Before(memory.id),
                        "after": After(memory.id),
                    },
                )
            )
        elif abs(score - memory.decay_score) >= SCORE_CHANGE_WORTH_WRITING:
            scores.append((memory.id, score))
    return changes, scores


def _archived(stamp: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def archived(metadata: dict[str, Any]) -> dict[str, Any]:
        return metadata | {"archived_at": stamp, "archived_from": "core"}

    return archived
