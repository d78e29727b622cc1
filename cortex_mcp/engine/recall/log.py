"""The conversation log as a recall source: the messages that add something to the memories
shown, never a message whose memory is already in the block nor the same text twice. Its hits
and the memories matching the query compete for the same places (`with_log_hits`, #23).
"""

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from cortex_mcp.engine.language.patterns import only_asks
from cortex_mcp.engine.recall.fusion import Place, fused, key
from cortex_mcp.engine.recall.rank import nearest_first
from cortex_mcp.engine.vector_matrix import VectorMatrix
from cortex_mcp.models import LogHit, Memory
from cortex_mcp.search.scoring import (
    coverage,
    normalise_bm25,
    normalise_similarity,
    query_stems,
    says_little,
)
from cortex_mcp.store import conversation as log
from cortex_mcp.store import message_vectors
from cortex_mcp.store.conversation import LoggedMessage
from cortex_mcp.store.db import Connection

LOG_WEIGHT = 1.0
"""A log hit's score is its BM25 normalised to the best hit's, times this; a memory's is its
score normalised to the best memory's: the two compete for the same places."""
MIN_REPEAT_CHARS = 4
"""Shorter text ("OK") is not counted as a repeat inside a longer one."""


def text_key(text: str) -> str:
    """Text as compared for repeats: NFKC, case-folded, letters and digits only."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return re.sub(r"[\W_]+", "", folded)


def repeats(text: str, shown: Sequence[str]) -> bool:
    """True when `text` and something already shown contain one another."""
    return repeats_key(text_key(text), [text_key(other) for other in shown])


def repeats_key(key: str, shown: Sequence[str]) -> bool:
    """`repeats` on `text_key`s (each text folded once, however many it is compared with)."""
    if not key:
        return True
    for other_key in shown:
        short, long = sorted((key, other_key), key=len)
        if (len(short) >= MIN_REPEAT_CHARS or short == long) and short in long:
            return True
    return False


CONTEXT_TURNS = 2
"""A message is searched with the turns this close to it, before and after, in its session."""
CONTEXT_WEIGHT = 0.5
"""A word found in a message's surrounding turns counts this much of one found in it (the
weight that measured best for a memory's context)."""


MIN_CONTEXT_ONLY_WORDS = 4
"""A turn only its neighbours match joins the list when it has this many words ("OK." does
not: it says nothing on its own)."""


def _with_turns(
    found: list[tuple[float, LoggedMessage]], turns: list[LoggedMessage]
) -> tuple[dict[int, float], dict[int, LoggedMessage]]:
    """Each hit's own score by seq, and the hits with `turns` (the visible messages within
    `CONTEXT_TURNS` of them; a turn only a neighbour brings needs `MIN_CONTEXT_ONLY_WORDS`)."""
    own = {message.seq: score for score, message in found}
    messages = {message.seq: message for _, message in found}
    for message in turns:
        if message.seq not in messages and len(message.content.split()) >= MIN_CONTEXT_ONLY_WORDS:
            messages[message.seq] = message
    return own, messages


STEPS = [step for step in range(-CONTEXT_TURNS, CONTEXT_TURNS + 1) if step]
"""How far a neighbour may be, in the order its score is counted (nearest before last)."""


def _neighbour_scores(
    own: dict[int, float], messages: dict[int, LoggedMessage]
) -> dict[int, list[float]]:
    """For each message with any, the own scores of the hits within `CONTEXT_TURNS` of it in
    its session, in `STEPS` order (each hit gives its score to its neighbours: a recall has a
    few dozen hits among a few hundred messages)."""
    around: dict[int, list[float]] = {}
    for step in STEPS:  # message seq + step is the hit
        for hit, score in own.items():
            seq = hit - step
            message = messages.get(seq)
            if message is not None and message.session_id == messages[hit].session_id:
                around.setdefault(seq, []).append(score)
    return around


def with_context(
    found: list[tuple[float, LoggedMessage]], turns: list[LoggedMessage]
) -> list[tuple[float, LoggedMessage]]:
    """The log's BM25 hits rescored with their surrounding turns (`turns`: the visible
    messages within `CONTEXT_TURNS` of them): each message gets its own score plus
    `CONTEXT_WEIGHT` times those of the matching turns within `CONTEXT_TURNS` of it in the same
    session; a turn only its neighbours match joins the list. Best first (BM25 scores are
    negative: lower is better)."""
    own, messages = _with_turns(found, turns)
    neighbours = _neighbour_scores(own, messages)
    scored: list[tuple[float, LoggedMessage]] = []
    for seq, message in messages.items():
        around = sum(neighbours.get(seq, ()))
        scored.append((own.get(seq, 0.0) + CONTEXT_WEIGHT * around, message))
    scored.sort(key=lambda pair: (pair[0], pair[1].seq))
    return scored


