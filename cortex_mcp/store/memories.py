"""The `memories` table and its full-text rows, kept in step in the same transaction."""

import json
from datetime import datetime
from typing import Any

from cortex_mcp.clock import from_text, to_text
from cortex_mcp.models import Candidate, Category, Layer, Memory
from cortex_mcp.search.tokenize import context_of, index_text, normalised_content
from cortex_mcp.store.dates import index_dates
from cortex_mcp.store.db import Connection, Sql, fetch_all, fetch_one
from cortex_mcp.store.relations import close_relations, reopen_relations
from cortex_mcp.store.scope import sees_shared
from cortex_mcp.store.terms import index_memory_terms, unindex_memory_terms


def _time(value: str | None) -> datetime | None:
    return from_text(value) if value else None


def to_memory(row: Any) -> Memory:
    """A `memories` row (selected with `m.*` or `*`) as a Memory.

    The row was validated when written, so it is not validated again: recall builds dozens of
    these per query.
    """
    return Memory.model_construct(
        id=row["id"],
        agent_id=row["agent_id"],
        layer=Layer(row["layer"]),
        category=Category(row["category"]),
        content=row["content"],
        source=row["source"],
        importance=row["importance"],
        confidence=row["confidence"],
        decay_score=row["decay_score"],
        access_count=row["access_count"],
        last_accessed=_time(row["last_accessed"]),
        created_at=from_text(row["created_at"]),
        updated_at=from_text(row["updated_at"]),
        expires_at=_time(row["expires_at"]),
        superseded_by=row["superseded_by"],
        deleted_at=_time(row["deleted_at"]),
        metadata=json.loads(row["metadata"]),
    )


def to_candidate(row: Any) -> Candidate:
    """A row with id, layer, created_at, updated_at, access_count and content_key as a ranking
    candidate."""
    return Candidate(
        id=row["id"],
        layer=Layer(row["layer"]),
        created_at=from_text(row["created_at"]),
        updated_at=from_text(row["updated_at"]),
        access_count=row["access_count"],
        content_key=row["content_key"],
    )


async def memories_by_id(conn: Connection, memory_ids: list[str]) -> dict[str, Memory]:
    """The memories with these ids, by id (unknown ids are absent)."""
    rows = await fetch_all(conn, BY_IDS, (json.dumps(memory_ids),))
    return {row["id"]: to_memory(row) for row in rows}


BY_IDS = Sql(
    "select * from memories where id in (select value from json_each(?))",
    "select * from memories where id in (select json_array_elements_text(cast(? as json)))",
)


async def insert_memory(conn: Connection, memory: Memory) -> None:
    """Write a new memory, its full-text row and the dates it mentions."""
    row = await fetch_one(
        conn,
        "insert into memories (id, agent_id, layer, category, content, content_key, source, "
        "importance, confidence, decay_score, access_count, last_accessed, created_at, "
        "updated_at, expires_at, superseded_by, deleted_at, metadata) values "
        "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning seq",
        (
            memory.id,
            memory.agent_id,
            memory.layer.value,
            memory.category.value,
            memory.content,
            normalised_content(memory.content),
            memory.source,
            memory.importance,
            memory.confidence,
            memory.decay_score,
            memory.access_count,
            to_text(memory.last_accessed) if memory.last_accessed else None,
            to_text(memory.created_at),
            to_text(memory.updated_at),
            to_text(memory.expires_at) if memory.expires_at else None,
            memory.superseded_by,
            to_text(memory.deleted_at) if memory.deleted_at else None,
            json.dumps(memory.metadata, ensure_ascii=False),
        ),
    )
    assert row is not None
    await index_memory(conn, row[0], memory.content, memory.metadata)
    await index_dates(conn, row[0], memory.content, memory.metadata, memory.created_at)


async def index_memory(conn: Connection, seq: int, content: str, metadata: dict[str, Any]) -> None:
    """Write the full-text row of a memory: its content, and the context its metadata carries."""
    if conn.dialect == "postgresql":
        terms, context = index_text(content), index_text(context_of(metadata))
        await index_memory_terms(conn, seq, terms, context)
        return
    await conn.execute(
        "insert into memories_fts (rowid, terms, context) values (?, ?, ?)",
        (seq, index_text(content), index_text(context_of(metadata))),
    )


