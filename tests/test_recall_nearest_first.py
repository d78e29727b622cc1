"""The nearest neighbours are read from the store a first share at a time (#28): when the
first 1.5 × limit are not enough (another agent's memories lie nearer), all of them are read,
so the answer is the one reading all of them at once gives."""

from collections.abc import Awaitable, Callable
from pathlib import Path

from cortex_mcp.engine.facade import open_engine
from cortex_mcp.engine.recall.rank import nearest_first, nearest_memories
from cortex_mcp.models import Layer
from tests.conftest import FrozenClock
from tests.fakes import FakeOpenAI
from tests.fakes.concepts import concept_vector
from tests.test_hybrid import vector_settings
from tests.test_log_vectors import backfilled

LAYERS = [Layer.CORE, Layer.WORKING, Layer.ARCHIVE]


async def test_nearest_first_reads_all_only_when_the_first_share_falls_short() -> None:
    reads: list[int] = []

    def visible(limit: int) -> Callable[[list[tuple[int, float]]], Awaitable[list[int]]]:
        async def read(pairs: list[tuple[int, float]]) -> list[int]:
            reads.append(len(pairs))
            return [seq for seq, _ in pairs if seq % 2 == 0][:limit]  # the store keeps evens

        return read

    nearest = [(seq, seq / 10) for seq in range(1, 9)]
    assert await nearest_first(nearest, 2, visible(2)) == [2, 4]
    assert reads == [3, 8]  # the first three hold one the store keeps: all eight are read
    reads.clear()
    assert await nearest_first([(2, 0.1), (4, 0.2), (6, 0.3), (8, 0.4)], 2, visible(2)) == [2, 4]
    assert reads == [3]  # the first three were enough


async def test_another_agents_nearer_memories_do_not_hide_this_agents_farther_ones(
    cortex_home: Path, fake_openai: FakeOpenAI, clock: FrozenClock
) -> None:
    async with open_engine(vector_settings(cortex_home, fake_openai), clock, {}) as engine:
        for text in ("My dog barks", "Our dog is a puppy", "The dog sleeps"):
            await engine.remember(text, agent_id="planner")
        mine = await engine.remember("I drive an old car")
        await backfilled(engine)
        query = concept_vector("my dog", 64)
        async with engine.db.read() as conn:
            found = await nearest_memories(
                conn, query, "default", LAYERS, None, 1, engine.vectors.kept
            )
            by_sqlite_vec = await nearest_memories(conn, query, "default", LAYERS, None, 1, None)
    assert [candidate.id for _, candidate in found] == [mine.id]
    assert [candidate.id for _, candidate in by_sqlite_vec] == [mine.id]