LOG_FUSION = "weighted"
"""How the log's BM25 and vector legs combine: the memories' weighted scores ("weighted": BM25
over the best and cosine min-max, 0.6 / 0.4) or reciprocal ranks ("rrf": a message first by
meaning stands beside the one first by words). Weighted measured better on LoCoMo dev via
ingest (conv-26 0.705 against 0.687, conv-30 0.808 against 0.753; docs/benchmarks.md)."""
RRF_K = 60


@dataclass(frozen=True)
class LogVector:
    """The query's vector, the weights of the text and vector scores (the memories' fusion)
    and the log's vectors in memory (None: sqlite-vec or pgvector answers)."""

    vector: list[float]
    text_weight: float
    vector_weight: float
    matrix: VectorMatrix | None = None


async def with_near_context(
    conn: Connection, found: list[tuple[float, LoggedMessage]], agent_id: str
) -> list[tuple[float, LoggedMessage]]:
    """`near_context` with the turns around the hits read from the store."""
    turns = log.around_seqs(found, CONTEXT_TURNS)
    return near_context(found, await log.visible_messages(conn, turns, agent_id) if turns else [])


def near_context(
    found: list[tuple[float, LoggedMessage]], turns: list[LoggedMessage]
) -> list[tuple[float, LoggedMessage]]:
    """The log's vector hits with their surrounding turns (`turns`: the visible messages
    within `CONTEXT_TURNS` of them): every message is near the query to some degree, so
    context does not add up as for words (each hit's neighbours would outrank the nearest
    message standing alone); a message scores the better of its own score and
    `CONTEXT_WEIGHT` times its best neighbour's within `CONTEXT_TURNS` in its session, and a
    turn only its neighbours bring joins the list. Best first (lower is better)."""
    own, messages = _with_turns(found, turns)
    neighbours = _neighbour_scores(own, messages)
    scored: list[tuple[float, LoggedMessage]] = []
    for seq, message in messages.items():
        around = min(neighbours.get(seq, ()), default=0.0)
        scored.append((min(own.get(seq, 0.0), CONTEXT_WEIGHT * around), message))
    scored.sort(key=lambda pair: (pair[0], pair[1].seq))
    return scored


async def near_messages(
    conn: Connection, query: LogVector, agent_id: str, limit: int
) -> list[tuple[float, LoggedMessage]]:
    """The log's nearest messages to the query vector, as (minus normalised similarity,
    message) pairs (lower is better, like BM25), among the `limit * 4` nearest of the log."""
    return [(score, message) for score, message, _ in await _near(conn, query, agent_id, limit)]


async def _near(
    conn: Connection, query: LogVector, agent_id: str, limit: int
) -> list[tuple[float, LoggedMessage, float]]:
    """`near_messages` with each message's cosine similarity to the query (for the floor)."""
    return (await _near_around(conn, query, agent_id, limit, 0))[0]


async def _near_around(
    conn: Connection, query: LogVector, agent_id: str, limit: int, turns: int
) -> tuple[list[tuple[float, LoggedMessage, float]], list[LoggedMessage] | None]:
    """`_near`, and the visible messages within `turns` of its messages when they came in
    the same read (the log's vectors in memory; None: read them apart)."""
    matrix = query.matrix
    nearest = None
    if matrix is not None and matrix.usable(conn):
        nearest = await matrix.nearest(conn, query.vector, limit * 4)
    around: list[log.NearAround] = []
    if nearest is not None:

        async def read(pairs: list[tuple[int, float]]) -> list[tuple[float, Any]]:
            around[:] = [await log.nearest_around(conn, pairs, agent_id, limit, turns)]
            return around[0].hits

        rows = await nearest_first(nearest, limit, read)
    else:  # no matrix here, or not in step with the store yet
        rows = await message_vectors.nearest(conn, query.vector, agent_id, limit)
    messages = {str(row["seq"]): (distance, log.to_message(row)) for distance, row in rows}
    similarity = normalise_similarity({key: d for key, (d, _) in messages.items()})
    found = [(-similarity[key], m, 1.0 - d) for key, (d, m) in messages.items()]
    return found, around[0].turns if around else None


def log_pool(limit: int) -> int:
    """How many hits each leg of the log's search takes for `limit` places."""
    return limit * 4 + 8


