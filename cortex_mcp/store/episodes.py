"""Episodes and flushed-message hashes, in SQL.

An episode is a memory (category `context`, `metadata.kind = "episode"`, its structured parts
in `metadata.episode`); the `episodes` row maps an agent's session to that memory, with the
session's project and time span, for the one-per-session rule and the recent list. The row goes
with its memory when the memory is purged (foreign key, on delete cascade).
"""

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from cortex_mcp.clock import from_text, to_text
from cortex_mcp.models import Memory
from cortex_mcp.search.tokenize import normalised_content
from cortex_mcp.store.conversation import LoggedMessage, to_message
from cortex_mcp.store.dates import reindex_dates
from cortex_mcp.store.db import Connection, fetch_all, fetch_one
from cortex_mcp.store.memories import index_memory, insert_memory, to_memory, unindex_memories
from cortex_mcp.store.vectors import delete_vectors

EPISODES_SCHEMA = """
    create table episodes (
        memory_id text primary key references memories(id) on delete cascade,
        agent_id text not null,
        session_id text not null,
        project text,
        started_at text not null,
        ended_at text not null,
        unique (agent_id, session_id)
    );
    create index episodes_by_end on episodes(agent_id, ended_at);
    create table flushed_messages (
        agent_id text not null,
        session_id text not null,
        message_hash text not null,
        primary key (agent_id, session_id, message_hash)
    )
"""
"""The same statements on both engines (`migrations_pg.py` runs them too)."""


@dataclass(frozen=True)
class EpisodeRow:
    """One episode: where it lives and the span of its session."""

    memory_id: str
    agent_id: str
    session_id: str
    project: str | None
    started_at: datetime
    ended_at: datetime


def _row(row: Any) -> EpisodeRow:
    return EpisodeRow(
        memory_id=row["memory_id"],
        agent_id=row["agent_id"],
        session_id=row["session_id"],
        project=row["project"],
        started_at=from_text(row["started_at"]),
        ended_at=from_text(row["ended_at"]),
    )


def message_hashes(messages: Sequence[tuple[str, str]]) -> list[str]:
    """Each (role, content) message's identity within its session: a hash of its role and
    content and of the message before it in the same flush (so a repeated "ok", or a test run
    twice, after different messages, is a message of its own; the same messages flushed again
    hash the same)."""
    hashes: list[str] = []
    previous = ""
    for role, content in messages:
        joined = "\x1f".join([previous, role, content])
        hashes.append(hashlib.sha256(joined.encode("utf-8")).hexdigest())
        previous = hashlib.sha256(content.encode("utf-8")).hexdigest()
    return hashes


async def remember_flushed(conn: Connection) -> None:
    """Record the hashes of the messages flushed before hashes were kept (a migration): the
    same messages flushed again after the upgrade are logged once too."""
    found = await fetch_all(
        conn,
        "select agent_id, session_id, exchange_id, role, content from conversation_log"
        " where origin = 'flush' and session_id is not null order by seq",
    )
    exchanges: dict[tuple[str, str, str], list[tuple[str, str]]] = {}
    for agent_id, session_id, exchange_id, role, content in found:
        exchanges.setdefault((agent_id, session_id, exchange_id), []).append((role, content))
    for (agent_id, session_id, _), messages in exchanges.items():
        await claim_messages(conn, agent_id, session_id, message_hashes(messages))


async def claim_messages(
    conn: Connection, agent_id: str, session_id: str, hashes: list[str]
) -> list[bool]:
    """Record each message hash for the session; True for each one not recorded before (a
    message seen for the first time, in this call or any other process's)."""
    claimed: list[bool] = []
    for digest in hashes:
        row = await fetch_one(
            conn,
            "insert into flushed_messages (agent_id, session_id, message_hash) values (?, ?, ?)"
            " on conflict do nothing returning message_hash",
            (agent_id, session_id, digest),
        )
        claimed.append(row is not None)
    return claimed


async def ingested_exchanges(
    conn: Connection, agent_id: str, session_id: str
) -> list[tuple[str, str, str, bool]]:
    """(exchange id, the user's text, the reply, whether it logged tool calls) of every exchange
    `cortex_ingest` logged for the session, oldest first; forgotten ones too (a flush must not
    log again what the user had forgotten)."""
    rows = await fetch_all(
        conn,
        "select exchange_id, role, content from conversation_log where agent_id = ?"
        " and session_id = ? and origin = 'ingest' order by seq",
        (agent_id, session_id),
    )
    said: dict[str, dict[str, str]] = {}
    for row in rows:
        said.setdefault(row["exchange_id"], {}).setdefault(row["role"], row["content"])
    return [
        (
            key,
            texts.get("user", ""),
            texts.get("assistant", ""),
            bool(texts.get("tool", "").strip()),
        )
        for key, texts in said.items()
    ]


