"""Core de-duplication: cluster near-duplicates cheaply, then resolve each small cluster once.

Candidates come from `similarity.similar_pairs` (O(n log n)), within one agent and category.
Clusters are stars around their newest member: every member is directly similar to it, so a
chain of loosely related memories never collapses into one. With an LLM each cluster is one
call that says which members state the same fact and writes the merged statement (the newer
wins a conflict); members the LLM calls the same but that name a different person, thing or
number (`search.facts.names_differ`) stay out, and the refusal is in the report. Without an
LLM, or when it does not answer, only the same statement merges (`search.facts.same_statement`):
the newest is kept. Merged memories are superseded, never deleted.

With or without an LLM, a paraphrase merges too: two core memories close in meaning
(`paraphrases.close_in_meaning`, cosine ≥ `PARAPHRASE_SIMILARITY`) that pass the same-fact guard
(`language.paraphrase.refuses`: same subject, names, numbers and negation) merge into the older,
the first wording; the newer is superseded by it with the reason. Every merge counts the merged
mentions toward promotion and raises the survivor's confidence as a restatement does.
"""

import hashlib
import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypedDict

from cortex_mcp.config import LifecycleSettings
from cortex_mcp.engine.ingest.duplicates import hold_other_slots
from cortex_mcp.engine.language.answers import llm_object
from cortex_mcp.engine.language.paraphrase import PARAPHRASE_SIMILARITY, refuses
from cortex_mcp.engine.language.slots import described
from cortex_mcp.engine.lifecycle.paraphrases import Close
from cortex_mcp.engine.lifecycle.plan import After, Before, Change, Edit, Row, State, expecting
from cortex_mcp.engine.lifecycle.similarity import PairSource, similar_pairs
from cortex_mcp.engine.llm import Ask
from cortex_mcp.models import Category, Layer, Memory, derived_id
from cortex_mcp.search.facts import content_tokens, names_differ, same_statement
from cortex_mcp.search.tokenize import numbers_of

NEVER_MERGED = frozenset({Category.SUMMARY, Category.PROFILE})
RESTATED_CONFIDENCE = 0.05
"""What each merged restatement adds to the survivor's confidence (as a restatement at write
time does), at most to `MAX_CONFIDENCE`."""
MAX_CONFIDENCE = 0.99
MERGE_SYSTEM = "You consolidate a user's long-term memory. Answer with JSON only."
MERGE_PROMPT = """These memories of one user look like near-duplicates. They are numbered oldest
first; where they disagree, the newer one is right.

<memories>
{memories}
</memories>

Answer {{"merge": [numbers of the memories that state the same fact], "content": "one statement
that keeps every detail of the merged memories, in their language"}}. Memories that say
something different stay out of "merge". If no two say the same thing, answer
{{"merge": [], "content": ""}}."""


@dataclass(frozen=True)
class Cluster:
    """The newest memory of a cluster and the older ones, each with its similarity to it."""

    leader: Row
    members: list[tuple[Row, float]]


def star_clusters(
    items: list[Row], pairs: list[tuple[int, int, float]], max_size: int
) -> list[Cluster]:
    """Newest first, each unclustered memory gathers its unclustered similar neighbours."""
    neighbours: dict[int, list[tuple[int, float]]] = defaultdict(list)
    for i, j, similarity in pairs:
        neighbours[i].append((j, similarity))
        neighbours[j].append((i, similarity))
    order = sorted(neighbours, key=lambda k: (items[k].created_at, items[k].id), reverse=True)
    rank = {k: position for position, k in enumerate(order)}
    taken: set[int] = set()
    clusters: list[Cluster] = []
    for leader in order:
        if leader in taken:
            continue
        free = sorted(
            (n for n in neighbours[leader] if n[0] not in taken), key=lambda n: rank[n[0]]
        )
        chosen = free[: max_size - 1]
        if chosen:
            taken.update([leader, *(k for k, _ in chosen)])
            clusters.append(Cluster(items[leader], [(items[k], s) for k, s in chosen]))
    return clusters


def parse_merge(answer: str | None, count: int, max_chars: int) -> tuple[list[int], str] | None:
    """(0-based members, merged content) from the LLM's answer; None when unreadable."""
    document = llm_object(answer)
    if document is None or not isinstance(document.get("merge"), list):
        return None
    numbers = [n for n in document["merge"] if isinstance(n, int) and 1 <= n <= count]
    content = document.get("content")
    members = sorted({n - 1 for n in numbers})
    if len(members) < 2:
        return [], ""
    if not isinstance(content, str) or not content.strip() or len(content) > max_chars:
        return None
    return members, " ".join(content.split())