async def text_messages(
    conn: Connection, match: str | None, agent_id: str, pool: int
) -> list[tuple[float, LoggedMessage]]:
    """The log's text leg: its BM25 hits rescored with their surrounding turns (it needs no
    query vector, so it can run while the query is embedded): one read of the store for the
    hits and the turns around them."""
    if not match:
        return []
    found = await log.search_log_around(conn, match, agent_id, pool, CONTEXT_TURNS)
    return with_context(found.hits, found.turns)


@dataclass(frozen=True)
class NearLeg:
    """The log's vector leg: its nearest messages rescored with their surrounding turns (best
    first, lower is better) and each nearest message's cosine similarity to the query."""

    near: list[tuple[float, LoggedMessage]]
    cosines: dict[int, float]


async def vector_messages(conn: Connection, vector: LogVector, agent_id: str, pool: int) -> NearLeg:
    """The log's vector leg (it needs only the query's vector, so it can run beside the
    memories' ranking)."""
    nearest, turns = await _near_around(conn, vector, agent_id, pool, CONTEXT_TURNS)
    cosines = {message.seq: cosine for _, message, cosine in nearest}
    found = [(s, m) for s, m, _ in nearest]
    if turns is None:
        return NearLeg(await with_near_context(conn, found, agent_id), cosines)
    return NearLeg(near_context(found, turns), cosines)


async def scored_messages(
    conn: Connection,
    match: str | None,
    vector: LogVector | None,
    agent_id: str,
    pool: int,
    text: list[tuple[float, LoggedMessage]] | None = None,
    leg: NearLeg | None = None,
) -> tuple[list[tuple[float, LoggedMessage]], dict[int, float]]:
    """(relevance in [0, 1], message), best first: the log's BM25 hits (`text`: already found
    by `text_messages`) and (with a query vector) its nearest messages (`leg`: already found
    by `vector_messages`), each leg rescored with the surrounding turns, normalised to its best
    and weighed as the memories' text and vector scores are (#23)."""
    if text is None:
        text = await text_messages(conn, match, agent_id, pool)
    near: list[tuple[float, LoggedMessage]] = []
    cosines: dict[int, float] = {}
    if vector is not None:
        if leg is None:
            leg = await vector_messages(conn, vector, agent_id, pool)
        near, cosines = leg.near, leg.cosines
    if vector is None or not near:
        return list(zip(_normalised(text), [m for _, m in text], strict=True)), cosines
    text_weight, vector_weight = vector.text_weight, vector.vector_weight
    messages = {str(m.seq): m for _, m in [*text, *near]}
    if LOG_FUSION == "rrf":
        combined = _reciprocal_ranks([str(m.seq) for _, m in text], [str(m.seq) for _, m in near])
    else:
        by_text = normalise_bm25({str(m.seq): score for score, m in text})
        by_vector = normalise_bm25({str(m.seq): score for score, m in near})
        combined = {
            key: text_weight * by_text.get(key, 0.0) + vector_weight * by_vector.get(key, 0.0)
            for key in messages
        }
    top = max(combined.values(), default=0.0) or 1.0
    ranked = sorted(combined.items(), key=lambda pair: (-pair[1], messages[pair[0]].seq))
    return [(score / top, messages[key]) for key, score in ranked], cosines


def _reciprocal_ranks(*legs: list[str]) -> dict[str, float]:
    """Each key's sum of 1 / (RRF_K + its rank) over the legs that found it, best first."""
    summed: dict[str, float] = {}
    for leg in legs:
        for rank, item in enumerate(leg, start=1):
            summed[item] = summed.get(item, 0.0) + 1.0 / (RRF_K + rank)
    return summed


def _normalised(found: list[tuple[float, LoggedMessage]]) -> list[float]:
    """BM25-like scores (lower is better) over the best, in order."""
    best = min((score for score, _ in found), default=0.0)
    return [score / best if best < 0 else 0.0 for score, _ in found]


