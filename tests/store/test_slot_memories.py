"""The memories holding a slot (what recall answers "my ..." questions with first): exact
predicates and prefixes, only live ones an agent may see, read through the slot index."""

from pathlib import Path

import pytest

from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import open_engine
from cortex_mcp.store.memories import live_slot_memories

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]


async def test_exact_predicates_and_prefixes_find_the_live_slot_memories_of_the_agent(
    tmp_path: Path,
) -> None:
    settings = Settings.model_validate({"home": tmp_path, "embedding": {"provider": "none"}})
    async with open_engine(settings) as engine:
        for content in ["My cat is called Mimi.", "My dog is called Rex.", "I live in Lisbon."]:
            await engine.remember(content)
        await engine.remember("I work at Globex.")
        await engine.remember("I live in Oslo.", agent_id="other")
        await engine.remember("Actually I moved to Porto.")

        async def found(*predicates: str) -> list[str]:
            async with engine.db.read() as conn:
                rows = await live_slot_memories(conn, "default", list(predicates), 10)
            return sorted(m.content for m in rows)

        assert await found("pet:") == ["My cat is called Mimi.", "My dog is called Rex."]
        assert await found("pet:cat") == ["My cat is called Mimi."]
        assert await found("home") == ["Actually I moved to Porto."]  # Lisbon superseded
        assert await found("pet:", "workplace") == [
            "I work at Globex.",
            "My cat is called Mimi.",
            "My dog is called Rex.",
        ]
        assert await found("pe:", "pets", "work") == []  # a prefix is its whole text
        assert await found() == []


@pytest.mark.sqlite_only  # SQLite's query plan
async def test_slot_memories_are_read_through_the_slot_index(tmp_path: Path) -> None:
    """s6-bm25: the planner walked every live memory (55 ms at 100,000) instead."""
    settings = Settings.model_validate({"home": tmp_path, "embedding": {"provider": "none"}})
    statements: list[str] = []
    async with open_engine(settings) as engine, engine.db.read() as conn:
        raw = conn.raw  # SQLite's aiosqlite connection
        await raw.set_trace_callback(statements.append)  # the statements as bound
        await live_slot_memories(conn, "default", ["home", "pet:"], 3)
        await raw.set_trace_callback(None)
        (statement,) = [s for s in statements if "memories_by_slot" in s]
        plan = [str(row[3]) for row in await conn.fetch_all("explain query plan " + statement)]

    assert any("USING INDEX memories_by_slot" in step for step in plan), plan
    assert not any(step.startswith("SCAN m") for step in plan), plan
