"""The deep channel in the background: exchanges the LLM owes an extraction, taken from the
conversation log. Every cortex_ingest with a configured LLM leaves its exchange here (the call
never waits for the LLM), and so does an extraction that failed (retried with backoff) or one
logged while no LLM was configured. The log is the queue: a crash before an exchange was
extracted loses nothing, the next pass (of this process or another) takes it."""

from collections.abc import Awaitable, Callable
from datetime import timedelta

from cortex_mcp.engine.ingest.channels import (
    deep_proposals,
    exchange_prompt,
    profile_text,
    store_proposal,
)
from cortex_mcp.engine.ingest.log import backoff_s, settle_in
from cortex_mcp.engine.language import extraction
from cortex_mcp.engine.runtime import Runtime
from cortex_mcp.models import StoredMemory
from cortex_mcp.search.budget import truncate_to_tokens
from cortex_mcp.store import conversation as log
from cortex_mcp.store.logs import log_action

CLAIM_S = 600
"""How long an exchange taken by one pass is left alone by the others (several processes may
share the database); a pass that dies with it hands it back when this runs out."""

Extracted = Callable[[str, list[StoredMemory]], Awaitable[None]]
"""What follows an extraction's writes (agent, memories stored): the engine's write follow-up."""


async def extract_backlog(rt: Runtime, limit: int = 20, extracted: Extracted | None = None) -> int:
    """Extract exchanges the LLM owes from the log, now that one may answer; at most `limit`
    exchanges a pass (a full pass asks for the next one at once); returns how many succeeded."""
    if not rt.llm.answers_in_background:
        return 0
    async with rt.db.read() as conn:
        exchanges = await log.due_exchanges(conn, rt.clock(), limit)
    done = 0
    for exchange in exchanges:
        now = rt.clock()
        async with rt.db.write() as conn:
            claimed = await log.claim_exchange(
                conn, exchange, now, now + timedelta(seconds=CLAIM_S)
            )
            messages = await log.pending_messages(conn, exchange) if claimed else []
        stored = await extract_logged(rt, exchange, messages) if messages else None
        if stored is not None:
            done += 1
            if extracted is not None and stored:  # nothing stored: no mirror page changed
                await extracted(messages[0].agent_id, stored)
    if len(exchanges) == limit:
        rt.wake.set()
    return done


def exchange_text(messages: list[log.LoggedMessage]) -> tuple[str, str] | None:
    """(user, reply with its tool calls) of an ingested exchange, or None for a flushed batch."""
    first = messages[0]
    if first.origin != "ingest" or first.role != "user":
        return None
    return first.content, "\n".join(m.content for m in messages[1:])


async def extract_logged(
    rt: Runtime, exchange: str, messages: list[log.LoggedMessage]
) -> list[StoredMemory] | None:
    """One owed exchange through the LLM: memories linked to its messages (returned), or a
    later try (None)."""
    first = messages[0]
    said = exchange_text(messages)
    if said is not None:
        prompt = await exchange_prompt(rt, *said, first.agent_id)
    else:
        transcript = "\n".join(f"{m.role}: {m.content}" for m in messages)
        budget = rt.settings.sieve.flush_batch_tokens
        prompt = extraction.transcript_prompt(
            truncate_to_tokens(transcript, budget * 2),
            await profile_text(rt, first.agent_id),
            rt.settings.sieve.additional_instructions,
        )
    answer = await rt.llm.complete(extraction.SYSTEM_PROMPT, prompt)
    seqs = [m.seq for m in messages]
    if answer is None or not extraction.is_parseable(answer):
        wait = backoff_s(rt, first.attempts)
        async with rt.db.write() as conn:
            await log.set_extraction(conn, seqs, "pending", rt.clock() + timedelta(seconds=wait))
        return None
    channel = "deep" if first.attempts == 0 else "retry"
    said_at = max(m.created_at for m in messages)  # when the exchange was said, not now
    results = [
        await store_proposal(rt, p, first.agent_id, said_at=said_at)
        for p in deep_proposals(rt, answer, first.session_id, channel, exchange, said_at)
    ]
    ids = [r.id for r in results]
    lag_ms = (rt.clock() - first.created_at).total_seconds() * 1000
    async with rt.db.write() as conn:  # one commit for the links, the state and the log line
        await settle_in(conn, rt.clock(), seqs, dict.fromkeys(seqs, ids), "done", (exchange, ids))
        details = {"exchange_id": exchange, "attempts": first.attempts + 1, "lag_ms": lag_ms}
        await log_action(conn, f"{channel}_extraction", ids, details, rt.clock())
    rt.extraction_lag_ms.append(lag_ms)
    return results
