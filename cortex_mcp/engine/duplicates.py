"""Exact and near duplicates: a restatement reinforces the existing memory instead of adding one.

Near means nearly the same terms *and* the same numbers, so a changed value ("budget 50M" →
"budget 30M") is never swallowed as a duplicate.
"""

import aiosqlite

from cortex_mcp.config import MemorySettings
from cortex_mcp.errors import InvalidInput
from cortex_mcp.models import Layer, Memory
from cortex_mcp.search.query import match_expression
from cortex_mcp.search.tokenize import jaccard, numbers_of, term_set
from cortex_mcp.store import fts
from cortex_mcp.store import memories as rows

NEAR_DUPLICATE_CANDIDATES = 5


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
    """An exact or near duplicate among the live memories of the same scope, or None."""
    exact = await rows.find_live_by_content(conn, content, agent_id)
    if exact is not None:
        return exact
    match = match_expression(content)
    if match is None:
        return None
    layers = [Layer.CORE, Layer.WORKING, Layer.ARCHIVE]
    visible_to = agent_id if agent_id is not None else ""
    for _, candidate in await fts.text_candidates(
        conn, match, visible_to, layers, None, NEAR_DUPLICATE_CANDIDATES
    ):
        if candidate.agent_id == agent_id and is_near_duplicate(
            content, candidate.content, settings.near_duplicate_jaccard
        ):
            return candidate
    return None
