"""The Markdown mirror on disk (the pages are `mirror.pages`): written atomically, keeping the
user's edits.

Each file is written to a temporary
file beside it, flushed to disk and renamed over the old one, so a crash leaves the previous
version whole. Dated pages this generator wrote that no longer have memories are removed; the
user's own files never are. What cortex may write over, and what happens to a user's edit, is
decided in `ownership`. On SQLite a write passes again when another process (a second server,
maybe purging) committed while it rendered and wrote, so no page it wrote outlives that commit.
"""

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from functools import partial
from pathlib import Path

import anyio
import anyio.to_thread

from cortex_mcp.engine.lease import KEEPING, Lease, LifecycleBusy, held_in_this_task, new_owner
from cortex_mcp.engine.mirror.manual import KeptEdit, keep_edit
from cortex_mcp.engine.mirror.ownership import (
    HASH_PREFIX,
    OnDisk,
    Verdict,
    back_up,
    block_of,
    digest,
    find_block,
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
from cortex_mcp.store.db import Connection
from cortex_mcp.store.home import TEMP_SUFFIX, write_atomic
from cortex_mcp.store.logs import log_action
from cortex_mcp.store.meta import delete_meta, get_meta, meta_with_prefix, set_meta
from cortex_mcp.store.working_days import day_marks, store_version

logger = logging.getLogger(__name__)

KEPT_PREFIX = "mirror_kept:"
"""Meta key of the last edit kept of a page: the digest of its text (one keeper per edit)."""


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


PASSES = 3
"""Passes one mirror write makes at most while other processes commit under it."""


@dataclass(frozen=True)
class _Pass:
    """What one pass of a mirror write did: the pages, the digest of each page it wrote, and
    whether another process committed since it read the store (`store_version`)."""

    pages: list[str]
    wrote: dict[Path, str]
    outdated: bool = False


async def _write_mirror(
    rt: Runtime, archive: bool, changed_only: bool = False, purged: Sequence[str] = ()
) -> list[str]:
    """Pass until a pass saw no other process commit from its read of the store to after its
    write: such a commit may be another server's purge, erasing text the pass rendered, whose
    own rewrite of the page the pass then wrote over (retest16d E1). A later pass renders again
    what the outdated one wrote; after PASSES the mirror is marked dirty, so the writer passes
    again soon. A commit after the check comes after the write, so the other server's rewrite
    lands last. PostgreSQL has no `data_version`: there a pass sees another process's purge
    (`store_version`), not its other commits."""
    wrote: dict[Path, str] = {}
    for _ in range(PASSES):
        done = await _write_pass(rt, archive, changed_only, purged, wrote)
        if not done.outdated:
            return done.pages
        wrote |= done.wrote
    logger.info("the store kept changing under the mirror write: another pass follows")
    rt.mirror.mark_dirty()
    return done.pages


async def _write_pass(
    rt: Runtime,
    archive: bool,
    changed_only: bool,
    purged: Sequence[str],
    wrote: dict[Path, str],
) -> _Pass:
    """One pass: render, keep edits, write the pages cortex owns. `wrote`: what earlier passes
    of this write wrote, still cortex's own (another server may have set the page's digest
    since). Outdated before writing: nothing is written."""
    home = rt.settings.home
    _, working_dir, archive_dir = page_paths(home)
    generated = [working_dir, archive_dir] if archive else [working_dir]
    written = rt.mirror.written_days if changed_only else {}
    marks, version, pages, leftovers = await _pages_now(rt, archive, written, generated)
    async with rt.db.read() as conn:
        hashes = _with_own(await meta_with_prefix(conn, HASH_PREFIX), wrote)
    judged = await anyio.to_thread.run_sync(_judge, rt, pages, hashes)
    stale = await anyio.to_thread.run_sync(leftovers)
    gone_edited = await anyio.to_thread.run_sync(_edited, stale, hashes)
    edited = {path: disk for path, disk in judged.items() if disk.verdict is Verdict.EDITED}
    left: set[Path] = set()
    if edited or gone_edited:
        kept = await keep_in_turn(rt, edited | gone_edited, purged)
        left = set(edited | gone_edited) - set(kept)
        marks, version, pages, leftovers = await _pages_now(rt, archive, written, generated)
        stale = await anyio.to_thread.run_sync(leftovers)
        judged |= {path: disk for path, disk in gone_edited.items() if path in kept}
    if left:  # not kept now: as they are until a later pass keeps them
        logger.info("%d edited pages left for a later pass", len(left))
        rt.mirror.mark_dirty()
    users = {p for p in pages if p in judged and judged[p].verdict is Verdict.USERS}
    own = {p: t for p, t in pages.items() if p in judged and p not in users | left}
    for path in users:
        logger.warning("%s is the user's own file: not written over", shown(path, home))
    extra, names = rt.settings.mirror.extra_memory_md, sorted(shown(path, home) for path in own)
    async with rt.db.write() as conn:  # a write cut short leaves the page still ours
        if await _moved(conn, version):
            return _Pass(names, {}, outdated=True)
        for path, page in own.items():
            upcoming = digest(block_of(page) if path == extra else page)
            on_disk = judged[path].ours_on_disk  # still ours if this write never lands
            await set_meta(conn, hash_key(path), " ".join(filter(None, [upcoming, on_disk])))
    done, removed = await anyio.to_thread.run_sync(
        _write_owned, own, extra, hashes, stale, set(gone_edited) - left, judged
    )
    async with rt.db.write() as conn:
        for path, value in done.items():
            await set_meta(conn, hash_key(path), value)
        await delete_meta(conn, [hash_key(path) for path in removed])
        outdated = await _moved(conn, version)
    edited_since = set(own) - set(done)  # a hand edit came after the page was read
    if edited_since:
        logger.info("%d pages edited while being written: kept by a later pass", len(edited_since))
        rt.mirror.mark_dirty()
    again = (set(done) if outdated else set()) | edited_since  # render these again
    rt.mirror.written_days = {
        d: m for d, m in marks.items() if working_dir / f"{d}.md" not in again
    }
    rt.mirror.version = version
    return _Pass(names, done, outdated)


def _with_own(hashes: dict[str, str], wrote: dict[Path, str]) -> dict[str, str]:
    """The pages' stored digests, with those this write wrote in earlier passes added."""
    for path, value in wrote.items():
        key = hash_key(path)
        hashes[key] = f"{hashes.get(key, '')} {value}".strip()
    return hashes


async def _moved(conn: Connection, version: int | str) -> bool:
    """True when another process committed since the store's version was `version` (SQLite;
    on PostgreSQL: purged)."""
    return await store_version(conn) != version


async def _pages_now(
    rt: Runtime, archive: bool, written: dict[str, str], generated: list[Path]
) -> tuple[dict[str, str], int | str, dict[Path, str], Callable[[], list[Path]]]:
    """The working days' marks, the store's version (`store_version`), the pages to write (of
    the working days, those whose mark is not `written`), and what finds the generated pages
    that may be stale.
    When no other process has committed since the mirror last wrote (the same version; no
    archive) those are the days that had a page and have none now; otherwise every page in
    the `generated` folders but the current ones (a read of each folder, 731 pages at 100,000
    memories: at start, in lifecycle runs, and after another process wrote days this one may
    never have seen)."""
    read = await day_marks(rt.db, rt.settings.memory.default_agent_id)
    version: int | str
    if read.version is not None:
        version = read.version
    else:  # PostgreSQL: the purge mark, read before the pages are
        async with rt.db.read() as conn:
            version = await store_version(conn)
    marks = read.marks
    pages = await mirror_pages(rt, archive, [d for d, m in marks.items() if written.get(d) != m])
    working_dir = page_paths(rt.settings.home)[1]
    if written and not archive and read.version is not None and read.version == rt.mirror.version:
        gone = [working_dir / f"{day}.md" for day in written.keys() - marks.keys()]
        return marks, version, pages, lambda: gone
    current = set(pages) | {working_dir / f"{day}.md" for day in marks}
    return marks, version, pages, partial(_not_current, generated, current)


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
    judged: dict[Path, OnDisk],
) -> tuple[dict[Path, str], list[Path]]:
    """Write the pages cortex owns (only its block of `extra`) that are still as `judged` (a
    line the user added since is kept by a later pass, not written over); drop the `stale`
    generated pages (the mirror no longer has them) that are still as written, or whose edit
    was `kept` (imported and backed up). (hashes written, pages removed)"""
    written: dict[Path, str] = {}
    for path, page in pages.items():
        existing = read_text(path)
        if path in judged and not _as_judged(existing, judged[path], block=path == extra):
            continue
        text = splice(existing, block_of(page)) if path == extra else page
        if existing != text and not write_atomic(path, text, partial(_reads, path, existing)):
            continue  # changed while the new text went to disk: a later pass
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


