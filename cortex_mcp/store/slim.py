"""Slim reads for the lifecycle: live memories without their text, a page at a time.

A lifecycle run plans over every live working and core memory; a full `Memory` (its text,
its whole metadata, a pydantic object) costs about 3 KB, the slim row a fifth of that. The
text is read separately, a page of ids at a time, by the phases that compare it.
"""

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from cortex_mcp.clock import from_text
from cortex_mcp.models import Category, Layer, Memory
from cortex_mcp.store.db import Connection, Sql, fetch_all

PAGE = 1000
"""Rows per slim read."""


@dataclass(slots=True)
class SlimMemory:
    """A live memory as the lifecycle plans on it: every scalar column, and of its metadata
    only the keys a phase reads (`mentions`, `channel`, `signal`, `period`, `fingerprint`,
    `compressed_from`)."""

    id: str
    agent_id: str | None
    layer: Layer
    category: Category
    importance: float
    confidence: float
    decay_score: float
    access_count: int
    last_accessed: datetime | None
    created_at: datetime
    updated_at: datetime
    expires_at: datetime | None
    mentions: Any = 1
    channel: Any = None
    signal: Any = None
    period: Any = None
    fingerprint: Any = None
    compressed_from: Any = 0


_NAMES: dict[str, str] = {}


def _shared(text: str | None) -> str | None:
    """One string object per agent id or channel across the run, not one per row."""
    return None if text is None else _NAMES.setdefault(text, text)


def slim_of(memory: Memory) -> SlimMemory:
    """The slim row of a full memory."""
    return _slim(memory.model_dump(exclude={"metadata", "content"}), memory.metadata)


def _time(text: str | None) -> datetime | None:
    return from_text(text) if text else None


def _slim(row: dict[str, Any], metadata: dict[str, Any]) -> SlimMemory:
    def at(name: str) -> Any:
        value = row[name]
        return _time(value) if isinstance(value, str) else value

    return SlimMemory(
        id=row["id"],
        agent_id=_shared(row["agent_id"]),
        layer=Layer(row["layer"]),
        category=Category(row["category"]),
        importance=row["importance"],
        confidence=row["confidence"],
        decay_score=row["decay_score"],
        access_count=row["access_count"],
        last_accessed=at("last_accessed"),
        created_at=at("created_at"),
        updated_at=at("updated_at"),
        expires_at=at("expires_at"),
        mentions=metadata.get("mentions", 1),
        channel=_shared(metadata.get("channel")),
        signal=metadata.get("signal"),
        period=metadata.get("period"),
        fingerprint=metadata.get("fingerprint"),
        compressed_from=metadata.get("compressed_from", 0),
    )


_COLUMNS = (
    "seq, id, agent_id, layer, category, importance, confidence, decay_score, access_count,"
    " last_accessed, created_at, updated_at, expires_at, metadata"
)
_LIVE = Sql(
    f"select {_COLUMNS} from memories where deleted_at is null and superseded_by is null"  # noqa: S608
    " and layer in (select value from json_each(?)) and seq > ? order by seq limit ?",
    f"select {_COLUMNS} from memories where deleted_at is null and superseded_by is null"  # noqa: S608
    " and layer in (select json_array_elements_text(cast(? as json))) and seq > ?"
    " order by seq limit ?",
)
_EXPIRED = Sql(
    f"select {_COLUMNS} from memories where layer = 'archive' and deleted_at is null"  # noqa: S608
    " and superseded_by is null and json_extract(metadata, '$.compressed_into') is null"
    " and coalesce(json_extract(metadata, '$.archived_at'), updated_at) <= ?"
    " and seq > ? order by seq limit ?",
    f"select {_COLUMNS} from memories where layer = 'archive' and deleted_at is null"  # noqa: S608
    " and superseded_by is null and (metadata::jsonb ->> 'compressed_into') is null"
    " and coalesce(metadata::jsonb ->> 'archived_at', updated_at) <= ?"
    " and seq > ? order by seq limit ?",
)
_CONTENTS = Sql(
    "select id, content from memories where id in (select value from json_each(?))",
    "select id, content from memories where id in"
    " (select json_array_elements_text(cast(? as json)))",
)


async def _page(conn: Connection, sql: Sql, first: Any, after: int) -> tuple[list[SlimMemory], int]:
    rows = await fetch_all(conn, sql, (first, after, PAGE))
    slim = [_slim(dict(zip(_KEYS, row[1:], strict=True)), json.loads(row[-1])) for row in rows]
    return slim, (int(rows[-1][0]) if rows else after)


_KEYS = [name.strip() for name in _COLUMNS.split(",")][1:]


async def live_slim_page(
    conn: Connection, layers: list[Layer], after: int
) -> tuple[list[SlimMemory], int]:
    """Up to `PAGE` live memories of these layers past `seq` `after`, in `seq` order; and the
    last `seq` read (pass it back for the next page; an empty page is the end)."""
    return await _page(conn, _LIVE, json.dumps([layer.value for layer in layers]), after)


async def expired_archive_page(
    conn: Connection, cutoff: str, after: int
) -> tuple[list[SlimMemory], int]:
    """Like `live_slim_page`, for live archive entries not yet compressed that were archived
    at or before `cutoff` (a `to_text` timestamp)."""
    return await _page(conn, _EXPIRED, cutoff, after)


async def contents_of(conn: Connection, ids: list[str]) -> dict[str, str]:
    """The text of each of these memories, by id (unknown ids are absent)."""
    rows = await fetch_all(conn, _CONTENTS, (json.dumps(ids),))
    return {row[0]: row[1] for row in rows}
