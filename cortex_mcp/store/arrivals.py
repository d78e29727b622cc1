"""Memories in the order they arrived (by `seq`): what a background pass has not looked at yet."""

from cortex_mcp.models import Memory
from cortex_mcp.store.db import Connection, fetch_all, fetch_one
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
