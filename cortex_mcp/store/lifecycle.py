"""The lifecycle's SQL: the run lease, the runs and their reports, and batch reads and writes.

The lease is one row: whoever holds it unexpired runs the lifecycle. Taking, renewing and
releasing it are single statements inside the caller's write transaction, so two processes can
never both hold it; an expired lease may be taken over by anyone.
"""

import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from cortex_mcp.clock import from_text, to_text
from cortex_mcp.models import Category, Layer, Memory
from cortex_mcp.search.tokenize import normalised_content
from cortex_mcp.store.db import Connection, Sql, fetch_all, fetch_one
from cortex_mcp.store.memories import to_memory
from cortex_mcp.store.relations import close_relations_of_retired
from cortex_mcp.store.scope import sees_shared

LEASE = "lifecycle"

_TAKE = (
    "insert into lifecycle_lease (name, owner, acquired_at, expires_at)"
    " values (:name, :owner, :now, :expires)"
    " on conflict(name) do update set owner = excluded.owner,"
    " acquired_at = excluded.acquired_at, expires_at = excluded.expires_at"
    " where lifecycle_lease.owner = excluded.owner or lifecycle_lease.expires_at <= :now"
    " returning owner"
)


def _lease_params(owner: str, now: datetime, ttl_s: float) -> dict[str, str]:
    return {
        "name": LEASE,
        "owner": owner,
        "now": to_text(now),
        "expires": to_text(now + timedelta(seconds=ttl_s)),
    }


async def take_lease(conn: Connection, owner: str, now: datetime, ttl_s: float) -> bool:
    """Take the lease if it is free, expired, or already ours; True when we hold it now."""
    return await fetch_one(conn, _TAKE, _lease_params(owner, now, ttl_s)) is not None


async def take_over_lease(
    conn: Connection, dead_owner: str, owner: str, now: datetime, ttl_s: float
) -> bool:
    """Take the lease from `dead_owner` (a process known to be gone), expired or not; True when
    we hold it now (False when someone else took it first)."""
    row = await fetch_one(
        conn,
        "update lifecycle_lease set owner = :owner, acquired_at = :now, expires_at = :expires"
        " where name = :name and owner = :dead returning owner",
        {**_lease_params(owner, now, ttl_s), "dead": dead_owner},
    )
    return row is not None


async def renew_lease(conn: Connection, owner: str, now: datetime, ttl_s: float) -> bool:
    """Extend our unexpired lease; False when it expired or another process holds it."""
    row = await fetch_one(
        conn,
        "update lifecycle_lease set expires_at = :expires"
        " where name = :name and owner = :owner and expires_at > :now returning owner",
        _lease_params(owner, now, ttl_s),
    )
    return row is not None


async def release_lease(conn: Connection, owner: str) -> None:
    """Give the lease up, if we hold it."""
    await conn.execute("delete from lifecycle_lease where name = ? and owner = ?", (LEASE, owner))


async def lease_holder(conn: Connection) -> tuple[str, datetime] | None:
    """(owner, expiry) of the lease as recorded, expired or not; None when nobody took it."""
    row = await fetch_one(
        conn, "select owner, expires_at from lifecycle_lease where name = ?", (LEASE,)
    )
    return (row[0], from_text(row[1])) if row else None


async def start_run(conn: Connection, owner: str, now: datetime) -> int:
    """Record that a run started; its id. Call holding the lease: any run still marked as
    running was interrupted (its process died) and is marked so."""
    await conn.execute(
        "update lifecycle_runs set status = 'failed', finished_at = ?,"
        " error = 'interrupted: its process stopped mid-run' where status = 'running'",
        (to_text(now),),
    )
    row = await fetch_one(
        conn,
        "insert into lifecycle_runs (owner, started_at, status) values (?, ?, 'running')"
        " returning id",
        (owner, to_text(now)),
    )
    assert row is not None
    return int(row[0])


