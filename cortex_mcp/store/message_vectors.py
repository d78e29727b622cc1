"""Vectors of the conversation log's messages (#23): `message_vectors`, beside `memory_vectors`.

Same model, dimension and layout as the memories' vectors (a sqlite-vec `vec0` table keyed by
the message's `seq`; a pgvector column with an HNSW index on PostgreSQL), created with them and
dropped with them on a model change. Only visible messages have one: a hidden message's vector
goes when it is hidden (the back-fill embeds it again, from the cache, if it is shown again),
a purged message's when it is erased, with its cached embedding.
"""

import json
from collections.abc import AsyncIterator
from typing import Any

from cortex_mcp.store.db import Connection, Sql, fetch_all, fetch_one
from cortex_mcp.store.vectors import (
    bump_log_generation,
    content_hash,
    count_rows,
    pg_vector,
    read_pieces,
    to_blob,
)

TABLE = "message_vectors"

_TABLE_EXISTS = Sql(
    "select 1 from sqlite_master where type = 'table' and name = 'message_vectors'",
    "select to_regclass('message_vectors') is not null",
)


async def table_exists(conn: Connection) -> bool:
    """True once the messages' vector table exists."""
    row = await fetch_one(conn, _TABLE_EXISTS)
    return row is not None and bool(row[0])


async def create_table(conn: Connection, dimension: int) -> None:
    """(Re)create the messages' vector table, empty, for vectors of `dimension`."""
    await drop_table(conn)  # counts as a change
    if conn.dialect == "postgresql":  # the dimension is an int we own
        await conn.execute(
            f"create table message_vectors (seq bigint primary key,"
            f" embedding vector({int(dimension)}) not null)"
        )
        await conn.execute(
            "create index message_vectors_hnsw on message_vectors"
            " using hnsw (embedding vector_cosine_ops)"
        )
        return
    await conn.execute(
        f"create virtual table message_vectors using vec0("
        f"embedding float[{int(dimension)}] distance_metric=cosine)"
    )


async def drop_table(conn: Connection) -> None:
    """Forget every message's vector."""
    await conn.execute("drop table if exists message_vectors")
    await bump_log_generation(conn)


async def upsert(conn: Connection, vectors: list[tuple[int, list[float]]]) -> None:
    """Store one vector per message (by `seq`), replacing any earlier one."""
    await bump_log_generation(conn)
    if conn.dialect == "postgresql":
        await conn.executemany(
            "insert into message_vectors (seq, embedding) values (?, ?)"
            " on conflict (seq) do update set embedding = excluded.embedding",
            [(seq, pg_vector(vector)) for seq, vector in vectors],
        )
        return
    await conn.executemany(
        "delete from message_vectors where rowid = ?", [(seq,) for seq, _ in vectors]
    )
    await conn.executemany(
        "insert into message_vectors (rowid, embedding) values (?, ?)",
        [(seq, to_blob(vector)) for seq, vector in vectors],
    )


async def missing(conn: Connection, limit: int) -> list[tuple[int, str]]:
    """(seq, content) of visible messages without a vector, newest first."""
    if not await table_exists(conn):
        rows = await fetch_all(
            conn,
            "select seq, content from conversation_log where deleted_at is null"
            " order by seq desc limit ?",
            (limit,),
        )
        return [(int(row[0]), str(row[1])) for row in rows]
    rows = await fetch_all(
        conn,
        Sql(
            "select seq, content from conversation_log where deleted_at is null"
            " and seq not in (select rowid from message_vectors) order by seq desc limit ?",
            "select seq, content from conversation_log c where deleted_at is null and not exists"
            " (select 1 from message_vectors v where v.seq = c.seq) order by seq desc limit ?",
        ),
        (limit,),
    )
    return [(int(row[0]), str(row[1])) for row in rows]


async def visible(conn: Connection, seqs: list[int]) -> list[int]:
    """The visible messages among these."""
    rows = await fetch_all(
        conn,
        Sql(
            "select seq from conversation_log where deleted_at is null"
            " and seq in (select value from json_each(?))",
            "select seq from conversation_log where deleted_at is null"
            " and seq in (select cast(json_array_elements_text(cast(? as json)) as bigint))",
        ),
        (json.dumps(seqs),),
    )
    return [int(row[0]) for row in rows]


async def delete(conn: Connection, seqs: list[int]) -> None:
    """Drop the vectors of these messages (erased or hidden)."""
    if not seqs or not await table_exists(conn):
        return
    await bump_log_generation(conn)
    await conn.execute(
        Sql(
            "delete from message_vectors where rowid in (select value from json_each(?))",
            "delete from message_vectors where seq in"
            " (select cast(json_array_elements_text(cast(? as json)) as bigint))",
        ),
        (json.dumps(seqs),),
    )


async def delete_hidden(conn: Connection) -> None:
    """Drop the vectors of every hidden message (after a forget hid some)."""
    if not await table_exists(conn):
        return
    await bump_log_generation(conn)
    await conn.execute(
        Sql(
            "delete from message_vectors where rowid in"
            " (select seq from conversation_log where deleted_at is not null)",
            "delete from message_vectors where seq in"
            " (select seq from conversation_log where deleted_at is not null)",
        )
    )


