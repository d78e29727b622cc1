"""What the memory browser reads and writes: keyset pages of memories, edits, agent counts."""

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from cortex_mcp.clock import to_text
from cortex_mcp.models import Category, Layer, Memory
from cortex_mcp.search.tokenize import normalised_content
from cortex_mcp.store.dates import reindex_dates
from cortex_mcp.store.db import Connection, Sql, fetch_all, fetch_one
from cortex_mcp.store.memories import index_memory, to_memory, unindex_memories
from cortex_mcp.store.scope import sees_shared
from cortex_mcp.store.vectors import delete_vectors


@dataclass(frozen=True)
class PageFilter:
    """Which memories a page shows; None leaves a dimension open."""

    agent_id: str
    layer: Layer | None = None
    category: Category | None = None
    scope: str = "all"  # all | agent | shared
    tag: str | None = None
    project: str | None = None  # metadata.project (#26)
    since: str | None = None  # ISO date or time, inclusive
    until: str | None = None  # ISO date or time, exclusive
    state: str = "live"  # live | forgotten | superseded | all


@dataclass(frozen=True)
class Cursor:
    """Where a page ends: the sort key and the row of its last memory."""

    key: str | float
    seq: int


# One statement per sort order, each walking its own index; the filters they share are one
# constant (nothing is built from input). Every filter is a parameter that is null (or "all")
# when open.
_FILTERS = """
      and (agent_id = :agent_id or (agent_id is null and :shared))
      and (:scope = 'all' or (:scope = 'agent' and agent_id = :agent_id)
           or (:scope = 'shared' and agent_id is null))
      and (:layer is null or layer = :layer) and (:category is null or category = :category)
      and (:since is null or created_at >= :since) and (:until is null or created_at < :until)
      and (:tag is null or exists (select 1 from json_each(metadata, '$.tags') where value = :tag))
      and (:project is null or json_extract(metadata, '$.project') = :project)
      and (:state = 'all'
           or (:state = 'live' and deleted_at is null and superseded_by is null)
           or (:state = 'forgotten' and deleted_at is not null)
           or (:state = 'superseded' and superseded_by is not null))
"""
_PAGE_QUERIES = {
    "newest": "select *, created_at as sort_key from memories"  # noqa: S608 - constants
    " indexed by memories_by_created"
    " where (:after_key is null or (created_at, seq) < (:after_key, :after_seq))"
    + _FILTERS
    + " order by created_at desc, seq desc limit :limit",
    "oldest": "select *, created_at as sort_key from memories"  # noqa: S608 - constants
    " indexed by memories_by_created"
    " where (:after_key is null or (created_at, seq) > (:after_key, :after_seq))"
    + _FILTERS
    + " order by created_at, seq limit :limit",
    "importance": "select *, importance as sort_key from memories"  # noqa: S608
    " indexed by memories_by_importance"
    " where (:after_key is null or (importance, seq) < (:after_key, :after_seq))"
    + _FILTERS
    + " order by importance desc, seq desc limit :limit",
}
SORTS = tuple(_PAGE_QUERIES)

# PostgreSQL: the same filters, with the type of each nullable parameter stated (PostgreSQL
# cannot infer it from `is null`) and the tags looked up in the metadata's JSON.
_PG_FILTERS = """
      and (agent_id = :agent_id or (agent_id is null and :shared))
      and (:scope = 'all' or (:scope = 'agent' and agent_id = :agent_id)
           or (:scope = 'shared' and agent_id is null))
      and (cast(:layer as text) is null or layer = :layer)
      and (cast(:category as text) is null or category = :category)
      and (cast(:since as text) is null or created_at >= :since)
      and (cast(:until as text) is null or created_at < :until)
      and (cast(:tag as text) is null
           or jsonb_exists(coalesce(metadata::jsonb -> 'tags', '[]'), :tag))
      and (cast(:project as text) is null or (metadata::jsonb ->> 'project') = :project)
      and (:state = 'all'
           or (:state = 'live' and deleted_at is null and superseded_by is null)
           or (:state = 'forgotten' and deleted_at is not null)
           or (:state = 'superseded' and superseded_by is not null))
"""
_PG_PAGE_QUERIES = {
    "newest": "select *, created_at as sort_key from memories"  # noqa: S608 - constants
    " where (cast(:after_seq as bigint) is null"
    " or (created_at, seq) < (cast(:after_key as text), :after_seq))"
    + _PG_FILTERS
    + " order by created_at desc, seq desc limit :limit",
    "oldest": "select *, created_at as sort_key from memories"  # noqa: S608 - constants
    " where (cast(:after_seq as bigint) is null"
    " or (created_at, seq) > (cast(:after_key as text), :after_seq))"
    + _PG_FILTERS
    + " order by created_at, seq limit :limit",
    "importance": "select *, importance as sort_key from memories"  # noqa: S608
    " where (cast(:after_seq as bigint) is null"
    " or (importance, seq) < (cast(:after_key as float8), :after_seq))"
    + _PG_FILTERS
    + " order by importance desc, seq desc limit :limit",
}


