"""What a lifecycle run did, or what a preview says it would do."""

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from cortex_mcp.engine.lifecycle.plan import Change

BRIEF_IDS = 10


class MergeReport(BaseModel):
    """Memories merged into one; `by` is llm (the LLM wrote or chose it) or latest."""

    into: str
    merged: list[str]
    by: str


class CompressReport(BaseModel):
    """A month of archive entries compressed into a core summary."""

    summary_id: str
    agent_id: str | None
    period: str
    entries: int
    by: str = Field(description="llm | extractive")


class ProfileReport(BaseModel):
    """A re-synthesized user profile."""

    agent_id: str
    profile_id: str
    by: str = Field(description="llm | plain")


class LifecycleReport(BaseModel):
    """Every change of one run (or preview), by phase, with the ids it touched."""

    dry_run: bool
    started_at: datetime
    duration_ms: float = 0.0
    promoted: list[str] = Field(default_factory=list, description="Working → core.")
    promotion_deferred: list[str] = Field(
        default_factory=list,
        description="Worth promoting, left for the next run: over the per-run cap.",
    )
    expired: list[str] = Field(default_factory=list, description="Working → archive (TTL).")
    merged: list[MergeReport] = Field(default_factory=list)
    merges_refused: list[str] = Field(
        default_factory=list,
        description="Memories an LLM called the same as others that name a different person, "
        "thing or number: kept apart.",
    )
    archived: list[str] = Field(default_factory=list, description="Core → archive (decay).")
    compressed: list[CompressReport] = Field(default_factory=list)
    profiles: list[ProfileReport] = Field(default_factory=list)
    decay_scores_updated: int = 0
    merge_pairs_examined: int = 0
    llm_calls: int = 0
    mirror: list[str] = Field(default_factory=list, description="Markdown pages (re)written.")
    skipped: list[str] = Field(
        default_factory=list, description="Changes skipped: their memories changed meanwhile."
    )

    def outcome(self) -> dict[str, Any]:
        """Everything but when and how long: equal for a preview and the run that follows."""
        return self.model_dump(mode="json", exclude={"dry_run", "started_at", "duration_ms"})

    def brief(self) -> dict[str, Any]:
        """Counts per phase and the first ids of each, small enough for a tool result."""
        return {
            "dry_run": self.dry_run,
            "duration_ms": round(self.duration_ms, 1),
            "promoted": _some(self.promoted),
            "promotion_deferred": _some(self.promotion_deferred),
            "expired": _some(self.expired),
            "merged": _some([m.model_dump() for m in self.merged]),
            "merges_refused": _some(self.merges_refused),
            "archived": _some(self.archived),
            "compressed": _some([c.model_dump() for c in self.compressed]),
            "profiles": [p.model_dump() for p in self.profiles],
            "decay_scores_updated": self.decay_scores_updated,
            "llm_calls": self.llm_calls,
            "mirror": _some(self.mirror),
            "skipped": _some(self.skipped),
        }


def _some(items: list[Any]) -> dict[str, Any]:
    return {"count": len(items), "first": items[:BRIEF_IDS]}


def record(report: LifecycleReport, change: Change) -> None:
    """Add one planned change to the report of its phase."""
    details, ids = change.details, list(change.expect)
    if change.action == "promote":
        report.promoted += ids
    elif change.action == "defer_promotion":
        report.promotion_deferred += ids
    elif change.action == "expire":
        report.expired += ids
    elif change.action == "archive":
        report.archived += ids
    elif change.action == "merge":
        report.merged.append(
            MergeReport(into=details["into"], merged=details["merged"], by=details["by"])
        )
        report.merges_refused += details.get("refused", [])
    elif change.action == "merge_refused":
        report.merges_refused += details["refused"]
    elif change.action == "compress":
        summary = change.inserts[0]
        report.compressed.append(
            CompressReport(
                summary_id=summary.id,
                agent_id=summary.agent_id,
                period=details["period"],
                entries=len(details["entries"]),
                by=details["by"],
            )
        )
    elif change.action == "profile":
        profile = change.inserts[0]
        report.profiles.append(
            ProfileReport(agent_id=details["agent_id"], profile_id=profile.id, by=details["by"])
        )
