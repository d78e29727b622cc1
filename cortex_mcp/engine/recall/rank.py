"""Ranking: candidates from full text, vectors, dates and the graph, fused, scored, best first."""

import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import cached_property, lru_cache, partial
from typing import Any, TypeVar

import anyio

from cortex_mcp.clock import Clock
from cortex_mcp.config import SearchSettings
from cortex_mcp.engine.embedding import VectorIndex
from cortex_mcp.engine.language.patterns import ends_asking
from cortex_mcp.engine.recall.graph import expand
from cortex_mcp.engine.recall.question import Question
from cortex_mcp.engine.vector_matrix import VectorMatrix
from cortex_mcp.models import (
    BackendTiming,
    Candidate,
    Category,
    Layer,
    ScoreBreakdown,
    SearchHit,
)
from cortex_mcp.search.scoring import (
    Relevance,
    date_boost,
    final_score,
    fuse,
    layer_weight,
    score_candidate,
    with_dated,
)
from cortex_mcp.store import dates, fts
from cortex_mcp.store import memories as rows
from cortex_mcp.store.db import Connection, Database
from cortex_mcp.store.relations import Relation
from cortex_mcp.store.shape import StoreShape, change_mark, store_shape
from cortex_mcp.store.vectors import candidates_of, vector_candidates


@dataclass(frozen=True)
class Scored:
    """A candidate, its place in the ranking and why (`score`, put together when first asked
    for: a recall shows a few of its hundred candidates)."""

    rank: int
    candidate: Candidate
    final_score: float
    explain: Callable[[], ScoreBreakdown] = field(repr=False, compare=False)

    @cached_property
    def score(self) -> ScoreBreakdown:
        """Every factor of the candidate's score; its `final_score` is this one's."""
        return self.explain()


@dataclass(frozen=True)
class Ranking:
    """Every ranked candidate for a query, and what each backend did."""

    terms_match: str | None
    scored: list[Scored]
    backends: list[BackendTiming]
    relations: list[Relation] = field(default_factory=list)
    store: StoreShape | None = None
    """What the store held as it ranked (None: not known), so a later step of the same read
    can skip a leg that cannot find anything."""


Then = Callable[[Connection, Ranking, list[SearchHit]], Coroutine[Any, Any, None]]
"""What a search does with its ranking in the read that ranked."""


@dataclass(frozen=True)
class TextCandidates:
    """What full-text search found for a query: (bm25, candidate) pairs, and how it went."""

    match: str | None
    found: list[tuple[float, Candidate]]
    timing: BackendTiming
    memories: dict[str, Any] = field(default_factory=dict)
    """The found memories' rows by id (read with them: `search_hits` needs no statement for
    the ones it shows)."""
    version: int | None = None
    """The store's `data_version` in the snapshot that found them (SQLite; store/shape.py)."""


async def text_candidates(
    conn: Connection,
    question: Question,
    *,
    agent_id: str,
    layers: list[Layer],
    categories: list[Category] | None,
    settings: SearchSettings,
) -> TextCandidates:
    """BM25 candidates of the query's terms (none when it has no searchable term)."""
    match = question.match
    started = time.perf_counter()
    found: list[tuple[float, Candidate]] = []
    memories: dict[str, Any] = {}
    version = None
    if match is not None:
        read = await fts.text_rows(
            conn,
            match,
            agent_id,
            layers,
            categories,
            settings.candidate_limit,
            settings.context_weight,
        )
        found = [(row["bm25"], rows.to_candidate(row)) for row in read]
        memories = {row["id"]: row for row in read}
        if read and conn.dialect == "sqlite":
            version = read[0]["data_version"]
    timing = BackendTiming(
        name="fts5-bm25",
        available=True,
        candidates=len(found),
        elapsed_ms=(time.perf_counter() - started) * 1000,
        note=None if match else "query has no searchable terms",
    )
    return TextCandidates(match, found, timing, memories, version)


