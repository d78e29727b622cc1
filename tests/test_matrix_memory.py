"""The vector matrices' room (#28 item 6): held as int8 with a scale per row they answer as the
float32 matrix does (the same nearest rows, distances within a thousandth) in a quarter of the
room, and they are read from the store a piece at a time: the message matrix used to be read
whole (every float32 blob as a Python object, then a float32 copy), which took a serving
process from 97 to 605 MB at 100,000 logged messages."""

import tracemalloc
from collections.abc import AsyncIterator
from pathlib import Path

import numpy as np
import pytest

from cortex_mcp.engine.vector_matrix import MEMORIES, MESSAGES, VectorMatrix
from cortex_mcp.store import message_vectors, vectors
from cortex_mcp.store.db import Database
from cortex_mcp.store.migrations import migrate
from cortex_mcp.store.sqlite import open_database

DIMENSION = 384
ROWS = 3000


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Database]:
    """A migrated SQLite store holding ROWS e5-sized vectors of memories and of messages,
    clustered around a few centres as real embeddings are (random vectors are all far apart)."""
    db = await open_database(tmp_path / "cortex.db", 10_000)
    try:
        await migrate(db)
        if not db.has_vectors:
            pytest.skip("sqlite-vec does not load here")
        rng = np.random.default_rng(7)
        centres = rng.standard_normal((12, DIMENSION))
        drawn = centres[rng.integers(0, 12, ROWS)] + rng.standard_normal((ROWS, DIMENSION)) * 0.6
        pairs = [(seq + 1, [float(x) for x in row]) for seq, row in enumerate(drawn)]
        async with db.write() as conn:
            await vectors.ensure_vector_table(conn, "test-model", DIMENSION)
            await message_vectors.create_table(conn, DIMENSION)
            await vectors.upsert_vectors(conn, pairs)
            await message_vectors.upsert(conn, pairs)
        yield db
    finally:
        await db.close()


def queries(count: int) -> list[list[float]]:
    rng = np.random.default_rng(11)
    return [[float(x) for x in row] for row in rng.standard_normal((count, DIMENSION))]


async def test_an_int8_matrix_finds_what_the_float32_one_finds_in_a_quarter_of_the_room(
    store: Database,
) -> None:
    exact, small = VectorMatrix(MEMORIES, precision="float32"), VectorMatrix(MEMORIES)
    assert await exact.refresh(store) and await small.refresh(store)
    overlaps, errors = [], []
    async with store.read() as conn:
        for query in queries(40):
            want = await exact.nearest(conn, query, 10)
            got = await small.nearest(conn, query, 10)
            assert want is not None and got is not None
            overlaps.append(len({s for s, _ in want} & {s for s, _ in got}))
            distance = dict(want)
            errors += [abs(d - distance[s]) for s, d in got if s in distance]

    assert small.size == exact.size == ROWS
    assert small.rows.dtype == np.int8
    assert small.nbytes < 0.3 * exact.nbytes
    assert max(errors) < 2e-3, max(errors)
    assert min(overlaps) >= 8 and sum(overlaps) >= 0.95 * 10 * 40, overlaps


async def test_the_matrix_is_read_a_piece_at_a_time_never_the_whole_table_at_once(
    store: Database,
) -> None:
    matrix = VectorMatrix(MESSAGES, piece=64)
    whole_table = ROWS * DIMENSION * 4  # the float32 blobs a whole read held at once
    tracemalloc.start()
    try:
        assert await matrix.refresh(store)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert matrix.size == ROWS
    assert sorted(matrix.seqs[:ROWS].tolist()) == list(range(1, ROWS + 1))
    assert len(matrix.rows) == 2 * ROWS + 16  # the table's size, and as much room again
    room = sum(part.nbytes for part in (matrix.seqs, matrix.rows, matrix.scales))
    reading = peak - room  # the arrays' room is allocated whole (and resident only as written)
    assert reading < 0.35 * whole_table, f"{reading / 1e6:.1f} MB besides the matrix while reading"


