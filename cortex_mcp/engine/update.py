"""Update instead of append: a new memory reinforces, supersedes, or joins the store.

One definition of "the same fact" (`search.facts`) decides everywhere. Inside the write
transaction, so two processes storing one statement at once store it once:
1. the same statement already live → a duplicate; it reinforces that memory;
2. a slot (subject, predicate) already held → the same value is a duplicate, a new value
   supersedes the holder (chain kept, the higher importance kept);
3. the LLM's verdict, if one was asked for (outside the transaction) and passed the guard:
   an answer that calls memories about different people or things the same is refused;
4. a correction with no slot supersedes the closest live memory about the same subject, when
   their overlap reaches `CORRECTION_OVERLAP` (measured on tests/data/corrections.json);
5. anything else is new.
"""

import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from cortex_mcp.engine import graph
from cortex_mcp.engine.duplicates import find_duplicate
from cortex_mcp.engine.graph import Triple
from cortex_mcp.engine.patterns import without_correction_markers
from cortex_mcp.engine.slots import Slot, described, value_key
from cortex_mcp.models import Category, Layer, Memory, StoredMemory, new_memory_id
from cortex_mcp.search.facts import names_differ, subjects_differ
from cortex_mcp.search.query import match_expression
from cortex_mcp.search.tokenize import ENGLISH_STOPWORDS, jaccard, term_set
from cortex_mcp.store import fts
from cortex_mcp.store import memories as rows
from cortex_mcp.store.db import Connection
from cortex_mcp.store.logs import log_action

logger = logging.getLogger(__name__)

CLOSE_CANDIDATES = 3
CLOSE_OVERLAP = 0.25
"""Term overlap from which an existing memory is worth asking the LLM about."""
CORRECTION_OVERLAP = 0.2
"""Term overlap from which a correction with no slot replaces its closest neighbour without an
LLM: the precision-first point of the labelled set (bench/corrections.py)."""
CORRECTION_SIMILARITY = 0.9
"""Cosine similarity (local e5 model) from which a correction replaces its nearest memory when
they share too few words: measured like the overlap (bench/corrections.py)."""

DECIDE_SYSTEM = "You keep a user's long-term memory store consistent. Answer with JSON only."
DECIDE_PROMPT = """A new memory was extracted from a conversation. Decide how it relates to
the existing memories below.

<existing>
{existing}
</existing>
<new>{new}</new>

Answer {{"action": "duplicate" | "update" | "new", "target": <number of the existing memory, or
null>}}.
- duplicate: it says the same as an existing memory, about the same subject, and adds nothing.
- update: the same subject and attribute as an existing memory, but a changed value, a
  correction or a newer state; it replaces that memory.
- new: anything else. Related is not enough: a different person, place, organisation, product,
  date, number or quantity is a different fact."""

Decide = Callable[[str, str], Awaitable[str | None]]
"""Ask the LLM (system, prompt) for a JSON answer; None when no LLM answered."""


@dataclass(frozen=True)
class Proposal:
    """A memory the sieve (or cortex_remember) wants to store."""

    content: str
    category: Category
    importance: float
    layer: Layer
    source: str
    channel: str
    session_id: str | None = None
    expires_at: datetime | None = None
    confidence: float = 0.8
    extra: dict[str, Any] = field(default_factory=dict)
    slot: Slot | None = None
    correction: bool = False
    relations: tuple[Triple, ...] = ()


@dataclass(frozen=True)
class Verdict:
    """What to do with a proposal: add it, reinforce `target`, or replace `target`; `rule`
    says why, `refused` names an LLM answer the guard turned down."""

    action: Literal["new", "duplicate", "update"]
    target: Memory | None = None
    rule: str = ""
    refused: str | None = None


def overlap(a: str, b: str) -> float:
    """Term overlap of two texts, ignoring English stopwords."""
    return jaccard(term_set(a) - ENGLISH_STOPWORDS, term_set(b) - ENGLISH_STOPWORDS)


