"""Copying a whole store from one engine to the other (`cortex-mcp migrate --to ...`).

Rows keep their keys (memory ids and sequence numbers, log ids), so a copy can be run again
after an interruption: each batch is one transaction on the target, and rows already there are
skipped. The dates a memory mentions are copied with it, as they were resolved when it was
written. The full-text index is written on the target as rows arrive (derived data, in each
engine's own form); vectors are not copied: the embedding cache is, so the target's vector
index is rebuilt from it without calling the embedding model again. `REBUILT` names every
other table of either schema and why it is not copied (a test holds the two lists to the
schema). At the end, counts and a content hash of every copied table are compared.
"""

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cortex_mcp.search.tokenize import index_text
from cortex_mcp.store.conversation import index_message
from cortex_mcp.store.db import Connection, Database
from cortex_mcp.store.memories import index_memory

BATCH = 500


@dataclass(frozen=True)
class Table:
    """A table to copy: its key column and the columns written as they are."""

    name: str
    key: str
    columns: tuple[str, ...]


MEMORY_COLUMNS = (
    "seq",
    "id",
    "agent_id",
    "layer",
    "category",
    "content",
    "content_key",
    "source",
    "importance",
    "confidence",
    "decay_score",
    "access_count",
    "last_accessed",
    "created_at",
    "updated_at",
    "expires_at",
    "deleted_at",
    "metadata",
)
TABLES = (  # in an order that satisfies every reference (superseded_by comes after)
    Table("memories", "seq", MEMORY_COLUMNS),
    Table(
        "relations",
        "id",
        (
            "id",
            "agent_id",
            "subject",
            "predicate",
            "object",
            "confidence",
            "source_memory_id",
            "created_at",
            "updated_at",
            "valid_from",
            "valid_to",
            "subject_key",
            "object_key",
        ),
    ),
    Table("access_log", "id", ("id", "memory_id", "query", "rank", "accessed_at")),
    Table("lifecycle_log", "id", ("id", "action", "memory_ids", "details", "executed_at")),
    Table(
        "extraction_queue",
        "id",
        (
            "id",
            "agent_id",
            "session_id",
            "payload",
            "fallback_ids",
            "attempts",
            "next_attempt_at",
            "last_error",
            "created_at",
            "done_at",
        ),
    ),
    Table(
        "lifecycle_runs",
        "id",
        ("id", "owner", "started_at", "finished_at", "status", "report", "error"),
    ),
    Table("exchange_links", "exchange_id || ' ' || memory_id", ("exchange_id", "memory_id")),
    Table(
        "conversation_log",
        "seq",
        (
            "seq",
            "agent_id",
            "session_id",
            "exchange_id",
            "origin",
            "role",
            "content",
            "created_at",
            "memory_ids",
            "extraction",
            "attempts",
            "next_attempt_at",
            "deleted_at",
            "project",
        ),
    ),
    Table(
        "episodes",
        "memory_id",
        ("memory_id", "agent_id", "session_id", "project", "started_at", "ended_at"),
    ),
    Table(
        "flushed_messages",
        "agent_id || ' ' || session_id || ' ' || message_hash",
        ("agent_id", "session_id", "message_hash"),
    ),
    Table(
        "scratchpads",
        "agent_id || ' ' || project",
        ("agent_id", "project", "content", "updated_at"),
    ),
    Table(
        "embedding_cache",
        "content_hash || ' ' || model",
        ("content_hash", "model", "dimension", "vector", "created_at"),
    ),
    Table("meta", "key", ("key", "value")),
)
DATES = Table("memory_dates", "memory_seq", ("memory_seq", "start_day", "end_day"))
"""Copied memory by memory (rows have no key of their own): after the memories."""
COPIED = (*TABLES, DATES)
REBUILT = {  # table (or prefix of FTS5's shadow tables): why it is not copied
    "memories_fts": "SQLite's full-text index, written as memories arrive",
    "conversation_fts": "SQLite's full-text index, written as log messages arrive",
    "memory_terms": "PostgreSQL's full-text index, written as memories arrive",
    "memory_documents": "PostgreSQL's full-text index, written as memories arrive",
    "conversation_terms": "PostgreSQL's full-text index, written as log messages arrive",
    "conversation_documents": "PostgreSQL's full-text index, written as log messages arrive",
    "text_totals": "PostgreSQL's full-text totals, kept by triggers",
    "memory_vectors": "the vector index, rebuilt from the embedding cache",
    "message_vectors": "the conversation log's vector index, rebuilt from the embedding cache",
    "lifecycle_lease": "who runs the lifecycle now: a lease of the source's processes",
    "schema_version": "the target's own migrations",
}
SKIPPED_META = ("embedding.",)  # the vector index is rebuilt on the target, from the cache
SEQUENCES = {"memories": "seq", "access_log": "id", "lifecycle_log": "id"} | {
    "extraction_queue": "id",
    "lifecycle_runs": "id",
    "conversation_log": "seq",
}