async def keep_in_turn(
    rt: Runtime, edited: dict[Path, OnDisk], purged: Sequence[str] = ()
) -> dict[Path, OnDisk]:
    """Keep the edits holding the lifecycle lease, the pages as they are on disk now; the
    pages kept. A purge holds the lease from before its erase to after its rewrite of the
    pages: a page read before another process's purge and kept after its erase would bring
    the erased line back as new (retest17 E1'). While another process (or another task here)
    holds it, or for a page changed since it was read, nothing is kept: a later pass does."""
    lease = None
    if not held_in_this_task():  # a purge or a run writing the mirror itself holds it
        lease = Lease(rt, f"{KEEPING}:{new_owner()}")
        try:
            await lease.take()
        except LifecycleBusy:
            return {}
    try:
        unchanged = await anyio.to_thread.run_sync(_still_as_read, edited)
        await keep_edits(rt, unchanged, purged)
        return unchanged
    finally:
        if lease is not None:
            await lease.release()


def _still_as_read(edited: dict[Path, OnDisk]) -> dict[Path, OnDisk]:
    """The edited pages whose text on disk (cortex's block, in a user's file) is still the one
    read."""
    return {path: disk for path, disk in edited.items() if _as_read(read_text(path), disk)}


def _reads(path: Path, text: str | None) -> bool:
    """True when the file at `path` still reads `text` (None: there is none)."""
    return read_text(path) == text