async def unindex_memories(conn: Connection, seqs: list[int]) -> None:
    """Remove the full-text rows of these memories (before they are indexed again or erased)."""
    if conn.dialect == "postgresql":
        await unindex_memory_terms(conn, seqs)
        return
    await conn.execute(
        "delete from memories_fts where rowid in (select value from json_each(?))",
        (json.dumps(seqs),),
    )


async def get_memory(conn: Connection, memory_id: str) -> Memory | None:
    """The memory with this id, whatever its state, or None."""
    row = await fetch_one(conn, "select * from memories where id = ?", (memory_id,))
    return to_memory(row) if row else None


async def get_visible_memory(conn: Connection, memory_id: str, agent_id: str) -> Memory | None:
    """The memory with this id if `agent_id` may see it (deleted or not), else None."""
    row = await fetch_one(
        conn,
        "select * from memories where id = :id"
        " and (agent_id = :agent_id or (agent_id is null and :shared))",
        {"id": memory_id, "agent_id": agent_id, "shared": sees_shared()},
    )
    return to_memory(row) if row else None


async def find_live_by_content(
    conn: Connection, content: str, agent_id: str | None
) -> Memory | None:
    """A live memory in the same scope with the same normalised content, or None."""
    row = await fetch_one(
        conn,
        Sql(
            "select * from memories where content_key = :key and agent_id is :agent_id"
            " and deleted_at is null and superseded_by is null order by updated_at desc limit 1",
            "select * from memories where content_key = :key"
            " and agent_id is not distinct from cast(:agent_id as text)"
            " and deleted_at is null and superseded_by is null order by updated_at desc limit 1",
        ),
        {"key": normalised_content(content), "agent_id": agent_id},
    )
    return to_memory(row) if row else None


RESTATED_CONFIDENCE = 0.05
"""How much more a fact is believed each time it is stated again (seed 004: twice → ≥ 0.85)."""


async def reinforce_memory(
    conn: Connection,
    memory: Memory,
    importance: float,
    tags: list[str],
    now: datetime,
    lift: bool = True,
) -> Memory:
    """A duplicate was stated again: keep the higher importance, count it, raise its
    confidence by `RESTATED_CONFIDENCE` (at most to 0.99), and with `lift` move it to core (an
    explicit remember of something in working or archive). Its `updated_at` moves to `now`, never
    back (an old session imported restates what was said since)."""
    metadata = dict(memory.metadata)
    metadata["mentions"] = int(metadata.get("mentions", 1)) + 1
    if tags:
        metadata["tags"] = sorted(set(metadata.get("tags", [])) | set(tags))
    await conn.execute(
        Sql(
            "update memories set layer = case when :lift then 'core' else layer end,"
            " expires_at = case when :lift then null else expires_at end,"
            " importance = max(importance, :importance), updated_at = max(updated_at, :now),"
            " metadata = :metadata, confidence = min(0.99, confidence + :raise) where id = :id",
            "update memories set layer = case when :lift then 'core' else layer end,"
            " expires_at = case when :lift then null else expires_at end,"
            " importance = greatest(importance, :importance),"
            " updated_at = greatest(updated_at, cast(:now as text)),"
            " metadata = :metadata, confidence = least(0.99, confidence + :raise) where id = :id",
        ),
        {
            "raise": RESTATED_CONFIDENCE,
            "lift": lift,
            "importance": importance,
            "now": to_text(now),
            "metadata": json.dumps(metadata, ensure_ascii=False),
            "id": memory.id,
        },
    )
    updated = await get_memory(conn, memory.id)
    assert updated is not None
    return updated


async def mark_superseded(
    conn: Connection, old_id: str, new_id: str, now: datetime, rule: str | None = None
) -> None:
    """Point an old memory at the one that replaces it; it leaves recall but stays readable.
    `rule` (what decided it) goes to its metadata as `superseded_because`."""
    await conn.execute(
        Sql(
            "update memories set superseded_by = :new, updated_at = :now,"
            " metadata = case when :rule is null then metadata"
            " else json_set(metadata, '$.superseded_because', :rule) end where id = :old",
            "update memories set superseded_by = :new, updated_at = :now,"
            " metadata = case when cast(:rule as text) is null then metadata else jsonb_set("
            "metadata::jsonb, '{superseded_because}', to_jsonb(cast(:rule as text)))::text end"
            " where id = :old",
        ),
        {"new": new_id, "now": to_text(now), "rule": rule, "old": old_id},
    )
    await close_relations(conn, [old_id], now)


