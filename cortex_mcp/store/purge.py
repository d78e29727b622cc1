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

import aiosqlite

from cortex_mcp.clock import to_text
from cortex_mcp.search.tokenize import normalised_content
from cortex_mcp.store.dates import erase_dates, reindex_dates
from cortex_mcp.store.db import Database, fetch_all, fetch_one
from cortex_mcp.store.memories import index_memory
from cortex_mcp.store.meta import get_meta, set_meta

PURGED = "[PURGED]"
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


def _ids(values: list[str]) -> str:
    return json.dumps(values)


async def matching_memories(conn: aiosqlite.Connection, text: str) -> tuple[list[str], list[str]]:
    """Ids of memories (any agent, any state) whose content contains `text`, ignoring case,
    and of those whose metadata only (a context, a snapshot) does."""
    rows = await fetch_all(
        conn,
        "select id, instr(lower(content), lower(:t)) > 0 from memories"
        " where instr(lower(content), lower(:t)) > 0 or instr(lower(metadata), :j) > 0"
        " order by seq",
        {"t": text, "j": _json_lower(text)},
    )
    return [row[0] for row in rows if row[1]], [row[0] for row in rows if not row[1]]


async def places_with(conn: aiosqlite.Connection, text: str) -> dict[str, int]:
    """How many queue entries, log entries and recall queries contain `text` (a preview)."""
    counts = {}
    for name, sql in (
        ("queue_entries", "select count(*) from extraction_queue where instr(lower(payload), ?)"),
        ("log_entries", "select count(*) from lifecycle_log where instr(lower(details), ?)"),
        ("access_entries", "select count(*) from access_log where instr(lower(query), ?)"),
    ):
        needle = text.lower() if name == "access_entries" else _json_lower(text)
        row = await fetch_one(conn, sql, (needle,))
        counts[name] = int(row[0]) if row else 0
    return counts


def _json_lower(text: str) -> str:
    return json.dumps(text.lower(), ensure_ascii=False)[1:-1]


async def erase_memories(
    conn: aiosqlite.Connection, ids: list[str], now: datetime, erased: Erased
) -> list[str]:
    """Delete these memories and every row that points at them; returns their contents."""
    rows = await fetch_all(
        conn,
        "select seq, content from memories where id in (select value from json_each(?))",
        (_ids(ids),),
    )
    seqs, contents = [row[0] for row in rows], [row[1] for row in rows]
    params = (_ids(ids),)
    unlinked = await fetch_all(
        conn,
        "update memories set superseded_by = null, deleted_at = coalesce(deleted_at, :now),"
        " metadata = json_set(metadata, '$.forget_reason', 'superseded by a purged memory')"
        " where superseded_by in (select value from json_each(:ids))"
        " and id not in (select value from json_each(:ids)) returning id",
        {"now": to_text(now), "ids": _ids(ids)},
    )
    erased.unlinked += [row[0] for row in unlinked]
    await conn.execute(
        "update access_log set query = null where query in (select query from access_log"
        " where memory_id in (select value from json_each(?)))",
        params,
    )
    row = await fetch_one(
        conn,
        "select count(*) from access_log where memory_id in (select value from json_each(?))",
        params,
    )
    erased.access_entries += int(row[0]) if row else 0
    for table, column in (
        ("access_log", "memory_id"),
        ("relations", "source_memory_id"),
        ("exchange_links", "memory_id"),
    ):
        await conn.execute(
            f"delete from {table} where {column} in (select value from json_each(?))",  # noqa: S608 - names are ours
            params,
        )
    await _erase_vectors(conn, seqs, contents)
    await erase_dates(conn, seqs)
    await conn.execute(
        "delete from memories_fts where rowid in (select value from json_each(?))", (_ids(seqs),)
    )
    await conn.execute("delete from memories where id in (select value from json_each(?))", params)
    queue = await fetch_all(
        conn,
        "delete from extraction_queue where exists (select 1 from json_each(fallback_ids) f"
        " where f.value in (select value from json_each(?))) returning id",
        params,
    )
    erased.queue_entries += len(queue)
    logs = await fetch_all(
        conn,
        "update lifecycle_log set details = ? where exists (select 1 from json_each(memory_ids) m"
        " where m.value in (select value from json_each(?))) returning id",
        (TOMBSTONE, _ids(ids)),
    )
    erased.log_entries += len(logs)
    erased.memories += ids
    return contents


