"""The Markdown mirror on disk (the pages are `mirror.pages`): written atomically, keeping the
user's edits.

Each file is written to a temporary
file beside it, flushed to disk and renamed over the old one, so a crash leaves the previous
version whole. Dated pages this generator wrote that no longer have memories are removed; the
user's own files never are. What cortex may write over, and what happens to a user's edit, is
decided in `ownership`.
"""

import logging
from collections.abc import Callable, Sequence
from datetime import date
from functools import partial
from pathlib import Path

import anyio
import anyio.to_thread

from cortex_mcp.engine.mirror.manual import KeptEdit, keep_edit
from cortex_mcp.engine.mirror.ownership import (
    HASH_PREFIX,
    OnDisk,
    Verdict,
    back_up,
    block_of,
    digest,
    has_marker,
    hash_key,
    is_ours,
    judge_block,
    judge_page,
    read_text,
    remove_temporaries,
    splice,
    without_lines_holding,
)
from cortex_mcp.engine.mirror.pages import mirror_pages, page_paths
from cortex_mcp.engine.privacy import cleaner_for
from cortex_mcp.engine.render.pages import is_generated
from cortex_mcp.engine.runtime import Runtime
from cortex_mcp.errors import CortexError
from cortex_mcp.store.home import TEMP_SUFFIX, write_atomic
from cortex_mcp.store.logs import log_action
from cortex_mcp.store.meta import delete_meta, get_meta, meta_with_prefix, set_meta
from cortex_mcp.store.working_days import day_marks

logger = logging.getLogger(__name__)

KEPT_PREFIX = "mirror_kept:"
"""Meta key of the last edit kept of a page: the digest of its text (one keeper per edit)."""


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


def shown(path: Path, home: Path) -> str:
    """A page's name in reports: relative to the data directory when inside it."""
    return path.relative_to(home).as_posix() if path.is_relative_to(home) else str(path)


async def write_mirror(
    rt: Runtime, archive: bool = True, changed_only: bool = False, purged: Sequence[str] = ()
) -> list[str]:
    """Regenerate the mirror now (without `archive`, all but the archive months, which change
    only in lifecycle runs; with `changed_only`, of the working days only those whose memories
    changed since this process last wrote them); the pages, relative to the data directory.
    A page the user edited is kept (imported and backed up) first; a file of the user's own is
    never written over; `purged`: texts a purge erased, whose lines an edit kept now does not
    bring back. One write at a time in a process: two interleaved would take each other's
    pages for edits."""
    async with rt.mirror_lock:
        return await _write_mirror(rt, archive, changed_only, purged)


async def _write_mirror(
    rt: Runtime, archive: bool, changed_only: bool = False, purged: Sequence[str] = ()
) -> list[str]:
    home = rt.settings.home
    _, working_dir, archive_dir = page_paths(home)
    generated = [working_dir, archive_dir] if archive else [working_dir]
    written = rt.mirror.written_days if changed_only else {}
    marks, version, pages, leftovers = await _pages_now(rt, archive, written, generated)
    async with rt.db.read() as conn:
        hashes = await meta_with_prefix(conn, HASH_PREFIX)
    judged = await anyio.to_thread.run_sync(_judge, rt, pages, hashes)
    stale = await anyio.to_thread.run_sync(leftovers)
    gone_edited = await anyio.to_thread.run_sync(_edited, stale, hashes)
    edited = {path: disk for path, disk in judged.items() if disk.verdict is Verdict.EDITED}
    if edited or gone_edited:
        await keep_edits(rt, edited | gone_edited, purged)
        marks, version, pages, leftovers = await _pages_now(rt, archive, written, generated)
        stale = await anyio.to_thread.run_sync(leftovers)
        judged |= gone_edited  # kept: written over if its day has memories again
    own = {p: t for p, t in pages.items() if p in judged and judged[p].verdict is not Verdict.USERS}
    for path in set(pages) - set(own):
        logger.warning("%s is the user's own file: not written over", shown(path, home))
    extra = rt.settings.mirror.extra_memory_md
    async with rt.db.write() as conn:  # a write cut short leaves the page still ours
        for path, page in own.items():
            upcoming = digest(block_of(page) if path == extra else page)
            on_disk = judged[path].ours_on_disk  # still ours if this write never lands
            await set_meta(conn, hash_key(path), " ".join(filter(None, [upcoming, on_disk])))
    done, removed = await anyio.to_thread.run_sync(
        _write_owned, own, extra, hashes, stale, set(gone_edited)
    )
    async with rt.db.write() as conn:
        for path, value in done.items():
            await set_meta(conn, hash_key(path), value)
        await delete_meta(conn, [hash_key(path) for path in removed])
    rt.mirror.written_days, rt.mirror.version = marks, version
    return sorted(shown(path, home) for path in own)


