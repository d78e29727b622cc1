"""The extraction retry queue: what the LLM could not extract yet, with backoff, across restarts."""

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import aiosqlite

from cortex_mcp.clock import to_text
from cortex_mcp.store.db import fetch_all, fetch_one


@dataclass(frozen=True)
class QueuedExtraction:
    """One queued piece of conversation and the fallback memories that stand in for it."""

    id: int
    agent_id: str
    session_id: str | None
    payload: dict[str, Any]
    fallback_ids: list[str]
    attempts: int


async def enqueue(
    conn: aiosqlite.Connection,
    *,
    agent_id: str,
    session_id: str | None,
    payload: dict[str, Any],
    fallback_ids: list[str],
    error: str,
    now: datetime,
) -> int:
    """Queue a piece of conversation for extraction; due at once for the retry task."""
    async with conn.execute(
        "insert into extraction_queue (agent_id, session_id, payload, fallback_ids, "
        "next_attempt_at, last_error, created_at) values (?, ?, ?, ?, ?, ?, ?) returning id",
        (
            agent_id,
            session_id,
            json.dumps(payload, ensure_ascii=False),
            json.dumps(fallback_ids),
            to_text(now),
            error,
            to_text(now),
        ),
    ) as cursor:
        row = await cursor.fetchone()
    assert row is not None
    return int(row[0])


async def due(conn: aiosqlite.Connection, now: datetime, limit: int) -> list[QueuedExtraction]:
    """Queued extractions whose next attempt is due, oldest first; one whose stored copy was
    forgotten waits until it is restored (else extraction would bring the text back)."""
    rows = await fetch_all(
        conn,
        "select * from extraction_queue where done_at is null and next_attempt_at <= ? "
        "and not exists (select 1 from json_each(fallback_ids) f join memories m"
        " on m.id = f.value where m.deleted_at is not null) "
        "order by id limit ?",
        (to_text(now), limit),
    )
    return [
        QueuedExtraction(
            id=row["id"],
            agent_id=row["agent_id"],
            session_id=row["session_id"],
            payload=json.loads(row["payload"]),
            fallback_ids=json.loads(row["fallback_ids"]),
            attempts=row["attempts"],
        )
        for row in rows
    ]


async def mark_done(conn: aiosqlite.Connection, queue_id: int, now: datetime) -> None:
    """The extraction succeeded; keep the row as a record."""
    await conn.execute(
        "update extraction_queue set done_at = ?, attempts = attempts + 1 where id = ?",
        (to_text(now), queue_id),
    )


async def reschedule(
    conn: aiosqlite.Connection, queue_id: int, next_attempt_at: datetime, error: str
) -> None:
    """The extraction failed again; try later."""
    await conn.execute(
        "update extraction_queue set attempts = attempts + 1, next_attempt_at = ?, "
        "last_error = ? where id = ?",
        (to_text(next_attempt_at), error, queue_id),
    )


async def pending_count(conn: aiosqlite.Connection) -> int:
    """How many queued extractions are still waiting."""
    row = await fetch_one(conn, "select count(*) from extraction_queue where done_at is null")
    return int(row[0]) if row else 0
