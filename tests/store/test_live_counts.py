"""Whether an agent sees a live memory, and how many per layer (the digest's counts, and a
recall that found nothing asking whether the store is empty), read from the live memories'
index: at 100,000 memories each layer's count read every row, 70-86 ms, and every recall that
found nothing paid one (`python -m bench.speed stall`: p99 8.3× its p50)."""

from pathlib import Path

import pytest

from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import open_engine
from cortex_mcp.models import Category, Layer
from cortex_mcp.store.lifecycle import count_live, sees_a_live_memory
from cortex_mcp.store.memories import working_day_marks

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
