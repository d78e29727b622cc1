"""cortex_flush: everything worth keeping from messages about to leave the context window.

Every message is first kept verbatim in the conversation log, one row each (none is cut), as
one exchange. Then messages are extracted in token-capped batches (the fast channel on the
user's messages and on the assistant's agreed decisions, the LLM on each batch); a batch the LLM
cannot take is owed an extraction from the log when a configured provider can retry it. With
an LLM a session summary is written as an episode memory; without one nothing is (a summary cut
from the first and last messages matches everything and answers nothing, #23).
"""

import logging
from collections.abc import Sequence
from datetime import timedelta

from cortex_mcp.engine.ingest.channels import (
    Message,
    deep_proposals,
    fast_channel,
    profile_text,
    store_proposal,
)
from cortex_mcp.engine.ingest.log import append_exchange, owed_state, settle_extraction
from cortex_mcp.engine.ingest.proposal import Proposal
from cortex_mcp.engine.ingest.write import build_memory, stored
from cortex_mcp.engine.language import extraction
from cortex_mcp.engine.language.redaction import Cleaner
from cortex_mcp.engine.runtime import Runtime
from cortex_mcp.errors import InvalidInput
from cortex_mcp.models import Category, FlushResult, Layer, StoredMemory
from cortex_mcp.search.budget import estimate_tokens, truncate_to_tokens
from cortex_mcp.store import exchanges
from cortex_mcp.store import memories as rows
from cortex_mcp.store.logs import log_action

logger = logging.getLogger(__name__)

SUMMARY_SYSTEM = "You summarise conversations for a long-term memory store. Plain text only."
SUMMARY_PROMPT = """Summarise this conversation session in 3-6 sentences: what the user wanted,
what was worked out or decided, and what is still open. Write in the language the user used;
never translate.

<conversation>
{transcript}
</conversation>"""


def batches_of(messages: Sequence[Message], max_tokens: int) -> list[list[int]]:
    """Indexes of messages grouped into consecutive batches under a token cap."""
    batches: list[list[int]] = []
    current: list[int] = []
    used = 0
    for index, message in enumerate(messages):
        cost = estimate_tokens(message.content) + 4
        if current and used + cost > max_tokens:
            batches.append(current)
            current, used = [], 0
        current.append(index)
        used += cost
    if current:
        batches.append(current)
    return batches


def transcript_of(messages: Sequence[Message], indexes: list[int], max_tokens: int) -> str:
    """The messages as `role: content` lines; a single oversized message is cut to fit."""
    lines = [f"{messages[i].role}: {messages[i].content}" for i in indexes]
    return "\n".join(truncate_to_tokens(line, max_tokens) for line in lines)


