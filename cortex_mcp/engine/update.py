"""Update instead of append: a new memory reinforces, supersedes, or joins the store.

Only the few closest existing memories are considered (full-text neighbours), and the LLM is
asked about those few at most once per new memory — never pairwise over the store. Without an
LLM the rule is conservative: only a near-identical statement with the same numbers is a
duplicate, so a changed value ("budget 50M" → "budget 30M") is never swallowed; a correction
replaces its closest neighbour when they share the subject.
"""

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

import aiosqlite

from cortex_mcp.config import MemorySettings
from cortex_mcp.engine.duplicates import find_duplicate
from cortex_mcp.models import Category, Layer, Memory, StoredMemory, new_memory_id
from cortex_mcp.search.query import match_expression
from cortex_mcp.search.tokenize import ENGLISH_STOPWORDS, jaccard, term_set
from cortex_mcp.store import fts
from cortex_mcp.store import memories as rows
from cortex_mcp.store.logs import log_action

CLOSE_CANDIDATES = 3
CLOSE_OVERLAP = 0.25
"""Term overlap from which an existing memory is worth asking the LLM about."""
CORRECTION_OVERLAP = 0.15
"""Term overlap from which a correction replaces its closest neighbour without an LLM."""

DECIDE_SYSTEM = "You keep a user's long-term memory store consistent. Answer with JSON only."
DECIDE_PROMPT = """A new memory was extracted from a conversation. Decide how it relates to
the existing memories below.

<existing>
{existing}
</existing>
<new>{new}</new>

Answer {{"action": "duplicate" | "update" | "new", "target": <number of the existing memory, or
null>}}.
- duplicate: it says the same as an existing memory and adds nothing.
- update: same subject as an existing memory, but a changed value, a correction or a newer
  state; it replaces that memory.
- new: anything else (related is not enough)."""

Decide = Callable[[str, str], Awaitable[str | None]]
"""Ask the LLM (system, prompt) for a JSON answer; None when no LLM answered."""


@dataclass(frozen=True)
class Proposal:
    """A memory the sieve wants to store."""

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


@dataclass(frozen=True)
class Verdict:
    """What to do with a proposal: add it, reinforce `target`, or replace `target`."""

    action: Literal["new", "duplicate", "update"]
    target: Memory | None = None


def overlap(a: str, b: str) -> float:
    """Term overlap of two texts, ignoring English stopwords."""
    return jaccard(term_set(a) - ENGLISH_STOPWORDS, term_set(b) - ENGLISH_STOPWORDS)


async def close_candidates(
    conn: aiosqlite.Connection, proposal: Proposal, agent_id: str
) -> list[Memory]:
    """The few live memories of the agent that share most terms with the proposal."""
    match = match_expression(proposal.content)
    if match is None:
        return []
    layers = [Layer.CORE, Layer.WORKING, Layer.ARCHIVE]
    found = await fts.text_candidates(conn, match, agent_id, layers, None, CLOSE_CANDIDATES * 3)
    by_id = await rows.memories_by_id(conn, [candidate.id for _, candidate in found])
    close = [
        m
        for m in (by_id[candidate.id] for _, candidate in found if candidate.id in by_id)
        if m.agent_id == agent_id
        and m.category != Category.PROFILE
        and m.metadata.get("channel") != "fallback"  # raw stand-ins are replaced by the retry
    ]
    close = [m for m in close if overlap(proposal.content, m.content) >= CORRECTION_OVERLAP]
    close.sort(key=lambda m: -overlap(proposal.content, m.content))
    return close[:CLOSE_CANDIDATES]


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
        return Verdict("new")
    number = document.get("target")
    if not isinstance(number, int | str) or not str(number).strip().isdigit():
        return None
    index = int(number) - 1
    if not 0 <= index < len(candidates):
        return None
    target = candidates[index]
    if action in ("duplicate", "update"):
        return Verdict("duplicate" if action == "duplicate" else "update", target)
    return None


def rule_verdict(proposal: Proposal, candidates: list[Memory]) -> Verdict:
    """Without an LLM: a correction replaces its closest neighbour; everything else is new."""
    if proposal.category == Category.CORRECTION and candidates:
        return Verdict("update", candidates[0])
    return Verdict("new")


async def judge(
    conn: aiosqlite.Connection,
    proposal: Proposal,
    agent_id: str,
    settings: MemorySettings,
    decide: Decide | None,
) -> Verdict:
    """Read-only: decide what storing `proposal` should do. The LLM call happens here."""
    duplicate = await find_duplicate(conn, proposal.content, agent_id, settings)
    if duplicate is not None:
        return Verdict("duplicate", duplicate)
    candidates = await close_candidates(conn, proposal, agent_id)
    worth_asking = [m for m in candidates if overlap(proposal.content, m.content) >= CLOSE_OVERLAP]
    if decide is not None and (worth_asking or proposal.category == Category.CORRECTION):
        pool = worth_asking or candidates
        if pool:
            existing = "\n".join(f"[{i}] {m.content}" for i, m in enumerate(pool, start=1))
            prompt = DECIDE_PROMPT.format(existing=existing, new=proposal.content)
            verdict = parse_verdict(await decide(DECIDE_SYSTEM, prompt), pool)
            if verdict is not None:
                return verdict
    return rule_verdict(proposal, candidates)


def build_memory(proposal: Proposal, agent_id: str | None, now: datetime, layer: Layer) -> Memory:
    """The Memory row for a proposal, with its provenance in metadata."""
    metadata: dict[str, Any] = {"channel": proposal.channel, **proposal.extra}
    if proposal.session_id:
        metadata["session_id"] = proposal.session_id
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


async def apply_verdict(
    conn: aiosqlite.Connection,
    proposal: Proposal,
    verdict: Verdict,
    agent_id: str,
    now: datetime,
) -> StoredMemory:
    """Write phase: carry out a verdict inside a write transaction, re-checking the target."""
    target = verdict.target
    if target is not None:
        current = await rows.get_memory(conn, target.id)
        if current is None or current.deleted_at or current.superseded_by:
            target = None  # changed since judged: store as new rather than touch a stale row
    if verdict.action == "duplicate" and target is not None:
        lift = proposal.layer == Layer.CORE
        bumped = await rows.reinforce_memory(conn, target, proposal.importance, [], now, lift=lift)
        return stored("duplicate", bumped, proposal.channel)
    layer = proposal.layer
    if verdict.action == "update" and target is not None and target.layer == Layer.CORE:
        layer = Layer.CORE  # an update of a core fact stays in core
    memory = build_memory(proposal, agent_id, now, layer)
    await rows.insert_memory(conn, memory)
    if verdict.action != "update" or target is None:
        return stored("created", memory, proposal.channel)
    await rows.mark_superseded(conn, target.id, memory.id, now)
    await log_action(
        conn,
        "supersede",
        [target.id, memory.id],
        {"before": target.content, "after": memory.content, "channel": proposal.channel},
        now,
    )
    return stored("superseded", memory, proposal.channel, target.id)
