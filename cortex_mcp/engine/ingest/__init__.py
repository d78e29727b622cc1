"""cortex_ingest: one exchange, kept verbatim in the conversation log, then read by both channels.

Every exchange is first kept (after redaction) in the log, so nothing said is lost. Then the fast
channel (patterns, settled by the rules, to core at once) runs, and the call returns: it never
waits for an LLM. The deep channel (the LLM, to working memory) is owed by the log entry and runs
in the background (`backlog`), which also retries it when the LLM fails; the log is the queue, so
a crash before it ran loses nothing. Only when the client's sampling is the one LLM (it lives no
longer than the call) is the deep channel waited for. With no LLM at all nothing is queued, and
the result asks the calling agent to save what the patterns did not take.
"""

import logging
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from cortex_mcp.engine.episodes.actions import tool_line
from cortex_mcp.engine.ingest.channels import (
    deep_channel,
    deep_skip,
    fast_channel,
    fast_proposals,
    rule_on,
    write_ruled,
)
from cortex_mcp.engine.ingest.log import (
    Settled,
    append_exchange,
    append_in,
    embed_logged,
    new_exchange_id,
    settle_extraction,
    when_said,
)
from cortex_mcp.engine.ingest.verdict import content_terms
from cortex_mcp.engine.language.patterns import signal_sentences
from cortex_mcp.engine.language.redaction import Cleaner
from cortex_mcp.engine.runtime import Runtime
from cortex_mcp.errors import InvalidInput
from cortex_mcp.guidance import ingest_note
from cortex_mcp.models import IngestResult, StoredMemory
from cortex_mcp.search.budget import truncate_to_tokens
from cortex_mcp.store import exchanges

logger = logging.getLogger(__name__)

AGENT_NOTE = ingest_note(())
"""The one line asking the calling agent to extract (19 tokens by `estimate_tokens`), when
cortex_remember is exposed (`guidance`)."""


def tool_calls_text(tool_calls: Sequence[dict[str, Any]] | None) -> str:
    """Tool calls of an exchange as short lines for the prompt."""
    if not tool_calls:
        return ""
    lines = [truncate_to_tokens(tool_line(call), 200) for call in tool_calls[:20]]
    return "\n<tool_calls>\n" + "\n".join(lines) + "\n</tool_calls>"


CHITCHAT = frozenset((
    "ok", "okay", "sure", "yes", "yeah", "yep", "right", "fine", "good", "great", "nice", "cool",
    "perfect", "awesome", "sounds", "sound", "thanks", "thank", "much", "lol", "haha", "true",
    "bye", "later", "talk", "tomorrow", "today", "tonight", "soon", "hi", "hello", "hey",
    "welcome", "got", "it", "m", "s", "ll",
))  # fmt: skip
"""Words of small talk: a user's sentence of these alone ("sounds good", "lol true", "thanks,
that's all for today", "ok bye, talk tomorrow") is not worth asking the agent to save."""


def untaken(user: str, assistant: str, taken: list[StoredMemory]) -> bool:
    """True when the exchange holds statements the fast channel did not take: the user's (not
    small talk), or a substantial reply."""
    kept = " ".join(m.content for m in taken)
    users = [
        s
        for s in signal_sentences(user)
        if s not in kept and len(s) >= 6 and content_terms(s) - CHITCHAT
    ]
    replies = [s for s in signal_sentences(assistant) if s not in kept and len(s) >= 40]
    return bool(users or replies)


