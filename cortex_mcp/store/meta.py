"""Key/value facts about the store: schema, embedding model and dimension, leases."""

import uuid

from cortex_mcp.store.db import Connection, fetch_all, fetch_one

PURGE_MARK = "purge_mark"
"""A value each purge changes, in its erase's transaction: what a mirror write on PostgreSQL
(which has no `data_version`) checks to see that a purge came while it wrote."""


async def get_meta(conn: Connection, key: str) -> str | None:
    """The value stored under `key`, or None."""
    row = await fetch_one(conn, "select value from meta where key = ?", (key,))
    return str(row[0]) if row else None


async def set_meta(conn: Connection, key: str, value: str) -> None:
    """Store `value` under `key`, replacing any previous value."""
    await conn.execute(
        "insert into meta (key, value) values (?, ?)"
        " on conflict(key) do update set value = excluded.value",
        (key, value),
    )


async def meta_with_prefix(conn: Connection, prefix: str) -> dict[str, str]:
    """Every key starting with `prefix` and its value."""
    rows = await fetch_all(
        conn,
        "select key, value from meta where substr(key, 1, cast(? as integer)) = ?",
        (len(prefix), prefix),
    )
    return {str(row[0]): str(row[1]) for row in rows}


async def delete_meta(conn: Connection, keys: list[str]) -> None:
    """Forget these keys."""
    await conn.executemany("delete from meta where key = ?", [(key,) for key in keys])


async def mark_purged(conn: Connection) -> None:
    """Leave a new PURGE_MARK (a fresh token: two purges at once both change it)."""
    await set_meta(conn, PURGE_MARK, uuid.uuid4().hex)


async def purge_mark(conn: Connection) -> str:
    """The last purge's PURGE_MARK ("" before any)."""
    return await get_meta(conn, PURGE_MARK) or ""