def _as_judged(existing: str | None, disk: OnDisk, block: bool) -> bool:
    """True when a page (for `block`, cortex's block in the user's file) is as it was when
    judged: cortex's own text, or the edit just kept; no hand edit came since."""
    if disk.verdict is Verdict.EDITED:
        return _as_read(existing, disk)
    if disk.ours_on_disk is None:  # there was none: there is none yet (or no block in it)
        return existing is None or (block and find_block(existing) is None)
    found = find_block(existing) if block and existing is not None else None
    text = existing[found[0] : found[1]] if existing is not None and found else existing
    return text is not None and digest(text) == disk.ours_on_disk


def _as_read(text: str | None, disk: OnDisk) -> bool:
    if text is None or text == disk.edited_text:
        return text is not None
    found = find_block(text)
    return found is not None and text[found[0] : found[1]] == disk.edited_text


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
    """At start: remove temp files a crash left beside the pages (a minute old: a younger one
    may be another server's write under way), then bring the mirror up to date with the store
    (keeping any edits made while cortex was not running)."""
    home = rt.settings.home
    folders = [home, home / "memory", *page_paths(home)[1:]]
    extra = rt.settings.mirror.extra_memory_md
    if extra is not None:
        folders.append(extra.parent)
    removed = await anyio.to_thread.run_sync(
        remove_temporaries, folders, TEMP_SUFFIX, TEMPORARY_AGE_S
    )
    if removed:
        logger.warning("removed %d temporary files left by an interrupted mirror write", removed)
    return await write_mirror(rt, archive=False)
