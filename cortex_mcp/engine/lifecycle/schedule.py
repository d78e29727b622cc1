"""When the lifecycle runs: a cron schedule, caught up on start, one process at a time.

`is_due` is pure: a run is due when the schedule fired after the last successful run started
(or there never was one), so a server that was asleep at 03:00 runs once when it wakes or
starts. `LifecycleScheduler.tick` runs it when due and this process can take the lease;
`run` ticks until cancelled, sleeping until the next fire time (at most `poll_interval_s`,
so a suspended laptop or a changed clock is noticed).
"""

import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta, tzinfo
from zoneinfo import ZoneInfo

import anyio
from croniter import croniter

from cortex_mcp.engine.lease import Lease, LifecycleBusy
from cortex_mcp.engine.lifecycle.report import LifecycleReport
from cortex_mcp.engine.lifecycle.run import run_holding
from cortex_mcp.engine.runtime import Runtime
from cortex_mcp.store import lifecycle as store

logger = logging.getLogger(__name__)


def zone(name: str, now: datetime) -> tzinfo:
    """The time zone a schedule is read in: `local` is the system's offset at `now`."""
    if name == "local":
        local = now.astimezone().tzinfo
        return local if local is not None else UTC
    return UTC if name == "UTC" else ZoneInfo(name)


def previous_fire(cron: str, now: datetime, where: tzinfo = UTC) -> datetime:
    """The latest time at or before `now` the schedule fired."""
    moment = now.astimezone(where) + timedelta(microseconds=1)
    fired: datetime = croniter(cron, moment).get_prev(datetime)
    return fired.astimezone(UTC)


def next_fire(cron: str, now: datetime, where: tzinfo = UTC) -> datetime:
    """The first time after `now` the schedule fires."""
    fires: datetime = croniter(cron, now.astimezone(where)).get_next(datetime)
    return fires.astimezone(UTC)


def is_due(cron: str, last_success: datetime | None, now: datetime, where: tzinfo = UTC) -> bool:
    """True when the schedule fired since the last successful run started, or none ever ran."""
    return last_success is None or last_success < previous_fire(cron, now, where)


class LifecycleScheduler:
    """The background task that runs the lifecycle on its schedule."""

    def __init__(
        self, rt: Runtime, sleep: Callable[[float], Awaitable[None]] = anyio.sleep
    ) -> None:
        self.rt = rt
        self.sleep = sleep
        self.settings = rt.settings.lifecycle

    async def due(self) -> bool:
        """Whether a run is due now."""
        async with self.rt.db.read() as conn:
            last = await store.last_successful_start(conn)
        now = self.rt.clock()
        return is_due(self.settings.schedule, last, now, zone(self.settings.timezone, now))

    async def tick(self) -> LifecycleReport | None:
        """Run the lifecycle if it is due and no other process is running it; its report.

        Due is checked again once the lease is held: another process may have just finished.
        """
        if not await self.due():
            return None
        lease = Lease(self.rt)
        try:
            await lease.take()
        except LifecycleBusy:
            return None  # another process runs it, and records the run for all of us
        try:
            return await run_holding(self.rt, lease) if await self.due() else None
        finally:
            await lease.release()

    def wait_s(self) -> float:
        """Seconds until the next check: the next fire time, or the poll interval if sooner."""
        now = self.rt.clock()
        fires = next_fire(self.settings.schedule, now, zone(self.settings.timezone, now))
        return max(1.0, min((fires - now).total_seconds(), self.settings.poll_interval_s))

    async def run(self) -> None:
        """Tick forever, the first time (the catch-up) `startup_delay_s` after start; cancel
        to stop."""
        if not self.settings.enabled:
            return
        await self.sleep(self.settings.startup_delay_s)  # start-up stays fast
        while True:
            try:
                await self.tick()
            except Exception:  # the top of a background loop: log and try again later
                logger.exception("the lifecycle run failed")
            await self.sleep(self.wait_s())
