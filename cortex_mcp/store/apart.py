"""Reads that must not hold the process's one SQLite connection (and the tool calls queued for
it): a short-lived read-only connection of their own, in a worker thread. SQLite's WAL lets it
read beside the writer and the driver releases the GIL while it steps, so a scan of a large
store runs beside recalls instead of between them. On PostgreSQL the pool already gives every
read a connection of its own."""

from pathlib import Path
from types import ModuleType
from typing import Any

import anyio.to_thread

from cortex_mcp.store.db import Database, Params, fetch_all
from cortex_mcp.store.sqlite import SqliteDatabase


async def read_apart(db: Database, sql: str, params: Params) -> list[Any]:
    """The rows of one read-only statement (plain SQL both engines accept), read apart."""
    if isinstance(db, SqliteDatabase):
        return await anyio.to_thread.run_sync(_read_file, db.driver.module, db.path, sql, params)
    async with db.read() as conn:
        return await fetch_all(conn, sql, params)


def _read_file(module: ModuleType, path: Path, sql: str, params: Params) -> list[Any]:
    conn = module.connect(f"{path.as_uri()}?mode=ro", uri=True, check_same_thread=False)
    try:
        return list(conn.execute(sql, params).fetchall())
    finally:
        conn.close()
