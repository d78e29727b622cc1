"""The Markdown mirror on disk: rendered from the database, written atomically, debounced.

Pages (for the default agent, with shared memories): `MEMORY.md` in the data directory (and at
`mirror.extra_memory_md` when configured), `memory/working/YYYY-MM-DD.md`,
`memory/archive/YYYY-MM.md` and `memory/relations.md`. Each file is written to a temporary
file beside it, flushed to disk and renamed over the old one, so a crash leaves the previous
version whole. Dated pages this generator wrote that no longer have memories are removed; the
user's own files never are. What cortex may write over, and what happens to a user's edit, is
decided in `ownership`.
"""

import contextlib
import logging
import os
import re
import tempfile
from collections import defaultdict
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
import anyio.to_thread

from cortex_mcp.config import MirrorSettings
from cortex_mcp.engine.lifecycle import markdown
from cortex_mcp.engine.lifecycle.markdown import is_generated
from cortex_mcp.engine.lifecycle.ownership import (
    HASH_PREFIX,
    OnDisk,
    Verdict,
    back_up,
    block_of,
    digest,
    hash_key,
    is_ours,
    judge_block,
    judge_page,
    read_text,
    remove_temporaries,
    splice,
)
from cortex_mcp.engine.transfer import import_text
from cortex_mcp.errors import CortexError, InvalidInput
from cortex_mcp.models import Category, Layer, Memory
from cortex_mcp.store import lifecycle as store
from cortex_mcp.store import memories as rows
from cortex_mcp.store.db import Connection
from cortex_mcp.store.logs import log_action
from cortex_mcp.store.meta import delete_meta, meta_with_prefix, set_meta
from cortex_mcp.store.relations import relations_of

if TYPE_CHECKING:
    from cortex_mcp.engine import Engine

logger = logging.getLogger(__name__)

TEMP_SUFFIX = ".cortex-tmp"
ALL = 10_000_000
MONTH = re.compile(r"\d{4}-(0[1-9]|1[0-2])")
MEMORY_MD_CATEGORIES: list[Category] = [c for c in Category if c != Category.PROFILE]


def write_atomic(path: Path, text: str) -> None:
    """Replace `path` with `text` all at once: readers see the old file or the new, whole.
    Undecodable bytes read from a user's file (surrogate escapes) are written back as they were."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=TEMP_SUFFIX, dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(text.encode("utf-8", "surrogateescape"))
            file.flush()
            os.fsync(file.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise


def write_pages(pages: dict[Path, str], generated_dirs: list[Path]) -> None:
    """Write every page that changed; drop stale generated pages and crashed temporaries."""
    for path, text in pages.items():
        if not (path.exists() and path.read_text(encoding="utf-8") == text):
            write_atomic(path, text)
    for directory in generated_dirs:
        for leftover in directory.glob(f".*{TEMP_SUFFIX}"):
            leftover.unlink(missing_ok=True)
        for page in directory.glob("*.md"):
            if page not in pages and is_generated(page):
                page.unlink(missing_ok=True)


def page_paths(home: Path) -> tuple[Path, Path, Path]:
    """(MEMORY.md, the working-day folder, the archive-month folder)."""
    return home / "MEMORY.md", home / "memory" / "working", home / "memory" / "archive"


async def mirror_pages(engine: "Engine", archive: bool = True) -> dict[Path, str]:
    """The pages of the mirror, rendered from the database; without `archive`, only those
    everyday changes touch (MEMORY.md, working days, relations). Only the memories MEMORY.md
    can show and one archive month at a time are read, so large stores stay cheap."""
    agent, settings = engine.settings.memory.default_agent_id, engine.settings
    memory_md, working_dir, archive_dir = page_paths(settings.home)
    async with engine.db.read() as conn:
        text = await _memory_md(conn, agent, settings.mirror)
        working = await rows.live_memories(conn, agent, [Layer.WORKING], limit=ALL)
        live = [r for r in await relations_of(conn, agent) if r.live]
        relations = markdown.render_relations(live)
        pages = await _archive_pages(conn, agent, archive_dir) if archive else {}
    pages |= {memory_md: text, settings.home / "memory" / "relations.md": relations}
    if settings.mirror.extra_memory_md is not None:
        pages[settings.mirror.extra_memory_md] = text
    for day, memories in _by_prefix(working, 10).items():
        pages[working_dir / f"{day}.md"] = markdown.render_working_day(day, memories)
    return pages


async def _memory_md(conn: Connection, agent: str, mirror: MirrorSettings) -> str:
    """MEMORY.md of an agent, reading only the core memories that could fit in it."""
    limit = mirror.max_lines + 1  # every entry takes a line at least
    core = await rows.live_memories(conn, agent, [Layer.CORE], MEMORY_MD_CATEGORIES, limit=limit)
    total = await store.count_live(conn, agent, Layer.CORE, MEMORY_MD_CATEGORIES)
    return markdown.render_memory_md(core, mirror.max_lines, mirror.max_bytes, total)


async def memory_md_page(engine: "Engine", agent_id: str | None = None) -> str:
    """An agent's MEMORY.md as the mirror writes it (for cortex://core)."""
    async with engine.db.read() as conn:
        return await _memory_md(conn, engine.agent(agent_id), engine.settings.mirror)


