"""The process's C heap on glibc (#28 item 6): fewer malloc arenas, a fixed mmap threshold, and
freed memory handed back to the system after the big phases.

glibc gives each thread that allocates an arena of its own (up to eight per core), and raises
its mmap threshold each time a large block is freed, so the next large blocks (the pieces of a
vector matrix being read, a whole mirror rendered, the blobs of a query) come from an arena's
heap, where freed memory stays resident. With two arenas and the threshold held at 1 MiB,
large blocks are mmapped (and unmapped when freed) and the small ones share fewer heaps;
`malloc_trim` after a phase that freed a lot returns the heap's free pages at once (after the
start's back-fill, and after any later stretch in which the anonymous memory grew by
RELEASE_GROWTH: `HeapRelease`). Elsewhere (macOS, musl) every function here does nothing.
"""

import ctypes
import ctypes.util
import logging
import platform
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
M_ARENA_MAX = -8
ARENAS = 2
"""The event loop's and the worker threads' (SQLite, embedding, numpy searches) share these."""
MMAP_THRESHOLD = 1 << 20
"""Blocks of 1 MiB and more are mapped on their own (setting it stops glibc's raising it)."""
TRIM_THRESHOLD = 1 << 20
"""Free memory at a heap's top above this goes back to the system on `free` (set with the mmap
threshold, which would otherwise double it). At 8 MiB the back-fill's two thread arenas kept
10 MiB free each, 8-10 MiB of it resident; at 1 MiB the phases run's peak at 10,000 memories
was 157.7 MiB instead of 173-176 (docs/benchmarks.md s13-rss)."""
RELEASE_GROWTH = 4 << 20
"""Anonymous memory grown since the last release after which a background pass releases again:
a release then has MiBs to give back, and a process whose memory holds steady never pays for
one (a `malloc_trim` walks every free block: ~1 ms at 10,000 memories here, 143-407 ms on a
fragmented 300,000-block heap)."""


@cache
def _libc() -> Any:
    """glibc through ctypes, or None where the C library is not glibc."""
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
        libc.malloc_trim.argtypes = [ctypes.c_size_t]
    except (OSError, AttributeError):
        return None
    return libc


def tune_heap() -> bool:
    """Set the arena count and the thresholds (once, before the engine's threads start);
    True where glibc took them."""
    libc = _libc()
    if libc is None:
        return False
    settings = ((M_ARENA_MAX, ARENAS), (M_MMAP_THRESHOLD, MMAP_THRESHOLD))
    taken = all(libc.mallopt(option, value) == 1 for option, value in settings)
    taken = libc.mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1 and taken
    if not taken:
        logger.debug("glibc refused a malloc setting")
    return taken


def release_freed() -> bool:
    """Give the free pages of every arena back to the system; True when some were."""
    libc = _libc()
    return bool(libc is not None and libc.malloc_trim(0))


def anonymous_bytes() -> int | None:
    """This process's resident anonymous memory (Linux's RssAnon), or None elsewhere."""
    try:
        status = Path("/proc/self/status").read_text(encoding="utf-8")
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith("RssAnon:"):
            return int(line.split()[1]) * 1024
    return None


@dataclass
class HeapRelease:
    """When to give freed memory back after the start: once the anonymous memory has grown by
    `growth_bytes` since the last release (writes and recalls leave free blocks in the heaps
    that glibc keeps resident: 7 MiB after 200 of each at 10,000 memories)."""

    growth_bytes: int = RELEASE_GROWTH
    after: int | None = None
    """The anonymous memory measured after the last release (None: none yet)."""

    def due(self) -> bool:
        """True when a release has something to give back (glibc only)."""
        if _libc() is None:
            return False
        now = anonymous_bytes()
        if now is None:
            return False
        if self.after is None:
            self.after = now
        return now - self.after >= self.growth_bytes

    def release(self) -> bool:
        """Give the free pages back (in a worker thread: it takes the arenas' locks) and note
        the memory after it; True when some were."""
        before = anonymous_bytes()
        released = release_freed()
        self.after = anonymous_bytes()
        if before is not None and self.after is not None:
            logger.debug(
                "freed memory released: %.1f -> %.1f MiB", before / 2**20, self.after / 2**20
            )
        return released
