"""The conversation log as a recall source: the messages that add something to the memories
shown, never a message whose memory is already in the block nor the same text twice. Its hits
and the memories matching the query compete for the same places (`with_log_hits`, #23).
"""

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from cortex_mcp.engine.message_matrix import MessageMatrix
from cortex_mcp.models import LogHit, Memory
from cortex_mcp.search.scoring import normalise_bm25, normalise_similarity
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
    key = text_key(text)
    if not key:
        return True
    for other in shown:
        other_key = text_key(other)
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


async def with_context(
    conn: Connection, found: list[tuple[float, LoggedMessage]], agent_id: str
) -> list[tuple[float, LoggedMessage]]:
    """The log's BM25 hits rescored with their surrounding turns: each message gets its own
    score plus `CONTEXT_WEIGHT` times those of the matching turns within `CONTEXT_TURNS` of it
    in the same session; a turn only its neighbours match joins the list. Best first (BM25
    scores are negative: lower is better)."""
    if not found:
        return []
    own = {message.seq: bm25 for bm25, message in found}
    messages = {message.seq: message for _, message in found}
    near = {
        seq + step
        for seq in own
        for step in range(-CONTEXT_TURNS, CONTEXT_TURNS + 1)
        if seq + step not in messages
    }
    for message in await log.visible_messages(conn, sorted(near), agent_id):
        if len(message.content.split()) >= MIN_CONTEXT_ONLY_WORDS:
            messages[message.seq] = message
    scored: list[tuple[float, LoggedMessage]] = []
    for seq, message in messages.items():
        around = sum(
            own[other]
            for step in range(-CONTEXT_TURNS, CONTEXT_TURNS + 1)
            if step
            and (other := seq + step) in own
            and messages[other].session_id == message.session_id
        )
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
    matrix: MessageMatrix | None = None


async def with_near_context(
    conn: Connection, found: list[tuple[float, LoggedMessage]], agent_id: str
) -> list[tuple[float, LoggedMessage]]:
    """The log's vector hits with their surrounding turns: every message is near the query
    to some degree, so context does not add up as for words (each hit's neighbours would outrank
    the nearest message standing alone); a message scores the better of its own score and
    `CONTEXT_WEIGHT` times its best neighbour's within `CONTEXT_TURNS` in its session, and a
    turn only its neighbours bring joins the list. Best first (lower is better)."""
    if not found:
        return []
    own = {message.seq: score for score, message in found}
    messages = {message.seq: message for _, message in found}
    near = {
        seq + step
        for seq in own
        for step in range(-CONTEXT_TURNS, CONTEXT_TURNS + 1)
        if seq + step not in messages
    }
    for message in await log.visible_messages(conn, sorted(near), agent_id):
        if len(message.content.split()) >= MIN_CONTEXT_ONLY_WORDS:
            messages[message.seq] = message
    scored: list[tuple[float, LoggedMessage]] = []
    for seq, message in messages.items():
        around = min(
            (
                own[other]
                for step in range(-CONTEXT_TURNS, CONTEXT_TURNS + 1)
                if step
                and (other := seq + step) in own
                and messages[other].session_id == message.session_id
            ),
            default=0.0,
        )
        scored.append((min(own.get(seq, 0.0), CONTEXT_WEIGHT * around), message))
    scored.sort(key=lambda pair: (pair[0], pair[1].seq))
    return scored


async def near_messages(
    conn: Connection, query: LogVector, agent_id: str, limit: int
) -> list[tuple[float, LoggedMessage]]:
    """The log's nearest messages to the query vector, as (minus normalised similarity,
    message) pairs (lower is better, like BM25), among the `limit * 4` nearest of the log."""
    matrix = query.matrix
    nearest = None
    if matrix is not None and matrix.usable(conn):
        nearest = await matrix.nearest(conn, query.vector, limit * 4)
    if nearest is not None:
        rows = await message_vectors.rows_of(conn, nearest, agent_id, limit)
    else:  # no matrix here, or not in step with the store yet
        rows = await message_vectors.nearest(conn, query.vector, agent_id, limit)
    messages = {str(row["seq"]): (distance, log.to_message(row)) for distance, row in rows}
    similarity = normalise_similarity({key: d for key, (d, _) in messages.items()})
    return [(-similarity[key], message) for key, (_, message) in messages.items()]