async def _archive_pages(conn: Connection, agent: str, archive_dir: Path) -> dict[Path, str]:
    """One page per month with archive entries or a summary, read a month at a time."""
    summaries = _summaries_by_period(
        await rows.live_memories(conn, agent, [Layer.CORE], [Category.SUMMARY], limit=ALL)
    )
    pages = {}
    for period in sorted(set(await store.archive_months(conn, agent)) | set(summaries)):
        entries = await store.live_created_in(conn, agent, Layer.ARCHIVE, period)
        pages[archive_dir / f"{period}.md"] = markdown.render_archive_month(
            period, entries, summaries.get(period, [])
        )
    return pages


def _by_prefix(memories: list[Memory], length: int) -> dict[str, list[Memory]]:
    """Memories grouped by the day (10) or month (7) they were written."""
    groups: dict[str, list[Memory]] = defaultdict(list)
    for memory in memories:
        groups[memory.created_at.isoformat()[:length]].append(memory)
    return groups


def _summaries_by_period(core: list[Memory]) -> dict[str, list[Memory]]:
    groups: dict[str, list[Memory]] = defaultdict(list)
    for memory in core:
        if memory.category == Category.SUMMARY and memory.metadata.get("period"):
            groups[str(memory.metadata["period"])].append(memory)
    return groups


def shown(path: Path, home: Path) -> str:
    """A page's name in reports: relative to the data directory when inside it."""
    return path.relative_to(home).as_posix() if path.is_relative_to(home) else str(path)


async def write_mirror(engine: "Engine", archive: bool = True) -> list[str]:
    """Regenerate the mirror now (without `archive`, all but the archive months, which change
    only in lifecycle runs); the pages, relative to the data directory. A page the user edited
    is kept (imported and backed up) first; a file of the user's own is never written over.
    One write at a time in a process: two interleaved would take each other's pages for edits."""
    async with engine.mirror_lock:
        return await _write_mirror(engine, archive)


async def _write_mirror(engine: "Engine", archive: bool) -> list[str]:
    home = engine.settings.home
    pages = await mirror_pages(engine, archive)
    async with engine.db.read() as conn:
        hashes = await meta_with_prefix(conn, HASH_PREFIX)
    judged = await anyio.to_thread.run_sync(_judge, engine, pages, hashes)
    edited = {path: disk for path, disk in judged.items() if disk.verdict is Verdict.EDITED}
    if edited:
        await keep_edits(engine, edited)
        pages = await mirror_pages(engine, archive)
    own = {p: t for p, t in pages.items() if judged[p].verdict is not Verdict.USERS}
    for path in set(pages) - set(own):
        logger.warning("%s is the user's own file: not written over", shown(path, home))
    _, working_dir, archive_dir = page_paths(home)
    generated = [working_dir, archive_dir] if archive else [working_dir]
    extra = engine.settings.mirror.extra_memory_md
    async with engine.db.write() as conn:  # a write cut short leaves the page still ours
        for path, page in own.items():
            upcoming = digest(block_of(page) if path == extra else page)
            previous = hashes.get(hash_key(path), "").split()[:1]
            await set_meta(conn, hash_key(path), " ".join([upcoming, *previous]))
    written, stale = await anyio.to_thread.run_sync(_write_owned, own, generated, extra, hashes)
    async with engine.db.write() as conn:
        for path, value in written.items():
            await set_meta(conn, hash_key(path), value)
        await delete_meta(conn, [hash_key(path) for path in stale])
    return sorted(shown(path, home) for path in own)