async def finish_run(
    conn: Connection,
    run_id: int,
    status: str,
    now: datetime,
    report: dict[str, Any] | None = None,
    error: str | None = None,
) -> None:
    """Record how a run ended (ok, failed, cancelled) and its report."""
    await conn.execute(
        "update lifecycle_runs set status = ?, finished_at = ?, report = ?, error = ? where id = ?",
        (
            status,
            to_text(now),
            json.dumps(report, ensure_ascii=False, default=str) if report else None,
            error,
            run_id,
        ),
    )


async def last_successful_start(conn: Connection) -> datetime | None:
    """When the latest successful run started, or None if none ever did."""
    row = await fetch_one(conn, "select max(started_at) from lifecycle_runs where status = 'ok'")
    return from_text(row[0]) if row and row[0] else None


async def recent_runs(conn: Connection, limit: int) -> list[dict[str, Any]]:
    """The latest runs, newest first, with their reports."""
    rows = await fetch_all(
        conn,
        "select id, owner, started_at, finished_at, status, report, error from lifecycle_runs"
        " order by id desc limit ?",
        (limit,),
    )
    return [
        {
            "id": row["id"],
            "owner": row["owner"],
            "started_at": row["started_at"],
            "finished_at": row["finished_at"],
            "status": row["status"],
            "report": json.loads(row["report"]) if row["report"] else None,
            "error": row["error"],
        }
        for row in rows
    ]


async def live_in_layers(conn: Connection, layers: list[Layer]) -> list[Memory]:
    """Every live (not superseded, not deleted) memory of every agent in these layers."""
    rows = await fetch_all(
        conn,
        Sql(
            "select * from memories where deleted_at is null and superseded_by is null"
            " and layer in (select value from json_each(?)) order by seq",
            "select * from memories where deleted_at is null and superseded_by is null"
            " and layer in (select json_array_elements_text(cast(? as json))) order by seq",
        ),
        (json.dumps([layer.value for layer in layers]),),
    )
    return [to_memory(row) for row in rows]


async def expired_archive(conn: Connection, cutoff: datetime) -> list[Memory]:
    """Live archive entries not yet compressed that were archived at or before `cutoff`."""
    rows = await fetch_all(
        conn,
        Sql(
            "select * from memories where layer = 'archive' and deleted_at is null"
            " and superseded_by is null and json_extract(metadata, '$.compressed_into') is null"
            " and coalesce(json_extract(metadata, '$.archived_at'), updated_at) <= ?"
            " order by seq",
            "select * from memories where layer = 'archive' and deleted_at is null"
            " and superseded_by is null and (metadata::jsonb ->> 'compressed_into') is null"
            " and coalesce(metadata::jsonb ->> 'archived_at', updated_at) <= ? order by seq",
        ),
        (to_text(cutoff),),
    )
    return [to_memory(row) for row in rows]


@dataclass(frozen=True)
class RowState:
    """What a planned change checks before it applies: the row is as the plan saw it."""

    layer: Layer
    updated_at: datetime
    live: bool


async def row_states(conn: Connection, ids: list[str]) -> dict[str, RowState]:
    """The current state of these memories; ids that do not exist are absent."""
    rows = await fetch_all(
        conn,
        Sql(
            "select id, layer, updated_at, superseded_by is null and deleted_at is null as live"
            " from memories where id in (select value from json_each(?))",
            "select id, layer, updated_at, superseded_by is null and deleted_at is null as live"
            " from memories where id in (select json_array_elements_text(cast(? as json)))",
        ),
        (json.dumps(ids),),
    )
    return {row[0]: RowState(Layer(row[1]), from_text(row[2]), bool(row[3])) for row in rows}


