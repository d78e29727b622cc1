"""The Memory Sieve: cortex_ingest and cortex_flush.

Two channels run side by side. The fast channel finds high-signal statements in the user's
words with patterns and writes them to core at once. The deep channel asks the LLM to extract
what a skilled assistant would keep from both sides of the exchange, into working memory. When
no LLM answers, a raw fallback memory stands in and the exchange waits in a retry queue in the
database, so nothing is lost across failures or restarts.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import anyio

from cortex_mcp.engine import extraction
from cortex_mcp.engine.fast import fast_statements
from cortex_mcp.engine.nearby import nearby_memories
from cortex_mcp.engine.patterns import is_small_talk
from cortex_mcp.engine.redaction import redact
from cortex_mcp.engine.update import Proposal, apply_verdict, ask_llm, build_memory, stored
from cortex_mcp.errors import InvalidInput
from cortex_mcp.models import Category, IngestResult, Layer, StoredMemory
from cortex_mcp.search.budget import truncate_to_tokens
from cortex_mcp.store import exchanges, queue
from cortex_mcp.store import memories as rows
from cortex_mcp.store.logs import log_action

if TYPE_CHECKING:
    from cortex_mcp.engine import Engine

logger = logging.getLogger(__name__)

FALLBACK_SIDE_CHARS = 1500


@dataclass(frozen=True)
class Message:
    """One message of a conversation handed to cortex_flush."""

    role: str
    content: str


class Cleaner:
    """Redacts secrets (when configured), and the personal-data kinds the user declared, and
    remembers which kinds it removed."""

    def __init__(self, enabled: bool, declared: Collection[str] = ()) -> None:
        self.enabled = enabled
        self.declared = frozenset(declared)
        self.kinds: list[str] = []

    def __call__(self, text: str) -> str:
        """The text without secrets."""
        if not self.enabled:
            return text
        clean, kinds = redact(text, self.declared)
        self.kinds += [k for k in kinds if k not in self.kinds]
        return clean


def fallback_side(text: str) -> str:
    """One side of an exchange, cut to the length a fallback memory keeps."""
    return text if len(text) <= FALLBACK_SIDE_CHARS else text[:FALLBACK_SIDE_CHARS] + "…"


def tool_calls_text(tool_calls: Sequence[dict[str, Any]] | None) -> str:
    """Tool calls of an exchange as short lines for the prompt."""
    if not tool_calls:
        return ""
    lines = [truncate_to_tokens(str(call), 200) for call in tool_calls[:20]]
    return "\n<tool_calls>\n" + "\n".join(lines) + "\n</tool_calls>"


async def store_proposal(engine: Engine, proposal: Proposal, agent: str) -> StoredMemory:
    """Ask the LLM about a proposal if the rules cannot decide alone (reading, outside any
    transaction), then settle and write it in one write transaction."""
    async with engine.db.read() as conn:
        asked = await ask_llm(conn, proposal, agent, engine.decide)
    nearby = []
    if proposal.correction and proposal.slot is None and asked is None:
        nearby = await nearby_memories(engine.db, engine.vectors, proposal.content, agent)
    async with engine.db.write() as conn:
        return await apply_verdict(conn, proposal, asked, agent, engine.clock(), nearby)


async def fast_channel(
    engine: Engine, user: str, agent: str, session: str | None
) -> list[StoredMemory]:
    """High-signal statements of the user, straight to core; the rest of the user's message is
    kept as each statement's search context."""
    results = []
    for statement in fast_statements(user):
        statement = replace(statement, session_id=session)
        around = fallback_side(user) if user.strip() != statement.content else None
        if around:
            statement = replace(statement, extra=statement.extra | {"context": around})
        results.append(await store_proposal(engine, statement, agent))
    return results


def deep_proposals(
    engine: Engine, answer: str, session: str | None, channel: str
) -> list[Proposal]:
    """Working-memory proposals from an LLM extraction answer."""
    expires = engine.clock() + timedelta(hours=engine.settings.sieve.working_ttl_hours)
    return [
        Proposal(
            content=item.content,
            category=item.category,
            importance=item.importance,
            layer=Layer.WORKING,
            source=item.source,
            channel=channel,
            session_id=session,
            expires_at=expires,
        )
        for item in extraction.parse_extraction(answer)
    ]


async def store_fallback(
    engine: Engine, agent: str, session: str | None, payload: dict[str, Any], text: str, error: str
) -> StoredMemory:
    """A raw working memory standing in for unextracted conversation, and its queue entry."""
    now = engine.clock()
    proposal = Proposal(
        content=text,
        category=Category.CONTEXT,
        importance=0.3,
        layer=Layer.WORKING,
        source="both",
        channel="fallback",
        session_id=session,
        expires_at=now + timedelta(hours=engine.settings.sieve.working_ttl_hours),
        confidence=0.5,
        extra={"unextracted": True},
    )
    async with engine.db.write() as conn:
        same = await rows.find_live_by_content(conn, text, agent)
        if same is not None and same.metadata.get("channel") == "fallback":
            return stored("duplicate", same, "fallback")  # its queue entry covers this one
        memory = build_memory(proposal, agent, now, Layer.WORKING)
        await rows.insert_memory(conn, memory)
        await queue.enqueue(
            conn,
            agent_id=agent,
            session_id=session,
            payload=payload,
            fallback_ids=[memory.id],
            error=error,
            now=now,
        )
    return stored("created", memory, "fallback")


