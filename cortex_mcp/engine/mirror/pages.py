"""The mirror's pages, rendered from the database: for the default agent, with shared memories,
`MEMORY.md` in the data directory (and at `mirror.extra_memory_md` when configured),
`memory/working/YYYY-MM-DD.md`, `memory/archive/YYYY-MM.md` and `memory/relations.md`; and the
same pages one at a time for the resources."""

import re
from collections import defaultdict
from collections.abc import Iterable
from datetime import date
from pathlib import Path

from cortex_mcp.config import MirrorSettings
from cortex_mcp.engine.render import pages as render
from cortex_mcp.engine.runtime import Runtime
from cortex_mcp.errors import InvalidInput
from cortex_mcp.models import Category, Layer, Memory
from cortex_mcp.store import lifecycle as store
from cortex_mcp.store import memories as rows
from cortex_mcp.store.db import Connection
from cortex_mcp.store.relations import relations_of
from cortex_mcp.store.working_days import working_day_marks

ALL = 10_000_000
DAYS_PER_READ = 7
"""Working days read per transaction: a week holds the connection briefly even at 100,000
memories, and few transactions are needed for a whole rebuild."""
MONTH = re.compile(r"\d{4}-(0[1-9]|1[0-2])")
MEMORY_MD_CATEGORIES: list[Category] = [c for c in Category if c != Category.PROFILE]


def page_paths(home: Path) -> tuple[Path, Path, Path]:
    """(MEMORY.md, the working-day folder, the archive-month folder)."""
    return home / "MEMORY.md", home / "memory" / "working", home / "memory" / "archive"


async def mirror_pages(
    rt: Runtime, archive: bool = True, days: Iterable[str] | None = None
) -> dict[Path, str]:
    """The pages of the mirror, rendered from the database; without `archive`, only those
    everyday changes touch (MEMORY.md, working days, relations); `days`: only these working
    days (default: every day with live working memories). Only the memories MEMORY.md can
    show, one working day and one archive month at a time are read, each in a read of its
    own, so a large store never holds the connection (and the tool calls waiting for it)
    for long."""
    agent, settings = rt.settings.memory.default_agent_id, rt.settings
    memory_md, working_dir, archive_dir = page_paths(settings.home)
    async with rt.db.read() as conn:
        text = await _memory_md(conn, agent, settings.mirror, settings.workspace.core_tokens)
        live = [r for r in await relations_of(conn, agent) if r.live]
    if days is None:
        days = await working_day_marks(rt.db, agent)
    relations = render.render_relations(live)
    pages = await _archive_pages(rt, agent, archive_dir) if archive else {}
    pages |= {memory_md: text, settings.home / "memory" / "relations.md": relations}
    if settings.mirror.extra_memory_md is not None:
        pages[settings.mirror.extra_memory_md] = text
    ordered = sorted(days)
    for start in range(0, len(ordered), DAYS_PER_READ):
        async with rt.db.read() as conn:
            read = {
                day: await store.live_created_in(conn, agent, Layer.WORKING, day)
                for day in ordered[start : start + DAYS_PER_READ]
            }
        for day, memories in read.items():
            if memories:
                pages[working_dir / f"{day}.md"] = render.render_working_day(day, memories)
    return pages


async def _memory_md(conn: Connection, agent: str, mirror: MirrorSettings, core_tokens: int) -> str:
    """MEMORY.md of an agent, reading only the core memories that could fit in it (the same
    page cortex://core and the cortex_context prompt show, within `core_tokens`)."""
    limit = mirror.max_lines + 1  # every entry takes a line at least
    core = await rows.weightiest_core(conn, agent, MEMORY_MD_CATEGORIES, limit)
    total = await store.count_live(conn, agent, Layer.CORE, MEMORY_MD_CATEGORIES)
    return render.render_memory_md(core, mirror.max_lines, mirror.max_bytes, total, core_tokens)


async def memory_md_page(rt: Runtime, agent_id: str | None = None) -> str:
    """An agent's MEMORY.md as the mirror writes it (for cortex://core)."""
    settings = rt.settings
    async with rt.db.read() as conn:
        return await _memory_md(
            conn, rt.agent(agent_id), settings.mirror, settings.workspace.core_tokens
        )


async def _archive_pages(rt: Runtime, agent: str, archive_dir: Path) -> dict[Path, str]:
    """One page per month with archive entries or a summary, read a month at a time."""
    async with rt.db.read() as conn:
        summaries = _summaries_by_period(
            await rows.live_memories(conn, agent, [Layer.CORE], [Category.SUMMARY], limit=ALL)
        )
        months = await store.archive_months(conn, agent)
    pages = {}
    for period in sorted(set(months) | set(summaries)):
        async with rt.db.read() as conn:
            entries = await store.live_created_in(conn, agent, Layer.ARCHIVE, period)
        pages[archive_dir / f"{period}.md"] = render.render_archive_month(
            period, entries, summaries.get(period, [])
        )
    return pages


def _summaries_by_period(core: list[Memory]) -> dict[str, list[Memory]]:
    groups: dict[str, list[Memory]] = defaultdict(list)
    for memory in core:
        if memory.category == Category.SUMMARY and memory.metadata.get("period"):
            groups[str(memory.metadata["period"])].append(memory)
    return groups


async def working_page(rt: Runtime, day: str, agent_id: str | None = None) -> str:
    """One day of working memory as Markdown (cortex://working/{date})."""
    try:
        date.fromisoformat(day)
    except ValueError as err:
        raise InvalidInput("date", "must be a day as YYYY-MM-DD") from err
    async with rt.db.read() as conn:
        found = await store.live_created_in(conn, rt.agent(agent_id), Layer.WORKING, day)
    return render.render_working_day(day, found)


async def archive_page(rt: Runtime, month: str, agent_id: str | None = None) -> str:
    """One month of the archive with its summary as Markdown (cortex://archive/{month})."""
    if not MONTH.fullmatch(month):
        raise InvalidInput("month", "must be a month as YYYY-MM")
    agent = rt.agent(agent_id)
    async with rt.db.read() as conn:
        entries = await store.live_created_in(conn, agent, Layer.ARCHIVE, month)
        core = await rows.live_memories(conn, agent, [Layer.CORE], [Category.SUMMARY], limit=ALL)
    summaries = _summaries_by_period(core).get(month, [])
    return render.render_archive_month(month, entries, summaries)
