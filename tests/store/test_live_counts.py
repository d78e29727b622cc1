"""The weightiest live core memories (MEMORY.md after every write, the digest), whether an
agent sees a live memory, and how many per layer (the digest's counts, and a
recall that found nothing asking whether the store is empty), read from the live memories'
index: at 100,000 memories each layer's count read every row, 70-86 ms, and every recall that
found nothing paid one (`python -m bench.speed stall`: p99 8.3× its p50)."""

from pathlib import Path

import pytest

from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import open_engine
from cortex_mcp.models import Category, Layer
from cortex_mcp.store.lifecycle import count_live, sees_a_live_memory
from cortex_mcp.store.memories import live_memories, weightiest_core
from cortex_mcp.store.working_days import working_day_marks

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]


async def test_an_agent_sees_a_live_memory_of_its_own_only(tmp_path: Path) -> None:
    settings = Settings.model_validate({"home": tmp_path, "embedding": {"provider": "none"}})
    async with open_engine(settings) as engine:
        async with engine.db.read() as conn:
            assert not await sees_a_live_memory(conn, "default")
        kept = await engine.remember("I live in Lisbon.", agent_id="other")
        async with engine.db.read() as conn:
            assert not await sees_a_live_memory(conn, "default")
            assert await sees_a_live_memory(conn, "other")
        await engine.forget(kept.id, agent_id="other")
        async with engine.db.read() as conn:
            assert not await sees_a_live_memory(conn, "other")
            assert await count_live(conn, "other", Layer.CORE, list(Category)) == 0


@pytest.mark.sqlite_only  # SQLite's query plan
async def test_live_memories_are_counted_from_their_index(tmp_path: Path) -> None:
    """And the mirror's marks of the working days, read after every write (113 ms at 100,000
    memories, a recall queued behind them)."""
    settings = Settings.model_validate({"home": tmp_path, "embedding": {"provider": "none"}})
    statements: list[str] = []
    async with open_engine(settings) as engine:
        await engine.remember("I live in Lisbon.")
        async with engine.db.read() as conn:
            raw = conn.raw  # SQLite's aiosqlite connection, the one every read uses
            await raw.set_trace_callback(statements.append)  # the statements as bound
            assert await count_live(conn, "default", Layer.CORE, list(Category)) == 1
        assert await working_day_marks(engine.db, "default") == {}  # no working memory
        async with engine.db.read() as conn:
            await raw.set_trace_callback(None)
            plans = [
                [str(row[3]) for row in await conn.fetch_all("explain query plan " + statement)]
                for statement in statements
                if "count(*)" in statement
            ]

    assert len(plans) == 2, statements  # the count and the marks
    for plan in plans:
        assert any("USING INDEX memories_live_by_layer" in step for step in plan), plan


async def test_the_weightiest_core_memories_are_live_memories_first_of_core(tmp_path: Path) -> None:
    settings = Settings.model_validate({"home": tmp_path, "embedding": {"provider": "none"}})
    async with open_engine(settings) as engine:
        for i, content in enumerate(
            [
                "I live in Lisbon.",
                "My cat is called Mimi.",
                "We deploy on Fridays only.",
                "I prefer tea over coffee.",
                "The billing service runs on PostgreSQL 16.",
            ]
        ):
            await engine.remember(content, importance=0.5 + i / 10)
        await engine.remember("My sister lives in Porto.", agent_id="other")
        forgotten = await engine.remember("The office is in Berlin.", importance=0.99)
        await engine.forget(forgotten.id)
        async with engine.db.read() as conn:
            everything = await live_memories(conn, "default", [Layer.CORE], None, 10)
            three = await weightiest_core(conn, "default", None, 3)
            facts = await weightiest_core(conn, "default", [Category.FACT], 10)
            all_facts = await live_memories(conn, "default", [Layer.CORE], [Category.FACT], 10)

    assert [m.id for m in three] == [m.id for m in everything[:3]]
    assert three[0].content == "The billing service runs on PostgreSQL 16."
    assert [m.id for m in facts] == [m.id for m in all_facts]
    assert "The office is in Berlin." not in {m.content for m in everything}


@pytest.mark.sqlite_only  # SQLite's query plan
async def test_the_weightiest_core_memories_are_read_along_their_index(tmp_path: Path) -> None:
    """MEMORY.md's read after every write took 51 ms at 100,000 memories: SQLite planned the
    general statement over every live row."""
    settings = Settings.model_validate({"home": tmp_path, "embedding": {"provider": "none"}})
    statements: list[str] = []
    async with open_engine(settings) as engine:
        await engine.remember("I live in Lisbon.")
        async with engine.db.read() as conn:
            await conn.raw.set_trace_callback(statements.append)
            assert len(await weightiest_core(conn, "default", None, 5)) == 1
            await conn.raw.set_trace_callback(None)
            (statement,) = [s for s in statements if "memories_core_by_weight" in s]
            plan = [str(row[3]) for row in await conn.fetch_all("explain query plan " + statement)]

    assert any("USING INDEX memories_core_by_weight" in step for step in plan), plan
