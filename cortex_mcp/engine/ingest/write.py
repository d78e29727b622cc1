"""Carrying a verdict out, inside one write transaction: insert, reinforce or supersede, and
store the relations the memory states.

The verdict is reached first in a read transaction (`decide`), so writers from other tasks and
processes are not held up by it; inside the write transaction only what was written since is
re-checked (`still_holds`), and the verdict is settled again there when it could have changed.

A relation is scoped like its memory and holds while its memory does: superseding or
forgetting the memory closes it (store/memories.py), restoring reopens it, purging erases it.
"""

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from cortex_mcp.engine.ingest.proposal import Proposal
from cortex_mcp.engine.ingest.verdict import Verdict, left_there, settle
from cortex_mcp.engine.language.slots import Slot
from cortex_mcp.engine.language.triples import Triple, slot_triple
from cortex_mcp.models import Layer, Memory, StoredMemory, new_memory_id
from cortex_mcp.search.facts import same_statement
from cortex_mcp.store import memories as rows
from cortex_mcp.store.db import Connection, Database
from cortex_mcp.store.logs import log_action
from cortex_mcp.store.relations import Relation, insert_relation


def build_memory(proposal: Proposal, agent_id: str | None, now: datetime, layer: Layer) -> Memory:
    """The Memory row for a proposal, with its provenance (and its slot) in metadata."""
    metadata: dict[str, Any] = {"channel": proposal.channel, **proposal.extra}
    if proposal.session_id:
        metadata["session_id"] = proposal.session_id
    if proposal.slot is not None:
        metadata |= {
            "subject": proposal.slot.subject,
            "predicate": proposal.slot.predicate,
            "value": proposal.slot.value,
        }
    return Memory.fresh(
        id=new_memory_id(int(now.timestamp() * 1000)),
        agent_id=agent_id,
        layer=layer,
        category=proposal.category,
        content=proposal.content,
        source=proposal.source,
        importance=proposal.importance,
        confidence=proposal.confidence,
        now=now,
        expires_at=proposal.expires_at if layer == Layer.WORKING else None,
        metadata=metadata,
    )


def stored(
    action: str, memory: Memory, channel: str, superseded: str | None = None
) -> StoredMemory:
    """The report of one stored memory."""
    return StoredMemory(
        action=action,
        id=memory.id,
        layer=memory.layer,
        category=memory.category,
        content=memory.content,
        importance=memory.importance,
        source=memory.source,
        channel=channel,
        superseded_id=superseded,
    )


@dataclass(frozen=True)
class Outcome:
    """What a write did: the memory stored or reinforced, and the one it superseded."""

    action: str
    memory: Memory
    superseded: Memory | None = None


@dataclass(frozen=True)
class Decided:
    """A verdict reached before the write transaction, and the newest memory it had seen."""

    verdict: Verdict
    seen: int


async def decide(
    db: Database,
    proposal: Proposal,
    agent_id: str | None,
    asked: Verdict | None = None,
    nearby: Sequence[tuple[float, Memory]] = (),
) -> Decided:
    """The same-fact decision in a read transaction, outside the write lock: other writers go
    on meanwhile, and the write re-checks only what was written since (`still_holds`)."""
    async with db.read() as conn:
        seen = await rows.newest_seq(conn)
        verdict = await settle(conn, proposal, agent_id, asked, nearby)
    return Decided(verdict, seen)


async def decide_all(
    db: Database, proposals: Sequence[Proposal], agent_id: str | None
) -> list[Decided]:
    """`decide` for several proposals (an exchange's fast statements, no LLM asked) in one read
    transaction: one snapshot, one turn of the store, the same verdicts (no write runs between
    them either way; the write re-checks each)."""
    if not proposals:
        return []
    async with db.read() as conn:
        seen = await rows.newest_seq(conn)
        return [Decided(await settle(conn, p, agent_id, None), seen) for p in proposals]


async def still_holds(
    conn: Connection, decided: Decided, proposal: Proposal, agent_id: str | None
) -> bool:
    """Inside the write transaction: True when nothing written since the decision changes it:
    its target is still live, and no memory of the scope written since makes the same
    statement or holds the same slot (a correction, which weighs every close memory: no
    memory of the scope written since at all)."""
    target = decided.verdict.target
    if target is not None:
        current = await rows.get_memory(conn, target.id)
        if current is None or current.deleted_at or current.superseded_by:
            return False
    newer = await rows.live_written_after(conn, decided.seen, agent_id)
    if not newer:
        return True
    if proposal.correction:
        return False
    return not any(_may_matter(proposal, memory) for memory in newer)


def _may_matter(proposal: Proposal, memory: Memory) -> bool:
    """A memory written meanwhile that the same-fact rules would pick before the decision's:
    the same statement (`search.facts`), or the holder of the proposal's slot."""
    slot = proposal.slot
    if (
        slot is not None
        and memory.metadata.get("predicate") == slot.predicate
        and memory.metadata.get("subject") == slot.subject
    ):
        return True
    return memory.content == proposal.content or same_statement(proposal.content, memory.content)