async def ingest(
    rt: Runtime,
    clean: Cleaner,
    user_message: str,
    assistant_message: str,
    session_id: str | None,
    tool_calls: Sequence[dict[str, Any]] | None,
    agent_id: str,
    project: str | None = None,
    said_at: datetime | None = None,
) -> IngestResult:
    """Log one exchange verbatim, then extract memories from it: fast channel to core, deep
    channel to working; the log lines and the memories dated `said_at` (none: now)."""
    limit = rt.settings.sieve.max_message_chars
    for field, text in (("user_message", user_message), ("assistant_message", assistant_message)):
        if len(text) > limit:
            raise InvalidInput(field, f"{len(text):,} characters; the limit is {limit:,}")
    if not user_message.strip() and not assistant_message.strip():
        raise InvalidInput("user_message", "user_message and assistant_message are both empty")
    said_at = when_said(said_at, rt.clock(), "said_at")
    texts = [user_message, assistant_message, tool_calls_text(tool_calls)]
    user, assistant, tools = clean.together(texts)  # a secret in one is redacted in all
    said = [("user", user), ("assistant", assistant), ("tool", tools.strip())]
    skipped = deep_skip(rt, user, assistant, tools)
    if skipped is None and not rt.llm.answers_in_background:
        result, seqs = await waited(rt, said, agent_id, session_id, project, said_at)
    else:
        result, seqs = await at_once(rt, said, agent_id, session_id, skipped, project, said_at)
    result.skipped = skipped if result.skipped is None else result.skipped
    if result.queued:
        rt.wake.set()  # the background loop extracts it now
    result.logged = sum(1 for seq in seqs if seq >= 0)
    result.redacted = clean.kinds
    unanswered = result.skipped in ("no LLM", "no LLM answered") and not result.queued
    if unanswered and untaken(user, assistant, result.fast):
        result.note = ingest_note(rt.settings.tools)
    logger.debug(
        "ingest: %d to core, %d to working, skipped %s, redacted %s",
        *(len(result.fast), len(result.deep), result.skipped, result.redacted),
    )
    return result


async def at_once(
    rt: Runtime,
    said: list[tuple[str, str]],
    agent: str,
    session: str | None,
    skipped: str | None,
    project: str | None = None,
    said_at: datetime | None = None,
) -> tuple[IngestResult, list[int]]:
    """The log write, the fast channel's memories, their links and what the deep channel
    owes, in one write transaction (one commit: one fsync); the same-fact rules are read
    before it. The memories are written first, so each message is inserted with its links and
    its state (no update of the rows just inserted). The deep channel, when it runs, runs
    later in the background from the log."""
    now = rt.clock()
    exchange = new_exchange_id(now)
    (_, user), (_, assistant) = said[0], said[1]
    proposals = fast_proposals(user, assistant, session, exchange, project)
    ruled = await rule_on(rt, proposals, agent)
    queued = skipped is None
    state = "pending" if queued else "waiting" if skipped == "no LLM" else "none"
    async with rt.db.write() as conn:
        fast = [await write_ruled(conn, r, agent, said_at or rt.clock()) for r in ruled]
        links = {
            0: [m.id for m in fast if m.source == "user"],
            1: [m.id for m in fast if m.source == "assistant"],
        }
        settled = Settled(state, links)  # the rows are written settled: no updates after
        seqs = await append_in(
            conn, said, agent, session, (exchange, "ingest"), now, settled, [said_at] * len(said)
        )
        if fast:
            await exchanges.link_exchange(conn, exchange, [m.id for m in fast])
    embed_logged(rt, seqs)
    return IngestResult(fast=fast, deep=[], redacted=[], queued=queued), seqs


async def waited(
    rt: Runtime,
    said: list[tuple[str, str]],
    agent: str,
    session: str | None,
    project: str | None = None,
    said_at: datetime | None = None,
) -> tuple[IngestResult, list[int]]:
    """With the client's sampling as the one LLM (it lives no longer than the call): the log
    write, the fast channel, then the deep channel waited for, each in writes of its own."""
    logged = await append_exchange(
        rt, said, agent_id=agent, session_id=session, origin="ingest", said_at=[said_at] * 3
    )
    exchange = logged.exchange_id
    (_, user), (_, assistant), (_, tools) = said
    fast = await fast_channel(
        rt, user, agent, session, exchange, assistant, ask=False, said_at=said_at, project=project
    )
    result = IngestResult(fast=fast, deep=[], redacted=[])
    await deep_channel(rt, user, assistant, tools, agent, session, exchange, result, said_at)
    deep_ids = [m.id for m in result.deep]
    user_seq, assistant_seq, tool_seq = logged.seqs
    links = {
        user_seq: [m.id for m in result.fast if m.source == "user"] + deep_ids,
        assistant_seq: [m.id for m in result.fast if m.source == "assistant"] + deep_ids,
        tool_seq: deep_ids,
    }
    state = "pending" if result.queued else "done" if result.deep else "none"
    stored = [m.id for m in [*result.fast, *result.deep]]
    await settle_extraction(rt, logged.seqs, links, state, (exchange, stored))
    return result, logged.seqs
