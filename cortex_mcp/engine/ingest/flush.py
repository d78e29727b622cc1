"""cortex_flush: everything worth keeping from messages about to leave the context window.

Every message is first kept verbatim in the conversation log, one row each (none is cut), as
one exchange. Then messages are extracted in token-capped batches (the fast channel on the
user's messages and on the assistant's agreed decisions, the LLM on each batch); a batch the LLM
cannot take is owed an extraction from the log when a configured provider can retry it. Then
the session's episode is written from everything the session logged (`engine/episodes`): its
goal and outcome (the LLM's, else the user's first request and the last decision or result),
its tool calls with their results and errors, and the memories extracted from it (#26).

Messages whose time the caller knows (an import of past sessions) are logged, extracted and
summed up as of then: the log row and the memories taken from a message are dated when it was
said, those the LLM took from a batch and the episode when its latest known message was; never
later than now.
"""

import logging
from collections.abc import Sequence
from datetime import datetime

from cortex_mcp.config import SieveSettings
from cortex_mcp.engine.episodes import Session, record_episode
from cortex_mcp.engine.ingest.channels import (
    Message,
    deep_proposals,
    fast_channel,
    profile_text,
    store_proposal,
)
from cortex_mcp.engine.ingest.log import (
    append_exchange,
    owed_state,
    settle_extraction,
    when_said,
)
from cortex_mcp.engine.language import extraction
from cortex_mcp.engine.language.redaction import Cleaner
from cortex_mcp.engine.runtime import Runtime
from cortex_mcp.errors import InvalidInput
from cortex_mcp.models import FlushResult, StoredMemory
from cortex_mcp.search.budget import estimate_tokens, truncate_to_tokens
from cortex_mcp.store.episodes import message_hashes
from cortex_mcp.store.logs import log_action

logger = logging.getLogger(__name__)


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
    project: str | None = None,
    said_at: Sequence[datetime | None] = (),
) -> FlushResult:
    """Extract everything worth keeping from messages about to leave the context window, and
    write the session's episode. With a session, messages it already logged are skipped (a
    flush repeated is logged once); no messages and a session: the session closes (its
    episode is written from what it logged). `said_at`: when each message was said, one per
    message (None where unknown; none at all: every message now)."""
    check_messages(rt, messages, session_id, said_at)
    times = said_times(said_at, len(messages), rt.clock())
    texts = clean.together([m.content for m in messages])  # a secret in one is redacted in all
    cleaned = [Message(m.role, text) for m, text in zip(messages, texts, strict=True)]
    logged = await append_exchange(
        rt,
        [(m.role, m.content) for m in cleaned],
        agent_id=agent_id,
        session_id=session_id,
        origin="flush",
        hashes=message_hashes([(m.role, m.content) for m in cleaned]),
        said_at=times,
    )
    exchange = logged.exchange_id
    fresh = [i for i, seq in enumerate(logged.seqs) if seq >= 0]
    said = [cleaned[i] for i in fresh]
    when = [times[i] for i in fresh]
    seqs_of = [logged.seqs[i] for i in fresh]
    repeated = sum(
        1 for m, seq in zip(cleaned, logged.seqs, strict=True) if seq < 0 and m.content.strip()
    )
    profile = await profile_text(rt, agent_id)
    memories: list[StoredMemory] = []
    extracted = queued = 0
    batches = batches_of(said, settings_of(rt).flush_batch_tokens)
    for indexes in batches:
        links: dict[int, list[str]] = {}
        for i in indexes:
            if said[i].role == "user":
                reply = next_reply(said, i)
                found = await fast_channel(
                    rt,
                    *(said[i].content, agent_id, session_id, exchange, reply),
                    said_at=when[i],
                    project=project,
                )
                links[seqs_of[i]] = [m.id for m in found]
                memories += found
        seqs = [seqs_of[i] for i in indexes]
        answer = None
        if rt.llm.available:
            transcript = transcript_of(said, indexes, settings_of(rt).flush_batch_tokens)
            prompt = extraction.transcript_prompt(
                transcript, profile, settings_of(rt).additional_instructions
            )
            answer = await rt.llm.complete(extraction.SYSTEM_PROMPT, prompt)
        if answer is None or not extraction.is_parseable(answer):
            state = owed_state(rt) if rt.llm.available else "waiting"
            queued += len(indexes) if state == "pending" else 0
            await settle_extraction(rt, seqs, links, state, (exchange, _ids(links)))
            continue
        batch_at = latest([when[i] for i in indexes])
        found = [
            await store_proposal(rt, proposal, agent_id, said_at=batch_at)
            for proposal in deep_proposals(rt, answer, session_id, "flush", exchange, batch_at)
        ]
        memories += found
        for seq in seqs:
            links[seq] = links.get(seq, []) + [m.id for m in found]
        await settle_extraction(rt, seqs, links, "done", (exchange, _ids(links)))
        extracted += len(indexes)
    episode = None
    if said or not messages:
        session = Session(agent_id, session_id, exchange, project, reason, latest(when))
        episode = await record_episode(rt, session)
    async with rt.db.write() as conn:
        await log_action(
            conn,
            "flush",
            [m.id for m in memories] + ([episode.id] if episode else []),
            {
                "messages": len(messages),
                "already_logged": repeated,
                "extracted": extracted,
                "queued": queued,
                "reason": reason,
                "exchange_id": exchange,
            },
            rt.clock(),
        )
    logger.debug(
        "flush: %d messages (%d already logged), %d extracted, %d queued, %d memories, redacted %s",
        *(len(messages), repeated, extracted, queued, len(memories), clean.kinds),
    )
    return FlushResult(
        messages=len(messages),
        batches=len(batches),
        extracted_messages=extracted,
        queued_messages=queued,
        logged_messages=len(said),
        already_logged=repeated,
        memories=memories,
        summary=episode,
        redacted=clean.kinds,
    )


def settings_of(rt: Runtime) -> SieveSettings:
    """The sieve's settings (flush batch size, limits)."""
    return rt.settings.sieve


def said_times(
    said_at: Sequence[datetime | None], count: int, now: datetime
) -> list[datetime | None]:
    """When each of `count` messages was said, as the caller knows it (none: None each); a
    time after now is taken as now (a clock ahead is no message from the future)."""
    if not said_at:
        return [None] * count
    return [when_said(m, now, f"messages[{at}].said_at") for at, m in enumerate(said_at)]


def latest(times: Sequence[datetime | None]) -> datetime | None:
    """When a batch of messages was said: the latest time known in it; None (now) when no
    time is known (a line of a session without its time does not make the session today's)."""
    return max((moment for moment in times if moment is not None), default=None)


def check_messages(
    rt: Runtime,
    messages: Sequence[Message],
    session_id: str | None,
    said_at: Sequence[datetime | None] = (),
) -> None:
    """Refuse a flush with no messages and no session to close, too many, one too long, or
    times that are not one per message."""
    settings = settings_of(rt)
    if not messages and not session_id:
        raise InvalidInput(
            "messages", "must contain at least one message (or name the session_id to close)"
        )
    if said_at and len(said_at) != len(messages):
        raise InvalidInput("said_at", f"{len(said_at)} times for {len(messages)} messages")
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


def next_reply(messages: Sequence[Message], index: int) -> str:
    """The assistant's message right after the user's message at `index`, if any."""
    after = index + 1
    if after < len(messages) and messages[after].role == "assistant":
        return messages[after].content
    return ""


def _ids(links: dict[int, list[str]]) -> list[str]:
    return [memory_id for ids in links.values() for memory_id in ids]