async def flush(
    rt: Runtime,
    clean: Cleaner,
    messages: Sequence[Message],
    session_id: str | None,
    reason: str,
    agent_id: str,
) -> FlushResult:
    """Extract everything worth keeping from messages about to leave the context window."""
    settings = rt.settings.sieve
    if not messages:
        raise InvalidInput("messages", "must contain at least one message")
    if len(messages) > settings.max_flush_messages:
        raise InvalidInput(
            "messages", f"{len(messages):,} messages; the limit is {settings.max_flush_messages:,}"
        )
    for index, message in enumerate(messages):
        if len(message.content) > settings.max_message_chars:
            raise InvalidInput(
                f"messages[{index}].content",
                f"{len(message.content):,} characters; the limit is {settings.max_message_chars:,}",
            )
    cleaned = [Message(m.role, clean(m.content)) for m in messages]
    logged = await append_exchange(
        rt,
        [(m.role, m.content) for m in cleaned],
        agent_id=agent_id,
        session_id=session_id,
        origin="flush",
    )
    exchange = logged.exchange_id
    profile = await profile_text(rt, agent_id)
    memories: list[StoredMemory] = []
    extracted = queued = 0
    batches = batches_of(cleaned, settings.flush_batch_tokens)
    for indexes in batches:
        links: dict[int, list[str]] = {}
        for i in indexes:
            if cleaned[i].role == "user":
                reply = next_reply(cleaned, i)
                found = await fast_channel(
                    rt, cleaned[i].content, agent_id, session_id, exchange, reply
                )
                links[logged.seqs[i]] = [m.id for m in found]
                memories += found
        seqs = [logged.seqs[i] for i in indexes]
        answer = None
        if rt.llm.available:
            transcript = transcript_of(cleaned, indexes, settings.flush_batch_tokens)
            prompt = extraction.transcript_prompt(
                transcript, profile, settings.additional_instructions
            )
            answer = await rt.llm.complete(extraction.SYSTEM_PROMPT, prompt)
        if answer is None or not extraction.is_parseable(answer):
            state = owed_state(rt) if rt.llm.available else "waiting"
            queued += len(indexes) if state == "pending" else 0
            await settle_extraction(rt, seqs, links, state, (exchange, _ids(links)))
            continue
        found = [
            await store_proposal(rt, proposal, agent_id)
            for proposal in deep_proposals(rt, answer, session_id, "flush", exchange)
        ]
        memories += found
        for seq in seqs:
            links[seq] = links.get(seq, []) + [m.id for m in found]
        await settle_extraction(rt, seqs, links, "done", (exchange, _ids(links)))
        extracted += len(indexes)
    summary = await session_summary(rt, cleaned, agent_id, session_id, reason, exchange)
    async with rt.db.write() as conn:
        await log_action(
            conn,
            "flush",
            [m.id for m in memories] + ([summary.id] if summary else []),
            {
                "messages": len(messages),
                "extracted": extracted,
                "queued": queued,
                "reason": reason,
                "exchange_id": exchange,
            },
            rt.clock(),
        )
    logger.debug(
        "flush: %d messages, %d extracted, %d queued, %d memories, redacted %s",
        *(len(messages), extracted, queued, len(memories), clean.kinds),
    )
    return FlushResult(
        messages=len(messages),
        batches=len(batches),
        extracted_messages=extracted,
        queued_messages=queued,
        logged_messages=sum(1 for seq in logged.seqs if seq >= 0),
        memories=memories,
        summary=summary,
        redacted=clean.kinds,
    )


def next_reply(messages: Sequence[Message], index: int) -> str:
    """The assistant's message right after the user's message at `index`, if any."""
    after = index + 1
    if after < len(messages) and messages[after].role == "assistant":
        return messages[after].content
    return ""


async def session_summary(
    rt: Runtime,
    messages: Sequence[Message],
    agent: str,
    session: str | None,
    reason: str,
    exchange: str,
) -> StoredMemory | None:
    """An episode-style memory of the whole session written by the LLM; none without one."""
    budget = rt.settings.sieve.flush_batch_tokens
    transcript = transcript_of(messages, list(range(len(messages))), budget)
    transcript = truncate_to_tokens(transcript, budget * 2)
    answer = await rt.llm.complete(
        SUMMARY_SYSTEM, SUMMARY_PROMPT.format(transcript=transcript), json_mode=False
    )
    if answer is None or not answer.strip():
        return None
    text = answer.strip()
    proposal = Proposal(
        content=truncate_to_tokens(text, rt.settings.memory.max_content_chars // 4),
        category=Category.SUMMARY,
        importance=0.5,
        layer=Layer.WORKING,
        source="both",
        channel="summary",
        session_id=session,
        expires_at=rt.clock() + timedelta(hours=rt.settings.sieve.working_ttl_hours),
        extra={"kind": "episode", "reason": reason, "summary_by": "llm"},
    )
    async with rt.db.write() as conn:
        memory = build_memory(proposal, agent, rt.clock(), Layer.WORKING)
        await rows.insert_memory(conn, memory)
        await exchanges.link_exchange(conn, exchange, [memory.id])
    return stored("created", memory, "summary")


def _ids(links: dict[int, list[str]]) -> list[str]:
    return [memory_id for ids in links.values() for memory_id in ids]
