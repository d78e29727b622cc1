"""Full-text candidates: FTS5 bm25() over the CJK-aware terms, filtered to what may be recalled."""

import json
from typing import Any

from cortex_mcp.models import Candidate, Category, Layer
from cortex_mcp.search.stemming import match_terms
from cortex_mcp.store.db import Connection, Sql, fetch_all
from cortex_mcp.store.memories import to_candidate
from cortex_mcp.store.scope import sees_shared
from cortex_mcp.store.shape import VERSION_COLUMN
from cortex_mcp.store.terms import MEMORY_BM25

SLIM = "m.id, m.layer, m.created_at, m.updated_at, m.access_count, m.content_key"
"""The columns a ranking candidate needs (`to_candidate`)."""
WHOLE = "m.*"
"""Every column: the memory itself (`to_memory`), so a recall reads the few it shows with their
candidates rather than in a statement of their own (#28 item 7)."""

_CANDIDATES = (
    "select bm25(memories_fts, 1.0, :context_weight) as bm25, {columns}, {version}"
    " from memories_fts"
    " join memories m on m.seq = memories_fts.rowid"
    " where memories_fts match :match"
    " and (m.agent_id = :agent_id or (m.agent_id is null and :shared))"
    " and m.deleted_at is null and m.superseded_by is null"
    " and m.layer in (select value from json_each(:layers))"
    " and (:categories is null or m.category in (select value from json_each(:categories)))"
    " order by bm25 limit {limit}"
)
_TOP_FIRST = (
    "with t as materialized (select rowid, bm25(memories_fts, 1.0, :context_weight) as bm25"
    " from memories_fts where memories_fts match :match order by bm25 limit {pool})"
    " select t.bm25, {columns}, (select count(*) from t) as pooled, {version}"
    " from t cross join memories m on m.seq = t.rowid"
    " where (m.agent_id = :agent_id or (m.agent_id is null and :shared))"
    " and m.deleted_at is null and m.superseded_by is null"
    " and m.layer in (select value from json_each(:layers))"
    " and (:categories is null or m.category in (select value from json_each(:categories)))"
    " order by t.bm25 limit {limit}"
)
"""The best `pool` matches first, then the filters on those only: joining every match to its
memory before ranking cost 1.5-2× the full-text search itself at 100,000 memories. Each row
says how many matches the pool held (`pooled`). The limits are written into the statement, not
bound: SQLite then keeps a sorter of that many rows, and the statement took 0.52 ms instead of
0.68 at 1,000 memories, 6.3 instead of 6.6 at 100,000 (s17)."""
POOL_FACTOR, POOL_EXTRA = 3, 50
"""The pool ranked first: enough that the filters (other agents, superseded, other layers)
leave `limit`; when they do not and the pool was full (more matches may lie beyond it), the
exact query runs. A pool that was not full held every match: its rows are the exact answer."""

_CANDIDATES_PG = (
    MEMORY_BM25  # noqa: S608 - constants
    + " select s.bm25, {columns} from scored s join memories m on m.seq = s.seq"
    " where (m.agent_id = :agent_id or (m.agent_id is null and :shared))"
    " and m.deleted_at is null and m.superseded_by is null"
    " and m.layer in (select json_array_elements_text(cast(:layers as json)))"
    " and (cast(:categories as text) is null or m.category in"
    " (select json_array_elements_text(cast(:categories as json))))"
    " order by s.bm25 limit :limit"
)


async def text_candidates(
    conn: Connection,
    match: str,
    agent_id: str,
    layers: list[Layer],
    categories: list[Category] | None,
    limit: int,
    context_weight: float = 1.0,
) -> list[tuple[float, Candidate]]:
    """(bm25, candidate) pairs for the MATCH expression, best first; a match in the context
    column counts `context_weight` times a match in the content."""
    rows = await text_rows(conn, match, agent_id, layers, categories, limit, context_weight, SLIM)
    return [(row["bm25"], to_candidate(row)) for row in rows]


async def text_rows(
    conn: Connection,
    match: str,
    agent_id: str,
    layers: list[Layer],
    categories: list[Category] | None,
    limit: int,
    context_weight: float = 1.0,
    columns: str = WHOLE,
) -> list[Any]:
    """`text_candidates`' rows: its `bm25` and the memory's `columns` (`SLIM` or `WHOLE`); on
    SQLite each also carries the store's `data_version` (store/shape.py)."""
    params: dict[str, Any] = {
        "match": match,
        "agent_id": agent_id,
        "layers": json.dumps([layer.value for layer in layers]),
        "categories": json.dumps([c.value for c in categories]) if categories else None,
        "limit": limit,
        "context_weight": context_weight,
        "shared": sees_shared(),
    }
    if conn.dialect == "postgresql":  # the same bm25, over term tables (store/terms.py)
        params["terms"] = match_terms(params.pop("match"))
        return await fetch_all(conn, _CANDIDATES_PG.format(columns=columns), params)
    pool = limit * POOL_FACTOR + POOL_EXTRA
    shape = {"columns": columns, "version": VERSION_COLUMN, "limit": int(limit), "pool": pool}
    rows = await fetch_all(conn, _TOP_FIRST.format(**shape), params)
    if len(rows) < limit and not _held_every_match(rows, pool):
        rows = await fetch_all(conn, _CANDIDATES.format(**shape), params)  # too few of the pool
    return rows


def _held_every_match(rows: list[Any], pool: int) -> bool:
    """True when the pool the rows were taken from held every match (it was not full); no
    rows: unknown (nothing matched, or the filters left none), so False."""
    return bool(rows) and rows[0]["pooled"] < pool


async def candidates_by_id(
    conn: Connection,
    memory_ids: list[str],
    agent_id: str,
    layers: list[Layer],
    categories: list[Category] | None,
) -> dict[str, Candidate]:
    """These memories as ranking candidates, by id, when recall may show them (live, visible to
    the agent, in the layers and categories asked for)."""
    rows = await fetch_all(
        conn,
        Sql(
            "select m.id, m.layer, m.created_at, m.updated_at, m.access_count, m.content_key"
            " from json_each(:ids) j cross join memories m on m.id = j.value"  # by id, first
            " and (m.agent_id = :agent_id or (m.agent_id is null and :shared))"
            " and m.deleted_at is null and m.superseded_by is null"
            " and m.layer in (select value from json_each(:layers))"
            " and (:categories is null or m.category in"
            " (select value from json_each(:categories)))",
            "select m.id, m.layer, m.created_at, m.updated_at, m.access_count, m.content_key"
            " from memories m where m.id in (select json_array_elements_text(cast(:ids as json)))"
            " and (m.agent_id = :agent_id or (m.agent_id is null and :shared))"
            " and m.deleted_at is null and m.superseded_by is null"
            " and m.layer in (select json_array_elements_text(cast(:layers as json)))"
            " and (cast(:categories as text) is null or m.category in"
            " (select json_array_elements_text(cast(:categories as json))))",
        ),
        {
            "ids": json.dumps(memory_ids),
            "agent_id": agent_id,
            "layers": json.dumps([layer.value for layer in layers]),
            "categories": json.dumps([c.value for c in categories]) if categories else None,
            "shared": sees_shared(),
        },
    )
    return {row["id"]: to_candidate(row) for row in rows}
