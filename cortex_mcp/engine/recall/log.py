"""The conversation log as a recall source: the messages that add something to the memories
shown, never a message whose memory is already in the block nor the same text twice. Its hits
and the memories matching the query compete for the same places (`with_log_hits`, #23).
"""

import re
import unicodedata
from collections.abc import Callable, Sequence

from cortex_mcp.engine.recall.fusion import Place, fused, key
from cortex_mcp.models import LogHit, Memory
from cortex_mcp.search.scoring import coverage, query_stems
from cortex_mcp.store import conversation as log
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


async def log_hits(
    conn: Connection,
    match: str | None,
    *,
    agent_id: str,
    shown: Sequence[Memory],
    limit: int,
    boost: Callable[[LoggedMessage], float] | None = None,
) -> list[tuple[LogHit, frozenset[str]]]:
    """The best messages of the log for `match` that add something to the memories shown,
    each with the ids of the memories extracted from it: none repeating a shown memory's text
    unless that memory came from it (the two compete in `fusion`, the better stands for both).
    (The other side of a shown memory's exchange may show: a memory keeps it as context,
    searched but never shown.)"""
    if match is None or limit <= 0:
        return []
    found = await with_context(
        conn, await log.search_log(conn, match, agent_id, limit * 4 + 8), agent_id
    )
    if boost is not None:  # a date the question names (BM25 is negative: lower is better)
        found = sorted(((bm25 * boost(m), m) for bm25, m in found), key=lambda p: (p[0], p[1].seq))
    best = min((bm25 for bm25, _ in found), default=0.0)
    hits: list[tuple[LogHit, frozenset[str]]] = []
    said: list[str] = []
    for bm25, message in found:
        links = frozenset(message.memory_ids)
        others = [m.content for m in shown if m.id not in links]
        if repeats(message.content, others + said):
            continue
        said.append(message.content)
        score = LOG_WEIGHT * (bm25 / best if best < 0 else 0.0)
        hit = LogHit(
            exchange_id=message.exchange_id,
            role=message.role,
            content=message.content,
            session_id=message.session_id,
            created_at=message.created_at,
            score=round(score, 6),
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
) -> tuple[list[tuple[Memory, float]], list[LogHit]]:
    """The memories and log hits to show, fused into one ranking of `max_results` places: a
    slot's `answers` first; then memories matching the query (`matched`) and log messages
    merged by `fusion.key` (each side's relevance normalised to its best, times the share of
    the query's `terms` it holds), a memory and the message it came from never both; then
    memories only a vector found (nearest is not relevant). A log hit's score is put on the
    memories' scale (their best score = its best), so the two lists sort together."""
    top = max((score for _, score in found), default=1.0) or 1.0
    answered = {m.id for m in answers}
    matched = matched | answered
    ranked = [(m, top) for m in answers] + [x for x in found if x[0].id not in answered]
    ranked = ranked[:max_results]
    said = await log_hits(
        conn, match, agent_id=agent_id, shown=[m for m, _ in ranked], limit=max_results, boost=boost
    )
    stems = query_stems(terms)
    held = {m.id: coverage(stems, m.content) for m, _ in ranked}  # what is shown of it
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
