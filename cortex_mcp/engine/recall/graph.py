"""Recall that uses the graph: the entities a query (and its best hits) names pull in what is
one hop away.

Entities are found by their keys (`search.entities`): those the query names (its phrases looked
up by index) and those of the relations drawn from the best few text/vector hits, each with its
aliases. The live relations touching them are scored (`_score`) and their source memories join
the ranking with `search.graph_weight` × that score added to their relevance. The relations that
touch a query entity come back too: the context block shows one as a short line when it answers
better than its memory (no memory, or a long one).
"""

import time
from dataclasses import dataclass, field, replace

from cortex_mcp.config import SearchSettings
from cortex_mcp.engine.recall.question import Question
from cortex_mcp.models import Candidate, Category, Layer
from cortex_mcp.search.entities import (
    USER_KEY,
)
from cortex_mcp.search.scoring import Relevance
from cortex_mcp.search.tokenize import query_terms
from cortex_mcp.store import fts
from cortex_mcp.store import relations as graph_rows
from cortex_mcp.store.db import Connection
from cortex_mcp.store.relations import Relation

TOP_HITS = 5
"""How many of the best hits lend their entities to the expansion."""
HOP_LIMIT = 40
"""Relations read one hop away, at most (live ones, newest first)."""
ANSWER_LINES = 3
"""Relation lines the context block shows at most."""
HIT_SEED = 0.5
"""Weight of an entity found in a hit, against 1 for one the query names."""


@dataclass
class Expansion:
    """The ranking's relevance and candidates with the graph's share added, the relations that
    answer the query (best first) and what the step cost."""

    relevance: dict[str, Relevance]
    candidates: dict[str, Candidate]
    relations: list[Relation] = field(default_factory=list)
    elapsed_ms: float = 0.0


async def expand(
    conn: Connection,
    question: Question,
    relevance: dict[str, Relevance],
    candidates: dict[str, Candidate],
    *,
    agent_id: str,
    layers: list[Layer],
    categories: list[Category] | None,
    settings: SearchSettings,
    related: bool = True,
) -> Expansion:
    """The ranking with the memories and relations one hop from the query's entities;
    `related` False: the store holds no live relation, so there is nothing to find."""
    if settings.graph_weight <= 0 or not related:
        return Expansion(relevance, candidates)
    started = time.perf_counter()
    asked = await graph_rows.known_keys(conn, question.phrases, agent_id)
    best = sorted(relevance, key=lambda key: -relevance[key].fused_score)[:TOP_HITS]
    found = await graph_rows.relations_from(conn, best, agent_id)
    in_hits = [key for r in found for key in (r.subject_key, r.object_key)]
    if not asked and not in_hits:
        return Expansion(relevance, candidates, elapsed_ms=_since(started))
    asked = await graph_rows.merged_keys(conn, list(dict.fromkeys(asked)), agent_id)
    merged = await graph_rows.merged_keys(conn, in_hits, agent_id)
    hits = [k for k in merged if k not in asked and k != USER_KEY]  # the user is everywhere
    seeds = dict.fromkeys(hits, HIT_SEED) | dict.fromkeys(asked, 1.0)
    near = await graph_rows.relations_touching(conn, list(seeds), agent_id, limit=HOP_LIMIT)
    terms = question.folded_terms
    scored = sorted(
        ((_score(r, seeds, terms), r) for r in near), key=lambda pair: (-pair[0], pair[1].id)
    )
    pulled: dict[str, float] = {}
    for score, relation in scored:
        if score <= 0:
            break  # best first: the rest lend nothing
        if relation.source_memory_id and relation.source_memory_id not in pulled:
            pulled[relation.source_memory_id] = score
    fresh = [key for key in pulled if key not in candidates]
    found_candidates = await fts.candidates_by_id(conn, fresh, agent_id, layers, categories)
    candidates = candidates | found_candidates
    weight = settings.graph_weight
    boosted = dict(relevance)
    for key, score in pulled.items():
        if key not in candidates:
            continue
        now = boosted.get(key, Relevance())
        boosted[key] = replace(now, fused_score=now.fused_score + weight * score)
    answers = [r for score, r in scored if _touches(r, asked) and score > 0][:ANSWER_LINES]
    return Expansion(boosted, candidates, answers, _since(started))


def _touches(relation: Relation, keys: list[str]) -> bool:
    return relation.subject_key in keys or relation.object_key in keys


def _score(relation: Relation, seeds: dict[str, float], terms: list[str]) -> float:
    """How well a relation one hop away answers, times its confidence: one touching an entity
    the query names counts half, and the rest as its predicate or far end shares words with
    the query; one reached from a hit's entity, or from the user (named by one of their names),
    counts only by those shared words (a hit's at `HIT_SEED`), so a well-connected entity does
    not lift everything around it ("where does Priya work" lifts her workplace, not her cat)."""
    ends = [relation.subject_key, relation.object_key]
    seed = max(seeds.get(end, 0.0) for end in ends)
    far = " ".join(end for end in ends if end not in seeds)
    words = query_terms(f"{relation.predicate.casefold()} {far}")
    shared = sum(1 for term in terms if any(_alike(term, word) for word in words))
    lift = min(1.0, shared / max(1, len(terms)) * 2)
    named = [end for end in ends if seeds.get(end, 0.0) >= 1.0]
    base = 0.5 if any(end != USER_KEY for end in named) else 0.0  # the user touches everything
    return seed * relation.confidence * (base + (1 - base) * lift)


def _alike(a: str, b: str) -> bool:
    """The same word, or one a prefix of the other (work / works, 工作 / 工作室)."""
    return a == b or (min(len(a), len(b)) >= 3 and (a.startswith(b) or b.startswith(a)))


def _since(started: float) -> float:
    return (time.perf_counter() - started) * 1000