async def test_a_session_adds_as_many_rows_again_before_the_matrix_is_copied(
    store: Database,
) -> None:
    """A growth copies the matrix, the old and the new held at once: at 100,000 vectors that
    was the peak of a burst of writes (244-249 MiB, #28 item 6). A matrix read from the store
    takes as many rows again into room no vector has written yet (address space, not memory)."""
    matrix = VectorMatrix(MEMORIES)
    await matrix.refresh(store)
    read = matrix.rows
    rng = np.random.default_rng(17)
    for start in range(ROWS + 1, 2 * ROWS + 1, 500):
        added = [(seq, [float(x) for x in rng.standard_normal(DIMENSION)]) for seq in
                 range(start, min(start + 500, 2 * ROWS + 1))]  # fmt: skip
        matrix.appended(added, matrix.generation)

    assert matrix.size == 2 * ROWS and matrix.rows is read  # no copy
    assert matrix.nbytes < 2 * ROWS * (DIMENSION + 8 + 4 + 1)  # held rows: no room counted
    more = [(2 * ROWS + 1 + i, vector) for i, vector in enumerate(queries(17))]
    matrix.appended(more, matrix.generation)  # the room held 16 more: now it is full
    assert matrix.rows is not read and len(matrix.rows) >= 2 * len(read)  # so it doubled
    assert matrix.size == 2 * ROWS + 17


async def test_an_int8_matrix_takes_in_new_and_replaced_vectors_as_float32_would(
    store: Database,
) -> None:
    matrix = VectorMatrix(MEMORIES)
    await matrix.refresh(store)
    async with store.read() as conn:
        before = await vectors.memory_generation(conn)
    target = queries(1)[0]
    matrix.appended([(5, target), (ROWS + 1, [-x for x in target])], before)
    async with store.read() as conn:
        stale = await matrix.nearest(conn, target, 3)  # the store did not move: not in step
    found = matrix.search(target, ROWS + 1)

    assert stale is None
    assert matrix.size == ROWS + 1  # seq 5 replaced, one added
    assert found[0][0] == 5 and found[0][1] == pytest.approx(0.0, abs=1e-3)
    assert found[-1][0] == ROWS + 1 and found[-1][1] == pytest.approx(2.0, abs=1e-3)


async def test_a_large_matrix_scores_the_rows_its_sketches_rank_best_and_finds_the_same(
    store: Database,
) -> None:
    exact = VectorMatrix(MEMORIES, sketch_from=ROWS + 1)  # too small for sketches: every row
    sketched = VectorMatrix(MEMORIES, sketch_from=ROWS // 2)
    assert await exact.refresh(store) and await sketched.refresh(store)
    async with store.read() as conn:
        before = await vectors.memory_generation(conn)
    added = queries(2)
    sketched.appended([(5, added[0]), (ROWS + 1, added[1])], before)  # sketched as they come
    exact.appended([(5, added[0]), (ROWS + 1, added[1])], before)
    rng = np.random.default_rng(13)  # questions lie near what they ask about, as real ones do
    near = [
        exact.rows[i] * exact.scales[i] + rng.standard_normal(DIMENSION) * 0.03
        for i in rng.integers(0, ROWS, 40)
    ]
    overlaps = []
    for query in [*[[float(x) for x in row] for row in near], *added]:
        want = exact.search(query, 10)
        got = sketched.search(query, 10)
        overlaps.append(len({s for s, _ in want} & {s for s, _ in got}))
        distance = dict(want)
        assert all(d == pytest.approx(distance[s], abs=1e-6) for s, d in got if s in distance)

    assert exact.projection is None and sketched.projection is not None
    assert sketched.sketches.shape == (len(sketched.rows), DIMENSION // 4)
    assert (
        sketched.search(added[0], 1)[0][0] == 5 and sketched.search(added[1], 1)[0][0] == ROWS + 1
    )
    assert sum(overlaps) >= 0.98 * 10 * len(overlaps), overlaps
    wide = queries(3)[2]  # a short list over a quarter of the rows: every row is scored
    assert sketched.search(wide, 300) == exact.search(wide, 300)