async def _pages_now(
    rt: Runtime, archive: bool, written: dict[str, str], generated: list[Path]
) -> tuple[dict[str, str], int | None, dict[Path, str], Callable[[], list[Path]]]:
    """The working days' marks and their version, the pages to write (of the working days,
    those whose mark is not `written`), and what finds the generated pages that may be stale.
    When no other process has committed since the mirror last wrote (the same version; no
    archive) those are the days that had a page and have none now; otherwise every page in
    the `generated` folders but the current ones (a read of each folder, 731 pages at 100,000
    memories: at start, in lifecycle runs, and after another process wrote days this one may
    never have seen)."""
    read = await day_marks(rt.db, rt.settings.memory.default_agent_id)
    marks = read.marks
    pages = await mirror_pages(rt, archive, [d for d, m in marks.items() if written.get(d) != m])
    working_dir = page_paths(rt.settings.home)[1]
    if written and not archive and read.version is not None and read.version == rt.mirror.version:
        gone = [working_dir / f"{day}.md" for day in written.keys() - marks.keys()]
        return marks, read.version, pages, lambda: gone
    current = set(pages) | {working_dir / f"{day}.md" for day in marks}
    return marks, read.version, pages, partial(_not_current, generated, current)


TEMPORARY_AGE_S = 60.0
"""A temp file this old beside the pages is a crash's, not another server's write under way."""


def _not_current(generated_dirs: list[Path], current: set[Path]) -> list[Path]:
    """The dated pages (files named as the mirror names them) in the generated folders that
    are not `current`; crashed temporaries there (older than TEMPORARY_AGE_S) removed."""
    found = []
    for directory in generated_dirs:
        remove_temporaries([directory], TEMP_SUFFIX, older_than_s=TEMPORARY_AGE_S)
        days = directory.name == "working"  # the archive's pages are months
        for page in directory.glob("*.md"):
            if page not in current and dated_name(page.name, days) and page.is_file():
                found.append(page)
    return found


def dated_name(name: str, day: bool) -> bool:
    """True for a name the mirror gives a page: `YYYY-MM-DD.md` of a real day (`day`), else
    `YYYY-MM.md` of a real month. Any other file (a copy under another name, a date that is
    none) is the user's, even with the generator's front matter."""
    stem = name.removesuffix(".md")
    full = stem if day else f"{stem}-01"
    try:
        return len(stem) == (10 if day else 7) and date.fromisoformat(full).isoformat() == full
    except ValueError:
        return False


def _judge(rt: Runtime, pages: dict[Path, str], hashes: dict[str, str]) -> dict[Path, OnDisk]:
    memory_md, extra = page_paths(rt.settings.home)[0], rt.settings.mirror.extra_memory_md
    return {
        path: judge_block(path, hashes.get(hash_key(path)))
        if path == extra
        else judge_page(path, text, hashes.get(hash_key(path)), core=path == memory_md)
        for path, text in pages.items()
    }


def _edited(stale: list[Path], hashes: dict[str, str]) -> dict[Path, OnDisk]:
    """The stale pages (their day emptied) the user edited since cortex wrote them: their edits
    are kept, as a current page's are, before they go."""
    edited = {}
    for path in stale:
        text = read_text(path) if path.is_file() else None
        stored = hashes.get(hash_key(path))
        if text is not None and has_marker(text) and stored and not is_ours(text, stored):
            edited[path] = OnDisk(Verdict.EDITED, text)
    return edited