async def deep_channel(
    engine: Engine,
    user: str,
    assistant: str,
    tools: str,
    agent: str,
    session: str | None,
    result: IngestResult,
) -> None:
    """LLM extraction of both sides into working memory; fallback and queue on failure."""
    if is_small_talk(user, assistant) and not tools:
        result.skipped = "small talk"
        return
    profile = await engine.profile_text(agent)
    prompt = extraction.user_prompt(
        user, assistant + tools, profile, engine.settings.sieve.additional_instructions
    )
    answer = await engine.complete(extraction.SYSTEM_PROMPT, prompt)
    if answer is None or not extraction.is_parseable(answer):
        error = "no LLM available" if answer is None else "unreadable LLM answer"
        payload = {"user": user, "assistant": assistant, "tools": tools}
        text = (
            f"[unextracted exchange] user: {fallback_side(user)}\n"
            f"assistant: {fallback_side(assistant)}"
        )
        result.fallback = await store_fallback(engine, agent, session, payload, text, error)
        result.queued = True
        return
    for proposal in deep_proposals(engine, answer, session, "deep"):
        result.deep.append(await store_proposal(engine, proposal, agent))


async def ingest(
    engine: Engine,
    user_message: str,
    assistant_message: str,
    *,
    session_id: str | None,
    tool_calls: Sequence[dict[str, Any]] | None,
    agent_id: str,
) -> IngestResult:
    """Extract memories from one exchange: fast channel to core, deep channel to working."""
    limit = engine.settings.sieve.max_message_chars
    for field, text in (("user_message", user_message), ("assistant_message", assistant_message)):
        if len(text) > limit:
            raise InvalidInput(field, f"{len(text):,} characters; the limit is {limit:,}")
    if not user_message.strip() and not assistant_message.strip():
        raise InvalidInput("user_message", "user_message and assistant_message are both empty")
    clean = await engine.cleaner(agent_id)
    user, assistant = clean(user_message), clean(assistant_message)
    tools = clean(tool_calls_text(tool_calls))
    result = IngestResult(fast=[], deep=[], redacted=[])
    async with anyio.create_task_group() as channels:

        async def run_fast() -> None:
            result.fast.extend(await fast_channel(engine, user, agent_id, session_id))

        channels.start_soon(run_fast)
        channels.start_soon(
            deep_channel, engine, user, assistant, tools, agent_id, session_id, result
        )
    result.redacted = clean.kinds
    return result


async def retry_queued(engine: Engine, limit: int = 20) -> int:
    """Extract queued conversation now that an LLM may answer; returns how many succeeded."""
    if not engine.has_llm:
        return 0
    async with engine.db.read() as conn:
        items = await queue.due(conn, engine.clock(), limit)
    done = 0
    for item in items:
        payload = item.payload
        profile = await engine.profile_text(item.agent_id)
        extra = engine.settings.sieve.additional_instructions
        if "transcript" in payload:
            prompt = extraction.transcript_prompt(payload["transcript"], profile, extra)
        else:
            prompt = extraction.user_prompt(
                payload.get("user", ""),
                payload.get("assistant", "") + payload.get("tools", ""),
                profile,
                extra,
            )
        answer = await engine.complete(extraction.SYSTEM_PROMPT, prompt)
        now = engine.clock()
        if answer is None or not extraction.is_parseable(answer):
            backoff = min(
                engine.settings.sieve.retry_interval_s * 2 ** (item.attempts + 1),
                engine.settings.sieve.retry_max_backoff_s,
            )
            async with engine.db.write() as conn:
                await queue.reschedule(
                    conn, item.id, now + timedelta(seconds=backoff), "retry failed"
                )
            continue
        results = [
            await store_proposal(engine, p, item.agent_id)
            for p in deep_proposals(engine, answer, item.session_id, "retry")
        ]
        await replace_fallbacks(engine, item, results, now)
        done += 1
    return done


async def replace_fallbacks(
    engine: Engine, item: queue.QueuedExtraction, results: list[StoredMemory], now: datetime
) -> None:
    """The extracted memories take the place of the raw fallback memories."""
    async with engine.db.write() as conn:
        for fallback_id in item.fallback_ids:
            if results:
                await rows.mark_superseded(conn, fallback_id, results[0].id, now)
            else:
                await rows.set_deleted(conn, fallback_id, now, "extracted: nothing worth keeping")
        await queue.mark_done(conn, item.id, now)
        await exchanges.copy_links(conn, item.fallback_ids, [r.id for r in results])
        await log_action(
            conn,
            "retry_extraction",
            item.fallback_ids + [r.id for r in results],
            {"queue_id": item.id, "attempts": item.attempts + 1},
            now,
        )