async def page_of_memories(
    conn: Connection, where: PageFilter, sort: str, after: Cursor | None, limit: int
) -> tuple[list[Memory], Cursor | None]:
    """Up to `limit` memories after `after` in `sort` order, and the cursor of the next page
    (None on the last page). Keyset pagination: page 500 costs what page 1 does."""
    rows = await fetch_all(
        conn,
        Sql(_PAGE_QUERIES[sort], _PG_PAGE_QUERIES[sort]),
        {
            "agent_id": where.agent_id,
            "scope": where.scope,
            "layer": where.layer.value if where.layer else None,
            "category": where.category.value if where.category else None,
            "since": where.since,
            "until": where.until,
            "tag": where.tag,
            "project": where.project,
            "state": where.state,
            "after_key": after.key if after else None,
            "after_seq": after.seq if after else None,
            "limit": limit + 1,
            "shared": sees_shared(),
        },
    )
    more = len(rows) > limit
    rows = rows[:limit]
    cursor = Cursor(rows[-1]["sort_key"], rows[-1]["seq"]) if more and rows else None
    return [to_memory(row) for row in rows], cursor


async def count_for_agent(conn: Connection, agent_id: str) -> list[tuple[str, str, int]]:
    """(layer, category, count) of the live memories an agent sees."""
    rows = await fetch_all(
        conn,
        "select layer, category, count(*) from memories where deleted_at is null"
        " and superseded_by is null and (agent_id = ? or (agent_id is null and ?))"
        " group by layer, category order by layer, category",
        (agent_id, sees_shared()),
    )
    return [(row[0], row[1], int(row[2])) for row in rows]


async def states_for_agent(conn: Connection, agent_id: str) -> dict[str, int]:
    """How many memories an agent sees are live, forgotten and superseded."""
    row = await fetch_one(
        conn,
        "select count(*) filter (where deleted_at is null and superseded_by is null),"
        " count(*) filter (where deleted_at is not null),"
        " count(*) filter (where superseded_by is not null)"
        " from memories where agent_id = ? or (agent_id is null and ?)",
        (agent_id, sees_shared()),
    )
    assert row is not None
    return {"live": int(row[0]), "forgotten": int(row[1]), "superseded": int(row[2])}


async def created_per_day(conn: Connection, agent_id: str, since: str) -> list[tuple[str, int]]:
    """(YYYY-MM-DD, count) of memories an agent sees, created since `since`."""
    rows = await fetch_all(
        conn,
        "select substr(created_at, 1, 10) as day, count(*) from memories"
        " where created_at >= ? and (agent_id = ? or (agent_id is null and ?))"
        " group by day order by day",
        (since, agent_id, sees_shared()),
    )
    return [(row[0], int(row[1])) for row in rows]


async def update_fields(
    conn: Connection,
    memory: Memory,
    *,
    category: Category,
    importance: float,
    layer: Layer,
    now: datetime,
    edit: dict[str, Any],
) -> None:
    """Change a memory's category, importance and layer; note the edit in its metadata."""
    await conn.execute(
        Sql(
            "update memories set category = ?, importance = ?, layer = ?, updated_at = ?,"
            " metadata = json_set(metadata, '$.edits', json(?)) where id = ?",
            "update memories set category = ?, importance = ?, layer = ?, updated_at = ?,"
            " metadata = jsonb_set(metadata::jsonb, '{edits}', cast(? as jsonb))::text"
            " where id = ?",
        ),
        (
            category.value,
            importance,
            layer.value,
            to_text(now),
            json.dumps([*memory.metadata.get("edits", []), edit], ensure_ascii=False),
            memory.id,
        ),
    )


async def replace_content(conn: Connection, memory: Memory, content: str, now: datetime) -> None:
    """Give a memory new content: its full-text row is rewritten and its vector dropped, so
    the background loop embeds the new text."""
    row = await fetch_one(
        conn,
        "update memories set content = ?, content_key = ?, updated_at = ? where id = ?"
        " returning seq, metadata",
        (content, normalised_content(content), to_text(now), memory.id),
    )
    assert row is not None
    seq, metadata = int(row[0]), json.loads(row[1])
    await unindex_memories(conn, [seq])
    await index_memory(conn, seq, content, metadata)
    await reindex_dates(conn, seq)
    await delete_vectors(conn, [seq])