async def erase(conn: Connection, seqs: list[int]) -> None:
    """Before messages are erased for good: drop their vectors and cached embeddings."""
    if not seqs:
        return
    rows = await fetch_all(
        conn,
        Sql(
            "select content from conversation_log where seq in (select value from json_each(?))",
            "select content from conversation_log where seq in"
            " (select cast(json_array_elements_text(cast(? as json)) as bigint))",
        ),
        (json.dumps(seqs),),
    )
    hashes = [content_hash(str(row[0])) for row in rows]
    if hashes:
        await conn.execute(
            Sql(
                "delete from embedding_cache where content_hash in"
                " (select value from json_each(?))",
                "delete from embedding_cache where content_hash in"
                " (select json_array_elements_text(cast(? as json)))",
            ),
            (json.dumps(hashes),),
        )
    await delete(conn, seqs)


async def nearest(
    conn: Connection, query: list[float], agent_id: str, limit: int
) -> list[tuple[float, Any]]:
    """(cosine distance, conversation_log row) of the nearest visible messages of the agent,
    among the `limit * 4` nearest of the whole log; a message a superseded or forgotten
    memory came from is left out, as in full-text search of the log."""
    if not await table_exists(conn):
        return []
    params: dict[str, Any] = {
        "query": pg_vector(query) if conn.dialect == "postgresql" else to_blob(query),
        "k": limit * 4,
        "agent_id": agent_id,
        "limit": limit,
    }
    if conn.dialect == "postgresql":  # HNSW returns at most ef_search rows: ask for all k
        await conn.execute(
            "select set_config('hnsw.ef_search', ?, true)", (str(min(1000, max(40, limit * 4))),)
        )
    rows = await fetch_all(conn, _NEAREST, params)
    return [(float(row["distance"]), row) for row in rows]


_NEAREST = Sql(
    "with knn as (select rowid, distance from message_vectors"
    " where embedding match :query and k = :k)"
    " select knn.distance as distance, c.* from knn"
    " cross join conversation_log c on c.seq = knn.rowid"
    " where c.agent_id = :agent_id and c.deleted_at is null"
    " and not exists (select 1 from json_each(c.memory_ids) j join memories m on m.id = j.value"
    " where m.superseded_by is not null or m.deleted_at is not null)"
    " order by knn.distance limit :limit",
    "with knn as (select seq, embedding <=> :query as distance from message_vectors"
    " order by embedding <=> :query limit :k)"
    " select knn.distance as distance, c.* from knn join conversation_log c on c.seq = knn.seq"
    " where c.agent_id = :agent_id and c.deleted_at is null"
    " and not exists (select 1 from json_array_elements_text(cast(c.memory_ids as json)) j"
    " join memories m on m.id = j where m.superseded_by is not null or m.deleted_at is not null)"
    " order by knn.distance limit :limit",
)


async def coverage(conn: Connection) -> dict[str, int]:
    """Visible messages with and without a vector."""
    row = await fetch_one(conn, "select count(*) from conversation_log where deleted_at is null")
    total = int(row[0]) if row else 0
    if not await table_exists(conn):
        return {"with_vectors": 0, "without_vectors": total}
    row = await fetch_one(
        conn,
        Sql(
            "select count(*) from conversation_log where deleted_at is null"
            " and seq in (select rowid from message_vectors)",
            "select count(*) from conversation_log where deleted_at is null"
            " and seq in (select seq from message_vectors)",
        ),
    )
    covered = int(row[0]) if row else 0
    return {"with_vectors": covered, "without_vectors": total - covered}


async def count_vectors(conn: Connection) -> int:
    """How many message vectors are stored."""
    return await count_rows(conn, TABLE) if await table_exists(conn) else 0


def vector_pieces(conn: Connection, size: int) -> AsyncIterator[list[tuple[int, bytes]]]:
    """Every stored message vector as (seq, float32 blob), `size` at a time."""
    return read_pieces(conn, TABLE, size)


async def rows_of(
    conn: Connection, nearest: list[tuple[int, float]], agent_id: str, limit: int
) -> list[tuple[float, Any]]:
    """(cosine distance, conversation_log row) of these (seq, distance) pairs that are visible
    messages of the agent, nearest first (equal distances in the pairs' order); filtered as
    `nearest` filters."""
    if not nearest:
        return []
    rows = await fetch_all(
        conn,
        _ROWS_OF,
        {"pairs": json.dumps(nearest), "agent_id": agent_id, "limit": limit},
    )
    return [(float(row["distance"]), row) for row in rows]


_ROWS_OF = Sql(
    "with knn as (select json_extract(value, '$[0]') as seq,"
    " json_extract(value, '$[1]') as distance, key as place from json_each(:pairs))"
    " select knn.distance as distance, c.* from knn"
    " cross join conversation_log c on c.seq = knn.seq"
    " where c.agent_id = :agent_id and c.deleted_at is null"
    " and not exists (select 1 from json_each(c.memory_ids) j join memories m"
    " on m.id = j.value where m.superseded_by is not null or m.deleted_at is not null)"
    " order by knn.distance, knn.place limit :limit",
    "with knn as (select cast(p.pair ->> 0 as bigint) as seq,"
    " cast(p.pair ->> 1 as double precision) as distance, p.place"
    " from json_array_elements(cast(:pairs as json)) with ordinality as p(pair, place))"
    " select knn.distance as distance, c.* from knn join conversation_log c on c.seq = knn.seq"
    " where c.agent_id = :agent_id and c.deleted_at is null"
    " and not exists (select 1 from json_array_elements_text(cast(c.memory_ids as json)) j"
    " join memories m on m.id = j where m.superseded_by is not null or m.deleted_at is not null)"
    " order by knn.distance, knn.place limit :limit",
)
