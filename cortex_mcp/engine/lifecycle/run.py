"""One lifecycle run: plan every phase on a snapshot, then apply under the lease, then mirror.

Planning reads once and asks the LLM outside any transaction; a preview stops there and
reports the plan, so a preview and the run after it report the same changes. A run holds the
lease from before planning until it has recorded how it ended.
"""

import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial

import anyio

from cortex_mcp.clock import to_text
from cortex_mcp.engine.lease import Lease
from cortex_mcp.engine.lifecycle.apply import apply_changes, apply_scores
from cortex_mcp.engine.lifecycle.compress import plan_compression, ttl_cutoff
from cortex_mcp.engine.lifecycle.decay import plan_decay
from cortex_mcp.engine.lifecycle.merge import plan_merges
from cortex_mcp.engine.lifecycle.paraphrases import close_in_meaning
from cortex_mcp.engine.lifecycle.plan import Change, State
from cortex_mcp.engine.lifecycle.profile import plan_profiles
from cortex_mcp.engine.lifecycle.promote import plan_working
from cortex_mcp.engine.lifecycle.refresh import refresh_profile
from cortex_mcp.engine.lifecycle.report import LifecycleReport, record
from cortex_mcp.engine.llm import Ask
from cortex_mcp.engine.mirror.pages import page_paths
from cortex_mcp.engine.mirror.write import shown, write_mirror
from cortex_mcp.engine.runtime import Runtime
from cortex_mcp.models import Category, Layer, Memory
from cortex_mcp.store import lifecycle as store
from cortex_mcp.store import slim
from cortex_mcp.store.db import Connection
from cortex_mcp.store.memories import memories_by_id
from cortex_mcp.store.slim import SlimMemory

logger = logging.getLogger(__name__)


@dataclass
class Plan:
    """Every change a run would make, in order, and what the report needs besides."""

    changes: list[Change]
    scores: list[tuple[str, float]]
    pairs_examined: int
    state: State
    periods: dict[tuple[str | None, str], int]
    llm_calls: list[int] = field(default_factory=lambda: [0])


def counting(ask: Ask | None, calls: list[int]) -> Ask | None:
    """`ask`, counting its calls in `calls[0]`."""
    if ask is None:
        return None
    inner = ask

    async def counted(system: str, prompt: str) -> str | None:
        calls[0] += 1
        return await inner(system, prompt)

    return counted


async def plan_lifecycle(rt: Runtime, ask: Ask | None, now: datetime) -> Plan:
    """Plan every phase in order on the live memories as slim rows; writes nothing."""
    settings = rt.settings.lifecycle
    calls = [0]
    ask = counting(ask, calls)
    live = await _slim_pages(rt, lambda conn, after: slim.live_slim_page(conn, LIVE, after))
    cutoff = to_text(ttl_cutoff(now, settings))
    expired = await _slim_pages(
        rt, lambda conn, after: slim.expired_archive_page(conn, cutoff, after)
    )
    async with rt.db.read() as conn:
        periods = await store.archive_periods(conn)
    state = State(live, now, full=partial(_full_rows, rt), texts=partial(_texts, rt))
    del live
    await state.read_terms(list(state.items))
    changes = plan_working(state, settings)
    close = await close_in_meaning(rt, state)  # paraphrase candidates, from the vectors
    merges, examined = await plan_merges(
        state, settings, ask, rt.settings.memory.max_content_chars, close=close
    )
    state.forget_terms()
    decays, scores = plan_decay(state, settings.archive_threshold)
    compressions = await plan_compression(state, expired, settings, ask)
    agent = rt.settings.memory.default_agent_id
    profiles = await plan_profiles(state, agent, settings.profile_max_memories, ask)
    changes += merges + decays + compressions + profiles
    return Plan(changes, scores, examined, state, periods, calls)


LIVE = [Layer.WORKING, Layer.CORE]
Page = Callable[[Connection, int], Awaitable[tuple[list[SlimMemory], int]]]


async def _slim_pages(rt: Runtime, page: Page) -> list[SlimMemory]:
    """Every slim row `page` reads, a page per read transaction."""
    rows: list[SlimMemory] = []
    after = 0
    while True:
        async with rt.db.read() as conn:
            found, after = await page(conn, after)
        if not found:
            return rows
        rows += found


async def _full_rows(rt: Runtime, ids: list[str]) -> dict[str, Memory]:
    async with rt.db.read() as conn:
        return await memories_by_id(conn, ids)


async def _texts(rt: Runtime, ids: list[str]) -> dict[str, str]:
    async with rt.db.read() as conn:
        return await slim.contents_of(conn, ids)