def _judge(engine: "Engine", pages: dict[Path, str], hashes: dict[str, str]) -> dict[Path, OnDisk]:
    memory_md, extra = page_paths(engine.settings.home)[0], engine.settings.mirror.extra_memory_md
    return {
        path: judge_block(path, hashes.get(hash_key(path)))
        if path == extra
        else judge_page(path, text, hashes.get(hash_key(path)), core=path == memory_md)
        for path, text in pages.items()
    }


def _write_owned(
    pages: dict[Path, str], generated_dirs: list[Path], extra: Path | None, hashes: dict[str, str]
) -> tuple[dict[Path, str], list[Path]]:
    """Write the pages cortex owns (only its block of `extra`); drop stale generated pages
    that are still as written, and crashed temporaries. (hashes written, pages removed)"""
    written: dict[Path, str] = {}
    for path, page in pages.items():
        existing = read_text(path)
        text = splice(existing, block_of(page)) if path == extra else page
        if existing != text:
            write_atomic(path, text)
        written[path] = digest(block_of(page) if path == extra else page)
    stale = []
    for directory in generated_dirs:
        remove_temporaries([directory], TEMP_SUFFIX)
        for page_path in directory.glob("*.md"):
            if page_path in pages or not is_generated(page_path):
                continue
            stored, on_disk = hashes.get(hash_key(page_path)), read_text(page_path)
            if on_disk is not None and (stored is None or is_ours(on_disk, stored)):
                page_path.unlink(missing_ok=True)
                stale.append(page_path)
    return written, stale


async def keep_edits(engine: "Engine", edited: dict[Path, OnDisk]) -> None:
    """Each edited page: back it up, import its text as manual memories, log the event."""
    home, now = engine.settings.home, engine.clock()
    memory_md, working_dir, _ = page_paths(home)
    extra = engine.settings.mirror.extra_memory_md
    for path, disk in edited.items():
        backup = await anyio.to_thread.run_sync(back_up, path, home, now)
        added = 0
        name = "MEMORY.md" if path in (memory_md, extra) else path.name
        if path in (memory_md, extra) or path.parent == working_dir:
            try:
                report = await import_text(engine, disk.edited_text, name, source="manual")
                added = report.memories_added
            except CortexError as error:  # kept in the backup; nothing imported
                logger.warning("could not import the edit to %s: %s", shown(path, home), error)
        async with engine.db.write() as conn:
            details = {"page": shown(path, home), "backup": shown(backup, home), "added": added}
            await log_action(conn, "mirror_edit", [], details, now)
        logger.warning(
            "kept the edit to %s as %d new memories; the edited file is at %s",
            *(shown(path, home), added, shown(backup, home)),
        )


async def catch_up(engine: "Engine") -> list[str]:
    """At start: remove temp files a crash left beside the pages, then bring the mirror up to
    date with the store (keeping any edits made while cortex was not running)."""
    home = engine.settings.home
    folders = [home, home / "memory", *page_paths(home)[1:]]
    extra = engine.settings.mirror.extra_memory_md
    if extra is not None:
        folders.append(extra.parent)
    removed = await anyio.to_thread.run_sync(remove_temporaries, folders, TEMP_SUFFIX)
    if removed:
        logger.warning("removed %d temporary files left by an interrupted mirror write", removed)
    return await write_mirror(engine, archive=False)


async def working_page(engine: "Engine", day: str, agent_id: str | None = None) -> str:
    """One day of working memory as Markdown (cortex://working/{date})."""
    try:
        date.fromisoformat(day)
    except ValueError as err:
        raise InvalidInput("date", "must be a day as YYYY-MM-DD") from err
    async with engine.db.read() as conn:
        found = await store.live_created_in(conn, engine.agent(agent_id), Layer.WORKING, day)
    return markdown.render_working_day(day, found)


async def archive_page(engine: "Engine", month: str, agent_id: str | None = None) -> str:
    """One month of the archive with its summary as Markdown (cortex://archive/{month})."""
    if not MONTH.fullmatch(month):
        raise InvalidInput("month", "must be a month as YYYY-MM")
    agent = engine.agent(agent_id)
    async with engine.db.read() as conn:
        entries = await store.live_created_in(conn, agent, Layer.ARCHIVE, month)
        core = await rows.live_memories(conn, agent, [Layer.CORE], [Category.SUMMARY], limit=ALL)
    summaries = _summaries_by_period(core).get(month, [])
    return markdown.render_archive_month(month, entries, summaries)
