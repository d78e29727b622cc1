"""Explicit memory: write to core, or reinforce the same statement, or supersede a memory.

An agent's remember takes the sieve's path: a slot it states (name, home, role, …) replaces the
memory holding the old value, and a correction ("actually …", 更正…) replaces the closest memory
about the same subject; `supersedes` names the memory to replace outright.

The memory holds the statement without its conversational wrapper ("Remember that …", "Hi,",
更正一下：, 覚えておいて; `language.wrappers`); what the wrapper said (a correction) is read from
the words as given, which the memory keeps in its metadata (`said`).
"""

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from cortex_mcp.config import MemorySettings
from cortex_mcp.engine.ingest.nearby import nearby_memories
from cortex_mcp.engine.ingest.proposal import Proposal, check_content
from cortex_mcp.engine.ingest.verdict import holds_value, slot_holder
from cortex_mcp.engine.ingest.write import (
    Decided,
    build_memory,
    decide,
    record_relations,
    replaced,
    supersede,
    write_proposal,
)
from cortex_mcp.engine.language.patterns import is_correction
from cortex_mcp.engine.language.redaction import Cleaner
from cortex_mcp.engine.language.slots import find_slots
from cortex_mcp.engine.language.triples import Triple, checked_triples
from cortex_mcp.engine.language.wrappers import unwrapped
from cortex_mcp.engine.runtime import Runtime
from cortex_mcp.errors import InvalidInput, MemoryNotFound
from cortex_mcp.models import SHARED_SCOPE, Category, Layer, Memory, RememberResult, is_memory_id
from cortex_mcp.store import memories as rows
from cortex_mcp.store.db import Connection


@dataclass(frozen=True)
class Remembering:
    """What cortex_remember was asked to store besides the content."""

    category: Category
    importance: float
    tags: list[str]
    scope: str
    supersedes: str | None
    context: str | None
    relations: object
    project: str | None = None
    """The project it is filed under: a project's slot or named value is replaced only there."""


logger = logging.getLogger(__name__)


async def remember(
    rt: Runtime, clean: Cleaner, content: str, asked: Remembering, agent_id: str
) -> RememberResult:
    """Store an explicit memory (cleaned, with its context and relations) in core: duplicates
    reinforce, a slot or a correction replaces, `supersedes` replaces outright."""
    category, scope, supersedes = asked.category, asked.scope, asked.supersedes
    context = asked.context
    if supersedes is not None and not is_memory_id(supersedes):
        raise InvalidInput("supersedes", "must be a memory id (a UUID)")
    triples = checked_triples(asked.relations or [], "relations")
    said, context = clean(content), clean(context) if context is not None else None
    content = unwrapped(said)
    triples = [Triple(clean(t.subject), clean(t.predicate), clean(t.object)) for t in triples]
    nearby: list[tuple[float, Memory]] = []
    if supersedes is None and (category == Category.CORRECTION or is_correction(said)):
        owner = None if scope == SHARED_SCOPE else agent_id
        nearby = await nearby_memories(rt.db, rt.vectors, content, owner)
    decided = None
    if supersedes is None:  # decided outside the write lock, re-checked inside it
        proposal = remembered_proposal(
            content,
            category,
            asked.importance,
            asked.tags,
            context,
            triples,
            rt.settings.memory,
            said,
            asked.project,
        )
        owner = None if scope == SHARED_SCOPE else agent_id
        decided = await decide(rt.db, proposal, owner, nearby=nearby)
    async with rt.db.write() as conn:
        result = await write_remembered(
            conn,
            content=content,
            category=category,
            importance=asked.importance,
            tags=asked.tags,
            agent_id=agent_id,
            scope=scope,
            supersedes=supersedes,
            context=context,
            settings=rt.settings.memory,
            now=rt.clock(),
            nearby=nearby,
            relations=triples,
            decided=decided,
            said=said,
            project=asked.project,
        )
    logger.debug("remember: %s %s (%s)", result.action, result.id, result.category.value)
    return result


