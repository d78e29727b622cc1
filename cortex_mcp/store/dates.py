"""The dates a memory mentions, resolved when it is written and kept beside its text.

One row per day span (`start_day` up to, not including, `end_day`, ISO days) of the memory's
content and context, resolved against the memory's creation time ("yesterday" in a memory
made on 8 May 2023 is 7 May 2023). Rows follow the memory's `seq`: a forgotten or superseded
memory is no longer a candidate, so its dates count for nothing; a purge deletes them.
"""

import json
from collections.abc import Mapping, Sequence
from datetime import date, datetime
from typing import Any

from cortex_mcp.clock import from_text
from cortex_mcp.models import Candidate, Category, Layer
from cortex_mcp.search.dates import mentioned_dates
from cortex_mcp.search.query import DateSpan
from cortex_mcp.search.tokenize import context_of
from cortex_mcp.store.db import Connection, Sql, fetch_all, fetch_one
from cortex_mcp.store.scope import sees_shared


async def index_dates(
    conn: Connection,
    seq: int,
    content: str,
    metadata: Mapping[str, Any],
    created_at: datetime,
) -> None:
    """Write the day spans the memory's content and context mention."""
    spans = mentioned_dates(content, created_at)
    context = context_of(metadata)
    if context:
        spans = list(dict.fromkeys([*spans, *mentioned_dates(context, created_at)]))
    if spans:
        await conn.executemany(
            "insert into memory_dates (memory_seq, start_day, end_day) values (?, ?, ?)",
            [(seq, span.start.isoformat(), span.end.isoformat()) for span in spans],
        )


async def reindex_dates(conn: Connection, seq: int) -> None:
    """Resolve the memory's dates again from its current content and context."""
    await conn.execute("delete from memory_dates where memory_seq = ?", (seq,))
    row = await fetch_one(
        conn, "select content, metadata, created_at from memories where seq = ?", (seq,)
    )
    if row is not None:
        await index_dates(conn, seq, row[0], json.loads(row[1]), from_text(row[2]))


async def erase_dates(conn: Connection, seqs: list[int]) -> None:
    """Delete the dates of these memories (a purge)."""
    await conn.execute(
        Sql(
            "delete from memory_dates where memory_seq in (select value from json_each(?))",
            "delete from memory_dates where memory_seq in"
            " (select cast(json_array_elements_text(cast(? as json)) as bigint))",
        ),
        (json.dumps(seqs),),
    )


async def mentions(conn: Connection, memory_ids: list[str]) -> dict[str, list[DateSpan]]:
    """The day spans each of these memories mentions, by id (none: absent)."""
    rows = await fetch_all(
        conn,
        Sql(
            "select m.id, d.start_day, d.end_day from memory_dates d"
            " join memories m on m.seq = d.memory_seq"
            " where m.id in (select value from json_each(?))",
            "select m.id, d.start_day, d.end_day from memory_dates d"
            " join memories m on m.seq = d.memory_seq"
            " where m.id in (select json_array_elements_text(cast(? as json)))",
        ),
        (json.dumps(memory_ids),),
    )
    found: dict[str, list[DateSpan]] = {}
    for memory_id, start, end in rows:
        found.setdefault(memory_id, []).append(
            DateSpan(date.fromisoformat(start), date.fromisoformat(end))
        )
    return found


_DATED = (
    "with spans(first, after, days) as (select json_extract(value, '$[0]'),"
    " json_extract(value, '$[1]'), json_extract(value, '$[2]') from json_each(:spans)),"
    " hits(seq) as ("
    " select d.memory_seq from memory_dates d join spans s"
    " on d.start_day < s.after and s.first < d.end_day"
    " and julianday(d.end_day) - julianday(d.start_day) <= s.days)"
    " select m.id, m.layer, m.created_at, m.updated_at, m.access_count, m.content_key"
    " from hits join memories m on m.seq = hits.seq"
    " where (m.agent_id = :agent_id or (m.agent_id is null and :shared))"
    " and m.deleted_at is null and m.superseded_by is null"
    " and m.layer in (select value from json_each(:layers))"
    " and (:categories is null or m.category in (select value from json_each(:categories)))"
    " order by m.created_at desc limit :limit"
)
_DATED_PG = (  # the same spans, as PostgreSQL reads a JSON list and counts days
    "with spans(first, after, days) as (select s ->> 0, s ->> 1, cast(s ->> 2 as integer)"
    " from json_array_elements(cast(:spans as json)) s),"
    " hits(seq) as ("
    " select d.memory_seq from memory_dates d join spans s"
    " on d.start_day < s.after and s.first < d.end_day"
    " and cast(d.end_day as date) - cast(d.start_day as date) <= s.days)"
    " select m.id, m.layer, m.created_at, m.updated_at, m.access_count, m.content_key"
    " from hits join memories m on m.seq = hits.seq"
    " where (m.agent_id = :agent_id or (m.agent_id is null and :shared))"
    " and m.deleted_at is null and m.superseded_by is null"
    " and m.layer in (select json_array_elements_text(cast(:layers as json)))"
    " and (cast(:categories as text) is null or m.category in"
    " (select json_array_elements_text(cast(:categories as json))))"
    " order by m.created_at desc limit :limit"
)


async def dated_candidates(
    conn: Connection,
    spans: Sequence[DateSpan],
    agent_id: str,
    layers: list[Layer],
    categories: list[Category] | None,
    limit: int,
) -> list[Candidate]:
    """Live memories mentioning a date that falls in one of the spans (no coarser than it:
    see `search.dates.fits`), newest first; none when there is no span. (Memories made then
    are lifted only when words or vectors find them: taking every memory of a named day in
    put unrelated ones of that day above better matches on LoCoMo.)"""
    if not spans:
        return []
    params: dict[str, Any] = {
        "spans": json.dumps([[s.start.isoformat(), s.end.isoformat(), s.days] for s in spans]),
        "agent_id": agent_id,
        "layers": json.dumps([layer.value for layer in layers]),
        "categories": json.dumps([c.value for c in categories]) if categories else None,
        "limit": limit,
        "shared": sees_shared(),
    }
    return [
        Candidate(
            id=row["id"],
            layer=Layer(row["layer"]),
            created_at=from_text(row["created_at"]),
            updated_at=from_text(row["updated_at"]),
            access_count=row["access_count"],
            content_key=row["content_key"],
        )
        for row in await fetch_all(conn, Sql(_DATED, _DATED_PG), params)
    ]
