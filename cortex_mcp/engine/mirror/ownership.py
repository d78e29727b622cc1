"""Cortex writes only what is cortex's: telling its own pages from the user's edits.

Every page the mirror writes carries the generator marker, and the database keeps a hash of
what was last written at each path. Before a page is written again, what is on disk is
compared with that hash:

- no file, or the file is what cortex wrote (or already what it is about to write): write it;
- a page cortex wrote that differs (or a MEMORY.md that has no marker): a user edit. Its text
  is imported as memories (source `manual`, category from its section), the file is kept as a
  timestamped backup in `memory/backups/`, and only then is the page rewritten;
- a dated or relations page without the marker: the user's own file, never written over.

A file named in `mirror.extra_memory_md` (AGENTS.md, CLAUDE.md, ...) belongs to the user: only
the block between `BEGIN` and `END` is cortex's. That block is replaced (or appended when there
is none) and every other byte of the file is kept as it was.
"""

import contextlib
import hashlib
import os
import re
import time
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from itertools import accumulate
from pathlib import Path

from cortex_mcp.engine.render.pages import GENERATOR
from cortex_mcp.store.home import write_atomic
from cortex_mcp.store.private import copy_private, private_folders
from cortex_mcp.store.purge_text import spaced_any

BEGIN = (
    "<!-- cortex-mcp:begin (generated from memory; edits between these lines become memories) -->"
)
END = "<!-- cortex-mcp:end -->"
HASH_PREFIX = "mirror_hash:"
BACKUPS = Path("memory") / "backups"
PURGED_MARK = "[PURGED]"
TEXT_ERRORS = "surrogateescape"  # every byte of a user's file survives a decode and encode


class Verdict(Enum):
    """What to do with one page before writing it."""

    WRITE = "write"
    EDITED = "edited"
    USERS = "users"


@dataclass(frozen=True)
class OnDisk:
    """A page's state on disk: the verdict, and the edited text to import when edited."""

    verdict: Verdict
    edited_text: str = ""
    ours_on_disk: str | None = None
    """The digest of what is on disk when it is cortex's own: kept beside the digest of the
    page about to be written until that write is known to be done, however many fail first."""


def digest(text: str) -> str:
    """The hash kept for a page (or a block) as written."""
    return hashlib.sha256(text.encode("utf-8", TEXT_ERRORS)).hexdigest()


def hash_key(path: Path) -> str:
    """The meta key under which the hash of the page at `path` is kept."""
    return f"{HASH_PREFIX}{path}"


def read_text(path: Path) -> str | None:
    """The file's text with every byte kept (undecodable bytes survive a round trip)."""
    try:
        return path.read_bytes().decode("utf-8", TEXT_ERRORS)
    except FileNotFoundError:
        return None


def has_marker(text: str) -> bool:
    """True when the text starts with the generator's front matter."""
    lines = text.splitlines()[:2]
    return [line.strip() for line in lines] == ["---", GENERATOR]


def block_of(page: str) -> str:
    """The block cortex keeps in a user's file: MEMORY.md without its front matter."""
    if page.startswith("---\n"):
        page = page.split("---\n", 2)[2].lstrip("\n")
    return f"{BEGIN}\n{page.rstrip()}\n{END}\n"


def find_block(text: str) -> tuple[int, int] | None:
    """(start, end) offsets of cortex's block in a user's file, the markers included."""
    start = text.find(BEGIN.split(" (")[0])
    if start < 0 or (start > 0 and text[start - 1] != "\n"):
        return None
    end = text.find(END, start)
    if end < 0:
        return None
    end += len(END)
    if text[end : end + 2] == "\r\n":
        end += 2
    elif text[end : end + 1] == "\n":
        end += 1
    return start, end


def splice(existing: str | None, block: str) -> str:
    """`existing` with cortex's block replaced, or appended when it has none."""
    if not existing:
        return block
    found = find_block(existing)
    if found is not None:
        return existing[: found[0]] + block + existing[found[1] :]
    separator = "" if existing.endswith("\n") else "\n"
    return existing + separator + "\n" + block


def is_ours(text: str, stored: str | None) -> bool:
    """True when `text` is what cortex last wrote, or was about to write when it stopped: the
    stored value holds the digests of both while a write is under way."""
    return stored is not None and digest(text) in stored.split()


def judge_page(path: Path, new_text: str, stored: str | None, core: bool) -> OnDisk:
    """The verdict on a whole page cortex is about to write. `core`: MEMORY.md, whose edits
    (even to a copy without the marker) are imported; other pages without it are the user's."""
    if path.exists() and not path.is_file():
        return OnDisk(Verdict.USERS)  # a folder (or a device) by that name is the user's
    text = read_text(path)
    if text is None:
        return OnDisk(Verdict.WRITE)
    if text == new_text or is_ours(text, stored):
        return OnDisk(Verdict.WRITE, ours_on_disk=digest(text))
    if not has_marker(text) and not core:
        return OnDisk(Verdict.USERS)
    return OnDisk(Verdict.EDITED, text)