async def write_remembered(
    conn: Connection,
    *,
    content: str,
    category: Category,
    importance: float,
    tags: list[str],
    agent_id: str,
    scope: str,
    supersedes: str | None,
    settings: MemorySettings,
    now: datetime,
    context: str | None = None,
    nearby: Sequence[tuple[float, Memory]] = (),
    relations: Sequence[Triple] = (),
    decided: Decided | None = None,
    said: str | None = None,
    project: str | None = None,
) -> RememberResult:
    """Store an explicit memory in core; call inside a write transaction (`decided`: the
    verdict reached before it, re-checked here; `said`: the words as given, when `content` is
    them without their wrapper)."""
    proposal = remembered_proposal(
        content, category, importance, tags, context, relations, settings, said, project
    )
    owner = None if scope == SHARED_SCOPE else agent_id
    old = await _replaced(conn, supersedes, agent_id) if supersedes is not None else None
    if old is None:
        outcome = await write_proposal(
            conn, proposal, owner, now, tags=tags, nearby=nearby, decided=decided
        )
        superseded = outcome.superseded.id if outcome.superseded else None
        if outcome.action != "duplicate":
            retired = await _retire_slot_holders(conn, outcome.memory, owner, now, project)
            superseded = superseded or retired
        return RememberResult.of(outcome.action, outcome.memory, superseded)
    memory = build_memory(proposal, owner, now, Layer.CORE)
    memory = await supersede(conn, old, memory, "explicit: supersedes", "remember", now)
    await record_relations(conn, memory, proposal.slot, proposal.relations, now)
    return RememberResult.of("superseded", memory, old.id)


def remembered_proposal(
    content: str,
    category: Category,
    importance: float,
    tags: list[str],
    context: str | None,
    relations: Sequence[Triple],
    settings: MemorySettings,
    said: str | None = None,
    project: str | None = None,
) -> Proposal:
    """The proposal an explicit memory makes (its content and context checked; `said`: the
    words as given, kept when they differ from `content`)."""
    text = check_content(content, settings)
    around = check_content(context, settings, "context") if context and context.strip() else None
    slots = find_slots(text)
    original = said if said is not None and said.strip() != text.strip() else None
    return Proposal(
        content=text,
        category=category,
        importance=importance,
        layer=Layer.CORE,
        source="manual",
        channel="remember",
        confidence=0.9,
        extra=({"tags": sorted(set(tags))} if tags else {})
        | ({"context": around} if around else {})
        | ({"said": original} if original else {}),
        slot=slots[0] if slots else None,  # several: the first; the others' holders retire
        correction=category == Category.CORRECTION or is_correction(original or text),
        relations=tuple(relations),
        project=project,
    )


async def _retire_slot_holders(
    conn: Connection, memory: Memory, owner: str | None, now: datetime, project: str | None
) -> str | None:
    """An agent's one memory stating several slots ("I started a new job at BMW as a staff
    engineer") holds the first (`remembered_proposal`); each memory holding one of the others
    with another value is superseded by it, as a memory per slot would have been (found trying
    the product: "I work as a backend engineer." stayed live). The first id superseded."""
    retired: list[str] = []
    for slot in find_slots(memory.content)[1:]:  # the first is the memory's own
        holder = await slot_holder(conn, owner, slot, project)
        if holder is not None and holder.id != memory.id and not holds_value(holder, slot):
            await replaced(
                conn, holder, memory, f"slot {slot.predicate}: new value", "remember", now
            )
            retired.append(holder.id)
    return retired[0] if retired else None


async def _replaced(conn: Connection, memory_id: str, agent_id: str) -> Memory:
    old = await rows.get_visible_memory(conn, memory_id, agent_id)
    if old is None or old.deleted_at is not None:
        raise MemoryNotFound(memory_id, field="supersedes")
    if old.superseded_by is not None:
        raise InvalidInput("supersedes", f"memory {memory_id!r} is already superseded")
    return old
