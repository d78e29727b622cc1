"""Full-text lookups of the duplicate check: terms counted as indexed, the match first."""

from pathlib import Path

import pytest

from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import open_engine
from cortex_mcp.store.matches import LIVE_CONTAINING, document_counts
from cortex_mcp.store.migrations import migrate
from cortex_mcp.store.sqlite import open_database

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]


@pytest.mark.sqlite_only  # SQLite's query plan
async def test_the_full_text_match_drives_the_lookup_not_the_agent_index(tmp_path: Path) -> None:
    db = await open_database(tmp_path / "m.db", 1000)
    try:
        await migrate(db)
        async with db.read() as conn:
            plan = await conn.fetch_all(
                "explain query plan " + LIVE_CONTAINING,
                {"match": '"friday"', "agent_id": "default", "limit": 10},
            )
    finally:
        await db.close()

    steps = [str(row[3]) for row in plan]
    assert steps[0].startswith("SCAN memories_fts"), steps
    assert any("INTEGER PRIMARY KEY" in step for step in steps[1:]), steps


async def test_document_counts_stem_words_as_the_index_does(tmp_path: Path) -> None:
    settings = Settings.model_validate({"home": tmp_path, "embedding": {"provider": "none"}})
    async with open_engine(settings) as engine:
        await engine.remember("Caroline lives in Bangalore")
        await engine.remember("Melanie lived in Boston")
        await engine.remember("The title of the book")
        async with engine.db.read() as conn:
            counts = await document_counts(conn, ["lives", "title", "bangalore", 'odd"term'])

    assert counts == {"lives": 2, "title": 1, "bangalore": 1}  # absent terms are left out
