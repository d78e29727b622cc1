"""The lifecycle engine: memory stays small and sharp over months, and nothing is ever lost.

Phases, in order: working memories are promoted to core or, once expired, archived (promote);
near-duplicate core memories merge (merge); core memories decay by category and fall to the
archive (decay); archive months past their TTL compress into core summaries (compress); the
user profile is re-synthesized when its memories changed (profile); the Markdown mirror is
rewritten (mirror). `run_lifecycle` runs them (or previews them), `LifecycleScheduler` runs
them on the cron schedule in one process at a time, `MirrorWriter` keeps the mirror fresh
between runs.
"""

from typing import TYPE_CHECKING, Any

from cortex_mcp.clock import to_text
from cortex_mcp.engine.duplicates import check_content
from cortex_mcp.engine.lifecycle.lease import LeaseLost, LifecycleBusy
from cortex_mcp.engine.lifecycle.mirror import (
    archive_page,
    memory_md_page,
    working_page,
    write_mirror,
)
from cortex_mcp.engine.lifecycle.plan import State
from cortex_mcp.engine.lifecycle.profile import manual_part, new_profile, profile_text
from cortex_mcp.engine.lifecycle.refresh import concerns_profile, refresh_profile
from cortex_mcp.engine.lifecycle.report import LifecycleReport
from cortex_mcp.engine.lifecycle.run import plan_lifecycle, run_lifecycle
from cortex_mcp.engine.lifecycle.schedule import LifecycleScheduler, is_due, next_fire, zone
from cortex_mcp.engine.lifecycle.writer import MirrorWriter
from cortex_mcp.errors import InvalidInput
from cortex_mcp.models import Category, Layer, Memory, new_memory_id
from cortex_mcp.store import lifecycle as store
from cortex_mcp.store import memories as rows
from cortex_mcp.store.logs import log_action

if TYPE_CHECKING:
    from cortex_mcp.engine import Engine

__all__ = [
    "LeaseLost",
    "LifecycleBusy",
    "LifecycleReport",
    "LifecycleScheduler",
    "MirrorWriter",
    "archive_page",
    "concerns_profile",
    "is_due",
    "lifecycle_log",
    "lifecycle_status",
    "memory_md_page",
    "plan_lifecycle",
    "refresh_profile",
    "run_lifecycle",
    "set_manual_profile",
    "working_page",
    "write_mirror",
]


async def lifecycle_log(engine: "Engine", limit: int = 10) -> list[dict[str, Any]]:
    """The latest lifecycle runs, newest first, with their reports (cortex://lifecycle/log)."""
    async with engine.db.read() as conn:
        return await store.recent_runs(conn, limit)


async def lifecycle_status(engine: "Engine") -> dict[str, Any]:
    """When the lifecycle last ran and runs next, and who holds its lease (for stats)."""
    async with engine.db.read() as conn:
        last = await store.last_successful_start(conn)
        holder = await store.lease_holder(conn)
    settings, now = engine.settings.lifecycle, engine.clock()
    return {
        "enabled": settings.enabled,
        "schedule": settings.schedule,
        "last_successful_run": to_text(last) if last else None,
        "next_run": to_text(next_fire(settings.schedule, now, zone(settings.timezone, now))),
        "running": holder is not None and holder[1] > now,
    }


async def set_manual_profile(engine: "Engine", content: str, agent_id: str | None = None) -> Memory:
    """Write the user's own words into the profile; they survive every re-synthesis.

    Empty content removes the manual part and keeps the synthesized one.
    """
    agent, now = engine.agent(agent_id), engine.clock()
    manual = check_content(content, engine.settings.memory) if content.strip() else None
    async with engine.db.write() as conn:
        found = await rows.live_memories(conn, agent, [Layer.CORE], [Category.PROFILE], limit=1)
        previous = found[0] if found and found[0].agent_id == agent else None
        kept = dict(previous.metadata) if previous else {}
        synthesized = kept.get("synthesized")
        if manual is None and not synthesized:
            raise InvalidInput("content", "is empty and there is no synthesized profile to keep")
        metadata = {k: v for k, v in kept.items() if k != "manual"}
        if manual:
            metadata["manual"] = manual
        text = profile_text(synthesized, manual)
        profile = new_profile(State([], now), agent, text, metadata | {"edited": to_text(now)})
        profile = profile.model_copy(
            update={
                "id": new_memory_id(int(now.timestamp() * 1000)),
                "source": "manual" if manual else "lifecycle",
            }
        )
        await rows.insert_memory(conn, profile)
        if previous is not None:
            await rows.mark_superseded(conn, previous.id, profile.id, now)
        details = {"before": manual_part(previous), "after": manual}
        await log_action(conn, "profile_edit", [profile.id], details, now)
    return profile
