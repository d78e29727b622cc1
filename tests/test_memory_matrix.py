"""The memories' vectors searched in memory (#28), on both engines (#23): the matrix is
loaded by the back-fill, takes in this process's new vectors at once (a re-embedded memory
keeps one row), steps aside when another change moves the store's counter (in this process or
another), and finds what sqlite-vec or pgvector finds."""

from pathlib import Path
from typing import Any

import pytest

from cortex_mcp.engine.facade import Engine, open_engine
from cortex_mcp.engine.recall.rank import nearest_memories
from cortex_mcp.engine.vector_matrix import MEMORIES, VectorMatrix
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


@pytest.mark.engines
@pytest.mark.usefixtures("database_engine")
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

    assert loaded == 3 and embedded == 1
    assert in_step is not None and in_step[0][0] == seq
    assert matrix.size == 4
    assert by_matrix[0][1] == puppy.id
    assert sorted(by_matrix) == sorted(by_sqlite_vec)  # ties may come in either order


@pytest.mark.engines
@pytest.mark.usefixtures("database_engine")
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
    assert stale is None
    assert fresh is not None and matrix.size == 1


@pytest.mark.engines
@pytest.mark.usefixtures("database_engine")
async def test_vectors_changed_by_another_engine_on_the_same_store_are_never_searched_stale(
    cortex_home: Path, fake_openai: FakeOpenAI, clock: FrozenClock
) -> None:
    """A second engine (its own connections, as a second server process has) embeds one
    memory and purges another: the first one's matrix steps aside (the store's index
    answers, without the purged memory) until its back-fill reads the table again."""
    settings = vector_settings(cortex_home, fake_openai)
    async with open_engine(settings, clock, {}) as mine:
        car = await mine.remember("I drive an old car")
        await mine.remember("Espresso every morning")
        await backfilled(mine)
        matrix = mine.vectors.kept
        async with open_engine(settings, clock, {}) as other:
            puppy = await other.remember("We adopted a puppy")
            await backfilled(other)
            await other.purge([car.id])
        async with mine.db.read() as conn:
            stale = await matrix.nearest(conn, concept_vector("dog", 64), 4)
        meanwhile = await nearest(mine, "my dog", matrix)
        await backfilled(mine)  # nothing to embed here: the matrix is read again
        async with mine.db.read() as conn:
            fresh = await matrix.nearest(conn, concept_vector("dog", 64), 4)
            [(puppy_seq, _)] = await vectors.seqs_of(conn, [puppy.id])
        after = await nearest(mine, "my dog", matrix)
        by_index = await nearest(mine, "my dog", None)

    assert stale is None
    assert meanwhile[0][1] == puppy.id and car.id not in [m for _, m in meanwhile]
    assert fresh is not None and fresh[0][0] == puppy_seq and matrix.size == 2
    assert [m for _, m in after] == [m for _, m in by_index]


@pytest.mark.engines
@pytest.mark.usefixtures("database_engine")
async def test_a_matrix_in_step_answers_the_search_on_either_engine(
    cortex_home: Path, fake_openai: FakeOpenAI, clock: FrozenClock
) -> None:
    """#23: on PostgreSQL too the matrix, not the HNSW index, answers while it is in step (the
    engines then search the same int8 copy): a matrix holding the car memory under the dog's
    vector puts the car first, where the store's index would put the puppy."""
    async with open_engine(vector_settings(cortex_home, fake_openai), clock, {}) as engine:
        car = await engine.remember("I drive an old car")
        puppy = await engine.remember("We adopted a puppy")
        await backfilled(engine)
        async with engine.db.read() as conn:
            [(car_seq, _)] = await vectors.seqs_of(conn, [car.id])
            change = await vectors.memory_generation(conn)
        planted = VectorMatrix(MEMORIES, precision="float32", generation=change - 1)
        planted.appended([(car_seq, concept_vector("dog", 64))], change - 1)  # "in step"
        by_matrix = await nearest(engine, "my dog", planted)
        by_index = await nearest(engine, "my dog", None)

    assert [memory_id for _, memory_id in by_matrix] == [car.id]
    assert by_index[0][1] == puppy.id
