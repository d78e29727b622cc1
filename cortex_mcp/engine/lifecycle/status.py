"""What the lifecycle did and will do: its latest runs (cortex://lifecycle/log) and its
schedule and lease (stats, the browser)."""

from typing import Any

from cortex_mcp.clock import to_text
from cortex_mcp.engine.lifecycle.schedule import next_fire, zone
from cortex_mcp.engine.runtime import Runtime
from cortex_mcp.store import lifecycle as store


async def lifecycle_log(rt: Runtime, limit: int = 10) -> list[dict[str, Any]]:
    """The latest lifecycle runs, newest first, with their reports (cortex://lifecycle/log)."""
    async with rt.db.read() as conn:
        return await store.recent_runs(conn, limit)


async def lifecycle_status(rt: Runtime) -> dict[str, Any]:
    """When the lifecycle last ran and runs next, and who holds its lease (for stats)."""
    async with rt.db.read() as conn:
        last = await store.last_successful_start(conn)
        holder = await store.lease_holder(conn)
    settings, now = rt.settings.lifecycle, rt.clock()
    return {
        "enabled": settings.enabled,
        "schedule": settings.schedule,
        "last_successful_run": to_text(last) if last else None,
        "next_run": to_text(next_fire(settings.schedule, now, zone(settings.timezone, now))),
        "running": holder is not None and holder[1] > now,
    }