async def close_candidates(
    conn: Connection, text: str, agent_id: str | None, minimum: float
) -> list[tuple[float, Memory]]:
    """The few live memories of the scope that share most terms with `text`, closest first."""
    match = match_expression(text)
    if match is None:
        return []
    layers = [Layer.CORE, Layer.WORKING, Layer.ARCHIVE]
    agent = agent_id or ""
    found = await fts.text_candidates(conn, match, agent, layers, None, CLOSE_CANDIDATES * 3)
    by_id = await rows.memories_by_id(conn, [candidate.id for _, candidate in found])
    scored = [
        (overlap(text, m.content), m)
        for m in (by_id[candidate.id] for _, candidate in found if candidate.id in by_id)
        if m.agent_id == agent_id
        and m.category != Category.PROFILE
        and m.metadata.get("channel") != "fallback"  # raw stand-ins are replaced by the retry
    ]
    scored = [(score, m) for score, m in scored if score >= minimum]
    scored.sort(key=lambda item: -item[0])
    return scored[:CLOSE_CANDIDATES]


def parse_verdict(answer: str | None, candidates: list[Memory]) -> Verdict | None:
    """The LLM's decision, or None when it cannot be read."""
    if answer is None:
        return None
    start, end = answer.find("{"), answer.rfind("}")
    try:
        document = json.loads(answer[start : end + 1])
    except ValueError:
        return None
    if not isinstance(document, dict):
        return None
    action = str(document.get("action", "")).strip().lower()
    if action == "new":
        return Verdict("new", rule="llm")
    number = document.get("target")
    if not isinstance(number, int | str) or not str(number).strip().isdigit():
        return None
    index = int(number) - 1
    if not 0 <= index < len(candidates):
        return None
    target = candidates[index]
    if action in ("duplicate", "update"):
        return Verdict("duplicate" if action == "duplicate" else "update", target, "llm")
    return None


def guarded(proposal: Proposal, verdict: Verdict) -> Verdict:
    """The LLM's verdict, or "new" when it calls memories about different people or things
    the same (a duplicate must also have the same numbers)."""
    target = verdict.target
    if target is None or verdict.action == "new":
        return verdict
    differ = names_differ if verdict.action == "duplicate" else subjects_differ
    if differ(proposal.content, target.content):
        refused = f"llm said {verdict.action} of {target.id}: different subject or value"
        logger.info("refused an LLM %s verdict: different subject or value", verdict.action)
        return Verdict("new", rule="llm answer refused", refused=refused)
    return verdict


async def ask_llm(
    conn: Connection, proposal: Proposal, agent_id: str | None, decide: Decide | None
) -> Verdict | None:
    """Read-only, before the write: the LLM's guarded verdict on the closest memories, or None
    when the rules decide alone (a slot, an exact or same-statement duplicate, no LLM)."""
    if decide is None or proposal.slot is not None:
        return None
    if await find_duplicate(conn, proposal.content, agent_id) is not None:
        return None
    minimum = 0.0 if proposal.correction else CLOSE_OVERLAP
    pool = [m for _, m in await close_candidates(conn, proposal.content, agent_id, minimum)]
    if not pool:
        return None
    existing = "\n".join(f"[{i}] {described(m)}" for i, m in enumerate(pool, start=1))
    prompt = DECIDE_PROMPT.format(existing=existing, new=proposal.content)
    verdict = parse_verdict(await decide(DECIDE_SYSTEM, prompt), pool)
    return guarded(proposal, verdict) if verdict is not None else None


async def slot_holder(conn: Connection, agent_id: str | None, slot: Slot) -> Memory | None:
    """The live memory of the scope that holds this subject's predicate, newest first."""
    found = await rows.live_with_slot(conn, agent_id, slot.subject, slot.predicate)
    return found[0] if found else None


async def closest_for_correction(
    conn: Connection,
    proposal: Proposal,
    agent_id: str | None,
    nearby: Sequence[tuple[float, Memory]] = (),
) -> tuple[str, Memory] | None:
    """The live memory a correction with no slot replaces: the closest about the same subject
    by shared words, else by meaning (`nearby`, from the vectors); with why."""
    text = without_correction_markers(proposal.content)
    for score, memory in await close_candidates(conn, text, agent_id, CORRECTION_OVERLAP):
        if not subjects_differ(text, memory.content):
            return f"correction: closest memory ({score:.2f})", memory
    for similarity, memory in nearby:
        if (
            similarity >= CORRECTION_SIMILARITY
            and memory.category != Category.PROFILE
            and not subjects_differ(text, memory.content)
            and await _still_live(conn, memory)
        ):
            return f"correction: nearest in meaning ({similarity:.2f})", memory
    return None