async def rank(
    conn: Connection,
    question: Question,
    text: TextCandidates,
    *,
    agent_id: str,
    layers: list[Layer],
    categories: list[Category] | None,
    settings: SearchSettings,
    now: datetime,
    query_vector: list[float] | None = None,
    vector_backend: BackendTiming | None = None,
    matrix: VectorMatrix | None = None,
    store: StoreShape | None = None,
) -> Ranking:
    """The text candidates and the query vector's nearest memories (from the memories'
    `matrix` when it is in step with the store, else sqlite-vec), scored, best first; `store`:
    what the store holds (the graph step is skipped when it holds no relation)."""
    backends = [text.timing]
    near: list[tuple[float, Candidate]] = []
    if query_vector is not None and vector_backend is not None:
        started = time.perf_counter()
        near = await nearest_memories(
            conn, query_vector, agent_id, layers, categories, settings.candidate_limit, matrix
        )
        vector_backend.candidates = len(near)
        vector_backend.elapsed_ms += (time.perf_counter() - started) * 1000
    if vector_backend is not None:
        backends.append(vector_backend)
    spans, when = question.spans, question.asks_when
    dated = await dates.dated_candidates(
        conn, spans, agent_id, layers, categories, settings.candidate_limit
    )
    candidates = {candidate.id: candidate for _, candidate in [*text.found, *near]}
    candidates = {candidate.id: candidate for candidate in dated} | candidates
    relevance = fuse(
        {candidate.id: bm25 for bm25, candidate in text.found},
        {candidate.id: distance for distance, candidate in near},
        settings,
    )
    relevance = with_dated(relevance, [candidate.id for candidate in dated], settings)
    graph = await expand(
        conn,
        question,
        relevance,
        candidates,
        agent_id=agent_id,
        layers=layers,
        categories=categories,
        settings=settings,
        related=store is None or store.relations,
    )
    relevance, candidates = graph.relevance, graph.candidates
    relevance = asking_weighed(relevance, candidates, settings.question_weight)
    mentioned = await dates.mentions(conn, list(candidates)) if spans or when else {}
    scored: list[tuple[Candidate, float, Callable[[], ScoreBreakdown]]] = []
    weights = {layer: layer_weight(layer, settings) for layer in Layer}
    for key, value in relevance.items():
        candidate = candidates[key]
        boost = date_boost(candidate.created_at, spans, settings, mentioned.get(key, ()), when)
        factors = (value, candidate.layer, candidate.updated_at, candidate.access_count, now)
        scored.append(
            (
                candidate,
                final_score(*factors, settings, boost, weights),
                partial(score_candidate, *factors, settings, boost),
            )
        )
    scored.sort(key=lambda entry: (-entry[1], entry[0].id))
    ranked = [
        Scored(rank=i, candidate=candidate, final_score=final, explain=explain)
        for i, (candidate, final, explain) in enumerate(scored, start=1)
    ]
    return Ranking(text.match, ranked, backends, graph.relations, store)


def asking_weighed(
    relevance: dict[str, Relevance], candidates: dict[str, Candidate], weight: float
) -> dict[str, Relevance]:
    """The relevance of a memory that ends asking a question times `weight` (#23)."""
    if weight == 1.0:
        return relevance
    return {
        key: replace(value, fused_score=value.fused_score * weight)
        if asks(candidates[key].content_key)
        else value
        for key, value in relevance.items()
    }


asks = lru_cache(maxsize=8192)(ends_asking)
"""`ends_asking` of a memory's content key, kept: the same memories come back recall after
recall, and a content key never changes."""


async def nearest_memories(
    conn: Connection,
    query: list[float],
    agent_id: str,
    layers: list[Layer],
    categories: list[Category] | None,
    limit: int,
    matrix: VectorMatrix | None,
) -> list[tuple[float, Candidate]]:
    """(cosine distance, candidate) of the nearest live memories the agent may see, among
    the `limit * 4` nearest of the store (as sqlite-vec's KNN does)."""
    found = None
    if matrix is not None and matrix.usable(conn):
        found = await matrix.nearest(conn, query, limit * 4)
    if found is None:  # no matrix here, or not in step with the store yet
        return await vector_candidates(conn, query, agent_id, layers, categories, limit)
    return await nearest_first(
        found, limit, lambda pairs: candidates_of(conn, pairs, agent_id, layers, categories, limit)
    )


NEAREST_FIRST = 1.5
"""The share of `limit` nearest neighbours read from the store first (`nearest_first`)."""

Found = TypeVar("Found")


async def nearest_first(
    nearest: list[tuple[int, float]],
    limit: int,
    read: Callable[[list[tuple[int, float]]], Awaitable[list[Found]]],
) -> list[Found]:
    """`read(nearest)` (the best `limit` of the nearest that pass the store's filters), reading
    only the first `NEAREST_FIRST * limit` of them when those already give `limit` (the same
    answer: every one further is farther; most of a store is visible to its agent) and all of
    them otherwise."""
    first = nearest[: int(limit * NEAREST_FIRST)]
    found = await read(first)
    if len(found) < limit and len(first) < len(nearest):
        found = await read(nearest)
    return found


