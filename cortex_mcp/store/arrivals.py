"""Memories in the order they arrived (by `seq`): what a background pass has not looked at yet."""

import json

from cortex_mcp.models import Memory
from cortex_mcp.store.db import Connection, Sql, fetch_all, fetch_one
from cortex_mcp.store.memories import to_memory


async def last_seq(conn: Connection) -> int:
    """The `seq` of the newest memory (0 for an empty store)."""
    row = await fetch_one(conn, "select coalesce(max(seq), 0) as last from memories", ())
    return int(row["last"]) if row else 0


async def arrived_after(conn: Connection, seq: int, limit: int) -> list[tuple[int, Memory]]:
    """(seq, memory) of up to `limit` memories stored after `seq`, oldest first."""
    rows = await fetch_all(
        conn, "select * from memories where seq > ? order by seq limit ?", (seq, limit)
    )
    return [(int(row["seq"]), to_memory(row)) for row in rows]


async def arrived_before(conn: Connection, memory_ids: list[str], seq: int) -> set[str]:
    """Those of `memory_ids` stored before `seq` (arrival order: two memories made in the same
    instant are still one before the other)."""
    rows = await fetch_all(
        conn,
        Sql(
            "select id from memories where seq < ? and id in (select value from json_each(?))",
            "select id from memories where seq < ? and id in"
            " (select json_array_elements_text(cast(? as json)))",
        ),
        (seq, json.dumps(memory_ids)),
    )
    return {str(row["id"]) for row in rows}