async def settle(
    conn: Connection,
    proposal: Proposal,
    agent_id: str | None,
    asked: Verdict | None,
    nearby: Sequence[tuple[float, Memory]] = (),
) -> Verdict:
    """Inside the write transaction: what storing `proposal` does (see the module's rules)."""
    duplicate = await find_duplicate(conn, proposal.content, agent_id)
    if duplicate is not None:
        return Verdict("duplicate", duplicate, "same statement")
    if proposal.slot is not None:
        holder = await slot_holder(conn, agent_id, proposal.slot)
        if holder is None:
            return Verdict("new", rule=f"slot {proposal.slot.predicate}: first value")
        same = value_key(str(holder.metadata.get("value", ""))) == proposal.slot.key
        action: Literal["duplicate", "update"] = "duplicate" if same else "update"
        kind = "same value" if same else "new value"
        return Verdict(action, holder, f"slot {proposal.slot.predicate}: {kind}")
    if asked is not None and (asked.target is None or await _still_live(conn, asked.target)):
        return asked
    if proposal.correction:
        closest = await closest_for_correction(conn, proposal, agent_id, nearby)
        if closest is not None:
            return Verdict("update", closest[1], closest[0])
    return Verdict("new")


async def _still_live(conn: Connection, memory: Memory) -> bool:
    current = await rows.get_memory(conn, memory.id)
    return current is not None and not current.deleted_at and not current.superseded_by


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


async def write_proposal(
    conn: Connection,
    proposal: Proposal,
    agent_id: str | None,
    now: datetime,
    asked: Verdict | None = None,
    lift: bool = True,
    tags: list[str] | None = None,
    nearby: Sequence[tuple[float, Memory]] = (),
) -> Outcome:
    """Write phase, inside one write transaction: settle the verdict, then carry it out."""
    verdict = await settle(conn, proposal, agent_id, asked, nearby)
    if verdict.refused:
        await log_action(conn, "refused_llm_verdict", [], {"why": verdict.refused}, now)
    target = verdict.target
    if verdict.action == "duplicate" and target is not None:
        bumped = await rows.reinforce_memory(
            conn, target, proposal.importance, tags or [], now, lift=lift
        )
        await graph.record(conn, bumped, None, proposal.relations, now)
        return Outcome("duplicate", bumped)
    layer = proposal.layer
    if verdict.action == "update" and target is not None and target.layer == Layer.CORE:
        layer = Layer.CORE  # an update of a core fact stays in core
    memory = build_memory(proposal, agent_id, now, layer)
    if verdict.action != "update" or target is None:
        await rows.insert_memory(conn, memory)
        await graph.record(conn, memory, proposal.slot, proposal.relations, now)
        return Outcome("created", memory)
    memory = await supersede(conn, target, memory, verdict.rule, proposal.channel, now)
    await graph.record(conn, memory, proposal.slot, proposal.relations, now)
    return Outcome("superseded", memory, target)


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
    await rows.mark_superseded(conn, old.id, new.id, now, rule)
    await log_action(
        conn,
        "supersede",
        [old.id, new.id],
        {"before": old.content, "after": new.content, "channel": channel, "rule": rule},
        now,
    )
    return new


async def apply_verdict(
    conn: Connection,
    proposal: Proposal,
    asked: Verdict | None,
    agent_id: str,
    now: datetime,
    nearby: Sequence[tuple[float, Memory]] = (),
) -> StoredMemory:
    """The sieve's write phase: settle and write inside the transaction; report it."""
    outcome = await write_proposal(
        conn, proposal, agent_id, now, asked, lift=proposal.layer == Layer.CORE, nearby=nearby
    )
    superseded = outcome.superseded.id if outcome.superseded else None
    return stored(outcome.action, outcome.memory, proposal.channel, superseded)