async def update_memories(conn: Connection, memories: list[Memory]) -> None:
    """Write the mutable fields of each memory (content and its index never change here)."""
    await conn.executemany(
        "update memories set layer = ?, importance = ?, confidence = ?, decay_score = ?,"
        " access_count = ?, last_accessed = ?, updated_at = ?, expires_at = ?,"
        " superseded_by = ?, deleted_at = ?, metadata = ? where id = ?",
        [
            (
                m.layer.value,
                m.importance,
                m.confidence,
                m.decay_score,
                m.access_count,
                to_text(m.last_accessed) if m.last_accessed else None,
                to_text(m.updated_at),
                to_text(m.expires_at) if m.expires_at else None,
                m.superseded_by,
                to_text(m.deleted_at) if m.deleted_at else None,
                json.dumps(m.metadata, ensure_ascii=False),
                m.id,
            )
            for m in memories
        ],
    )
    await close_relations_of_retired(conn, [m.id for m in memories])


async def set_decay_scores(conn: Connection, scores: list[tuple[str, float]]) -> None:
    """Record each memory's current decay score; not a change of the memory itself."""
    await conn.executemany(
        "update memories set decay_score = ? where id = ?",
        [(score, memory_id) for memory_id, score in scores],
    )


async def log_actions(
    conn: Connection,
    entries: list[tuple[str, list[str], dict[str, Any]]],
    now: datetime,
) -> None:
    """Record many (action, memory ids, details) rows of the audit trail at once."""
    stamp = to_text(now)
    await conn.executemany(
        "insert into lifecycle_log (action, memory_ids, details, executed_at) values (?, ?, ?, ?)",
        [
            (action, json.dumps(ids), json.dumps(details, ensure_ascii=False, default=str), stamp)
            for action, ids, details in entries
        ],
    )


async def archive_periods(conn: Connection) -> dict[tuple[str | None, str], int]:
    """(agent, YYYY-MM) → live archive entries, and 0 for months only a live summary covers."""
    rows = await fetch_all(
        conn,
        "select agent_id, substr(created_at, 1, 7), count(*) from memories"
        " where layer = 'archive' and deleted_at is null and superseded_by is null"
        " group by 1, 2",
    )
    periods: dict[tuple[str | None, str], int] = {(r[0], r[1]): r[2] for r in rows}
    summaries = await fetch_all(
        conn,
        Sql(
            "select distinct agent_id, json_extract(metadata, '$.period') from memories"
            " where category = 'summary' and layer = 'core' and deleted_at is null"
            " and superseded_by is null and json_extract(metadata, '$.period') is not null",
            "select distinct agent_id, metadata::jsonb ->> 'period' from memories"
            " where category = 'summary' and layer = 'core' and deleted_at is null"
            " and superseded_by is null and (metadata::jsonb ->> 'period') is not null",
        ),
    )
    for agent, period in summaries:
        periods.setdefault((agent, period), 0)
    return periods


async def all_memories(conn: Connection) -> list[Memory]:
    """Every memory in every state, oldest first (for export)."""
    return [to_memory(row) for row in await fetch_all(conn, "select * from memories order by seq")]


async def existing_ids(conn: Connection, ids: list[str]) -> set[str]:
    """Which of these memory ids exist already, in any state."""
    rows = await fetch_all(
        conn,
        Sql(
            "select id from memories where id in (select value from json_each(?))",
            "select id from memories where id in"
            " (select json_array_elements_text(cast(? as json)))",
        ),
        (json.dumps(ids),),
    )
    return {row[0] for row in rows}


async def set_superseded_by(conn: Connection, links: list[tuple[str, str]]) -> None:
    """Restore (old id, new id) supersede links after both rows exist (import)."""
    await conn.executemany(
        "update memories set superseded_by = ? where id = ? and superseded_by is null",
        [(new, old) for old, new in links],
    )