def judge_block(path: Path, stored: str | None) -> OnDisk:
    """The verdict on cortex's block in a user's file: edited when it is not what was written."""
    text = read_text(path)
    found = None if text is None else find_block(text)
    if text is None or found is None:
        return OnDisk(Verdict.WRITE)
    block = text[found[0] : found[1]]
    if stored is None or is_ours(block, stored):
        return OnDisk(Verdict.WRITE, ours_on_disk=digest(block))
    return OnDisk(Verdict.EDITED, block)


def back_up(path: Path, home: Path, now: datetime) -> Path:
    """Copy the file as it is now to `memory/backups/<name>.<UTC time>.bak` (0600, whatever the
    user's file allowed: it holds memories); the copy's path."""
    folder = private_folders(home / BACKUPS)
    stamp = now.strftime("%Y%m%dT%H%M%S%fZ")
    target = folder / f"{path.name}.{stamp}.bak"
    number = 1
    while target.exists():
        number += 1
        target = folder / f"{path.name}.{stamp}-{number}.bak"
    copy_private(path, target)
    return target


def remove_temporaries(folders: list[Path], suffix: str, older_than_s: float = 0.0) -> int:
    """Delete temp files a crash left in these folders (`.<name>.*<suffix>`) last written more
    than `older_than_s` ago (a younger one may be another server's write under way); how
    many."""
    removed, now = 0, time.time()
    for folder in folders:
        for leftover in folder.glob(f".*{suffix}") if folder.is_dir() else []:
            with contextlib.suppress(FileNotFoundError):
                if now - leftover.stat().st_mtime >= older_than_s:
                    os.unlink(leftover)
                    removed += 1
    return removed


def without_lines_holding(text: str, needles: Sequence[str]) -> str:
    """`text` without the lines holding any of `needles` (ignoring case and how whitespace is
    spaced, a match over several lines dropping each): an edit kept during a purge never
    brings the purged text back as a memory, a hand-wrapped item's neither."""
    pattern = spaced_any(needles)
    if pattern is None:
        return text
    lines = text.splitlines(keepends=True)
    starts = list(accumulate((len(line) for line in lines), initial=0))
    dropped: set[int] = set()
    for found in pattern.finditer(text):
        first = bisect_right(starts, found.start()) - 1
        dropped.update(range(first, bisect_right(starts, found.end() - 1)))
    return "".join(line for number, line in enumerate(lines) if number not in dropped)


def scrub_backups(home: Path, texts: list[str]) -> int:
    """Cut every one of `texts` (ignoring case and how whitespace is spaced, as a purge finds
    it in the store) out of the backups of edited pages cortex keeps in `memory/backups/` (a
    purge); how many backups were rewritten. The rest of the user's edit is kept."""
    folder, rewritten, pattern = home / BACKUPS, 0, spaced_any(texts)
    if pattern is None or not folder.is_dir():
        return 0
    for backup in sorted(folder.glob("*.bak")):
        before = read_text(backup)
        if before is None or pattern.search(before) is None:
            continue
        write_atomic(backup, cut_out(before, pattern))
        rewritten += 1
    return rewritten


def cut_out(haystack: str, pattern: re.Pattern[str]) -> str:
    """`haystack` with every match of `pattern` (`spaced_any`) replaced by a marker."""
    return pattern.sub(lambda _: PURGED_MARK, haystack)


def _pages(home: Path) -> list[Path]:
    """MEMORY.md and every Markdown file under `memory/` (the pages, their backups apart)."""
    return [home / "MEMORY.md", *sorted((home / "memory").rglob("*.md"))]


def pages_holding(home: Path, texts: list[str]) -> list[str]:
    """The mirror's pages (relative to `home`) holding any of `texts`, matched as a purge
    matches; for a preview that found nothing stored: a hand edit not kept yet may hold it."""
    pattern = spaced_any(texts)
    if pattern is None:
        return []
    held = [page for page in _pages(home) if (text := read_text(page)) and pattern.search(text)]
    return [page.relative_to(home).as_posix() for page in held]


def drop_pages_holding(home: Path, texts: list[str]) -> int:
    """Remove the pages cortex generated (the marker on top) that hold any of `texts`; how
    many (a purge whose mirror could not be rewritten: the next start writes them again).
    Matched ignoring case and how whitespace is spaced."""
    removed, pattern = 0, spaced_any(texts)
    if pattern is None:
        return 0
    for page in _pages(home):
        text = read_text(page)
        if text is not None and has_marker(text) and pattern.search(text):
            page.unlink(missing_ok=True)
            removed += 1
    return removed
