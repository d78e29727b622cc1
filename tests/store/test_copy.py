"""`cortex-mcp migrate` carries every table of the schema: each table either is copied (counts
and content hash compared) or is named in `copy.REBUILT` with the reason, on both engines."""

import json
from pathlib import Path
from typing import Any

import anyio
import psycopg
import pytest

from cortex_mcp import cli
from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import open_engine
from cortex_mcp.store.copy import REBUILT
from cortex_mcp.store.sqlite import pick_driver, plain_connection
from tests.conftest import FrozenClock
from tests.postgres import LocalPostgres

DATED = [
    "Yesterday I moved the build server to the basement",
    "Last week Ann finished the Lisbon report",
    "On 8 May 2023 we signed the lease",
]


def quiet(home: Path, url: str | None = None) -> Settings:
    database = {"url": url} if url else {}
    return Settings.model_validate(
        {
            "home": home,
            "llm": {"provider": "none"},
            "embedding": {"provider": "none"},
            "database": database,
        }
    )


def sqlite_tables(path: Path) -> dict[str, int]:
    """Every table of a SQLite store (FTS5 and vec0 shadow tables included) with its rows."""
    with plain_connection(path) as conn:  # the file, seen from outside
        names = [
            row[0]
            for row in conn.execute("select name from sqlite_master where type = 'table'")
            if not row[0].startswith("sqlite_")
        ]
        found = {}
        for name in names:
            try:
                found[name] = conn.execute(f'select count(*) from "{name}"').fetchone()[0]
            except pick_driver().errors:  # a virtual table whose module is not loaded here
                found[name] = -1
    return found


def postgres_tables(url: str) -> dict[str, int]:
    """Every table of the PostgreSQL store's public schema with its rows."""
    with psycopg.connect(url) as conn:
        names = [
            row[0]
            for row in conn.execute(
                "select table_name from information_schema.tables"
                " where table_schema = 'public' and table_type = 'BASE TABLE'"
            )
        ]
        return {
            name: int(conn.execute(f'select count(*) from "{name}"').fetchone()[0])  # type: ignore[index]
            for name in names
        }


def rebuilt(name: str) -> bool:
    return any(name == kept or name.startswith(f"{kept}_") for kept in REBUILT)


def carried(tables: dict[str, int]) -> dict[str, int]:
    """The tables a copy must carry over, with their rows (meta: the target rebuilds the
    vector index's keys, so those are left out of both sides by the copy's own count)."""
    return {name: rows for name, rows in tables.items() if not rebuilt(name)}


def migrate(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    capsys.readouterr()
    status = cli.main(["migrate", *argv])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    return dict(json.loads(captured.out))


async def test_every_table_of_either_schema_is_copied_counted_and_hashed_or_named_as_rebuilt(
    cortex_home: Path,
    local_postgres: LocalPostgres,
    clock: FrozenClock,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CORTEX_EMBEDDING__PROVIDER", "none")
    monkeypatch.setenv("CORTEX_LLM__PROVIDER", "none")
    async with open_engine(quiet(cortex_home), clock, {}) as engine:
        for text in DATED:
            await engine.remember(text)
        await engine.ingest("Two days ago I lost my keys.", "I hope they turn up.")
    url = local_postgres.fresh_database()
    back = cortex_home.parent / "back.db"

    there = await anyio.to_thread.run_sync(migrate, capsys, "--to", url)
    home_again = await anyio.to_thread.run_sync(migrate, capsys, "--from", url, "--to", str(back))

    source = sqlite_tables(cortex_home / "cortex.db")
    assert source["memory_dates"] >= len(DATED)
    for copy in (carried(postgres_tables(url)), carried(sqlite_tables(back))):
        assert set(copy) == set(carried(source))  # a new table must be copied or named
        # meta differs by the vector index's keys, which the copy rebuilds and counts apart
        assert {k: v for k, v in copy.items() if k != "meta"} == {
            k: v for k, v in carried(source).items() if k != "meta"
        }
    for report in (there, home_again):
        assert report["verified"] is True and report["mismatched_tables"] == []
        assert set(report["source_counts"]) == set(carried(source))
    assert there["copied"]["memory_dates"] == source["memory_dates"]