async def find(
    db: Database,
    index: VectorIndex,
    question: Question,
    *,
    agent_id: str,
    layers: list[Layer],
    categories: list[Category] | None,
    settings: SearchSettings,
    clock: Clock,
    keep: int | None,
    meanwhile: Callable[[Connection], Coroutine[Any, Any, None]] | None = None,
    alongside: Callable[[Connection, list[float]], Coroutine[Any, Any, None]] | None = None,
    then: Then | None = None,
    repeats: bool = False,
) -> tuple[Ranking, list[SearchHit]]:
    """Rank every backend's candidates for `query`; read in full the best `keep` distinct ones
    (None: all; `repeats`: the best `keep`, a text said in two projects twice, for a project
    step after this one to choose from).

    The query is embedded outside any transaction while full-text search runs, and then
    `meanwhile` (other work that needs no vector), in the same read, so the slower side sets
    the pace. It is embedded only when the stored vectors can answer; when they cannot (none
    configured, or being re-embedded) the whole search is one read of the store and `meanwhile`
    is not run. `alongside` (other work that needs the vector, such as the log's vector leg)
    runs in the same read as the ranking, beside it, once the vector is there; `then` (what
    follows from the ranking) at the end of that read. So a recall takes two turns on the
    connection, and a stream of writes delays it at most twice (#28).
    """
    where: dict[str, Any] = {"agent_id": agent_id, "layers": layers, "categories": categories}
    embedded: list[tuple[list[float] | None, BackendTiming]] = []

    async def embed() -> None:
        embedded.append(await _query_vector(index, question.text, vector_backend(db)))

    async with anyio.create_task_group() as group, db.read() as conn:
        searchable = await index.searchable(conn)
        if searchable:
            group.start_soon(embed)
        text = await text_candidates(conn, question, **where, settings=settings)
        store = await store_shape(conn, db, change_mark(db, text.version))
        if not searchable:
            off = _vectors_off(db, index)
            ranking = await rank(
                conn,
                question,
                text,
                **where,
                settings=settings,
                now=clock(),
                vector_backend=off,
                store=store,
            )
            hits = await search_hits(conn, _chosen(ranking, keep, repeats), text.memories)
            if then is not None:
                await then(conn, ranking, hits)
            return ranking, hits
        if meanwhile is not None:
            await meanwhile(conn)
    [(vector, backend)] = embedded
    async with db.read() as conn:
        if vector is not None and not await index.searchable(conn):
            vector, backend = None, _vectors_off(db, index)  # the model changed meanwhile
        async with anyio.create_task_group() as beside:
            if alongside is not None and vector is not None:
                beside.start_soon(alongside, conn, vector)
            ranking = await rank(
                conn,
                question,
                text,
                **where,
                settings=settings,
                now=clock(),
                query_vector=vector,
                vector_backend=backend,
                matrix=index.kept,
            )
            hits = await search_hits(conn, _chosen(ranking, keep, repeats))
        if then is not None:
            await then(conn, ranking, hits)
        return ranking, hits


def _chosen(ranking: Ranking, keep: int | None, repeats: bool = False) -> list[Scored]:
    if keep is None:
        return ranking.scored
    return ranking.scored[:keep] if repeats else distinct(ranking.scored, keep)


def _vectors_off(db: Database, index: VectorIndex) -> BackendTiming:
    """The vector backend's report when it cannot take part in this search, and why."""
    if not db.has_vectors:
        note = f"sqlite-vec unavailable: {db.note}"
    elif not index.configured:
        note = index.embedder.note or "no embedding provider"
    else:
        note = "no vector of the configured model yet (being embedded); BM25 only until one is"
    return BackendTiming(
        name=vector_backend(db), available=False, candidates=0, elapsed_ms=0, note=note
    )


def vector_backend(db: Database) -> str:
    """The vector search's name in reports: sqlite-vec, or pgvector on PostgreSQL."""
    return "pgvector" if db.dialect == "postgresql" else "sqlite-vec"


async def _query_vector(
    index: VectorIndex, query: str, backend: str
) -> tuple[list[float] | None, BackendTiming]:
    """The query's vector (None when the embedder did not answer) and the backend's report."""
    started = time.perf_counter()
    vector = await index.query_vector(query)
    return vector, BackendTiming(
        name=backend,
        available=vector is not None,
        candidates=0,
        elapsed_ms=(time.perf_counter() - started) * 1000,
        note=None if vector is not None else "the embedding provider did not answer",
    )


def distinct(scored: list[Scored], limit: int) -> list[Scored]:
    """The best `limit` candidates, skipping any whose content repeats an earlier one."""
    seen: set[str] = set()
    kept: list[Scored] = []
    for entry in scored:
        if entry.candidate.content_key not in seen:
            seen.add(entry.candidate.content_key)
            kept.append(entry)
        if len(kept) == limit:
            break
    return kept


async def search_hits(
    conn: Connection, scored: list[Scored], known: dict[str, Any] | None = None
) -> list[SearchHit]:
    """The chosen candidates as hits with their full memories, in ranking order; `known`: rows
    of memories read already in this transaction (the rest are read now, if any)."""
    known = known or {}
    memories = {key: rows.to_memory(known[key]) for e in scored if (key := e.candidate.id) in known}
    missing = [entry.candidate.id for entry in scored if entry.candidate.id not in memories]
    if missing:
        memories |= await rows.memories_by_id(conn, missing)
    return [
        SearchHit(rank=entry.rank, memory=memories[entry.candidate.id], score=entry.score)
        for entry in scored
        if entry.candidate.id in memories
    ]
