"""LoCoMo conversations as turns and questions, and the evidence-recall metrics of bench/locomo.py.

The data format is described in ../shared/bench/README.md. A few evidence ids in the file are
malformed ("D8:6; D9:17", "D:11:26") and are repaired; ids that name no turn of the
conversation are dropped, and questions left without evidence are skipped.
"""

import json
import re
import statistics
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
HEADLINE = (1, 2, 3, 4)
KS = (1, 5, 10)
_SESSION = re.compile(r"session_(\d+)$")


@dataclass(frozen=True)
class Turn:
    """One dialog turn: who said what, when, and the turn before it in the same session."""

    dia_id: str
    session: int
    speaker: str
    text: str
    said_at: datetime
    caption: str | None
    previous: "Turn | None"
    following_text: str | None

    @property
    def line(self) -> str:
        """The memory content: "speaker: text"."""
        return f"{self.speaker}: {self.text}"


@dataclass(frozen=True)
class Question:
    """A question with the dialog ids that hold its answer."""

    text: str
    category: int
    evidence: tuple[str, ...]


@dataclass(frozen=True)
class Sample:
    """One conversation with its questions."""

    sample_id: str
    turns: list[Turn]
    questions: list[Question]
    dropped_evidence: int


def session_time(raw: str) -> datetime:
    """'1:56 pm on 8 May, 2023' as a UTC datetime."""
    return datetime.strptime(raw.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def _turns(conversation: dict[str, Any]) -> list[Turn]:
    sessions = sorted(
        int(m.group(1)) for key in conversation if (m := _SESSION.match(key)) is not None
    )
    turns: list[Turn] = []
    for number in sessions:
        raw = conversation[f"session_{number}"]
        when = session_time(conversation[f"session_{number}_date_time"])
        previous: Turn | None = None
        for index, item in enumerate(raw):
            after = raw[index + 1] if index + 1 < len(raw) else None
            turn = Turn(
                dia_id=item["dia_id"],
                session=number,
                speaker=item["speaker"],
                text=item["text"],
                said_at=when,
                caption=item.get("blip_caption"),
                previous=previous,
                following_text=f"{after['speaker']}: {after['text']}" if after else None,
            )
            turns.append(turn)
            previous = turn
    return turns


def _evidence(raw: Iterable[str], known: set[str]) -> tuple[tuple[str, ...], int]:
    ids: list[str] = []
    for item in raw:
        for part in item.split(";"):
            dia_id = part.strip().replace("D:", "D")
            if dia_id:
                ids.append(dia_id)
    kept = tuple(dict.fromkeys(i for i in ids if i in known))
    return kept, len(set(ids)) - len(kept)


def load_samples(path: Path, only: set[str] | None = None) -> list[Sample]:
    """The conversations of the file (or those named in `only`), in file order."""
    samples: list[Sample] = []
    for raw in json.loads(path.read_text(encoding="utf-8")):
        if only and raw["sample_id"] not in only:
            continue
        turns = _turns(raw["conversation"])
        known = {t.dia_id for t in turns}
        questions: list[Question] = []
        dropped = 0
        for qa in raw["qa"]:
            evidence, lost = _evidence(qa.get("evidence", []), known)
            dropped += lost
            if evidence:
                questions.append(Question(qa["question"], int(qa["category"]), evidence))
        samples.append(Sample(raw["sample_id"], turns, questions, dropped))
    return samples


@dataclass(frozen=True)
class Outcome:
    """What one recall returned for one question: dialog ids per returned memory, in order."""

    question: Question
    ranked: list[list[str]]


def recall_at(outcome: Outcome, k: int) -> float:
    """Share of the question's evidence found among the first k memories."""
    found = {dia_id for ids in outcome.ranked[:k] for dia_id in ids}
    return len(found & set(outcome.question.evidence)) / len(outcome.question.evidence)


def reciprocal_rank(outcome: Outcome) -> float:
    """1 / rank of the first memory holding any evidence; 0 when none was returned."""
    evidence = set(outcome.question.evidence)
    for rank, ids in enumerate(outcome.ranked, start=1):
        if evidence & set(ids):
            return 1 / rank
    return 0.0


def scores(outcomes: list[Outcome]) -> dict[str, Any]:
    """recall@1/5/10, hit@10 and MRR over a list of outcomes."""
    if not outcomes:
        return {"questions": 0}
    result: dict[str, Any] = {"questions": len(outcomes)}
    for k in KS:
        result[f"recall@{k}"] = round(statistics.fmean(recall_at(o, k) for o in outcomes), 4)
    result["hit@10"] = round(statistics.fmean(recall_at(o, 10) > 0 for o in outcomes), 4)
    result["mrr"] = round(statistics.fmean(reciprocal_rank(o) for o in outcomes), 4)
    return result


def report(outcomes: list[Outcome]) -> dict[str, Any]:
    """Scores per category, for categories 1-4 together (the headline) and for all."""
    by_category = {
        f"{number} {name}": scores([o for o in outcomes if o.question.category == number])
        for number, name in CATEGORIES.items()
    }
    return {
        "headline (1-4)": scores([o for o in outcomes if o.question.category in HEADLINE]),
        **by_category,
        "all (1-5)": scores(outcomes),
    }


def latency(samples_ms: list[float]) -> dict[str, float]:
    """Mean, p50 and p95 of durations in milliseconds."""
    if not samples_ms:
        return {}
    ordered = sorted(samples_ms)
    cuts = statistics.quantiles(ordered, n=100, method="inclusive") if len(ordered) > 1 else []
    return {
        "mean": round(statistics.fmean(ordered), 2),
        "p50": round(statistics.median(ordered), 2),
        "p95": round(cuts[94] if cuts else ordered[0], 2),
    }
