"""Unranked full-text lookups for duplicate checks: which memories contain rare terms."""

import json
from collections.abc import Sequence

from cortex_mcp.search.query import quote_term
from cortex_mcp.search.stemming import match_terms
from cortex_mcp.store.db import Connection, fetch_all


async def document_counts(conn: Connection, terms: list[str]) -> dict[str, int]:
    """How many memories contain each term in their content, counted through the full-text
    index so that a word is stemmed as it was indexed ("lives" counts the memories holding
    "live"; the fts5vocab table lists only stems, so looking words up there finds nothing)."""
    if conn.dialect == "postgresql":
        return await _document_counts_pg(conn, terms)
    quoted = {quote_term(term): term for term in terms}
    rows = await fetch_all(
        conn,
        "select value, (select count(*) from memories_fts"
        " where memories_fts match 'terms : ' || value) from json_each(?)",
        (json.dumps(list(quoted)),),
    )
    return {quoted[row[0]]: int(row[1]) for row in rows if row[1]}


async def _document_counts_pg(conn: Connection, terms: list[str]) -> dict[str, int]:
    """The same counts from the term table: each word stemmed as FTS5 would."""
    stems = {term: match_terms(quote_term(term)) for term in terms}
    wanted = sorted({s for found in stems.values() for s in found})
    rows = await fetch_all(
        conn,
        "select term, count(*) from memory_terms where term = any(cast(? as text[]))"
        " and terms_tf > 0 group by term",
        (wanted,),
    )
    counts = {row[0]: int(row[1]) for row in rows}
    found = {term: min((counts.get(s, 0) for s in stems[term]), default=0) for term in terms}
    return {term: count for term, count in found.items() if count}


# CROSS JOIN keeps the full-text match as the outer loop: left to itself, SQLite walks every
# memory of the agent by index and tests the match row by row (9 s at 100,000 memories).
LIVE_CONTAINING = (
    "select m.id, m.content from memories_fts cross join memories m on m.seq = memories_fts.rowid"
    " where memories_fts match 'terms : (' || :match || ')' and m.agent_id is :agent_id"
    " and m.deleted_at is null and m.superseded_by is null limit :limit"
)


LIVE_CONTAINING_PG = (
    "select m.id, m.content from memories m where m.seq in (select seq from memory_terms"
    " where term = any(cast(:terms as text[])) and terms_tf > 0)"
    " and (cardinality(cast(:required as text[])) = 0 or m.seq in (select seq from memory_terms"
    " where term = any(cast(:required as text[])) and terms_tf > 0 group by seq"
    " having count(distinct term) = cardinality(cast(:required as text[]))))"
    " and m.agent_id is not distinct from cast(:agent_id as text)"
    " and m.deleted_at is null and m.superseded_by is null limit :limit"
)


async def live_containing(
    conn: Connection,
    match: str,
    agent_id: str | None,
    limit: int,
    required: Sequence[str] = (),
) -> list[tuple[str, str]]:
    """(id, content) of the live memories of exactly this scope whose content matches the
    expression (an OR of quoted terms) and holds every `required` term, unranked (the context
    column says what a memory was about, not what it says). Only the two columns: a common
    word can match thousands, and the caller compares texts."""
    if conn.dialect == "postgresql":
        wanted = sorted({stem for term in required for stem in match_terms(quote_term(term))})
        params = {"terms": match_terms(match), "required": wanted}
        rows = await fetch_all(
            conn, LIVE_CONTAINING_PG, params | {"agent_id": agent_id, "limit": limit}
        )
    else:
        expression = " AND ".join([f"({match})", *(quote_term(term) for term in required)])
        rows = await fetch_all(
            conn, LIVE_CONTAINING, {"match": expression, "agent_id": agent_id, "limit": limit}
        )
    return [(str(row["id"]), str(row["content"])) for row in rows]
