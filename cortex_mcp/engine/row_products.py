"""Each row of a matrix times one vector, on two cores when the matrix is large (#23, #28).

A recall's nearest-neighbour search waits for these sums of products once the query's vector is
there, and at that moment the rest of the recall is mostly waiting for them: at 100,000 rows the
other core was idle for the ~7 ms the sketches' pass took on one. numpy's loops (`einsum`, never
BLAS: engine/vector_sketch.py) let go of the GIL, so the second half of the rows is summed in a
thread of its own while the calling thread sums the first; the result is the same, bit for bit,
as one pass (each row's sum is made the same way, only by another thread).
"""

import os
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from typing import Any

SPLIT_FROM = 2048
"""Rows from which the products are split over two threads: 384-wide int8 rows took 0.78 ms in
one pass and 0.48 ms split at 3,000 rows here; below ~2,000 a thread's hand-over costs about
what it saves."""


def row_products(rows: Any, vector: Any) -> Any:
    """float32 (len(rows),): each row of `rows` (int8 or float32) times `vector` (float32)."""
    import numpy as np

    count = len(rows)
    out = np.empty(count, dtype=np.float32)
    if count < SPLIT_FROM or _cores() < 2:
        return _into(rows, vector, out)
    half = count // 2
    other = _second_thread().submit(_into, rows[half:], vector, out[half:])
    _into(rows[:half], vector, out[:half])
    other.result()
    return out


def _into(rows: Any, vector: Any, out: Any) -> Any:
    import numpy as np

    # an int8 matrix is cast a buffer at a time (no float32 copy of the matrix)
    return np.einsum("ij,j->i", rows, vector, dtype=np.float32, casting="unsafe", out=out)


@cache
def _second_thread() -> ThreadPoolExecutor:
    """A worker per core: a recall's two searches (the memories' and the log's) hand their
    halves over at once, and with one worker the second waited for the first (#23's recall at
    10,000 memories + 100,000 messages: 69.0 / 70.8 ms p50 with one, 51.9 / 50.2 with two)."""
    return ThreadPoolExecutor(max_workers=_cores(), thread_name_prefix="cortex-products")


@cache
def _cores() -> int:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1