async def write_proposal(
    conn: Connection,
    proposal: Proposal,
    agent_id: str | None,
    now: datetime,
    asked: Verdict | None = None,
    lift: bool = True,
    tags: list[str] | None = None,
    nearby: Sequence[tuple[float, Memory]] = (),
    decided: Decided | None = None,
) -> Outcome:
    """Write phase, inside one write transaction: the verdict decided before it when it
    still holds, else settled here; then carry it out."""
    if decided is not None and await still_holds(conn, decided, proposal, agent_id):
        verdict = decided.verdict
    else:
        verdict = await settle(conn, proposal, agent_id, asked, nearby)
    if verdict.refused:
        await log_action(conn, "refused_llm_verdict", [], {"why": verdict.refused}, now)
    if verdict.unslotted:
        proposal = replace(proposal, slot=None)
    if verdict.slot is not None:
        proposal = replace(proposal, slot=verdict.slot, category=verdict.slot.category)
    if verdict.content is not None:
        proposal = _said_as(proposal, verdict.content)
    target = verdict.target
    if verdict.action == "duplicate" and target is not None:
        bumped = await rows.reinforce_memory(
            conn, target, proposal.importance, tags or [], now, lift=lift
        )
        await record_relations(conn, bumped, None, proposal.relations, now)
        return Outcome("duplicate", bumped)
    layer = verdict.layer or proposal.layer
    if verdict.action == "update" and target is not None and target.layer == Layer.CORE:
        layer = Layer.CORE  # an update of a core fact stays in core
    memory = build_memory(proposal, agent_id, now, layer)
    if verdict.action != "update" or target is None:
        await rows.insert_memory(conn, memory)
        await record_relations(conn, memory, proposal.slot, proposal.relations, now)
        return Outcome("created", memory)
    if target.created_at > now:  # said before what it would replace (an imported session)
        return Outcome("created", await as_history(conn, memory, target, proposal, verdict.rule))
    memory = await supersede(conn, target, memory, verdict.rule, proposal.channel, now)
    await _no_longer_left(conn, memory, target, proposal, agent_id, now)
    await record_relations(conn, memory, proposal.slot, proposal.relations, now)
    return Outcome("superseded", memory, target)


def _said_as(proposal: Proposal, content: str) -> Proposal:
    """The proposal stored as `content`, its own words kept in its search context."""
    said, context = proposal.content, str(proposal.extra.get("context", ""))
    context = context if said in context else "\n".join(filter(None, [said, context]))
    return replace(proposal, content=content, extra=proposal.extra | {"context": context})


async def _no_longer_left(
    conn: Connection,
    memory: Memory,
    target: Memory,
    proposal: Proposal,
    agent_id: str | None,
    now: datetime,
) -> None:
    """Back at an employer the user had left after working elsewhere ("I left Stripe.", "I
    work at Google.", "I work at Stripe again."): the leaving goes with the workplace `memory`
    replaced (found re-testing: "I left Stripe." stayed live beside it)."""
    slot = proposal.slot
    if slot is None or slot.predicate != "workplace":
        return
    left = await left_there(conn, agent_id, slot)
    if left is not None and left.id != target.id:
        await replaced(conn, left, memory, "slot workplace: back at", proposal.channel, now)


async def as_history(
    conn: Connection, old: Memory, newer: Memory, proposal: Proposal, rule: str
) -> Memory:
    """Store `old`, a statement made before the memory it would replace (an old session
    imported after a newer one), as that memory's past: superseded by it from the moment it was
    made, so the newer fact stays ("I live in Lisbon" from October does not replace November's
    "I live in Porto", nor date its change back to October)."""
    await rows.insert_memory(conn, old)
    await record_relations(conn, old, proposal.slot, proposal.relations, old.created_at)
    await replaced(conn, old, newer, f"said before: {rule}", proposal.channel, newer.created_at)
    return old


async def supersede(
    conn: Connection, old: Memory, new: Memory, rule: str, channel: str, now: datetime
) -> Memory:
    """Store `new` in place of `old`: the chain is kept, the higher importance too, and both
    the memory and the log say which rule decided it."""
    new = new.model_copy(
        update={
            "importance": max(new.importance, old.importance),
            "metadata": new.metadata | {"supersedes": {"id": old.id, "rule": rule}},
        }
    )
    await rows.insert_memory(conn, new)
    await replaced(conn, old, new, rule, channel, now)
    return new


async def replaced(
    conn: Connection, old: Memory, new: Memory, rule: str, channel: str, when: datetime
) -> None:
    """Mark `old` superseded by `new` at `when`, and say so in the action log with the rule."""
    await rows.mark_superseded(conn, old.id, new.id, when, rule)
    await log_action(
        conn,
        "supersede",
        [old.id, new.id],
        {"before": old.content, "after": new.content, "channel": channel, "rule": rule},
        when,
    )


async def apply_verdict(
    conn: Connection,
    proposal: Proposal,
    asked: Verdict | None,
    agent_id: str,
    now: datetime,
    nearby: Sequence[tuple[float, Memory]] = (),
    decided: Decided | None = None,
) -> StoredMemory:
    """The sieve's write phase: settle (or re-check `decided`) and write inside the
    transaction; report it."""
    outcome = await write_proposal(
        conn,
        proposal,
        agent_id,
        now,
        asked,
        lift=proposal.layer == Layer.CORE,
        nearby=nearby,
        decided=decided,
    )
    superseded = outcome.superseded.id if outcome.superseded else None
    return stored(outcome.action, outcome.memory, proposal.channel, superseded)


async def record_relations(
    conn: Connection,
    memory: Memory,
    slot: Slot | None,
    triples: tuple[Triple, ...] | list[Triple],
    now: datetime,
) -> int:
    """Inside the write transaction: store the relations `memory` states (its slot's and the
    given ones), scoped and dated like it; how many were new."""
    wanted = ([slot_triple(slot)] if slot is not None else []) + list(triples)
    added = 0
    for triple in wanted:
        relation = Relation(
            id=new_memory_id(int(now.timestamp() * 1000)),
            agent_id=memory.agent_id,
            subject=triple.subject,
            predicate=triple.predicate,
            object=triple.object,
            confidence=memory.confidence,
            source_memory_id=memory.id,
            created_at=now,
            updated_at=now,
            valid_from=memory.created_at,
        )
        added += int(await insert_relation(conn, relation))
    return added
