"""The conversation log in the engine: what is said is kept, verbatim after redaction.

Every ingested exchange and every flushed message is appended before anything is extracted
from it, so nothing said is lost whatever the LLM does. The log is not memory: recall reads it
as a last resort, after the memories and at a low weight (`log_hits`), never showing a message
whose memory is already in the block nor the same text twice.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from cortex_mcp.clock import to_text
from cortex_mcp.engine import gate
from cortex_mcp.models import LogHit, Memory, new_memory_id
from cortex_mcp.search.budget import estimate_tokens, fit_lines
from cortex_mcp.search.query import match_expression
from cortex_mcp.search.tokenize import query_terms
from cortex_mcp.store import conversation as log
from cortex_mcp.store.db import Connection

if TYPE_CHECKING:
    from cortex_mcp.engine import Engine

LOG_WEIGHT = 0.3
"""A log hit's score is its normalised BM25 times this: always below the memories shown."""
LOG_LINE_CHARS = 400
MIN_REPEAT_CHARS = 4
"""Shorter text ("OK") is not counted as a repeat inside a longer one."""


@dataclass(frozen=True)
class Logged:
    """Where an exchange went in the log: its id and each message's sequence number."""

    exchange_id: str
    seqs: list[int]


def new_exchange_id(now: datetime) -> str:
    """A time-ordered id for the messages of one ingest or one flush."""
    return new_memory_id(int(now.timestamp() * 1000))


async def append_exchange(
    engine: Engine,
    messages: Sequence[tuple[str, str]],
    *,
    agent_id: str,
    session_id: str | None,
    origin: str,
) -> Logged:
    """Append (role, content) messages as one exchange, in one transaction; empty ones are
    skipped (their sequence number is -1)."""
    now = engine.clock()
    exchange = new_exchange_id(now)
    seqs: list[int] = []
    async with engine.db.write() as conn:
        for role, content in messages:
            if not content.strip():
                seqs.append(-1)
                continue
            seq = await log.append_message(
                conn,
                agent_id=agent_id,
                session_id=session_id,
                exchange_id=exchange,
                origin=origin,
                role=role,
                content=content,
                created_at=to_text(now),
            )
            seqs.append(seq)
    return Logged(exchange, seqs)


async def settle_extraction(
    engine: Engine, seqs: list[int], links: dict[int, list[str]], state: str
) -> None:
    """Record what was extracted from which message and whether an LLM extraction is owed."""
    async with engine.db.write() as conn:
        for seq, memory_ids in links.items():
            if seq >= 0:
                await log.link_memories(conn, [seq], memory_ids)
        due = engine.clock() if state == "pending" else None
        await log.set_extraction(conn, [s for s in seqs if s >= 0], state, due)


def owed_state(engine: Engine) -> str:
    """What an exchange the LLM could not extract becomes: `pending` (retried from the log in
    the background) when a configured provider can drain it, else `none` (kept in the log only:
    with no LLM nothing piles up)."""
    return "pending" if engine.llm.answers_in_background else "none"


def backoff_s(engine: Engine, attempts: int) -> float:
    """Seconds until the next try of an exchange that failed `attempts` times before."""
    settings = engine.settings.sieve
    return float(min(settings.retry_interval_s * 2 ** (attempts + 1), settings.retry_max_backoff_s))


async def prune(engine: Engine) -> int:
    """Erase messages older than the retention setting (none when it says keep)."""
    days = engine.settings.sieve.conversation_retention_days
    if not days:
        return 0
    async with engine.db.write() as conn:
        return await log.erase_older_than(conn, engine.clock() - timedelta(days=days))