@dataclass
class CopyReport:
    """What a copy did, table by table, and whether the target matches the source."""

    copied: dict[str, int] = field(default_factory=dict)
    already_there: dict[str, int] = field(default_factory=dict)
    source_counts: dict[str, int] = field(default_factory=dict)
    target_counts: dict[str, int] = field(default_factory=dict)
    source_hashes: dict[str, str] = field(default_factory=dict)
    target_hashes: dict[str, str] = field(default_factory=dict)

    @property
    def verified(self) -> bool:
        """True when every count and every table's content hash agree."""
        return self.source_counts == self.target_counts and self.source_hashes == self.target_hashes

    def to_json(self) -> dict[str, Any]:
        """The report as a JSON-ready dict."""
        return {
            "verified": self.verified,
            "copied": self.copied,
            "already_there": self.already_there,
            "source_counts": self.source_counts,
            "target_counts": self.target_counts,
            "memories_hash": {
                "source": self.source_hashes.get("memories", ""),
                "target": self.target_hashes.get("memories", ""),
            },
            "mismatched_tables": sorted(
                name
                for name in self.source_hashes
                if self.source_hashes[name] != self.target_hashes.get(name)
                or self.source_counts.get(name) != self.target_counts.get(name)
            ),
        }


Progress = Callable[[str, int], None]


async def copy_store(source: Database, target: Database, progress: Progress) -> CopyReport:
    """Copy every row of `source` that `target` lacks; verify; the report. Both migrated."""
    report = CopyReport()
    for table in TABLES:
        await _copy_table(source, target, table, report, progress)
    await _copy_dates(source, target, report, progress)
    await _link_supersedes(source, target)
    if target.dialect == "postgresql":
        async with target.write() as conn:
            for name, column in SEQUENCES.items():
                await conn.execute(
                    f"select setval(pg_get_serial_sequence('{name}', '{column}'),"  # noqa: S608 - ours
                    f" greatest((select max({column}) from {name}), 1))"
                )
    report.source_counts = await counts(source)
    report.target_counts = await counts(target)
    report.source_hashes = await table_hashes(source)
    report.target_hashes = await table_hashes(target)
    return report


async def _copy_table(
    source: Database, target: Database, table: Table, report: CopyReport, progress: Progress
) -> None:
    columns = ", ".join(table.columns)
    after: Any = None
    report.copied[table.name] = report.already_there[table.name] = 0
    while True:
        async with source.read() as conn:
            rows = await conn.fetch_all(
                f"select {table.key} as copy_key, {columns} from {table.name}"  # noqa: S608 - ours
                f" where cast(? as text) is null or {table.key} > ? order by {table.key} limit ?",
                (after, after, BATCH),
            )
        if not rows:
            return
        after = rows[-1][0]
        async with target.write() as conn:
            written = await _insert_missing(conn, table, [tuple(row[1:]) for row in rows])
        report.copied[table.name] += written
        report.already_there[table.name] += len(rows) - written
        progress(table.name, report.copied[table.name] + report.already_there[table.name])


async def _insert_missing(conn: Connection, table: Table, rows: list[tuple[Any, ...]]) -> int:
    """Insert the rows whose key the target lacks (and index them); how many were new."""
    if table.name == "meta":
        rows = [row for row in rows if not str(row[0]).startswith(SKIPPED_META)]
    keys = [_key_of(table, row) for row in rows]
    present = await conn.fetch_all(
        f"select {table.key} from {table.name} where {table.key} in"  # noqa: S608 - ours
        f" ({', '.join('?' * len(keys)) if keys else 'null'})",
        keys,
    )
    known = {row[0] for row in present}
    fresh = [row for row, key in zip(rows, keys, strict=True) if key not in known]
    if not fresh:
        return 0
    marks = ", ".join("?" * len(table.columns))
    await conn.executemany(
        f"insert into {table.name} ({', '.join(table.columns)}) values ({marks})",  # noqa: S608
        fresh,
    )
    for row in fresh:
        if table.name == "memories":
            values = dict(zip(table.columns, row, strict=True))
            await index_memory(
                conn, values["seq"], values["content"], json.loads(values["metadata"])
            )
        elif table.name == "conversation_log":
            await index_message(conn, row[0], index_text(row[6]))
    return len(fresh)