async def session_messages(
    conn: Connection, agent_id: str, session_id: str, limit: int
) -> list[LoggedMessage]:
    """The visible logged messages of one session, oldest first (the first `limit`)."""
    rows = await fetch_all(
        conn,
        "select * from conversation_log where agent_id = ? and session_id = ?"
        " and deleted_at is null order by seq limit ?",
        (agent_id, session_id, limit),
    )
    return [to_message(row) for row in rows]


async def exchange_messages(
    conn: Connection, agent_id: str, exchange_id: str
) -> list[LoggedMessage]:
    """The visible logged messages of one exchange (a flush without a session), in order."""
    rows = await fetch_all(
        conn,
        "select * from conversation_log where agent_id = ? and exchange_id = ?"
        " and deleted_at is null order by seq",
        (agent_id, exchange_id),
    )
    return [to_message(row) for row in rows]


async def episode_of(conn: Connection, agent_id: str, session_id: str) -> EpisodeRow | None:
    """The episode of an agent's session, if one was written."""
    row = await fetch_one(
        conn,
        "select * from episodes where agent_id = ? and session_id = ?",
        (agent_id, session_id),
    )
    return _row(row) if row else None


async def insert_episode(conn: Connection, memory: Memory, row: EpisodeRow) -> None:
    """Write a new episode: its memory, then its row."""
    await insert_memory(conn, memory)
    await conn.execute(
        "insert into episodes (memory_id, agent_id, session_id, project, started_at, ended_at)"
        " values (?, ?, ?, ?, ?, ?)",
        (
            memory.id,
            row.agent_id,
            row.session_id,
            row.project,
            to_text(row.started_at),
            to_text(row.ended_at),
        ),
    )


async def update_episode(
    conn: Connection, memory: Memory, row: EpisodeRow, expires_at: datetime | None
) -> None:
    """Give an episode its new text, parts and span; its full-text row is rewritten and its
    vector dropped (the background loop embeds the new text)."""
    found = await fetch_one(
        conn,
        "update memories set content = ?, content_key = ?, metadata = ?, updated_at = ?,"
        " expires_at = coalesce(?, expires_at) where id = ? returning seq",
        (
            memory.content,
            normalised_content(memory.content),
            json.dumps(memory.metadata, ensure_ascii=False),
            to_text(memory.updated_at),
            to_text(expires_at) if expires_at else None,
            memory.id,
        ),
    )
    assert found is not None
    seq = int(found[0])
    await unindex_memories(conn, [seq])
    await index_memory(conn, seq, memory.content, memory.metadata)
    await reindex_dates(conn, seq)
    await delete_vectors(conn, [seq])
    await conn.execute(
        "update episodes set project = coalesce(?, project), ended_at = ? where memory_id = ?",
        (row.project, to_text(row.ended_at), memory.id),
    )


async def recent_episodes(
    conn: Connection, agent_id: str, limit: int, offset: int
) -> tuple[list[tuple[EpisodeRow, Memory]], int]:
    """A page of the agent's live episodes, latest first, and how many there are in all."""
    live = (
        " from episodes e join memories m on m.id = e.memory_id"
        " where e.agent_id = ? and m.deleted_at is null and m.superseded_by is null"
    )
    rows = await fetch_all(
        conn,
        "select e.memory_id, e.agent_id, e.session_id, e.project, e.started_at, e.ended_at,"
        " m.*" + live + " order by e.ended_at desc, m.seq desc limit ? offset ?",
        (agent_id, limit, offset),
    )
    total = await fetch_one(conn, "select count(*)" + live, (agent_id,))
    return [(_row(row), to_memory(row)) for row in rows], int(total[0]) if total else 0


async def episode_by_id(
    conn: Connection, memory_id: str, agent_id: str
) -> tuple[EpisodeRow, Memory] | None:
    """One live episode of the agent by its memory id."""
    row = await fetch_one(
        conn,
        "select e.memory_id, e.agent_id, e.session_id, e.project, e.started_at,"
        " e.ended_at, m.* from episodes e join memories m on m.id = e.memory_id"
        " where e.memory_id = ? and e.agent_id = ? and m.deleted_at is null",
        (memory_id, agent_id),
    )
    return (_row(row), to_memory(row)) if row else None