def text_key(text: str) -> str:
    """Text as compared for repeats: NFKC, case-folded, letters and digits only."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return re.sub(r"[\W_]+", "", folded)


def repeats(text: str, shown: Sequence[str]) -> bool:
    """True when `text` and something already shown contain one another."""
    key = text_key(text)
    if not key:
        return True
    for other in shown:
        other_key = text_key(other)
        short, long = sorted((key, other_key), key=len)
        if (len(short) >= MIN_REPEAT_CHARS or short == long) and short in long:
            return True
    return False


async def hide_said(conn: Connection, memory: Memory, now: datetime) -> None:
    """Hide the messages a memory was extracted from, and its whole exchange when that was
    one ingest (a forget)."""
    await log.hide_messages_of(conn, memory.id, now)
    exchange = memory.metadata.get("exchange_id")
    if isinstance(exchange, str) and await log.exchange_origin(conn, exchange) == "ingest":
        await log.hide_exchange(conn, exchange, now)


async def unhide_said(conn: Connection, memory: Memory, hidden_at: datetime) -> None:
    """Show again what `hide_said` hid for this memory at `hidden_at` (a restore)."""
    await log.unhide_messages_of(conn, memory.id, hidden_at)
    exchange = memory.metadata.get("exchange_id")
    if isinstance(exchange, str):
        await log.unhide_exchange(conn, exchange, hidden_at)


async def log_hits(
    conn: Connection,
    query: str,
    *,
    agent_id: str,
    shown: Sequence[Memory],
    limit: int,
) -> list[LogHit]:
    """The best messages of the log for `query` that add something to the memories shown:
    none a shown memory came from, none repeating shown text. (The other side of a shown
    memory's exchange may show: a memory keeps it as context, searched but never shown.)"""
    match = match_expression(query)
    if match is None or limit <= 0:
        return []
    found = await log.search_log(conn, match, agent_id, limit * 4 + 8)
    shown_ids = {m.id for m in shown}
    texts = [m.content for m in shown]
    best = min((bm25 for bm25, _ in found), default=0.0)
    hits: list[LogHit] = []
    for bm25, message in found:
        if shown_ids & set(message.memory_ids) or repeats(message.content, texts):
            continue
        texts.append(message.content)
        score = LOG_WEIGHT * (bm25 / best if best < 0 else 0.0)
        hits.append(
            LogHit(
                exchange_id=message.exchange_id,
                role=message.role,
                content=message.content,
                session_id=message.session_id,
                created_at=message.created_at,
                score=round(score, 6),
            )
        )
        if len(hits) == limit:
            break
    return hits


async def with_log_hits(
    conn: Connection,
    query: str,
    agent_id: str,
    found: list[tuple[Memory, float]],
    matched: set[str],
    answers: list[Memory],
    max_results: int,
) -> tuple[list[tuple[Memory, float]], list[LogHit]]:
    """The memories to show, with a slot's `answers` first, and the log hits for the places
    left: the log takes the places no memory matching the query's words (`matched`) holds,
    before memories only a vector found (nearest is not relevant)."""
    top = max((score for _, score in found), default=1.0)
    answered = {m.id for m in answers}
    matched = matched | answered
    ranked = [(m, top) for m in answers] + [x for x in found if x[0].id not in answered]
    ranked = ranked[:max_results]
    strong = [(m, score) for m, score in ranked if m.id in matched]
    said: list[LogHit] = []
    if len(strong) < max_results:
        shown = [m for m, _ in ranked]
        said = await log_hits(
            conn, query, agent_id=agent_id, shown=shown, limit=max_results - len(strong)
        )
    weak = [(m, score) for m, score in ranked if m.id not in matched]
    return strong + weak[: max(0, max_results - len(strong) - len(said))], said


def snippet(text: str, query: str) -> str:
    """The message on one line; a long one cut to a window around the first query term."""
    flat = " ".join(text.split())
    if len(flat) <= LOG_LINE_CHARS:
        return flat
    folded = flat.casefold()
    at = min((i for t in query_terms(query) if (i := folded.find(t.casefold())) >= 0), default=0)
    start = max(0, min(at - LOG_LINE_CHARS // 4, len(flat) - LOG_LINE_CHARS))
    cut = flat[start : start + LOG_LINE_CHARS]
    return ("…" if start else "") + cut + ("…" if start + LOG_LINE_CHARS < len(flat) else "")


def log_line(hit: LogHit, query: str) -> str:
    """One log hit as a line of the context block: date, who said it, the message."""
    day = hit.created_at.date().isoformat()
    return f"- [{day} · said by {hit.role}] {snippet(hit.content, query)}"


LOG_HEADER = "Said in earlier conversations (verbatim from the conversation log, not memories):"


def recall_block(
    memories: list[Memory], said: list[LogHit], query: str, max_tokens: int
) -> tuple[str, int, int]:
    """The context block: the memories, then a labelled section of log hits in what budget is
    left; with how many of each fit."""
    if not said:
        block, fitted = gate.context_block(memories, max_tokens, gate.CONTEXT_HEADER)
        return block, fitted, 0
    parts: list[str] = []
    fitted = 0
    if memories:
        lines = fit_lines(
            gate.CONTEXT_HEADER, [gate.memory_line(m) for m in memories], "", max_tokens
        )
        parts, fitted = [gate.CONTEXT_HEADER, *lines], len(lines)
    left = max_tokens - estimate_tokens("\n".join(parts)) - 1
    said_lines: list[str] = []
    if left > estimate_tokens(LOG_HEADER) + 8:
        said_lines = fit_lines(LOG_HEADER, [log_line(h, query) for h in said], "", left)
    if said_lines:
        parts += [LOG_HEADER, *said_lines]
    return ("\n".join(parts) or gate.CONTEXT_EMPTY), fitted, len(said_lines)