async def clear_superseded(conn: Connection, memory_id: str, now: datetime) -> None:
    """Make a superseded memory live again (cortex_restore); the chain stays in the log."""
    await conn.execute(
        Sql(
            "update memories set superseded_by = null, updated_at = ?,"
            " metadata = json_remove(metadata, '$.superseded_because') where id = ?",
            "update memories set superseded_by = null, updated_at = ?,"
            " metadata = (metadata::jsonb - 'superseded_because')::text where id = ?",
        ),
        (to_text(now), memory_id),
    )
    await reopen_relations(conn, memory_id)


async def live_with_slot(
    conn: Connection,
    agent_id: str | None,
    subject: str,
    predicate: str,
    project: str | None = None,
    *,
    in_project: bool = False,
) -> list[Memory]:
    """Live memories of exactly this scope that hold `predicate` of `subject`, newest first
    (`in_project`: none filed under another project than `project`; one filed under none may
    be of this project, not filed yet: a flush files what it stored when it ends)."""
    rows = await fetch_all(
        conn,
        Sql(
            "select * from memories where json_extract(metadata, '$.predicate') = :predicate"
            " and json_extract(metadata, '$.subject') = :subject and agent_id is :agent_id"
            " and (not :in_project"
            " or coalesce(json_extract(metadata, '$.project'), :project) is :project)"
            " and deleted_at is null and superseded_by is null"
            " order by created_at desc, seq desc limit 5",
            "select * from memories where (metadata::jsonb ->> 'predicate') = :predicate"
            " and (metadata::jsonb ->> 'subject') = :subject"
            " and agent_id is not distinct from cast(:agent_id as text)"
            " and (not :in_project or coalesce(metadata::jsonb ->> 'project',"
            " cast(:project as text)) is not distinct from cast(:project as text))"
            " and deleted_at is null and superseded_by is null"
            " order by created_at desc, seq desc limit 5",
        ),
        {
            "predicate": predicate,
            "subject": subject,
            "agent_id": agent_id,
            "project": project,
            "in_project": in_project,
        },
    )
    return [to_memory(row) for row in rows]


async def set_deleted(
    conn: Connection, memory_id: str, deleted_at: datetime | None, reason: str | None
) -> None:
    """Soft-delete (with a time) or restore (with None) a memory; the reason goes to metadata."""
    await conn.execute(
        Sql(
            "update memories set deleted_at = ?,"
            " metadata = json_set(metadata, '$.forget_reason', ?) where id = ?",
            "update memories set deleted_at = ?, metadata = jsonb_set(metadata::jsonb,"
            " '{forget_reason}', coalesce(to_jsonb(cast(? as text)), 'null'))::text where id = ?",
        ),
        (to_text(deleted_at) if deleted_at else None, reason, memory_id),
    )
    if deleted_at is not None:
        await close_relations(conn, [memory_id], deleted_at)
    else:
        await reopen_relations(conn, memory_id)


async def bump_access(
    conn: Connection, ranked_ids: list[str], query: str | None, now: datetime
) -> None:
    """Count a recall of each memory and log it, with its rank (and the query, unless None),
    for decay and promotion."""
    stamp = to_text(now)
    await conn.execute(
        Sql(
            "update memories set access_count = access_count + 1, last_accessed = ? "
            "where id in (select value from json_each(?))",
            "update memories set access_count = access_count + 1, last_accessed = ? "
            "where id in (select json_array_elements_text(cast(? as json)))",
        ),
        (stamp, json.dumps(ranked_ids)),
    )
    await conn.executemany(  # a memory purged by another process meanwhile is skipped
        "insert into access_log (memory_id, query, rank, accessed_at)"
        " select cast(:id as text), :query, :rank, :at"
        " where exists (select 1 from memories where id = :id)",
        [
            {"id": memory_id, "query": query, "rank": rank, "at": stamp}
            for rank, memory_id in enumerate(ranked_ids, start=1)
        ],
    )


