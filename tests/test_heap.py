"""The serving process's C heap (#28 item 6): on glibc, blocks of a MiB and more are mapped on
their own and go back to the system when freed (glibc's own rule raises its threshold after
each such free, so the next ones stay resident in a heap: the pieces of a vector matrix, a
rendered mirror), and the garbage of the start is collected before it is frozen."""

import gc
import platform
import subprocess
import sys
import weakref

import pytest

from cortex_mcp.config import Settings
from cortex_mcp.engine.heap import HeapRelease, anonymous_bytes, release_freed, tune_heap
from cortex_mcp.engine.host import EngineHost

GLIBC = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"

BIG_BLOCKS = """
import sys
from pathlib import Path
from cortex_mcp.engine.heap import tune_heap

def anon_kib():
    for line in Path("/proc/self/status").read_text(encoding="utf-8").splitlines():
        if line.startswith("RssAnon:"):
            return int(line.split()[1])

tuned = tune_heap()
kept = []
for size in (4, 6, 5, 6):  # MiB: each freed before the next one
    block = bytearray(size << 20)  # zero-filled: every page touched
    del block
    kept.append(anon_kib())
print(tuned, max(kept) - min(kept))
"""


@pytest.mark.skipif(not GLIBC, reason="glibc's malloc settings")
def test_big_blocks_go_back_to_the_system_once_freed() -> None:
    done = subprocess.run(
        [sys.executable, "-c", BIG_BLOCKS], capture_output=True, text=True, encoding="utf-8"
    )
    tuned, spread_kib = done.stdout.split()
    assert tuned == "True", done.stderr
    assert int(spread_kib) < 1024  # no freed block stayed resident


def test_the_heap_functions_answer_on_any_system() -> None:
    assert tune_heap() is GLIBC
    assert release_freed() in (True, False)


@pytest.mark.anyio
async def test_the_starts_garbage_is_collected_before_it_is_frozen(settings: Settings) -> None:
    class Node:
        partner: "Node"

    gc.unfreeze()  # as in a fresh process: nothing frozen yet
    gc.disable()  # only the start's own collection may take the cycle
    try:
        a, b = Node(), Node()
        a.partner, b.partner = b, a
        gone = weakref.ref(a)
        del a, b
        async with EngineHost(settings).use() as engine:
            await engine.runtime.passes.wait_beyond(0)
        assert gc.get_freeze_count() > 0
        assert gone() is None  # frozen uncollected, the cycle would live as long as the process
    finally:
        gc.enable()


@pytest.mark.skipif(not GLIBC, reason="glibc's malloc_trim")
def test_a_release_is_due_only_once_the_memory_grew_by_its_step() -> None:
    heap = HeapRelease(growth_bytes=4 << 20)
    assert not heap.due()  # the first reading is where growth counts from

    grown = bytearray(16 << 20)  # every page touched: resident
    assert heap.due()
    heap.release()

    assert not heap.due()  # counted again from the release
    del grown


def test_no_release_is_due_where_there_is_no_glibc_or_no_proc() -> None:
    heap = HeapRelease(growth_bytes=0)
    assert heap.due() is (GLIBC and anonymous_bytes() is not None)
