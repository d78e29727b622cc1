"""The duplicate check's full-text lookup reads the match first, not every memory of the agent."""

from pathlib import Path

from cortex_mcp.store.db import open_database
from cortex_mcp.store.matches import LIVE_CONTAINING
from cortex_mcp.store.migrations import migrate


async def test_the_full_text_match_drives_the_lookup_not_the_agent_index(tmp_path: Path) -> None:
    db = await open_database(tmp_path / "m.db", 1000)
    try:
        await migrate(db)
        async with db.read() as conn:
            plan = await conn.execute_fetchall(
                "explain query plan " + LIVE_CONTAINING,
                {"match": '"friday"', "agent_id": "default", "limit": 10},
            )
    finally:
        await db.close()

    steps = [str(row[3]) for row in plan]
    assert steps[0].startswith("SCAN memories_fts"), steps
    assert any("INTEGER PRIMARY KEY" in step for step in steps[1:]), steps