async def supersede_chain(conn: Connection, memory_id: str) -> list[Memory]:
    """The memories this one replaced (oldest first), then it, then those that replaced it."""
    older = await fetch_all(
        conn,
        "with recursive chain(id, depth) as ("
        " select id, 0 from memories where id = :id"
        " union all select m.id, chain.depth + 1 from memories m join chain"
        " on m.superseded_by = chain.id where chain.depth < 100"
        ") select memories.* from memories join chain using (id) order by depth desc",
        {"id": memory_id},
    )
    newer = await fetch_all(
        conn,
        "with recursive chain(id, next, depth) as ("
        " select id, superseded_by, 0 from memories where id = :id"
        " union all select m.id, m.superseded_by, chain.depth + 1 from memories m join chain"
        " on m.id = chain.next where chain.depth < 100"
        ") select memories.* from memories join chain using (id) where depth > 0"
        " order by depth",
        {"id": memory_id},
    )
    return [to_memory(row) for row in older] + [to_memory(row) for row in newer]


async def live_memories(
    conn: Connection,
    agent_id: str,
    layers: list[Layer],
    categories: list[Category] | None = None,
    limit: int = 500,
) -> list[Memory]:
    """Live memories visible to the agent in these layers, most important and recent first."""
    in_layers = Sql(
        "select * from memories where layer in (select value from json_each(:layers))",
        "select * from memories where layer in"
        " (select json_array_elements_text(cast(:layers as json)))",
    )
    layer_values = json.dumps([layer.value for layer in layers])
    return await _weightiest(conn, in_layers, agent_id, categories, limit, layers=layer_values)


async def weightiest_core(
    conn: Connection, agent_id: str, categories: list[Category] | None, limit: int
) -> list[Memory]:
    """`live_memories` of the core layer, for a reader of most of it (MEMORY.md, the digest):
    walked most important first along the live core's index, stopping at `limit`. SQLite
    planned the general statement over every live row (51 ms at 100,000 memories, after every
    write for MEMORY.md); a rare category is read faster by `live_memories`."""
    core = f"layer = '{Layer.CORE.value}'"
    in_core = Sql(
        f"select * from memories indexed by memories_core_by_weight where {core}",  # noqa: S608
        f"select * from memories where {core}",  # noqa: S608 - constants
    )
    return await _weightiest(conn, in_core, agent_id, categories, limit)


async def _weightiest(
    conn: Connection,
    selected: Sql,
    agent_id: str,
    categories: list[Category] | None,
    limit: int,
    **params: str,
) -> list[Memory]:
    """The first `limit` of the live memories `selected` (a select with its where clause
    begun) the agent sees, of `categories` (None: all), most important and recent first."""
    rest = Sql(
        " and (:categories is null or category in (select value from json_each(:categories)))",
        " and (cast(:categories as text) is null or category in"
        " (select json_array_elements_text(cast(:categories as json))))",
    )
    live = (
        " and deleted_at is null and superseded_by is null"
        " and (agent_id = :agent_id or (agent_id is null and :shared))"
    )
    by_weight = " order by importance desc, updated_at desc limit :limit"
    rows = await fetch_all(
        conn,
        Sql(
            selected.sqlite + live + rest.sqlite + by_weight,
            selected.postgresql + live + rest.postgresql + by_weight,
        ),
        {
            "agent_id": agent_id,
            "categories": json.dumps([c.value for c in categories]) if categories else None,
            "limit": limit,
            "shared": sees_shared(),
            **params,
        },
    )
    return [to_memory(row) for row in rows]


LIVE_PROFILE = (
    f" and layer = '{Layer.CORE.value}' and category = '{Category.PROFILE.value}'"
    " and deleted_at is null and superseded_by is null"
)
PROFILE = (
    "select * from (select * from memories where agent_id = :agent_id"  # noqa: S608 - constants
    + LIVE_PROFILE
    + " union all select * from memories where agent_id is null and :shared"
    + LIVE_PROFILE
    + ") as found order by importance desc, updated_at desc limit 1"
)
"""Every write and every recall reads the profile: one index lookup per scope (agent, layer,
category), whatever the size of the store. An `or` across the scopes let SQLite walk the whole
`superseded_by is null` index instead (135 ms at 100,000 memories against 0.1 ms)."""


async def live_profile(conn: Connection, agent_id: str) -> Memory | None:
    """The live profile the agent sees (its own, else a shared one), or None."""
    row = await fetch_one(conn, PROFILE, {"agent_id": agent_id, "shared": sees_shared()})
    return to_memory(row) if row is not None else None