async def live_created_in(
    conn: Connection, agent_id: str, layer: Layer, prefix: str
) -> list[Memory]:
    """Live memories of a layer visible to an agent, created on a day or in a month (the
    `YYYY-MM-DD` or `YYYY-MM` prefix of their timestamp), oldest first."""
    rows = await fetch_all(
        conn,
        "select * from memories where layer = :layer and deleted_at is null"
        " and superseded_by is null and (agent_id = :agent_id or (agent_id is null and :shared))"
        " and created_at >= :prefix and created_at < cast(:prefix as text) || '~'"
        " order by created_at, seq",
        {"layer": layer.value, "agent_id": agent_id, "prefix": prefix, "shared": sees_shared()},
    )
    return [to_memory(row) for row in rows]


async def contents_present(conn: Connection, agent_id: str | None, contents: list[str]) -> set[str]:
    """The normalised keys of these contents the agent has, or sees shared, in any state (live,
    superseded, archived or forgotten), so an import never brings back what was replaced or
    forgotten, nor copies a shared memory."""
    keys = sorted({normalised_content(c) for c in contents})
    rows = await fetch_all(
        conn,
        Sql(
            "select distinct content_key from memories"
            " where (agent_id is :agent_id or agent_id is null)"
            " and content_key in (select value from json_each(:keys))",
            "select distinct content_key from memories"
            " where (agent_id is not distinct from cast(:agent_id as text) or agent_id is null)"
            " and content_key in (select json_array_elements_text(cast(:keys as json)))",
        ),
        {"agent_id": agent_id, "keys": json.dumps(keys)},
    )
    return {row[0] for row in rows}


async def sees_a_live_memory(conn: Connection, agent_id: str) -> bool:
    """Whether the agent sees any live memory in any layer (read up to the first found: a
    count of each layer took 70 ms at 100,000 memories, for every recall that found nothing)."""
    row = await fetch_one(
        conn,
        "select exists (select 1 from memories where deleted_at is null and superseded_by is null"
        " and (agent_id = :agent_id or (agent_id is null and :shared)))",
        {"agent_id": agent_id, "shared": sees_shared()},
    )
    return bool(row[0]) if row else False


async def count_live(
    conn: Connection, agent_id: str, layer: Layer, categories: list[Category]
) -> int:
    """How many live memories of these categories in a layer an agent sees."""
    row = await fetch_one(
        conn,
        Sql(
            "select count(*) from memories where layer = :layer and deleted_at is null"
            " and superseded_by is null"
            " and (agent_id = :agent_id or (agent_id is null and :shared))"
            " and category in (select value from json_each(:categories))",
            "select count(*) from memories where layer = :layer and deleted_at is null"
            " and superseded_by is null"
            " and (agent_id = :agent_id or (agent_id is null and :shared))"
            " and category in (select json_array_elements_text(cast(:categories as json)))",
        ),
        {
            "layer": layer.value,
            "agent_id": agent_id,
            "categories": json.dumps([c.value for c in categories]),
            "shared": sees_shared(),
        },
    )
    return int(row[0]) if row else 0


async def archive_months(conn: Connection, agent_id: str) -> list[str]:
    """The months (YYYY-MM) in which the live archive entries an agent sees were written."""
    rows = await fetch_all(
        conn,
        "select distinct substr(created_at, 1, 7) from memories where layer = 'archive'"
        " and deleted_at is null and superseded_by is null"
        " and (agent_id = :agent_id or (agent_id is null and :shared)) order by 1",
        {"agent_id": agent_id, "shared": sees_shared()},
    )
    return [row[0] for row in rows]


async def run_changes(conn: Connection, run_id: int, limit: int) -> list[dict[str, Any]]:
    """The logged changes of one run, in order: action, when, and the details with their
    before/after snapshots."""
    rows = await fetch_all(
        conn,
        Sql(
            "select action, executed_at, details from lifecycle_log"
            " where json_extract(details, '$.run_id') = ? order by id limit ?",
            "select action, executed_at, details from lifecycle_log"
            " where (details::jsonb -> 'run_id') = to_jsonb(cast(? as bigint)) order by id limit ?",
        ),
        (run_id, limit),
    )
    return [
        {"action": row[0], "executed_at": row[1], "details": json.loads(row[2])} for row in rows
    ]
