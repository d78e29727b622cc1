"""The memories' vectors searched in memory (#28): the matrix is loaded by the back-fill,
takes in this process's new vectors at once (a re-embedded memory keeps one row), steps aside
when another change moves the store's counter, and finds what sqlite-vec finds."""

from pathlib import Path
from typing import Any

from cortex_mcp.engine.facade import Engine, open_engine
from cortex_mcp.engine.recall.rank import nearest_memories
from cortex_mcp.models import Layer
from cortex_mcp.store import vectors
from tests.conftest import FrozenClock
from tests.fakes import FakeOpenAI
from tests.fakes.concepts import concept_vector
from tests.test_hybrid import vector_settings
from tests.test_log_vectors import backfilled

LAYERS = [Layer.CORE, Layer.WORKING, Layer.ARCHIVE]


async def nearest(engine: Engine, text: str, matrix: Any) -> list[tuple[float, str]]:
    """(distance rounded, memory id) of the default agent's nearest memories to `text`."""
    query = concept_vector(text, 64)
    async with engine.db.read() as conn:
        found = await nearest_memories(conn, query, "default", LAYERS, None, 10, matrix)
    return [(round(distance, 5), candidate.id) for distance, candidate in found]


async def test_the_memories_matrix_answers_as_sqlite_vec_does_and_keeps_one_row_per_memory(
    cortex_home: Path, fake_openai: FakeOpenAI, clock: FrozenClock
) -> None:
    async with open_engine(vector_settings(cortex_home, fake_openai), clock, {}) as engine:
        for text in ("I drive an old car", "Espresso every morning", "My cat sleeps all day"):
            await engine.remember(text)
        await backfilled(engine)
        matrix = engine.vectors.kept
        loaded = matrix.size
        puppy = await engine.remember("We adopted a puppy")
        embedded = await engine.vectors.backfill()  # its vector, taken in without a new read
        async with engine.db.read() as conn:
            in_step = await matrix.nearest(conn, concept_vector("dog", 64), 4)
            [(seq, _)] = await vectors.seqs_of(conn, [puppy.id])
        await engine.vectors.index([(seq, "We adopted a puppy")])  # re-embedded: replaced
        by_matrix = await nearest(engine, "my dog", matrix)
        by_sqlite_vec = await nearest(engine, "my dog", None)

    if engine.db.dialect != "sqlite":
        return  # PostgreSQL's HNSW index answers there
    assert loaded == 3 and embedded == 1
    assert in_step is not None and in_step[0][0] == seq
    assert matrix.size == 4
    assert by_matrix[0][1] == puppy.id
    assert sorted(by_matrix) == sorted(by_sqlite_vec)  # ties may come in either order


async def test_a_change_from_elsewhere_sends_the_search_to_sqlite_vec_until_the_next_read(
    cortex_home: Path, fake_openai: FakeOpenAI, clock: FrozenClock
) -> None:
    async with open_engine(vector_settings(cortex_home, fake_openai), clock, {}) as engine:
        kept = await engine.remember("I drive an old car")
        await engine.remember("Espresso every morning")
        await backfilled(engine)
        matrix = engine.vectors.kept
        await engine.purge([kept.id])  # drops its vector in the store's own transaction
        async with engine.db.read() as conn:
            stale = await matrix.nearest(conn, concept_vector("car", 64), 4)
        found = await nearest(engine, "car", matrix)
        await backfilled(engine)  # nothing to embed: the matrix is read again
        async with engine.db.read() as conn:
            fresh = await matrix.nearest(conn, concept_vector("car", 64), 4)

    assert kept.id not in [memory_id for _, memory_id in found]
    if engine.db.dialect == "sqlite":
        assert stale is None
        assert fresh is not None and matrix.size == 1
