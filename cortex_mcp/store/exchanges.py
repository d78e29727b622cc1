"""Links from each ingested exchange (or flush) to the memories derived from it, under the
conversation log's exchange id (one id per ingest or flush).

The stored copies of an exchange are memories of channel `summary` (a flush's session summary)
and, in stores from before the conversation log, `fallback` (the unextracted conversation).
"""

import json
from typing import Any

from cortex_mcp.models import Memory
from cortex_mcp.search.tokenize import context_of
from cortex_mcp.store.dates import reindex_dates
from cortex_mcp.store.db import Connection, Sql, fetch_all, fetch_one
from cortex_mcp.store.memories import index_memory, to_memory, unindex_memories

COPY_CHANNELS = ("fallback", "summary")


async def link_exchange(conn: Connection, exchange_id: str, memory_ids: list[str]) -> None:
    """Record that these memories came from the exchange."""
    await conn.executemany(
        "insert into exchange_links (exchange_id, memory_id) values (?, ?) on conflict do nothing",
        [(exchange_id, memory_id) for memory_id in dict.fromkeys(memory_ids)],
    )


async def copy_links(conn: Connection, from_ids: list[str], to_ids: list[str]) -> None:
    """The memories `to_ids` (extracted later from a queued exchange) join the exchanges the
    memories `from_ids` (its fallback copies) came from."""
    await conn.execute(
        Sql(
            "insert into exchange_links (exchange_id, memory_id)"
            " select distinct l.exchange_id, t.value from exchange_links l, json_each(:to) t"
            " where l.memory_id in (select value from json_each(:from))"
            " on conflict do nothing",
            "insert into exchange_links (exchange_id, memory_id)"
            " select distinct l.exchange_id, t from exchange_links l,"
            " json_array_elements_text(cast(:to as json)) t"
            " where l.memory_id in (select json_array_elements_text(cast(:from as json)))"
            " on conflict do nothing",
        ),
        {"from": json.dumps(from_ids), "to": json.dumps(to_ids)},
    )


async def siblings(conn: Connection, memory_ids: list[str]) -> list[Memory]:
    """Every other memory from the same exchanges as these, in any state."""
    rows = await fetch_all(
        conn,
        Sql(
            "select distinct m.* from exchange_links mine"
            " join exchange_links other on other.exchange_id = mine.exchange_id"
            " join memories m on m.id = other.memory_id"
            " where mine.memory_id in (select value from json_each(:ids))"
            " and m.id not in (select value from json_each(:ids))",
            "select * from memories m where m.id in (select other.memory_id from exchange_links"
            " mine join exchange_links other on other.exchange_id = mine.exchange_id"
            " where mine.memory_id in (select json_array_elements_text(cast(:ids as json))))"
            " and m.id not in (select json_array_elements_text(cast(:ids as json)))",
        ),
        {"ids": json.dumps(memory_ids)},
    )
    return [to_memory(row) for row in rows]


def is_copy(memory: Memory) -> bool:
    """True for a stored copy of an exchange's text (not a memory extracted from it)."""
    return memory.metadata.get("channel") in COPY_CHANNELS


async def set_metadata(conn: Connection, memory_id: str, metadata: dict[str, Any]) -> None:
    """Replace a memory's metadata and write its full-text row again (the context column
    follows the metadata)."""
    row = await fetch_one(
        conn,
        "update memories set metadata = ? where id = ? returning seq, content",
        (json.dumps(metadata, ensure_ascii=False), memory_id),
    )
    assert row is not None
    await unindex_memories(conn, [row[0]])
    await index_memory(conn, row[0], row[1], metadata)
    await reindex_dates(conn, row[0])


def has_context(memory: Memory) -> bool:
    """True when the memory's context is searchable now."""
    return bool(context_of(memory.metadata))


async def fold_into_log_ids(conn: Connection) -> int:
    """Links made under a random id of their own move to the conversation log's id that their
    memories record (`metadata.exchange_id`), so an ingest has one id; how many groups moved."""
    found = await fetch_all(
        conn,
        "select l.exchange_id, m.metadata from exchange_links l"
        " join memories m on m.id = l.memory_id order by m.seq",
    )
    moves: dict[str, str] = {}
    for old, metadata in found:
        logged = json.loads(metadata).get("exchange_id")
        if isinstance(logged, str) and logged != old:
            moves.setdefault(old, logged)
    for old, logged in moves.items():
        await conn.execute(
            "insert into exchange_links (exchange_id, memory_id) select ?, memory_id"
            " from exchange_links where exchange_id = ? on conflict do nothing",
            (logged, old),
        )
        await conn.execute("delete from exchange_links where exchange_id = ?", (old,))
    return len(moves)
