"""The two channels every ingest and flush runs, and the write of what they propose.

The fast channel finds high-signal statements with patterns (the user's words; the assistant's
only for decisions) and writes them to core at once. The deep channel asks the LLM to extract
what a skilled assistant would keep from both sides, into working memory: for cortex_ingest in
the background, from the log (`backlog`), so the caller never waits for the LLM. Each proposal
is settled (`verdict`) before the write transaction and re-checked and written (`write`) in it.
"""

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from cortex_mcp.engine.ingest.fast import assistant_decisions, fast_statements
from cortex_mcp.engine.ingest.log import owed_state
from cortex_mcp.engine.ingest.nearby import nearby_memories
from cortex_mcp.engine.ingest.proposal import Proposal
from cortex_mcp.engine.ingest.verdict import Verdict, answer_of, question_for
from cortex_mcp.engine.ingest.write import Decided, apply_verdict, decide, decide_all
from cortex_mcp.engine.language import extraction
from cortex_mcp.engine.language.patterns import is_small_talk, without_recalled
from cortex_mcp.engine.runtime import Runtime
from cortex_mcp.models import IngestResult, Layer, Memory, StoredMemory
from cortex_mcp.store import memories as rows
from cortex_mcp.store.db import Connection

CONTEXT_CHARS = 1500


@dataclass(frozen=True)
class Message:
    """One message of a conversation handed to cortex_flush."""

    role: str
    content: str


def around(text: str) -> str:
    """A message cut to the length kept as a memory's search context."""
    return text if len(text) <= CONTEXT_CHARS else text[:CONTEXT_CHARS] + "…"


async def store_proposal(
    rt: Runtime,
    proposal: Proposal,
    agent: str,
    *,
    ask: bool = True,
    said_at: datetime | None = None,
) -> StoredMemory:
    """Ask the LLM about a proposal if the rules cannot decide alone (the question read in a
    transaction, the LLM asked after it: a slow LLM never holds the store; never when `ask`
    is False: the rules decide), then settle and write it in one write transaction, as of
    `said_at` (when what it came from was said; None: now)."""
    decider = rt.llm.decider() if ask else None
    question = None
    if decider is not None:
        async with rt.db.read() as conn:
            question = await question_for(conn, proposal, agent)
    asked = await answer_of(proposal, question, decider) if question and decider else None
    decided, nearby = await decided_with_meaning(rt, proposal, agent, asked)
    async with rt.db.write() as conn:
        at = said_at or rt.clock()
        return await apply_verdict(conn, proposal, asked, agent, at, nearby, decided)


async def decided_with_meaning(
    rt: Runtime, proposal: Proposal, agent: str, asked: Verdict | None
) -> tuple[Decided, list[tuple[float, Memory]]]:
    """The rules' decision, and for a correction with no slot that no shared words settle, the
    memories nearest in meaning it was decided with. The text is embedded only then (15-25 ms
    of the local model, #25 item 4): the nearest in meaning count only when the words found no
    memory to correct, so the verdict is the one the vectors would have given in any case."""
    decided = await decide(rt.db, proposal, agent, asked, ())
    return await with_meaning(rt, proposal, agent, asked, decided)


async def with_meaning(
    rt: Runtime, proposal: Proposal, agent: str, asked: Verdict | None, decided: Decided
) -> tuple[Decided, list[tuple[float, Memory]]]:
    """The words' decision, decided again with the memories nearest in meaning when it is a
    correction with no slot that the words left new (`decided_with_meaning`)."""
    nearby: list[tuple[float, Memory]] = []
    corrects = proposal.correction and proposal.slot is None and asked is None
    if corrects and decided.verdict.action == "new":
        nearby = await nearby_memories(rt.db, rt.vectors, proposal.content, agent)
        if nearby:
            decided = await decide(rt.db, proposal, agent, asked, nearby)
    return decided, nearby


async def fast_channel(
    rt: Runtime,
    user: str,
    agent: str,
    session: str | None,
    exchange: str,
    assistant: str = "",
    *,
    ask: bool = True,
    said_at: datetime | None = None,
    project: str | None = None,
) -> list[StoredMemory]:
    """The fast channel's statements (`fast_proposals`) stored one by one, dated `said_at`
    (None: now); `ask=False`: the rules settle every statement, no LLM is waited for."""
    return [
        await store_proposal(rt, statement, agent, ask=ask, said_at=said_at)
        for statement in fast_proposals(user, assistant, session, exchange, project)
    ]