async def plan_merges(
    state: State,
    settings: LifecycleSettings,
    ask: Ask | None,
    max_chars: int,
    source: PairSource = similar_pairs,
    close: Sequence[Close] = (),
) -> tuple[list[Change], int]:
    """Merge near-duplicate core memories; the changes and the candidate pairs examined.
    `close`: pairs near in meaning (from the vectors), merged when they are paraphrases."""
    items = [m for m in state.in_layer(Layer.CORE) if m.category not in NEVER_MERGED]
    if ask is None:
        changes = await same_statement_merges(state, items)
        return changes + await paraphrase_merges(state, close), len(items) + len(close)
    search = source(
        [frozenset(state.terms(m)) for m in items],
        [(m.agent_id, m.category) for m in items],
        settings.merge_llm_similarity,
    )
    changes = []
    for cluster in star_clusters(items, search.pairs, settings.merge_max_cluster):
        change = await _resolve(state, cluster, settings, ask, max_chars)
        if change is not None:
            changes.append(change)
    changes += await paraphrase_merges(state, close)
    return changes, search.examined + len(close)


async def paraphrase_merges(state: State, close: Sequence[Close]) -> list[Change]:
    """Pairs close in meaning that pass the same-fact guard merge into the older (closest pairs
    first; a memory merges once a run). A pair the guard refuses stays apart."""
    changes: list[Change] = []
    taken: set[str] = set()
    for pair in close:
        if pair.similarity < PARAPHRASE_SIMILARITY or {pair.first, pair.second} & taken:
            continue
        first, second = state.items.get(pair.first), state.items.get(pair.second)
        if first is None or second is None or first.agent_id != second.agent_id:
            continue
        if first.layer != Layer.CORE or second.layer != Layer.CORE:
            continue
        if first.category in NEVER_MERGED or second.category in NEVER_MERGED:
            continue
        texts = await state.full([first.id, second.id])
        if refuses(texts[first.id].content, texts[second.id].content) is not None:
            continue
        if hold_other_slots(texts[first.id], texts[second.id]):
            continue
        older, newer = sorted([first, second], key=_age)
        taken |= {first.id, second.id}
        by = f"paraphrase ({pair.similarity:.2f})"
        changes.append(keep_one(state, [older, newer], older, by))
    return changes


async def same_statement_merges(state: State, items: list[Row]) -> list[Change]:
    """Without an LLM: memories of one agent and category that make the same statement (the
    same content words in order, the same numbers) merge into their newest; nothing else.
    The texts are read a page at a time; each statement is kept as a digest."""
    rows = {m.id: m for m in items}
    groups: dict[tuple[object, ...], list[Row]] = defaultdict(list)
    async for memory_id, text in state.texts(list(rows)):
        memory = rows[memory_id]
        key = statement_key(memory, text)
        if key[2]:  # a memory of function words only is no statement to compare
            groups[key].append(memory)
    return [
        keep_latest(state, group, "same statement") for group in groups.values() if len(group) > 1
    ]


def statement_key(memory: Row, text: str) -> tuple[object, ...]:
    """What two memories share exactly when they make the same statement: their agent, their
    category, and a digest of their content words in order and their numbers (empty when the
    text has no content words)."""
    tokens = content_tokens(text)
    if not tokens:
        return (memory.agent_id, memory.category, b"")
    said = json.dumps([tokens, sorted(numbers_of(text))], ensure_ascii=False)
    return (memory.agent_id, memory.category, hashlib.blake2b(said.encode()).digest())


async def _resolve(
    state: State, cluster: Cluster, settings: LifecycleSettings, ask: Ask | None, max_chars: int
) -> Change | None:
    rows = [m for m, _ in cluster.members] + [cluster.leader]
    full = await state.full([m.id for m in rows])
    if len(full) < len(rows):  # a member was purged since the plan listed it
        return None
    if ask is not None:
        ordered = sorted(rows, key=_age)
        listed = "\n".join(f"[{n}] {described(full[m.id])}" for n, m in enumerate(ordered, start=1))
        answer = await ask(MERGE_SYSTEM, MERGE_PROMPT.format(memories=listed))
        verdict = parse_merge(answer, len(ordered), max_chars)
        if verdict is not None:
            chosen, turned_down = guard_merge([full[ordered[i].id] for i in verdict[0]])
            refused = [m.id for m in turned_down]
            picked = [state.items[m.id] for m in chosen]
            if len(chosen) < 2:
                return (
                    refusal([state.items[m.id] for m in [*chosen, *turned_down]])
                    if refused
                    else None
                )
            if verdict[1] == " ".join(chosen[-1].content.split()):
                return keep_latest(state, picked, "llm", refused)
            tags = sorted({t for m in chosen for t in m.metadata.get("tags", [])})
            return merge_into_new(state, picked, verdict[1], tags, refused)
    leader = full[cluster.leader.id].content
    alike = [m for m, _ in cluster.members if same_statement(full[m.id].content, leader)]
    return keep_latest(state, [*alike, cluster.leader], "same statement") if alike else None