async def count_by_layer_and_category(conn: Connection) -> list[tuple[str, str, int]]:
    """(layer, category, count) of live memories across every agent."""
    rows = await fetch_all(
        conn,
        "select layer, category, count(*) from memories"
        " where deleted_at is null and superseded_by is null"
        " group by layer, category order by layer, category",
    )
    return [(row[0], row[1], row[2]) for row in rows]


async def count_states(conn: Connection) -> dict[str, int]:
    """How many memories are live, forgotten and superseded."""
    row = await fetch_one(
        conn,
        "select count(*),"
        " count(*) filter (where deleted_at is null and superseded_by is null),"
        " count(*) filter (where deleted_at is not null),"
        " count(*) filter (where superseded_by is not null and deleted_at is null) from memories",
    )
    assert row is not None
    return {"total": row[0], "live": row[1], "forgotten": row[2], "superseded": row[3]}


_SLOT = "json_extract(m.metadata, '$.predicate')"
"""A memory's slot predicate, as the slot index (memories_by_slot) holds it on SQLite."""


def _slot_terms(predicates: list[str]) -> tuple[str, dict[str, str]]:
    """The SQLite condition matching these predicates (a prefix ending in ':' as the range of
    values it begins), and its parameters; false for none."""
    terms: list[str] = []
    params: dict[str, str] = {}
    for i, predicate in enumerate(predicates):
        if predicate.endswith(":"):  # ';' follows ':': every value that begins with the prefix
            terms.append(f"({_SLOT} >= :slot{i} and {_SLOT} < :slot{i}_end)")
            params |= {f"slot{i}": predicate, f"slot{i}_end": predicate[:-1] + ";"}
        else:
            terms.append(f"{_SLOT} = :slot{i}")
            params[f"slot{i}"] = predicate
    return " or ".join(terms) or "0", params


async def live_slot_memories(
    conn: Connection, agent_id: str, predicates: list[str], limit: int
) -> list[Memory]:
    """Live memories an agent may see whose slot predicate is one of `predicates` (a prefix
    ending in ':' matches every detail, "pet:" → pet:cat, pet:dog), newest first."""
    wanted, params = _slot_terms(predicates)
    rows = await fetch_all(
        conn,
        Sql(
            # through the slot index (each predicate an equality or a prefix's range): without
            # INDEXED BY the planner walks every live memory (55 ms at 100,000, s6-bm25)
            "select m.* from memories m indexed by memories_by_slot where"  # noqa: S608 - terms
            f" {_SLOT} is not null and ({wanted})"
            " and (m.agent_id = :agent_id or (m.agent_id is null and :shared))"
            " and m.deleted_at is null and m.superseded_by is null"
            " order by m.updated_at desc limit :limit",
            "select m.* from memories m where (m.metadata::jsonb ->> 'predicate') is not null"
            " and exists (select 1 from json_array_elements_text(cast(:predicates as json)) p"
            " where (m.metadata::jsonb ->> 'predicate') = p or (p like '%:' and"
            " substr(m.metadata::jsonb ->> 'predicate', 1, length(p)) = p))"
            " and (m.agent_id = :agent_id or (m.agent_id is null and :shared))"
            " and m.deleted_at is null and m.superseded_by is null"
            " order by m.updated_at desc limit :limit",
        ),
        {
            **params,
            "predicates": json.dumps(predicates),
            "agent_id": agent_id,
            "limit": limit,
            "shared": sees_shared(),
        },
    )
    return [to_memory(row) for row in rows]


async def newest_seq(conn: Connection) -> int:
    """The sequence number of the newest memory (0 for an empty store): a write deciding
    outside the write lock reads it with its decision, to re-check only what came after."""
    row = await fetch_one(conn, "select coalesce(max(seq), 0) from memories")
    return int(row[0]) if row is not None else 0


async def live_written_after(conn: Connection, seq: int, agent_id: str | None) -> list[Memory]:
    """Live memories of exactly this scope written after memory `seq` (by any process)."""
    rows = await fetch_all(
        conn,
        Sql(
            "select * from memories where seq > :seq and agent_id is :agent_id"
            " and deleted_at is null and superseded_by is null order by seq",
            "select * from memories where seq > :seq"
            " and agent_id is not distinct from cast(:agent_id as text)"
            " and deleted_at is null and superseded_by is null order by seq",
        ),
        {"seq": seq, "agent_id": agent_id},
    )
    return [to_memory(row) for row in rows]
