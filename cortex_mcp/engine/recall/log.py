"""The conversation log as a recall source: the messages that add something to the memories
shown, never a message whose memory is already in the block nor the same text twice. It reads
the log as a last resort, after the memories and at a low weight (`LOG_WEIGHT`).
"""

import re
import unicodedata
from collections.abc import Sequence

from cortex_mcp.models import LogHit, Memory
from cortex_mcp.store import conversation as log
from cortex_mcp.store.db import Connection

LOG_WEIGHT = 0.3
"""A log hit's score is its normalised BM25 times this: always below the memories shown."""
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


async def log_hits(
    conn: Connection,
    match: str | None,
    *,
    agent_id: str,
    shown: Sequence[Memory],
    limit: int,
) -> list[LogHit]:
    """The best messages of the log for `match` that add something to the memories shown:
    none a shown memory came from, none repeating shown text. (The other side of a shown
    memory's exchange may show: a memory keeps it as context, searched but never shown.)"""
    if match is None or limit <= 0:
        return []
    found = await log.search_log(conn, match, agent_id, limit * 4 + 8)
    shown_ids = {m.id for m in shown}
    texts = [m.content for m in shown]
    best = min((bm25 for bm25, _ in found), default=0.0)
    hits: list[LogHit] = []
    for bm25, message in found:
        if shown_ids & set(message.memory_ids) or repeats(message.content, texts):
            continue
        texts.append(message.content)
        score = LOG_WEIGHT * (bm25 / best if best < 0 else 0.0)
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
) -> tuple[list[tuple[Memory, float]], list[LogHit]]:
    """The memories to show, with a slot's `answers` first, and the log hits for the places
    left: the log takes the places no memory matching the query's words (`matched`) holds,
    before memories only a vector found (nearest is not relevant)."""
    top = max((score for _, score in found), default=1.0)
    answered = {m.id for m in answers}
    matched = matched | answered
    ranked = [(m, top) for m in answers] + [x for x in found if x[0].id not in answered]
    ranked = ranked[:max_results]
    strong = [(m, score) for m, score in ranked if m.id in matched]
    said: list[LogHit] = []
    if len(strong) < max_results:
        shown = [m for m, _ in ranked]
        said = await log_hits(
            conn, match, agent_id=agent_id, shown=shown, limit=max_results - len(strong)
        )
    weak = [(m, score) for m, score in ranked if m.id not in matched]
    return strong + weak[: max(0, max_results - len(strong) - len(said))], said