def fast_proposals(
    user: str, assistant: str, session: str | None, exchange: str, project: str | None = None
) -> list[Proposal]:
    """High-signal statements for core: the user's, and the decisions of the assistant's
    reply that the user agreed to or that report a decision made; the rest of the exchange
    (the message a statement came from, then the other side's) is kept as each statement's
    search context. Only this exchange's words: forgetting or erasing an exchange must take
    its words out of every context, and the links that do that are per exchange."""
    proposals = []
    said = [(user, assistant, p) for p in fast_statements(user, [assistant])]
    said += [(assistant, user, p) for p in assistant_decisions(user, assistant)]
    for message, other, statement in said:
        extra = statement.extra | {"exchange_id": exchange}
        context = [around(message)] if message.strip() != statement.content else []
        context += [around(other)] if other.strip() else []
        if statement.slot is not None and statement.slot.statement() != statement.content:
            context.append(statement.slot.statement())  # found by the plain wording too
        if context:
            extra |= {"context": "\n".join(context)}
        proposals.append(replace(statement, session_id=session, extra=extra, project=project))
    return proposals


@dataclass(frozen=True)
class Ruled:
    """A proposal settled by the rules alone before the write transaction (the same-fact
    decision and, for a correction, the memories nearest in meaning), re-checked in it."""

    proposal: Proposal
    decided: Decided
    nearby: list[tuple[float, Memory]]


async def rule_on(rt: Runtime, proposals: Sequence[Proposal], agent: str) -> list[Ruled]:
    """The rules' verdicts on an exchange's proposals, read outside any write transaction: by
    their words in one read transaction, then, for a correction the words left new, by meaning."""
    ruled = []
    for proposal, decided in zip(proposals, await decide_all(rt.db, proposals, agent), strict=True):
        decided, nearby = await with_meaning(rt, proposal, agent, None, decided)
        ruled.append(Ruled(proposal, decided, nearby))
    return ruled


async def write_ruled(conn: Connection, ruled: Ruled, agent: str, now: datetime) -> StoredMemory:
    """Inside the write transaction: re-check a ruled proposal and write it."""
    proposal, nearby = ruled.proposal, ruled.nearby
    return await apply_verdict(conn, proposal, None, agent, now, nearby, ruled.decided)


def deep_proposals(
    rt: Runtime,
    answer: str,
    session: str | None,
    channel: str,
    exchange: str,
    said_at: datetime | None = None,
) -> list[Proposal]:
    """Working-memory proposals from an LLM extraction answer, expiring the working TTL after
    `said_at` (when what they came from was said; None: now)."""
    expires = (said_at or rt.clock()) + timedelta(hours=rt.settings.sieve.working_ttl_hours)
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


def deep_skip(rt: Runtime, user: str, assistant: str, tools: str) -> str | None:
    """Why the deep channel does not run for this exchange (small talk, no LLM), or None."""
    if is_small_talk(user, assistant) and not tools:
        return "small talk"
    if not rt.llm.available:
        return "no LLM"
    return None


async def exchange_prompt(rt: Runtime, user: str, reply: str, agent: str) -> str:
    """The extraction prompt for one exchange; `reply` is the assistant's text and its tool
    calls (the memories a reply quotes were extracted already, so their lines are left out)."""
    return extraction.user_prompt(
        user,
        without_recalled(reply),
        await profile_text(rt, agent),
        rt.settings.sieve.additional_instructions,
    )


async def deep_channel(
    rt: Runtime,
    user: str,
    assistant: str,
    tools: str,
    agent: str,
    session: str | None,
    exchange: str,
    result: IngestResult,
    said_at: datetime | None = None,
) -> None:
    """LLM extraction of both sides into working memory, waited for (only when the client's
    sampling is the one LLM: it lives no longer than this call), dated `said_at` (None: now);
    `result.queued` when it failed and a configured provider will retry it from the log."""
    prompt = await exchange_prompt(rt, user, assistant + tools, agent)
    answer = await rt.llm.complete(extraction.SYSTEM_PROMPT, prompt)
    if answer is None or not extraction.is_parseable(answer):
        result.skipped = "no LLM answered" if answer is None else "unreadable LLM answer"
        result.queued = owed_state(rt) == "pending"
        return
    for proposal in deep_proposals(rt, answer, session, "deep", exchange, said_at):
        result.deep.append(await store_proposal(rt, proposal, agent, said_at=said_at))


async def profile_text(rt: Runtime, agent: str) -> str | None:
    """The agent's profile, which calibrates extraction, or None."""
    async with rt.db.read() as conn:
        profile = await rows.live_profile(conn, agent)
    return profile.content if profile else None
