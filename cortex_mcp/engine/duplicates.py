"""Exact and near duplicates: a restatement reinforces the existing memory instead of adding one.

Near means nearly the same terms *and* the same numbers, so a changed value ("budget 50M" →
"budget 30M") is never swallowed as a duplicate.
"""

import math

import aiosqlite

from cortex_mcp.config import MemorySettings
from cortex_mcp.errors import InvalidInput
from cortex_mcp.models import Memory
from cortex_mcp.search.query import quote_term
from cortex_mcp.search.tokenize import jaccard, numbers_of, term_set
from cortex_mcp.store import memories as rows
from cortex_mcp.store.matches import document_counts, live_containing

NEAR_DUPLICATE_SCAN = 2000
"""Memories examined at most for one near-duplicate check."""


def check_content(content: str, settings: MemorySettings, field: str = "content") -> str:
    """The content, stripped, or InvalidInput naming the field and the rule it breaks."""
    stripped = content.strip()
    if not stripped:
        raise InvalidInput(field, "must not be empty or only whitespace")
    if len(stripped) > settings.max_content_chars:
        raise InvalidInput(
            field, f"{len(stripped):,} characters; the limit is {settings.max_content_chars:,}"
        )
    return stripped


def is_near_duplicate(new: str, old: str, min_jaccard: float) -> bool:
    """Same numbers and nearly the same terms: a restatement, not a changed value."""
    if numbers_of(new) != numbers_of(old):
        return False
    return jaccard(term_set(new), term_set(old)) >= min_jaccard


async def find_duplicate(
    conn: aiosqlite.Connection, content: str, agent_id: str | None, settings: MemorySettings
) -> Memory | None:
    """An exact or near duplicate among the live memories of the same scope, or None.

    A near duplicate shares at least a fraction `j` of all terms, so it contains at least one
    of any `floor((1/j - 1) * n) + 1` of the n terms of `content`: searching the rarest of them,
    unranked, finds every near duplicate while scoring almost nothing.
    """
    exact = await rows.find_live_by_content(conn, content, agent_id)
    if exact is not None:
        return exact
    terms = sorted(term_set(content))
    if not terms:
        return None
    j = settings.near_duplicate_jaccard
    needed = math.floor((1 / j - 1) * len(terms)) + 1
    counts = await document_counts(conn, terms)
    rarest = sorted(terms, key=lambda term: (counts.get(term, 0), -len(term)))[:needed]
    match = " OR ".join(quote_term(term) for term in rarest)
    for candidate in await live_containing(conn, match, agent_id, NEAR_DUPLICATE_SCAN):
        if is_near_duplicate(content, candidate.content, j):
            return candidate
    return None