async def _copy_dates(
    source: Database, target: Database, report: CopyReport, progress: Progress
) -> None:
    """The dates of each memory, for the memories whose dates the target lacks (a memory's
    rows are written in one transaction, so a memory has all of its dates or none)."""
    report.copied[DATES.name] = report.already_there[DATES.name] = 0
    after = -1
    while True:
        async with source.read() as conn:
            seqs = [
                int(row[0])
                for row in await conn.fetch_all(
                    "select seq from memories where seq > ? order by seq limit ?", (after, BATCH)
                )
            ]
            if not seqs:
                return
            rows = await conn.fetch_all(
                "select memory_seq, start_day, end_day from memory_dates"
                " where memory_seq >= ? and memory_seq <= ?",
                (seqs[0], seqs[-1]),
            )
        after = seqs[-1]
        async with target.write() as conn:
            present = {
                int(row[0])
                for row in await conn.fetch_all(
                    "select distinct memory_seq from memory_dates"
                    " where memory_seq >= ? and memory_seq <= ?",
                    (seqs[0], seqs[-1]),
                )
            }
            fresh = [tuple(row) for row in rows if int(row[0]) not in present]
            if fresh:
                await conn.executemany(
                    "insert into memory_dates (memory_seq, start_day, end_day) values (?, ?, ?)",
                    fresh,
                )
        report.copied[DATES.name] += len(fresh)
        report.already_there[DATES.name] += len(rows) - len(fresh)
        progress(DATES.name, report.copied[DATES.name] + report.already_there[DATES.name])


def _key_of(table: Table, row: tuple[Any, ...]) -> Any:
    values = dict(zip(table.columns, row, strict=True))
    if table.name == "exchange_links":
        return f"{values['exchange_id']} {values['memory_id']}"
    if table.name == "embedding_cache":
        return f"{values['content_hash']} {values['model']}"
    return values[table.key]


async def _link_supersedes(source: Database, target: Database) -> None:
    """superseded_by, written once both ends of every link exist."""
    async with source.read() as conn:
        links = await conn.fetch_all(
            "select id, superseded_by from memories where superseded_by is not null"
        )
    for start in range(0, len(links), BATCH):
        async with target.write() as conn:
            await conn.executemany(
                "update memories set superseded_by = ? where id = ? and superseded_by is null",
                [(row[1], row[0]) for row in links[start : start + BATCH]],
            )


async def counts(db: Database) -> dict[str, int]:
    """Rows per copied table (meta without the keys the target rebuilds)."""
    found: dict[str, int] = {}
    async with db.read() as conn:
        for table in COPIED:
            row = await conn.fetch_one(
                f"select count(*) from {table.name}{_kept(table)}"  # noqa: S608 - ours
            )
            found[table.name] = int(row[0]) if row else 0
    return found


def _kept(table: Table) -> str:
    """The filter of the rows a copy carries over (meta: not the vector index's keys)."""
    return " where key not like 'embedding.%'" if table.name == "meta" else ""


async def table_hashes(db: Database) -> dict[str, str]:
    """A content hash per copied table: SHA-256 of each row (JSON text compared as JSON, since
    each engine may spell the same JSON differently), summed, so row order does not matter
    (the engines sort text differently)."""
    return {table.name: await _table_hash(db, table) for table in COPIED}


async def _table_hash(db: Database, table: Table) -> str:
    columns = [*table.columns, "superseded_by"] if table.name == "memories" else table.columns
    total, offset = 0, 0
    while True:
        async with db.read() as conn:
            rows = await conn.fetch_all(
                f"select {', '.join(columns)} from {table.name}{_kept(table)}"  # noqa: S608
                f" order by {', '.join(columns[:3])} limit ? offset ?",
                (BATCH, offset),
            )
        for row in rows:
            values = [_comparable(value) for value in row]
            text = json.dumps(values, sort_keys=True, ensure_ascii=False).encode("utf-8")
            total += int.from_bytes(hashlib.sha256(text).digest(), "big")
        if len(rows) < BATCH:
            return f"{total % (1 << 256):064x}"
        offset += BATCH


def _comparable(value: Any) -> Any:
    """A column's value in a form both engines give alike."""
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).hex()
    if isinstance(value, str) and value[:1] in ("{", "["):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value