async def log_hits(
    conn: Connection,
    match: str | None,
    *,
    agent_id: str,
    shown: Sequence[Memory],
    limit: int,
    boost: Callable[[LoggedMessage], float] | None = None,
    vector: LogVector | None = None,
    text: list[tuple[float, LoggedMessage]] | None = None,
    leg: NearLeg | None = None,
    asked: str = "",
) -> list[tuple[LogHit, frozenset[str]]]:
    """The best messages of the log for `match` that add something to the memories shown,
    each with the ids of the memories extracted from it: none repeating a shown memory's text
    unless that memory came from it (the two compete in `fusion`, the better stands for both),
    and none that is the question `asked` itself, asked before (it answers nothing).
    (The other side of a shown memory's exchange may show: a memory keeps it as context,
    searched but never shown.)"""
    if (match is None and vector is None) or limit <= 0:
        return []
    found, cosines = await scored_messages(
        conn, match, vector, agent_id, log_pool(limit), text, leg
    )
    if boost is not None:  # a date the question names (relevance: higher is better)
        found = sorted(((rel * boost(m), m) for rel, m in found), key=lambda p: (-p[0], p[1].seq))
    best = max((relevance for relevance, _ in found), default=0.0) or 1.0
    hits: list[tuple[LogHit, frozenset[str]]] = []
    said: list[str] = []
    shown_keys = [(m.id, text_key(m.content)) for m in shown]
    question = text_key(asked)
    for relevance, message in found:
        links = frozenset(message.memory_ids)
        others = [k for memory_id, k in shown_keys if memory_id not in links]
        key = text_key(message.content)
        asks = only_asks(message.content)
        if (key == question and asks) or repeats_key(key, others + said):
            continue  # the question asked before; a statement the query quotes stays
        said.append(key)
        score = LOG_WEIGHT * relevance / best
        hit = LogHit(
            exchange_id=message.exchange_id,
            role=message.role,
            content=message.content,
            session_id=message.session_id,
            created_at=message.created_at,
            score=round(score, 6),
            question=asks,
            cosine=cosines.get(message.seq),
        )
        hits.append((hit, links))
        if len(hits) == limit:
            break
    return hits


async def with_log_hits(
    conn: Connection,
    match: str | None,
    agent_id: str,
    found: list[tuple[Memory, float]],
    matched: set[str],
    answers: list[Memory],
    max_results: int,
    terms: Sequence[str] = (),
    boost: Callable[[LoggedMessage], float] | None = None,
    vector: LogVector | None = None,
    text: list[tuple[float, LoggedMessage]] | None = None,
    leg: NearLeg | None = None,
    asked: str = "",
) -> tuple[list[tuple[Memory, float]], list[LogHit]]:
    """The memories and log hits to show, fused into one ranking of `max_results` places: a
    slot's `answers` first; then memories matching the query (`matched`) and log messages
    merged by `fusion.key` (each side's relevance normalised to its best, times the share of
    the query's `terms` it holds), a memory and the message it came from never both; then
    memories only a vector found (nearest is not relevant). A log hit's score is put on the
    memories' scale (their best score = its best), so the two lists sort together. `text`: the
    log's text leg when it was searched already (`text_messages`), `leg` its vector leg
    (`vector_messages`)."""
    top = max((score for _, score in found), default=1.0) or 1.0
    answered = {m.id for m in answers}
    matched = matched | answered
    ranked = [(m, top) for m in answers] + [x for x in found if x[0].id not in answered]
    ranked = ranked[:max_results]
    said = await log_hits(
        conn,
        match,
        agent_id=agent_id,
        shown=[m for m, _ in ranked],
        limit=max_results,
        boost=boost,
        vector=vector,
        text=text,
        leg=leg,
        asked=asked,
    )
    stems = query_stems(terms)
    linked = {i for _, links in said for i in links}
    held = {  # what is shown of it (only of the memories it is asked for)
        m.id: coverage(stems, m.content) for m, _ in ranked if m.id in matched or m.id in linked
    }
    memories: list[Place[Memory | LogHit]] = [
        Place(2.0 if m.id in answered else key(score / top, held[m.id]), m, frozenset([m.id]))
        for m, score in ranked
        if m.id in matched
    ]
    messages: list[Place[Memory | LogHit]] = []
    for hit, links in said:
        covered = coverage(stems, hit.content)
        if covered <= max((held[i] for i in links if i in held), default=-1.0):
            continue  # it holds nothing of the question its memory does not: the memory stands
        if not covered and says_little(hit.content):
            continue  # "Got it.": near any question by its vector, an answer to none
        messages.append(Place(key(hit.score, covered), hit, links))
    chosen = fused(memories, messages, max_results)
    scores = {m.id: score for m, score in ranked}
    strong = [(p.item, scores[p.item.id]) for p in chosen if isinstance(p.item, Memory)]
    kept_said = [
        p.item.model_copy(update={"score": round(p.item.score * top, 6)})
        for p in chosen
        if isinstance(p.item, LogHit)
    ]
    taken = {m.id for m, _ in strong} | {i for p in chosen for i in p.links}
    weak = [(m, score) for m, score in ranked if m.id not in matched and m.id not in taken]
    return strong + weak[: max(0, max_results - len(strong) - len(kept_said))], kept_said
