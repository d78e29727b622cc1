"""Working memory: promote what earned it to core; move what expired unpromoted to the archive.

A working memory is judged once it is `promote_min_age_hours` old (so recalls can count) or
when it expires. Its promotion score weighs importance, how often it was recalled or restated
(seed 004: a fact extracted twice counts), whether it came from a high-signal channel or
category, and how new it is next to core memory. One run promotes at most
`promote_max_per_run` per agent, best first; the rest stay in working (even past their expiry)
and the report names them. Nothing is deleted: an expired memory that was not promoted moves to
the archive.
"""

from collections import Counter
from datetime import datetime, timedelta
from typing import Any

from cortex_mcp.clock import to_text
from cortex_mcp.config import LifecycleSettings
from cortex_mcp.engine.lifecycle.plan import After, Before, Change, Row, State, expecting
from cortex_mcp.engine.lifecycle.similarity import NeighbourIndex
from cortex_mcp.models import Category, Layer

HIGH_SIGNAL_CATEGORIES = frozenset(
    {Category.IDENTITY, Category.PREFERENCE, Category.DECISION, Category.CORRECTION}
)
NOT_PROMOTED_CHANNELS = frozenset({"fallback"})
"""Raw text kept while its extraction is retried; the retry promotes what it extracts."""
RECALLS_FOR_FULL_CREDIT = 3


def signal_of(memory: Row) -> float:
    """1 for a memory the fast channel caught (a stated identity, preference, ...); 0.6 for a
    high-signal category from the deep channel; else 0."""
    if memory.channel == "fast" or memory.signal:
        return 1.0
    return 0.6 if memory.category in HIGH_SIGNAL_CATEGORIES else 0.0


def restatements(memory: Row) -> int:
    """How many times the fact was stated again after the first (`mentions` - 1)."""
    return max(0, int(memory.mentions) - 1)


def promotion_score(memory: Row, novelty: float) -> float:
    """0.35 importance + 0.25 recalls and restatements + 0.2 signal + 0.2 novelty, in [0, 1]."""
    uses = memory.access_count + restatements(memory)
    recalls = min(1.0, uses / RECALLS_FOR_FULL_CREDIT)
    score = 0.35 * memory.importance + 0.25 * recalls + 0.2 * signal_of(memory) + 0.2 * novelty
    return round(score, 4)


def is_judged(memory: Row, now: datetime, min_age: timedelta) -> bool:
    """Old enough to judge, or expired (judged one last time before it leaves)."""
    expired = memory.expires_at is not None and memory.expires_at <= now
    return expired or memory.created_at <= now - min_age


def plan_working(state: State, settings: LifecycleSettings) -> list[Change]:
    """Promote working memories that score high enough; archive the expired rest."""
    now = state.now
    core = state.in_layer(Layer.CORE)
    working = sorted(state.in_layer(Layer.WORKING), key=lambda m: (m.created_at, m.id))
    core_sets = [state.terms(m) for m in core]
    frequency = Counter(t for m in [*core, *working] for t in state.terms(m))
    novelty_index = NeighbourIndex(core_sets, frequency)
    min_age = timedelta(hours=settings.promote_min_age_hours)
    changes: list[Change] = []
    worthy: list[tuple[float, Row]] = []
    for memory in working:
        if not is_judged(memory, now, min_age):
            continue
        novelty = 1.0 - novelty_index.best(frozenset(state.terms(memory)))
        score = promotion_score(memory, novelty)
        promotable = memory.channel not in NOT_PROMOTED_CHANNELS
        if promotable and score >= settings.promote_threshold:
            worthy.append((score, memory))
        elif memory.expires_at is not None and memory.expires_at <= now:
            changes.append(_move(state, memory, Layer.ARCHIVE, "expire", score))
    promoted: Counter[str | None] = Counter()
    for score, memory in sorted(worthy, key=lambda item: (-item[0], item[1].created_at)):
        if promoted[memory.agent_id] < settings.promote_max_per_run:
            promoted[memory.agent_id] += 1
            changes.append(_move(state, memory, Layer.CORE, "promote", score))
        else:
            changes.append(_deferred(memory, score))
    return changes


def _deferred(memory: Row, score: float) -> Change:
    """Worth promoting but over this run's cap: left in working for the next run."""
    return Change(action="defer_promotion", expect=expecting(memory), details={"score": score})


def _move(state: State, memory: Row, layer: Layer, action: str, score: float) -> Change:
    stamp = to_text(state.now)
    if layer == Layer.CORE:

        def promoted(metadata: dict[str, Any]) -> dict[str, Any]:
            return metadata | {"promoted_at": stamp, "promotion_score": score}

        _, edit = state.changed(memory, promoted, layer=layer, expires_at=None)
    else:

        def archived(metadata: dict[str, Any]) -> dict[str, Any]:
            return metadata | {"archived_at": stamp, "archived_from": "working"}

        _, edit = state.changed(memory, archived, layer=layer)
    return Change(
        action=action,
        expect=expecting(memory),
        updates=[edit],
        details={"score": score, "before": Before(memory.id), "after": After(memory.id)},
    )
