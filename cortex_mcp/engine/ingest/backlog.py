"""What the LLM owes: exchanges it could not extract when they were said, extracted from the
conversation log in the background once a configured provider answers."""

from datetime import timedelta

from cortex_mcp.engine.ingest.channels import deep_proposals, profile_text, store_proposal
from cortex_mcp.engine.ingest.log import backoff_s, settle_extraction
from cortex_mcp.engine.language import extraction
from cortex_mcp.engine.runtime import Runtime
from cortex_mcp.search.budget import truncate_to_tokens
from cortex_mcp.store import conversation as log
from cortex_mcp.store.logs import log_action


async def extract_backlog(rt: Runtime, limit: int = 20) -> int:
    """Extract exchanges the LLM owes from the log, now that one may answer; at most `limit`
    exchanges a pass; returns how many succeeded."""
    if not rt.llm.answers_in_background:
        return 0
    async with rt.db.read() as conn:
        exchanges = await log.due_exchanges(conn, rt.clock(), limit)
    done = 0
    for exchange in exchanges:
        async with rt.db.read() as conn:
            messages = await log.pending_messages(conn, exchange)
        if messages and await extract_logged(rt, exchange, messages):
            done += 1
    return done


async def extract_logged(rt: Runtime, exchange: str, messages: list[log.LoggedMessage]) -> bool:
    """One owed exchange through the LLM: memories linked to its messages, or a later try."""
    first = messages[0]
    profile = await profile_text(rt, first.agent_id)
    extra = rt.settings.sieve.additional_instructions
    roles = [m.role for m in messages]
    if first.origin == "ingest" and roles and roles[0] == "user":
        user = first.content
        rest = "\n".join(m.content for m in messages[1:])
        prompt = extraction.user_prompt(user, rest, profile, extra)
    else:
        transcript = "\n".join(f"{m.role}: {m.content}" for m in messages)
        budget = rt.settings.sieve.flush_batch_tokens
        prompt = extraction.transcript_prompt(
            truncate_to_tokens(transcript, budget * 2), profile, extra
        )
    answer = await rt.llm.complete(extraction.SYSTEM_PROMPT, prompt)
    seqs = [m.seq for m in messages]
    if answer is None or not extraction.is_parseable(answer):
        wait = backoff_s(rt, first.attempts)
        async with rt.db.write() as conn:
            await log.set_extraction(conn, seqs, "pending", rt.clock() + timedelta(seconds=wait))
        return False
    results = [
        await store_proposal(rt, p, first.agent_id)
        for p in deep_proposals(rt, answer, first.session_id, "retry", exchange)
    ]
    ids = [r.id for r in results]
    await settle_extraction(rt, seqs, dict.fromkeys(seqs, ids), "done")
    async with rt.db.write() as conn:
        details = {"exchange_id": exchange, "attempts": first.attempts + 1}
        await log_action(conn, "retry_extraction", ids, details, rt.clock())
    rt.embed_soon(ids)
    return True
