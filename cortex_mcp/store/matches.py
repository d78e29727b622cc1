"""Unranked full-text lookups for duplicate checks: which memories contain rare terms."""

import json

import aiosqlite

from cortex_mcp.models import Memory
from cortex_mcp.search.query import quote_term
from cortex_mcp.store.db import fetch_all
from cortex_mcp.store.memories import to_memory


async def document_counts(conn: aiosqlite.Connection, terms: list[str]) -> dict[str, int]:
    """How many memories contain each term in their content, counted through the full-text
    index so that a word is stemmed as it was indexed ("lives" counts the memories holding
    "live"; the fts5vocab table lists only stems, so looking words up there finds nothing)."""
    quoted = {quote_term(term): term for term in terms}
    rows = await fetch_all(
        conn,
        "select value, (select count(*) from memories_fts"
        " where memories_fts match 'terms : ' || value) from json_each(?)",
        (json.dumps(list(quoted)),),
    )
    return {quoted[row[0]]: int(row[1]) for row in rows if row[1]}


# CROSS JOIN keeps the full-text match as the outer loop: left to itself, SQLite walks every
# memory of the agent by index and tests the match row by row (9 s at 100,000 memories).
LIVE_CONTAINING = (
    "select m.* from memories_fts cross join memories m on m.seq = memories_fts.rowid"
    " where memories_fts match 'terms : (' || :match || ')' and m.agent_id is :agent_id"
    " and m.deleted_at is null and m.superseded_by is null limit :limit"
)


async def live_containing(
    conn: aiosqlite.Connection, match: str, agent_id: str | None, limit: int
) -> list[Memory]:
    """Live memories of exactly this scope whose content matches the expression, unranked
    (the context column says what a memory was about, not what it says)."""
    rows = await fetch_all(
        conn, LIVE_CONTAINING, {"match": match, "agent_id": agent_id, "limit": limit}
    )
    return [to_memory(row) for row in rows]