def planned_pages(rt: Runtime, plan: Plan) -> list[str]:
    """The mirror pages a run of this plan would write (for a preview)."""
    home, agent = rt.settings.home, rt.settings.memory.default_agent_id
    if not rt.settings.mirror.enabled:
        return []
    memory_md, working_dir, archive_dir = page_paths(home)
    visible = [m for m in plan.state.items.values() if m.agent_id in (agent, None)]
    days = {m.created_at.isoformat()[:10] for m in visible if m.layer == Layer.WORKING}
    months = {p for (owner, p), _ in plan.periods.items() if owner in (agent, None)}
    months |= {
        m.created_at.isoformat()[:7] for m in plan.state.archived if m.agent_id in (agent, None)
    }
    months |= {str(m.period) for m in visible if m.category == Category.SUMMARY and m.period}
    pages = [memory_md, home / "memory" / "relations.md"]
    pages += [working_dir / f"{day}.md" for day in days]
    pages += [archive_dir / f"{month}.md" for month in months]
    if rt.settings.mirror.extra_memory_md is not None:
        pages.append(rt.settings.mirror.extra_memory_md)
    return sorted(shown(page, home) for page in pages)


def report_of(plan: Plan, now: datetime, dry_run: bool, skipped: list[Change]) -> LifecycleReport:
    """The report of a plan, leaving out the changes that were skipped."""
    report = LifecycleReport(dry_run=dry_run, started_at=now)
    skipped_ids = {id(change) for change in skipped}
    for change in plan.changes:
        if id(change) not in skipped_ids:
            record(report, change)
    report.skipped = [f"{c.action}: {', '.join(c.expect)}" for c in skipped]
    report.decay_scores_updated = len(plan.scores)
    report.merge_pairs_examined = plan.pairs_examined
    report.llm_calls = plan.llm_calls[0]
    return report


async def run_lifecycle(
    rt: Runtime, *, dry_run: bool = False, owner: str | None = None
) -> LifecycleReport:
    """Run every phase now, or with `dry_run` only report what a run would do.

    A run raises LifecycleBusy when another process (or run) holds the lease.
    """
    if dry_run:
        started, now = time.perf_counter(), rt.clock()
        plan = await plan_lifecycle(rt, rt.llm.decider(), now)
        report = report_of(plan, now, True, [])
        report.mirror = planned_pages(rt, plan)
        report.duration_ms = (time.perf_counter() - started) * 1000
        return report
    lease = Lease(rt, owner)
    await lease.take()
    try:
        return await run_holding(rt, lease)
    finally:
        await lease.release()


async def run_holding(rt: Runtime, lease: Lease) -> LifecycleReport:
    """Run every phase under a lease the caller took (and releases)."""
    return await _run_holding(rt, lease, rt.clock(), time.perf_counter())


async def _run_holding(rt: Runtime, lease: Lease, now: datetime, started: float) -> LifecycleReport:
    async with rt.db.write() as conn:
        run_id = await store.start_run(conn, lease.owner, now)
    try:
        report = await _plan_and_apply(rt, lease, now, run_id)
        if rt.settings.mirror.enabled:
            try:
                report.mirror = await write_mirror(rt)
            except OSError as error:  # the store changed; the mirror is rewritten next time
                logger.warning("the Markdown mirror could not be written: %s", error)
    except BaseException as error:
        cancelled = isinstance(error, anyio.get_cancelled_exc_class())
        await _finish(rt, run_id, "cancelled" if cancelled else "failed", None, repr(error))
        raise
    report.duration_ms = (time.perf_counter() - started) * 1000  # before the log records it
    await _finish(rt, run_id, "ok", report, None)
    return report


async def _plan_and_apply(rt: Runtime, lease: Lease, now: datetime, run_id: int) -> LifecycleReport:
    """Plan, apply, report; the plan (every memory of the run) is freed before the mirror."""
    plan = await plan_lifecycle(rt, lease.renewing(rt.llm.decider()), now)
    skipped = await apply_changes(rt.db, plan.changes, now, lease.fence, {"run_id": run_id})
    await apply_scores(rt.db, plan.scores, lease.fence)
    for change in skipped:
        if change.action == "profile":  # a write replaced the profile since the plan read it:
            # made again from the live memories, or it keeps one this run's merge superseded
            await refresh_profile(rt, str(change.details.get("agent_id")))
    return report_of(plan, now, False, skipped)


async def _finish(
    rt: Runtime, run_id: int, status: str, report: LifecycleReport | None, error: str | None
) -> None:
    with anyio.CancelScope(shield=True):
        async with rt.db.write() as conn:
            await store.finish_run(
                conn, run_id, status, rt.clock(), report.brief() if report else None, error
            )
