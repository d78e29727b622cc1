"""The Memory Sieve: cortex_ingest and cortex_flush.

Every exchange is first kept verbatim (after redaction) in the conversation log, so nothing said
is lost. Then two channels run side by side. The fast channel finds high-signal statements with
patterns (the user's words; the assistant's only for decisions) and writes them to core at once.
The deep channel asks the LLM to extract what a skilled assistant would keep from both sides,
into working memory. When the LLM fails and a configured provider can retry, the exchange is
owed an extraction, retried from the log in the background; with no LLM at all nothing is
queued, and the result asks the calling agent to save what the patterns did not take.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import anyio

from cortex_mcp.engine import conversation, extraction
from cortex_mcp.engine.fast import assistant_decisions, fast_statements
from cortex_mcp.engine.nearby import nearby_memories
from cortex_mcp.engine.patterns import is_small_talk, signal_sentences, without_recalled
from cortex_mcp.engine.redaction import redact
from cortex_mcp.engine.update import Proposal, apply_verdict, ask_llm
from cortex_mcp.errors import InvalidInput
from cortex_mcp.models import IngestResult, Layer, StoredMemory
from cortex_mcp.search.budget import truncate_to_tokens
from cortex_mcp.store import conversation as log
from cortex_mcp.store.logs import log_action

if TYPE_CHECKING:
    from cortex_mcp.engine import Engine

logger = logging.getLogger(__name__)

CONTEXT_CHARS = 1500
AGENT_NOTE = "No LLM here: save the lasting facts of this exchange with cortex_remember."
"""The one line asking the calling agent to extract (19 tokens by `estimate_tokens`)."""


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


def around(text: str) -> str:
    """A message cut to the length kept as a memory's search context."""
    return text if len(text) <= CONTEXT_CHARS else text[:CONTEXT_CHARS] + "…"


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
    engine: Engine,
    user: str,
    agent: str,
    session: str | None,
    exchange: str,
    assistant: str = "",
) -> list[StoredMemory]:
    """High-signal statements straight to core: the user's, and the decisions of the
    assistant's reply that the user agreed to or that report a decision made; the rest of the
    exchange (the message a statement came from, then the other side's) is kept as each
    statement's search context. Only this exchange's words: forgetting or erasing an exchange
    must take its words out of every context, and the links that do that are per exchange."""
    results = []
    said = [(user, assistant, p) for p in fast_statements(user)]
    said += [(assistant, user, p) for p in assistant_decisions(user, assistant)]
    for message, other, statement in said:
        extra = statement.extra | {"exchange_id": exchange}
        context = [around(message)] if message.strip() != statement.content else []
        context += [around(other)] if other.strip() else []
        if statement.slot is not None and statement.slot.statement() != statement.content:
            context.append(statement.slot.statement())  # found by the plain wording too
        if context:
            extra |= {"context": "\n".join(context)}
        statement = replace(statement, session_id=session, extra=extra)
        results.append(await store_proposal(engine, statement, agent))
    return results


def deep_proposals(
    engine: Engine, answer: str, session: str | None, channel: str, exchange: str
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
            extra={"exchange_id": exchange},
            relations=tuple(item.relations),
        )
        for item in extraction.parse_extraction(answer)
    ]


async def deep_channel(
    engine: Engine,
    user: str,
    assistant: str,
    tools: str,
    agent: str,
    session: str | None,
    exchange: str,
    result: IngestResult,
) -> None:
    """LLM extraction of both sides into working memory; `result.queued` when it failed and
    a configured provider will retry it from the log."""
    if is_small_talk(user, assistant) and not tools:
        result.skipped = "small talk"
        return
    if not engine.has_llm:
        result.skipped = "no LLM"
        return
    profile = await engine.profile_text(agent)
    prompt = extraction.user_prompt(  # memories the reply quotes were extracted already
        user,
        without_recalled(assistant) + tools,
        profile,
        engine.settings.sieve.additional_instructions,
    )
    answer = await engine.complete(extraction.SYSTEM_PROMPT, prompt)
    if answer is None or not extraction.is_parseable(answer):
        result.skipped = "no LLM answered" if answer is None else "unreadable LLM answer"
        result.queued = conversation.owed_state(engine) == "pending"
        return
    for proposal in deep_proposals(engine, answer, session, "deep", exchange):
        result.deep.append(await store_proposal(engine, proposal, agent))


def untaken(user: str, assistant: str, taken: list[StoredMemory]) -> bool:
    """True when the exchange holds statements the fast channel did not take: the user's, or
    a substantial reply."""
    kept = " ".join(m.content for m in taken)
    users = [s for s in signal_sentences(user) if s not in kept and len(s) >= 6]
    replies = [s for s in signal_sentences(assistant) if s not in kept and len(s) >= 40]
    return bool(users or replies)


