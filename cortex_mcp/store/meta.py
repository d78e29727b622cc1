"""Key/value facts about the store: schema, embedding model and dimension, leases."""

import aiosqlite

from cortex_mcp.store.db import fetch_one


async def get_meta(conn: aiosqlite.Connection, key: str) -> str | None:
    """The value stored under `key`, or None."""
    row = await fetch_one(conn, "select value from meta where key = ?", (key,))
    return str(row[0]) if row else None


async def set_meta(conn: aiosqlite.Connection, key: str, value: str) -> None:
    """Store `value` under `key`, replacing any previous value."""
    await conn.execute(
        "insert into meta (key, value) values (?, ?)"
        " on conflict(key) do update set value = excluded.value",
        (key, value),
    )
