"""Hard deletion for privacy: every row and copy of a memory's text, and the bytes in the file.

The only hard delete there is; the lifecycle never calls it. It runs with `secure_delete` on,
so freed pages are zeroed, rebuilds the full-text index so no segment keeps the old terms,
vacuums (earlier updates leave stale copies of a row in free space inside pages) and
checkpoints the WAL (TRUNCATE), so the text leaves both the database and the -wal file.
"""

import json
import uuid
from dataclasses import dataclass, field
from datetime import datetime

from cortex_mcp.clock import to_text
from cortex_mcp.search.tokenize import normalised_content
from cortex_mcp.store.dates import erase_dates, reindex_dates
from cortex_mcp.store.db import Connection, Database, Sql, fetch_all, fetch_one
from cortex_mcp.store.memories import index_memory, unindex_memories
from cortex_mcp.store.meta import get_meta, set_meta
from cortex_mcp.store.purge_text import json_lower
from cortex_mcp.store.scratchpad import scrub_scratchpads
from cortex_mcp.store.vectors import delete_vectors

PURGED = "[PURGED]"
PURGED_TABLES = (
    "memories",
    "memory_terms",
    "embedding_cache",
    "access_log",
    "lifecycle_log",
    "lifecycle_runs",
    "extraction_queue",
    "relations",
    "conversation_log",
    "conversation_terms",
    "scratchpads",
)
TOMBSTONE = json.dumps({"purged": True})


@dataclass
class Erased:
    """What a purge removed or rewrote, by place (counts, ids: never content)."""

    memories: list[str] = field(default_factory=list)
    rewritten: list[str] = field(default_factory=list)
    unlinked: list[str] = field(default_factory=list)
    queue_entries: int = 0
    log_entries: int = 0
    access_entries: int = 0


LISTED = {  # the elements of a JSON list parameter, as a subquery
    "sqlite": "select value from json_each(?)",
    "postgresql": "select json_array_elements_text(cast(? as json))",
}


def _ids(values: list[str]) -> str:
    return json.dumps(values)


async def erase_memories(
    conn: Connection, ids: list[str], now: datetime, erased: Erased
) -> list[str]:
    """Delete these memories and every row that points at them; returns their contents."""
    rows = await fetch_all(
        conn,
        f"select seq, content from memories where id in ({LISTED[conn.dialect]})",  # noqa: S608
        (_ids(ids),),
    )
    seqs, contents = [row[0] for row in rows], [row[1] for row in rows]
    params = (_ids(ids),)
    unlinked = await fetch_all(
        conn,
        Sql(
            "update memories set superseded_by = null, deleted_at = coalesce(deleted_at, :now),"
            " metadata = json_set(metadata, '$.forget_reason', 'superseded by a purged memory')"
            " where superseded_by in (select value from json_each(:ids))"
            " and id not in (select value from json_each(:ids)) returning id",
            "update memories set superseded_by = null, deleted_at = coalesce(deleted_at, :now),"
            " metadata = jsonb_set(metadata::jsonb, '{forget_reason}',"
            " '\"superseded by a purged memory\"')::text"
            " where superseded_by in (select json_array_elements_text(cast(:ids as json)))"
            " and id not in (select json_array_elements_text(cast(:ids as json))) returning id",
        ),
        {"now": to_text(now), "ids": _ids(ids)},
    )
    erased.unlinked += [row[0] for row in unlinked]
    await conn.execute(
        Sql(
            "update access_log set query = null where query in (select query from access_log"
            " where memory_id in (select value from json_each(?)))",
            "update access_log set query = null where query in (select query from access_log"
            " where memory_id in (select json_array_elements_text(cast(? as json))))",
        ),
        params,
    )
    row = await fetch_one(
        conn,
        Sql(
            "select count(*) from access_log where memory_id in (select value from json_each(?))",
            "select count(*) from access_log where memory_id in"
            " (select json_array_elements_text(cast(? as json)))",
        ),
        params,
    )
    erased.access_entries += int(row[0]) if row else 0
    for table, column in (
        ("access_log", "memory_id"),
        ("relations", "source_memory_id"),
        ("exchange_links", "memory_id"),
    ):
        listed = LISTED[conn.dialect]
        await conn.execute(
            f"delete from {table} where {column} in ({listed})",  # noqa: S608 - names are ours
            params,
        )
    await _erase_vectors(conn, seqs, contents)
    await erase_dates(conn, seqs)
    await unindex_memories(conn, seqs)
    await conn.execute(
        Sql(
            "delete from memories where id in (select value from json_each(?))",
            "delete from memories where id in (select json_array_elements_text(cast(? as json)))",
        ),
        params,
    )
    queue = await fetch_all(
        conn,
        Sql(
            "delete from extraction_queue where exists (select 1 from json_each(fallback_ids) f"
            " where f.value in (select value from json_each(?))) returning id",
            "delete from extraction_queue where jsonb_exists_any(cast(fallback_ids as jsonb),"
            " array(select json_array_elements_text(cast(? as json)))) returning id",
        ),
        params,
    )
    erased.queue_entries += len(queue)
    logs = await fetch_all(
        conn,
        Sql(
            "update lifecycle_log set details = ? where exists (select 1 from"
            " json_each(memory_ids) m where m.value in (select value from json_each(?)))"
            " returning id",
            "update lifecycle_log set details = ? where jsonb_exists_any(cast(memory_ids as"
            " jsonb), array(select json_array_elements_text(cast(? as json)))) returning id",
        ),
        (TOMBSTONE, _ids(ids)),
    )
    erased.log_entries += len(logs)
    erased.memories += ids
    return contents