def _write_owned(
    pages: dict[Path, str],
    extra: Path | None,
    hashes: dict[str, str],
    stale: list[Path],
    kept: set[Path],
) -> tuple[dict[Path, str], list[Path]]:
    """Write the pages cortex owns (only its block of `extra`); drop the `stale` generated
    pages (the mirror no longer has them) that are still as written, or whose edit was
    `kept` (imported and backed up). (hashes written, pages removed)"""
    written: dict[Path, str] = {}
    for path, page in pages.items():
        existing = read_text(path)
        text = splice(existing, block_of(page)) if path == extra else page
        if existing != text:
            write_atomic(path, text)
        written[path] = digest(block_of(page) if path == extra else page)
    removed = []
    for page_path in stale:
        if not page_path.is_file() or not is_generated(page_path):
            continue
        stored, on_disk = hashes.get(hash_key(page_path)), read_text(page_path)
        if on_disk is not None and (
            stored is None or is_ours(on_disk, stored) or page_path in kept
        ):
            page_path.unlink(missing_ok=True)
            removed.append(page_path)
    return written, removed


async def keep_edits(rt: Runtime, edited: dict[Path, OnDisk], purged: Sequence[str] = ()) -> None:
    """Each edited page: back it up, import its text (but the lines holding a `purged` text) as
    manual memories, log the event."""
    home, now = rt.settings.home, rt.clock()
    memory_md, working_dir, _ = page_paths(home)
    extra = rt.settings.mirror.extra_memory_md
    for path, disk in edited.items():
        key, mark = f"{KEPT_PREFIX}{path}", digest(disk.edited_text)
        if await already_kept(rt, key, mark):
            continue  # another server of this home kept this very edit
        backup = await anyio.to_thread.run_sync(back_up, path, home, now)
        added = 0
        name = "MEMORY.md" if path in (memory_md, extra) else path.name
        if path in (memory_md, extra) or path.parent == working_dir:
            try:
                clean = await cleaner_for(rt, rt.agent(None))
                text = without_lines_holding(disk.edited_text, purged)
                kept = await keep_edit(rt, clean, text, name)
                added = len(kept.added) + kept.imported
                follow_edit(rt, kept)
            except CortexError as error:  # kept in the backup; nothing imported
                logger.warning("could not import the edit to %s: %s", shown(path, home), error)
        async with rt.db.write() as conn:
            details = {"page": shown(path, home), "backup": shown(backup, home), "added": added}
            await log_action(conn, "mirror_edit", [], details, now)
            await set_meta(conn, key, mark)  # kept: only now (a server stopped mid-way
            # would otherwise have claimed an edit no one keeps, and the rewrite lost it)
        logger.warning(
            "kept the edit to %s as %d new memories; the edited file is at %s",
            *(shown(path, home), added, shown(backup, home)),
        )


async def already_kept(rt: Runtime, key: str, mark: str) -> bool:
    """True when a server of this home has kept this very edit (two that saw it backed it up
    twice, 14 ms apart, and both imported it). The mark is set once the edit is kept, never
    before: a keeper stopped mid-way leaves the edit to the next one."""
    async with rt.db.read() as conn:
        return await get_meta(conn, key) == mark


def follow_edit(rt: Runtime, kept: KeptEdit) -> None:
    """What a write does next, for the memories an edit stored: embedded soon, and the
    profile redone in the background when one replaced another."""
    rt.embed_soon(kept.added)
    if kept.superseded:
        rt.profiles_owed.add(rt.agent(None))
        rt.wake.set()


async def catch_up(rt: Runtime) -> list[str]:
    """At start: remove temp files a crash left beside the pages, then bring the mirror up to
    date with the store (keeping any edits made while cortex was not running)."""
    home = rt.settings.home
    folders = [home, home / "memory", *page_paths(home)[1:]]
    extra = rt.settings.mirror.extra_memory_md
    if extra is not None:
        folders.append(extra.parent)
    removed = await anyio.to_thread.run_sync(remove_temporaries, folders, TEMP_SUFFIX)
    if removed:
        logger.warning("removed %d temporary files left by an interrupted mirror write", removed)
    return await write_mirror(rt, archive=False)
