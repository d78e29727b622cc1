"""Each row of a matrix times one vector, on two cores when the matrix is large (#23, #28).

A recall's nearest-neighbour search waits for these sums of products once the query's vector is
there, and at that moment the rest of the recall is mostly waiting for them: at 100,000 rows the
other core was idle for the ~7 ms the sketches' pass took on one. The sums let go of the GIL, so
the second half of the rows is summed in a thread of its own while the calling thread sums the
first; the result is the same, bit for bit, as one pass (each row's sum is made the same way,
only by another thread).

int8 rows (the matrix and its sketches) are summed by SimSIMD's integer kernels where it is
installed: the float32 vector is written as two int8 vectors, its largest part and what that
leaves over (`vector ≈ high × high_scale + low × low_scale`), each summed against the rows in
integers (exact) and weighed in float32: off numpy's float32 sums by ~1e-5 of a unit vector's
similarity (the rows' own int8 rounding is ~5e-4), in about half their time (docs/benchmarks.md,
"SimSIMD's products"). The sketches' first pass, which only ranks, takes the high part alone.
Without SimSIMD, and for float32 rows, numpy's own loops (`einsum`, never BLAS:
engine/vector_sketch.py).
"""

import importlib.util
import os
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from typing import Any

SPLIT_FROM = 2048
"""Rows from which the products are split over two threads: 384-wide int8 rows took 0.78 ms in
one pass and 0.48 ms split at 3,000 rows here; below ~2,000 a thread's hand-over costs about
what it saves."""
INT8_MAX = 127
"""The largest int8 a unit vector's component is scaled to (the matrix, its sketches, a query)."""
HAS_SIMSIMD = importlib.util.find_spec("simsimd") is not None


def row_products(rows: Any, vector: Any, *, rough: bool = False) -> Any:
    """float32 (len(rows),): each row of `rows` (int8 or float32) times `vector` (float32);
    `rough`: int8 rows times `vector` as one int8 vector (a first pass that only ranks)."""
    import numpy as np

    count = len(rows)
    out = np.empty(count, dtype=np.float32)
    if rows.dtype == np.int8 and HAS_SIMSIMD:
        into = _int8_into(vector, 1 if rough else 2)
    else:
        into = _float_into(vector)
    if count < SPLIT_FROM or _cores() < 2:
        into(rows, out)
        return out
    half = count // 2
    other = _second_thread().submit(into, rows[half:], out[half:])
    into(rows[:half], out[:half])
    other.result()
    return out


def _float_into(vector: Any) -> Any:
    """Sums `rows` times `vector` into `out` with numpy's loops (an int8 matrix is cast a
    buffer at a time: no float32 copy of it)."""
    import numpy as np

    def into(rows: Any, out: Any) -> None:
        np.einsum("ij,j->i", rows, vector, dtype=np.float32, casting="unsafe", out=out)

    return into


def _int8_into(vector: Any, count: int) -> Any:
    """Sums int8 `rows` times `vector` (as `count` int8 parts) into `out` in SimSIMD's integer
    kernels (module doc)."""
    import numpy as np
    import simsimd

    parts, scales = _as_int8_parts(np.asarray(vector, dtype=np.float32), count)

    def into(rows: Any, out: Any) -> None:
        # sums of int8 products are exact in float32 up to 1,040 dimensions (127² × 1,040 <
        # 2**24), e5's 384 among them; beyond, rounded to float32's 6e-8
        sums = np.asarray(simsimd.cdist(parts, rows, metric="dot", out_dtype="float32"))
        np.multiply(sums[0], scales[0], out=out)
        for place in range(1, len(parts)):
            out += sums[place] * scales[place]

    return into


def _as_int8_parts(vector: Any, count: int) -> tuple[Any, Any]:
    """(`count`, dimension) int8 and their float32 scales: `vector`'s largest part and what
    each leaves over."""
    import numpy as np

    parts = np.empty((count, len(vector)), dtype=np.int8)
    scales = np.empty(count, dtype=np.float32)
    left = vector
    for place in range(count):
        largest = float(np.abs(left).max())
        scales[place] = largest / INT8_MAX if largest else 1.0
        parts[place] = np.rint(left / scales[place])
        left = left - parts[place] * scales[place]
    return parts, scales


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