async def _erase_vectors(conn: Connection, seqs: list[int], contents: list[str]) -> None:
    import hashlib

    hashes = [hashlib.sha256(text.encode("utf-8")).hexdigest() for text in contents]
    await conn.execute(
        f"delete from embedding_cache where content_hash in ({LISTED[conn.dialect]})",  # noqa: S608 - ours
        (_ids(hashes),),
    )
    await delete_vectors(conn, seqs)


async def scrub_text(
    conn: Connection, text: str, erased: Erased, agent_id: str | None = None
) -> None:
    """Remove `text` (ignoring case) wherever it is still stored: other memories' content and
    metadata (rewritten with a marker, re-indexed, their vector dropped), queue entries, log
    details, recall queries and relations (removed or tombstoned). With `agent_id`, only that
    agent's memories, queue entries and relations are touched (an agent's own purge)."""
    lowered, in_json = text.lower(), json_lower(text)
    mine = {"agent_id": agent_id}
    rows = await fetch_all(
        conn,
        "select seq, id, content, metadata from memories"
        " where (instr(lower(content), :t) > 0 or instr(lower(metadata), :j) > 0)"
        " and (cast(:agent_id as text) is null or agent_id = :agent_id)",
        {"t": lowered, "j": in_json} | mine,
    )
    for row in rows:
        content = _replace(row["content"], text)
        metadata = json.loads(_replace(row["metadata"], json.dumps(text, ensure_ascii=False)[1:-1]))
        await conn.execute(
            "update memories set content = ?, content_key = ?, metadata = ? where seq = ?",
            (
                content,
                normalised_content(content),
                json.dumps(metadata, ensure_ascii=False),
                row["seq"],
            ),
        )
        await unindex_memories(conn, [row["seq"]])
        await index_memory(conn, row["seq"], content, metadata)
        await reindex_dates(conn, row["seq"])
        await _erase_vectors(conn, [row["seq"]], [row["content"]])
        erased.rewritten.append(row["id"])
    queue = await fetch_all(
        conn,
        "delete from extraction_queue where instr(lower(payload), :j) > 0"
        " and (cast(:agent_id as text) is null or agent_id = :agent_id) returning id",
        {"j": in_json} | mine,
    )
    erased.queue_entries += len(queue)
    logs = await fetch_all(
        conn,
        "update lifecycle_log set details = ? where instr(lower(details), ?) > 0 returning id",
        (TOMBSTONE, in_json),
    )
    erased.log_entries += len(logs)
    await scrub_scratchpads(conn, text, PURGED)  # (#26)
    await conn.execute(
        "update lifecycle_runs set report = null where instr(lower(report), ?) > 0", (in_json,)
    )
    access = await fetch_all(
        conn, "delete from access_log where instr(lower(query), ?) > 0 returning id", (lowered,)
    )
    await conn.execute(
        "delete from relations where (instr(lower(subject), :t) > 0"
        " or instr(lower(predicate), :t) > 0 or instr(lower(object), :t) > 0)"
        " and (cast(:agent_id as text) is null or agent_id = :agent_id)",
        {"t": lowered} | mine,
    )
    erased.access_entries += len(access)


def _replace(haystack: str, needle: str) -> str:
    """`haystack` with every case-insensitive occurrence of `needle` replaced by the marker."""
    lowered, target = haystack.lower(), needle.lower()
    parts, start = [], 0
    while (found := lowered.find(target, start)) >= 0:
        parts += [haystack[start:found], PURGED]
        start = found + len(needle)
    return "".join(parts) + haystack[start:]


async def rebuild_text_index(conn: Connection) -> None:
    """Merge the full-text segments into one, dropping every deleted entry's terms (term
    tables keep no deleted entry: nothing to do on PostgreSQL)."""
    if conn.dialect == "postgresql":
        return
    await conn.execute("insert into memories_fts (memories_fts) values ('optimize')")


PURGE_EPOCH = "purge.epoch"
"""Meta key changed by every purge: a process that buffered recalls (their query text) before
it drops their text when it sees the key changed (the purge may have erased that text)."""


async def purge_epoch(conn: Connection) -> str | None:
    """The current purge epoch (None before the store's first purge)."""
    return await get_meta(conn, PURGE_EPOCH)


async def tombstone(conn: Connection, ids: list[str], now: datetime) -> None:
    """The purge's own log entry: the ids and the time, nothing else; and a new purge epoch."""
    await set_meta(conn, PURGE_EPOCH, uuid.uuid4().hex)
    await conn.execute(
        "insert into lifecycle_log (action, memory_ids, details, executed_at)"
        " values ('purge', ?, '{}', ?)",
        (_ids(ids), to_text(now)),
    )


async def secure_delete(db: Database, on: bool) -> None:
    """Zero freed pages from now on (on) or stop doing so (off); SQLite only (PostgreSQL's
    VACUUM FULL below rewrites every table instead)."""
    if db.dialect == "postgresql":
        return
    async with db.outside_transaction() as conn:
        await conn.execute(f"pragma secure_delete = {1 if on else 0}")  # PRAGMA takes no params


async def rewrite_file(db: Database) -> bool:
    """Rebuild the database file (VACUUM: no free page or stale cell of an earlier update
    survives), copy the WAL into it and truncate the WAL; False when a reader kept the
    checkpoint from finishing (the WAL then holds old pages until the next checkpoint).
    On PostgreSQL: VACUUM FULL of the tables that held the text (dead row versions go; the
    server's WAL and backups are the operator's to rotate)."""
    if db.dialect == "postgresql":
        async with db.outside_transaction() as conn:
            for table in PURGED_TABLES:
                await conn.execute(f"vacuum full {table}")
        return True
    async with db.outside_transaction() as conn:
        await conn.execute("vacuum")
        row = await fetch_one(conn, "pragma wal_checkpoint(TRUNCATE)")
    return row is not None and int(row[0]) == 0