async def ingest(
    engine: Engine,
    user_message: str,
    assistant_message: str,
    *,
    session_id: str | None,
    tool_calls: Sequence[dict[str, Any]] | None,
    agent_id: str,
) -> IngestResult:
    """Log one exchange verbatim, then extract memories from it: fast channel to core, deep
    channel to working."""
    limit = engine.settings.sieve.max_message_chars
    for field, text in (("user_message", user_message), ("assistant_message", assistant_message)):
        if len(text) > limit:
            raise InvalidInput(field, f"{len(text):,} characters; the limit is {limit:,}")
    if not user_message.strip() and not assistant_message.strip():
        raise InvalidInput("user_message", "user_message and assistant_message are both empty")
    clean = await engine.cleaner(agent_id)
    user, assistant = clean(user_message), clean(assistant_message)
    tools = clean(tool_calls_text(tool_calls))
    logged = await conversation.append_exchange(
        engine,
        [("user", user), ("assistant", assistant), ("tool", tools.strip())],
        agent_id=agent_id,
        session_id=session_id,
        origin="ingest",
    )
    exchange = logged.exchange_id
    result = IngestResult(fast=[], deep=[], redacted=[])
    async with anyio.create_task_group() as channels:

        async def run_fast() -> None:
            result.fast.extend(
                await fast_channel(engine, user, agent_id, session_id, exchange, assistant)
            )

        channels.start_soon(run_fast)
        channels.start_soon(
            deep_channel, engine, user, assistant, tools, agent_id, session_id, exchange, result
        )
    deep_ids = [m.id for m in result.deep]
    user_seq, assistant_seq, tool_seq = logged.seqs
    links = {
        user_seq: [m.id for m in result.fast if m.source == "user"] + deep_ids,
        assistant_seq: [m.id for m in result.fast if m.source == "assistant"] + deep_ids,
        tool_seq: deep_ids,
    }
    state = "pending" if result.queued else "done" if result.deep else "none"
    if result.skipped == "no LLM":
        state = "waiting"  # extracted from the log if a provider is configured later
    await conversation.settle_extraction(engine, logged.seqs, links, state)
    result.logged = sum(1 for seq in logged.seqs if seq >= 0)
    result.redacted = clean.kinds
    unanswered = result.skipped in ("no LLM", "no LLM answered") and not result.queued
    if unanswered and untaken(user, assistant, result.fast):
        result.note = AGENT_NOTE
    return result


async def extract_backlog(engine: Engine, limit: int = 20) -> int:
    """Extract exchanges the LLM owes from the log, now that one may answer; at most `limit`
    exchanges a pass; returns how many succeeded."""
    if not engine.llm.answers_in_background:
        return 0
    async with engine.db.read() as conn:
        exchanges = await log.due_exchanges(conn, engine.clock(), limit)
    done = 0
    for exchange in exchanges:
        async with engine.db.read() as conn:
            messages = await log.pending_messages(conn, exchange)
        if messages and await extract_logged(engine, exchange, messages):
            done += 1
    return done


async def extract_logged(engine: Engine, exchange: str, messages: list[log.LoggedMessage]) -> bool:
    """One owed exchange through the LLM: memories linked to its messages, or a later try."""
    first = messages[0]
    profile = await engine.profile_text(first.agent_id)
    extra = engine.settings.sieve.additional_instructions
    roles = [m.role for m in messages]
    if first.origin == "ingest" and roles and roles[0] == "user":
        user = first.content
        rest = "\n".join(m.content for m in messages[1:])
        prompt = extraction.user_prompt(user, rest, profile, extra)
    else:
        transcript = "\n".join(f"{m.role}: {m.content}" for m in messages)
        budget = engine.settings.sieve.flush_batch_tokens
        prompt = extraction.transcript_prompt(
            truncate_to_tokens(transcript, budget * 2), profile, extra
        )
    answer = await engine.complete(extraction.SYSTEM_PROMPT, prompt)
    seqs = [m.seq for m in messages]
    if answer is None or not extraction.is_parseable(answer):
        wait = conversation.backoff_s(engine, first.attempts)
        async with engine.db.write() as conn:
            await log.set_extraction(
                conn, seqs, "pending", engine.clock() + timedelta(seconds=wait)
            )
        return False
    results = [
        await store_proposal(engine, p, first.agent_id)
        for p in deep_proposals(engine, answer, first.session_id, "retry", exchange)
    ]
    ids = [r.id for r in results]
    await conversation.settle_extraction(engine, seqs, dict.fromkeys(seqs, ids), "done")
    async with engine.db.write() as conn:
        details = {"exchange_id": exchange, "attempts": first.attempts + 1}
        await log_action(conn, "retry_extraction", ids, details, engine.clock())
    engine.embed_soon(ids)
    return True
