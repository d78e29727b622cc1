"""Schema migrations on real SQLite files."""

from pathlib import Path

import aiosqlite
import pytest

from cortex_mcp.store import migrations
from cortex_mcp.store.db import open_database
from cortex_mcp.store.migrations import MIGRATIONS, migrate, schema_version
from tests.conftest import inspect_database


async def test_a_blank_file_migrates_to_the_current_schema(tmp_path: Path) -> None:
    db = await open_database(tmp_path / "c.db", 1000)
    try:
        await migrate(db)
        assert await schema_version(db) == len(MIGRATIONS)
    finally:
        await db.close()

    with inspect_database(tmp_path / "c.db") as conn:
        tables = {row[0] for row in conn.execute("select name from sqlite_master")}
        journal = conn.execute("pragma journal_mode").fetchone()[0]
    assert {
        "memories",
        "memories_fts",
        "relations",
        "access_log",
        "lifecycle_log",
        "meta",
    } <= tables
    assert journal == "wal"


async def test_migrating_twice_changes_nothing(tmp_path: Path) -> None:
    db = await open_database(tmp_path / "c.db", 1000)
    try:
        await migrate(db)
        await migrate(db)
        assert await schema_version(db) == len(MIGRATIONS)
    finally:
        await db.close()


async def test_a_failing_step_leaves_version_and_schema_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken(conn: aiosqlite.Connection) -> None:
        await conn.execute("create table half_done (x)")
        await conn.execute("this is not sql")

    db = await open_database(tmp_path / "c.db", 1000)
    try:
        await migrate(db)
        monkeypatch.setattr(migrations, "MIGRATIONS", [*MIGRATIONS, broken])
        with pytest.raises(Exception, match="syntax error"):
            await migrations.migrate(db)
        assert await schema_version(db) == len(MIGRATIONS)
    finally:
        await db.close()

    with inspect_database(tmp_path / "c.db") as conn:
        assert (
            conn.execute("select name from sqlite_master where name = 'half_done'").fetchall() == []
        )
