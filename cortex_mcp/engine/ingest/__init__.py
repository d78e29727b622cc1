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
from typing import Any

from cortex_mcp.engine.episodes.actions import tool_line
from cortex_mcp.engine.ingest.channels import deep_channel, deep_skip, fast_channel
from cortex_mcp.engine.ingest.log import append_exchange, settle_extraction
from cortex_mcp.engine.language.patterns import signal_sentences
from cortex_mcp.engine.language.redaction import Cleaner
from cortex_mcp.engine.runtime import Runtime
from cortex_mcp.errors import InvalidInput
from cortex_mcp.guidance import ingest_note
from cortex_mcp.models import IngestResult, StoredMemory
from cortex_mcp.search.budget import truncate_to_tokens

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


def untaken(user: str, assistant: str, taken: list[StoredMemory]) -> bool:
    """True when the exchange holds statements the fast channel did not take: the user's, or
    a substantial reply."""
    kept = " ".join(m.content for m in taken)
    users = [s for s in signal_sentences(user) if s not in kept and len(s) >= 6]
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
) -> IngestResult:
    """Log one exchange verbatim, then extract memories from it: fast channel to core, deep
    channel to working."""
    limit = rt.settings.sieve.max_message_chars
    for field, text in (("user_message", user_message), ("assistant_message", assistant_message)):
        if len(text) > limit:
            raise InvalidInput(field, f"{len(text):,} characters; the limit is {limit:,}")
    if not user_message.strip() and not assistant_message.strip():
        raise InvalidInput("user_message", "user_message and assistant_message are both empty")
    user, assistant = clean(user_message), clean(assistant_message)
    tools = clean(tool_calls_text(tool_calls))
    logged = await append_exchange(
        rt,
        [("user", user), ("assistant", assistant), ("tool", tools.strip())],
        agent_id=agent_id,
        session_id=session_id,
        origin="ingest",
    )
    exchange = logged.exchange_id
    fast = await fast_channel(rt, user, agent_id, session_id, exchange, assistant, ask=False)
    result = IngestResult(fast=fast, deep=[], redacted=[])
    result.skipped = deep_skip(rt, user, assistant, tools)
    if result.skipped is None and rt.llm.answers_in_background:
        result.queued = True  # the deep channel, in the background from the log
    elif result.skipped is None:
        await deep_channel(rt, user, assistant, tools, agent_id, session_id, exchange, result)
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
    stored = [m.id for m in [*result.fast, *result.deep]]
    await settle_extraction(rt, logged.seqs, links, state, (exchange, stored))
    if result.queued:
        rt.wake.set()  # the background loop extracts it now
    result.logged = sum(1 for seq in logged.seqs if seq >= 0)
    result.redacted = clean.kinds
    unanswered = result.skipped in ("no LLM", "no LLM answered") and not result.queued
    if unanswered and untaken(user, assistant, result.fast):
        result.note = ingest_note(rt.settings.tools)
    logger.debug(
        "ingest: %d to core, %d to working, skipped %s, redacted %s",
        *(len(result.fast), len(result.deep), result.skipped, result.redacted),
    )
    return result