async def _erase_vectors(conn: aiosqlite.Connection, seqs: list[int], contents: list[str]) -> None:
    import hashlib

    hashes = [hashlib.sha256(text.encode("utf-8")).hexdigest() for text in contents]
    await conn.execute(
        "delete from embedding_cache where content_hash in (select value from json_each(?))",
        (_ids(hashes),),
    )
    exists = await fetch_one(
        conn, "select 1 from sqlite_master where type = 'table' and name = 'memory_vectors'"
    )
    if exists:
        await conn.executemany(
            "delete from memory_vectors where rowid = ?", [(seq,) for seq in seqs]
        )


async def scrub_text(conn: aiosqlite.Connection, text: str, erased: Erased) -> None:
    """Remove `text` (ignoring case) wherever it is still stored: other memories' content and
    metadata (rewritten with a marker, re-indexed, their vector dropped), queue entries, log
    details, recall queries and relations (removed or tombstoned)."""
    lowered, in_json = text.lower(), _json_lower(text)
    rows = await fetch_all(
        conn,
        "select seq, id, content, metadata from memories"
        " where instr(lower(content), ?) > 0 or instr(lower(metadata), ?) > 0",
        (lowered, in_json),
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
        await conn.execute("delete from memories_fts where rowid = ?", (row["seq"],))
        await index_memory(conn, row["seq"], content, metadata)
        await reindex_dates(conn, row["seq"])
        await _erase_vectors(conn, [row["seq"]], [row["content"]])
        erased.rewritten.append(row["id"])
    queue = await fetch_all(
        conn,
        "delete from extraction_queue where instr(lower(payload), ?) > 0 returning id",
        (in_json,),
    )
    erased.queue_entries += len(queue)
    logs = await fetch_all(
        conn,
        "update lifecycle_log set details = ? where instr(lower(details), ?) > 0 returning id",
        (TOMBSTONE, in_json),
    )
    erased.log_entries += len(logs)
    await conn.execute(
        "update lifecycle_runs set report = null where instr(lower(report), ?) > 0", (in_json,)
    )
    access = await fetch_all(
        conn, "delete from access_log where instr(lower(query), ?) > 0 returning id", (lowered,)
    )
    await conn.execute(
        "delete from relations where instr(lower(subject), :t) > 0"
        " or instr(lower(predicate), :t) > 0 or instr(lower(object), :t) > 0",
        {"t": lowered},
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


async def rebuild_text_index(conn: aiosqlite.Connection) -> None:
    """Merge the full-text segments into one, dropping every deleted entry's terms."""
    await conn.execute("insert into memories_fts (memories_fts) values ('optimize')")


PURGE_EPOCH = "purge.epoch"
"""Meta key changed by every purge: a process that buffered recalls (their query text) before
it drops their text when it sees the key changed (the purge may have erased that text)."""


async def purge_epoch(conn: aiosqlite.Connection) -> str | None:
    """The current purge epoch (None before the store's first purge)."""
    return await get_meta(conn, PURGE_EPOCH)


async def tombstone(conn: aiosqlite.Connection, ids: list[str], now: datetime) -> None:
    """The purge's own log entry: the ids and the time, nothing else; and a new purge epoch."""
    await set_meta(conn, PURGE_EPOCH, uuid.uuid4().hex)
    await conn.execute(
        "insert into lifecycle_log (action, memory_ids, details, executed_at)"
        " values ('purge', ?, '{}', ?)",
        (_ids(ids), to_text(now)),
    )


async def secure_delete(db: Database, on: bool) -> None:
    """Zero freed pages from now on (on) or stop doing so (off)."""
    async with db.outside_transaction() as conn:
        await conn.execute(f"pragma secure_delete = {1 if on else 0}")  # PRAGMA takes no params


async def rewrite_file(db: Database) -> bool:
    """Rebuild the database file (VACUUM: no free page or stale cell of an earlier update
    survives), copy the WAL into it and truncate the WAL; False when a reader kept the
    checkpoint from finishing (the WAL then holds old pages until the next checkpoint)."""
    async with db.outside_transaction() as conn:
        await conn.execute("vacuum")
        row = await fetch_one(conn, "pragma wal_checkpoint(TRUNCATE)")
    return row is not None and int(row[0]) == 0