def refusal(members: list[Row]) -> Change:
    """A merge the guard turned down whole: nothing changes, the log says why."""
    return Change(
        action="merge_refused",
        expect=expecting(*members),
        details={
            "by": "llm",
            "refused": [m.id for m in members[1:]],
            "why": "different person, thing or number",
        },
    )


def guard_merge(chosen: list[Memory]) -> tuple[list[Memory], list[Memory]]:
    """The members an LLM merge may take (those about the same people, things and numbers
    as its newest member), and the others, refused."""
    if not chosen:
        return [], []
    newest = chosen[-1]
    kept = [m for m in chosen[:-1] if not names_differ(m.content, newest.content)]
    refused = [m for m in chosen[:-1] if m not in kept]
    return [*kept, newest], refused


def _age(memory: Row | Memory) -> tuple[datetime, str]:
    return memory.created_at, memory.id


def keep_latest(
    state: State, members: list[Row], by: str, refused: list[str] | None = None
) -> Change:
    """The newest member stays, inheriting the others' weight; the others point to it."""
    return keep_one(state, members, max(members, key=_age), by, refused)


def keep_one(
    state: State,
    members: list[Row],
    survivor: Row,
    by: str,
    refused: list[str] | None = None,
) -> Change:
    """`survivor` stays, inheriting the others' weight and mentions; the others point to it."""
    ordered = sorted(members, key=_age)
    older = [m for m in ordered if m.id != survivor.id]
    mentions = sum(_mentions(m) for m in members)
    older_ids = [m.id for m in older]

    def inherited(metadata: dict[str, Any]) -> dict[str, Any]:
        metadata["merged_from"] = [*metadata.get("merged_from", []), *older_ids]
        metadata["mentions"] = mentions
        return metadata

    _, kept = state.changed(survivor, inherited, mentions=mentions, **_combined(members))
    gone = [merged_away(state, m, survivor.id, f"merge: {by}") for m in older]
    return Change(
        action="merge",
        expect=expecting(*members),
        updates=[kept, *gone],
        details={
            "by": by,
            "into": survivor.id,
            "merged": older_ids,
            "before": [Before(m.id) for m in ordered],
            "after": After(survivor.id),
        }
        | ({"refused": refused} if refused else {}),
    )


def merge_into_new(
    state: State,
    members: list[Row],
    content: str,
    tags: list[str],
    refused: list[str] | None = None,
) -> Change:
    """A new memory with the LLM's merged statement replaces every member."""
    newest = max(members, key=_age)
    merged = Memory(
        id=derived_id(state.now, "merge", *(m.id for m in members)),
        agent_id=newest.agent_id,
        layer=Layer.CORE,
        category=newest.category,
        content=content,
        source="lifecycle",
        decay_score=1.0,
        created_at=state.now,
        updated_at=state.now,
        expires_at=None,
        superseded_by=None,
        deleted_at=None,
        metadata={
            "merged_from": [m.id for m in members],
            "merged_by": "llm",
            "mentions": sum(_mentions(m) for m in members),
        }
        | ({"tags": tags} if tags else {}),
        **_combined(members),
    )
    state.add(merged)
    gone = [merged_away(state, m, merged.id, "merge: llm") for m in members]
    return Change(
        action="merge",
        expect=expecting(*members),
        inserts=[merged],
        updates=gone,
        details={
            "by": "llm",
            "into": merged.id,
            "merged": [m.id for m in members],
            "before": [Before(m.id) for m in sorted(members, key=_age)],
            "after": merged,
        }
        | ({"refused": refused} if refused else {}),
    )


def merged_away(state: State, memory: Row, into: str, because: str) -> Edit:
    """A member superseded by its merge, saying why (cortex://memory/{id} shows it)."""

    def superseded(metadata: dict[str, Any]) -> dict[str, Any]:
        return metadata | {"superseded_because": because}

    return state.changed(memory, superseded, superseded_by=into)[1]


class Combined(TypedDict):
    """The weight a merged memory inherits from its members."""

    importance: float
    confidence: float
    access_count: int
    last_accessed: datetime | None


def _mentions(memory: Row) -> int:
    """How many times the memory's fact was stated (1 unless restated or merged)."""
    return max(1, int(memory.mentions))


def _combined(members: list[Row]) -> Combined:
    """What a merged memory inherits: the highest importance, the highest confidence raised by
    each restatement merged into it, every recall."""
    accessed = [m.last_accessed for m in members if m.last_accessed is not None]
    raised = max(m.confidence for m in members) + RESTATED_CONFIDENCE * (len(members) - 1)
    return Combined(
        importance=max(m.importance for m in members),
        confidence=round(min(MAX_CONFIDENCE, max(raised, *(m.confidence for m in members))), 4),
        access_count=sum(m.access_count for m in members),
        last_accessed=max(accessed) if accessed else None,
    )