async def scored_messages(
    conn: Connection, match: str | None, vector: LogVector | None, agent_id: str, pool: int
) -> list[tuple[float, LoggedMessage]]:
    """(relevance in [0, 1], message), best first: the log's BM25 hits and (with a query
    vector) its nearest messages, each leg rescored with the surrounding turns, normalised to
    its best and weighed as the memories' text and vector scores are (#23)."""
    text = await with_context(
        conn, await log.search_log(conn, match, agent_id, pool) if match else [], agent_id
    )
    near: list[tuple[float, LoggedMessage]] = []
    if vector is not None:
        near = await with_near_context(
            conn, await near_messages(conn, vector, agent_id, pool), agent_id
        )
    if vector is None or not near:
        return list(zip(_normalised(text), [message for _, message in text], strict=True))
    text_weight, vector_weight = vector.text_weight, vector.vector_weight
    messages = {str(m.seq): m for _, m in [*text, *near]}
    if LOG_FUSION == "rrf":
        fused = _reciprocal_ranks([str(m.seq) for _, m in text], [str(m.seq) for _, m in near])
    else:
        by_text = normalise_bm25({str(m.seq): score for score, m in text})
        by_vector = normalise_bm25({str(m.seq): score for score, m in near})
        fused = {
            key: text_weight * by_text.get(key, 0.0) + vector_weight * by_vector.get(key, 0.0)
            for key in messages
        }
    top = max(fused.values(), default=0.0) or 1.0
    ranked = sorted(fused.items(), key=lambda pair: (-pair[1], messages[pair[0]].seq))
    return [(score / top, messages[key]) for key, score in ranked]


def _reciprocal_ranks(*legs: list[str]) -> dict[str, float]:
    """Each key's sum of 1 / (RRF_K + its rank) over the legs that found it, best first."""
    fused: dict[str, float] = {}
    for leg in legs:
        for rank, key in enumerate(leg, start=1):
            fused[key] = fused.get(key, 0.0) + 1.0 / (RRF_K + rank)
    return fused


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
    vector: LogVector | None = None,
) -> list[LogHit]:
    """The best messages of the log for `match` (and the query `vector`) that add something
    to the memories shown: none a shown memory came from, none repeating shown text. (The other
    side of a shown memory's exchange may show: a memory keeps it as context, searched but
    never shown.)"""
    if (match is None and vector is None) or limit <= 0:
        return []
    found = await scored_messages(conn, match, vector, agent_id, limit * 4 + 8)
    shown_ids = {m.id for m in shown}
    texts = [m.content for m in shown]
    hits: list[LogHit] = []
    for relevance, message in found:
        if shown_ids & set(message.memory_ids) or repeats(message.content, texts):
            continue
        texts.append(message.content)
        score = LOG_WEIGHT * relevance
        hits.append(
            LogHit(
                exchange_id=message.exchange_id,
                role=message.role,
                content=message.content,
                session_id=message.session_id,
                created_at=message.created_at,
                score=round(score, 6),
            )
        )
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
    vector: LogVector | None = None,
) -> tuple[list[tuple[Memory, float]], list[LogHit]]:
    """The memories and log hits to show, fused into one ranking of `max_results` places: a
    slot's `answers` first; then memories matching the query (`matched`) and log messages by
    their relevance, each normalised to the best of its kind (the log weighed by
    `LOG_WEIGHT`); then memories only a vector found (nearest is not relevant). A message whose
    memory is shown is not shown (the memory stands for it)."""
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
        vector=vector,
    )
    places: list[tuple[float, int, Memory | LogHit]] = [
        (2.0 if m.id in answered else score / top, i, m)
        for i, (m, score) in enumerate(ranked)
        if m.id in matched
    ]
    places += [(hit.score, len(ranked) + i, hit) for i, hit in enumerate(said)]
    places.sort(key=lambda place: (-place[0], place[1]))
    chosen = places[:max_results]
    scores = {m.id: score for m, score in ranked}
    strong = [(p, scores[p.id]) for _, _, p in chosen if isinstance(p, Memory)]
    kept_said = [p for _, _, p in chosen if isinstance(p, LogHit)]
    weak = [(m, score) for m, score in ranked if m.id not in matched]
    return strong + weak[: max(0, max_results - len(strong) - len(kept_said))], kept_said
