"""Full text on PostgreSQL: the terms FTS5 would index, in term tables, ranked by BM25 in SQL.

SQLite keeps memories and conversation messages in FTS5 tables; PostgreSQL has no FTS5, and
`ts_rank` is not BM25, so the same ranking is computed here from plain tables: one row per
(term, document) with its frequency per column, one length per document, and the totals
(documents, tokens) kept by a trigger. Terms are `stemming.fts_tokens` of the same
`index_text` output FTS5 reads, so both engines index identical terms, and the score is FTS5's
bm25 (k1 = 1.2, b = 0.75, idf floored at 1e-6, column weights multiplying frequencies,
negated so that lower is better). Each term row carries its document's length, and the primary
key includes the frequencies and the length, so scoring reads the index alone.
"""

from collections import Counter

from cortex_mcp.search.stemming import fts_tokens
from cortex_mcp.store.db import Connection

_MEMORY_TERMS = (
    "insert into memory_terms (term, seq, terms_tf, context_tf, length)"
    " select t.term, :seq, t.terms_tf, t.context_tf, :length from unnest("
    " cast(:terms as text[]), cast(:terms_tf as int[]), cast(:context_tf as int[])"
    ") as t(term, terms_tf, context_tf)"
)


async def index_memory_terms(conn: Connection, seq: int, terms: str, context: str) -> None:
    """Write the term rows and the length of one memory (its `index_text` columns)."""
    content, around = Counter(fts_tokens(terms)), Counter(fts_tokens(context))
    distinct = list(content.keys() | around.keys())
    length = content.total() + around.total()
    await conn.execute(
        _MEMORY_TERMS,
        {
            "seq": seq,
            "length": length,
            "terms": distinct,
            "terms_tf": [content[t] for t in distinct],
            "context_tf": [around[t] for t in distinct],
        },
    )
    await conn.execute("insert into memory_documents (seq, length) values (?, ?)", (seq, length))


async def unindex_memory_terms(conn: Connection, seqs: list[int]) -> None:
    """Remove the term rows and lengths of these memories."""
    await conn.execute("delete from memory_terms where seq = any(cast(? as bigint[]))", (seqs,))
    await conn.execute("delete from memory_documents where seq = any(cast(? as bigint[]))", (seqs,))


async def index_message_terms(conn: Connection, seq: int, terms: str) -> None:
    """Write the term rows and the length of one logged message."""
    counts = Counter(fts_tokens(terms))
    distinct = list(counts)
    await conn.execute(
        "insert into conversation_terms (term, seq, tf, length)"
        " select t.term, :seq, t.tf, :length"
        " from unnest(cast(:terms as text[]), cast(:tf as int[])) as t(term, tf)",
        {
            "seq": seq,
            "length": counts.total(),
            "terms": distinct,
            "tf": [counts[t] for t in distinct],
        },
    )
    await conn.execute(
        "insert into conversation_documents (seq, length) values (?, ?)", (seq, counts.total())
    )


async def unindex_messages(conn: Connection, seqs: list[int]) -> None:
    """Remove the term rows and lengths of these messages."""
    await conn.execute(
        "delete from conversation_terms where seq = any(cast(? as bigint[]))", (seqs,)
    )
    await conn.execute(
        "delete from conversation_documents where seq = any(cast(? as bigint[]))", (seqs,)
    )


# FTS5's bm25() over the memory term tables: `:terms` the stemmed query terms, `:context_weight`
# the weight of the context column. The result: (seq, bm25) of every matching memory.
MEMORY_BM25 = """
with hits as (
    select t.seq, t.term, t.terms_tf + :context_weight * t.context_tf as f, t.length
    from memory_terms t where t.term = any(cast(:terms as text[]))
), df as (
    select term, count(*) as n from hits group by term
), totals as (
    select documents::float8 as n, greatest(tokens, 1)::float8 / greatest(documents, 1) as avgdl
    from text_totals where name = 'memories'
), scored as (
    select h.seq, -sum(greatest(ln((totals.n - df.n + 0.5) / (df.n + 0.5)), 1e-6)
        * h.f * 2.2 / (h.f + 1.2 * (0.25 + 0.75 * h.length / totals.avgdl))) as bm25
    from hits h join df using (term) cross join totals
    group by h.seq
)
"""

MESSAGE_BM25 = """
with hits as (
    select t.seq, t.term, t.tf as f, t.length from conversation_terms t
    where t.term = any(cast(:terms as text[]))
), df as (
    select term, count(*) as n from hits group by term
), totals as (
    select documents::float8 as n, greatest(tokens, 1)::float8 / greatest(documents, 1) as avgdl
    from text_totals where name = 'conversation'
), scored as (
    select h.seq, -sum(greatest(ln((totals.n - df.n + 0.5) / (df.n + 0.5)), 1e-6)
        * h.f * 2.2 / (h.f + 1.2 * (0.25 + 0.75 * h.length / totals.avgdl))) as bm25
    from hits h join df using (term) cross join totals group by h.seq
)
"""
