"""Vectors in a sqlite-vec `vec0` table (SQLite) or a pgvector column with an HNSW index
(PostgreSQL), whose dimension follows the embedding model.

The table is created when the first vector of a model arrives; the model and dimension are
recorded in `meta`. Another model (or dimension) drops the table, so every memory lacks a
vector again and the back-fill re-embeds them all while search runs BM25-only.
"""

import array
import hashlib
import json
import struct
import sys
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any

from cortex_mcp.clock import to_text
from cortex_mcp.models import Candidate, Category, Layer
from cortex_mcp.store.db import Connection, Sql, fetch_all, fetch_one
from cortex_mcp.store.memories import to_candidate
from cortex_mcp.store.meta import get_meta, set_meta
from cortex_mcp.store.scope import sees_shared
from cortex_mcp.store.sqlite import SqliteConnection

MODEL_KEY = "embedding.model"
DIMENSION_KEY = "embedding.dimension"
LOG_GENERATION_KEY = "embedding.log_generation"
"""Counts every change of `message_vectors`: a process holding them in memory reads the table
again when it moved (engine/vector_matrix.py)."""
MEMORY_GENERATION_KEY = "embedding.memory_generation"
"""The same for `memory_vectors`."""


async def _bump(conn: Connection, key: str) -> None:
    await conn.execute(
        "insert into meta (key, value) values (?, '1') on conflict(key) do update"
        " set value = cast(cast(meta.value as integer) + 1 as text)",
        (key,),
    )


async def _generation(conn: Connection, key: str) -> int:
    value = await get_meta(conn, key)
    return int(value) if value else 0


async def bump_log_generation(conn: Connection) -> None:
    """Record that `message_vectors` changed (in the caller's transaction)."""
    await _bump(conn, LOG_GENERATION_KEY)


async def log_generation(conn: Connection) -> int:
    """How many times `message_vectors` changed (0: never)."""
    return await _generation(conn, LOG_GENERATION_KEY)


async def bump_memory_generation(conn: Connection) -> None:
    """Record that `memory_vectors` changed (in the caller's transaction)."""
    await _bump(conn, MEMORY_GENERATION_KEY)


async def memory_generation(conn: Connection) -> int:
    """How many times `memory_vectors` changed (0: never)."""
    return await _generation(conn, MEMORY_GENERATION_KEY)


def to_blob(vector: list[float]) -> bytes:
    """A vector as sqlite-vec's float32 blob."""
    return struct.pack(f"{len(vector)}f", *vector)


def from_blob(blob: bytes) -> list[float]:
    """A float32 blob as a list of floats."""
    return list(struct.unpack(f"{len(blob) // 4}f", blob))


def pg_vector(vector: list[float]) -> Any:
    """A vector as pgvector's parameter (the package is only needed with PostgreSQL)."""
    from pgvector import Vector

    return Vector(vector)


def content_hash(text: str) -> str:
    """The cache key of a text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


async def vector_table_exists(conn: Connection) -> bool:
    """True once the vector table for the current model exists."""
    row = await fetch_one(conn, _TABLE_EXISTS)
    return row is not None and bool(row[0])


_TABLE_EXISTS = Sql(
    "select 1 from sqlite_master where type = 'table' and name = 'memory_vectors'",
    "select to_regclass('memory_vectors') is not null",
)


async def recorded_model(conn: Connection) -> tuple[str | None, int | None]:
    """The embedding model and dimension the stored vectors belong to."""
    model = await get_meta(conn, MODEL_KEY)
    dimension = await get_meta(conn, DIMENSION_KEY)
    return model, int(dimension) if dimension else None


_SEARCH_STATE = Sql(
    "select (select value from meta where key = :model_key),"
    " (select value from meta where key = :complete_key),"
    " exists (select 1 from sqlite_master where type = 'table' and name = 'memory_vectors')",
    "select (select value from meta where key = :model_key),"
    " (select value from meta where key = :complete_key),"
    " to_regclass('memory_vectors') is not null",
)


async def search_state(conn: Connection, complete_key: str) -> tuple[str | None, bool]:
    """The model the stored vectors belong to (None without a vector table) and whether the
    meta flag `complete_key` says every memory has one; one statement, read on every recall."""
    row = await fetch_one(
        conn, _SEARCH_STATE, {"model_key": MODEL_KEY, "complete_key": complete_key}
    )
    if row is None or not row[2]:
        return None, False
    return row[0], row[1] == "1"


async def ensure_vector_table(conn: Connection, model: str, dimension: int) -> bool:
    """Make the vec0 table fit `model`; True when it was (re)created empty."""
    if await recorded_model(conn) == (model, dimension) and await vector_table_exists(conn):
        return False
    await conn.execute("drop table if exists memory_vectors")
    await conn.execute("drop table if exists message_vectors")  # the log's, of the old model
    await bump_log_generation(conn)
    await bump_memory_generation(conn)
    if conn.dialect == "postgresql":  # HNSW over cosine distance; the dimension is an int we own
        await conn.execute(
            f"create table memory_vectors (seq bigint primary key,"
            f" embedding vector({int(dimension)}) not null)"
        )
        await conn.execute(
            "create index memory_vectors_hnsw on memory_vectors"
            " using hnsw (embedding vector_cosine_ops)"
        )
    else:
        await conn.execute(
            f"create virtual table memory_vectors using vec0("
            f"embedding float[{int(dimension)}] distance_metric=cosine)"
        )
    await set_meta(conn, MODEL_KEY, model)
    await set_meta(conn, DIMENSION_KEY, str(dimension))
    return True


async def drop_vector_table(conn: Connection) -> None:
    """Forget every vector (the memories' and the log's) and the model they belonged to."""
    await conn.execute("drop table if exists memory_vectors")
    await conn.execute("drop table if exists message_vectors")
    await bump_log_generation(conn)
    await bump_memory_generation(conn)
    await conn.execute("delete from meta where key in (?, ?)", (MODEL_KEY, DIMENSION_KEY))


async def upsert_vectors(conn: Connection, vectors: list[tuple[int, list[float]]]) -> None:
    """Store one vector per memory row (by `seq`), replacing any earlier one."""
    await bump_memory_generation(conn)
    if conn.dialect == "postgresql":
        await conn.executemany(
            "insert into memory_vectors (seq, embedding) values (?, ?)"
            " on conflict (seq) do update set embedding = excluded.embedding",
            [(seq, pg_vector(vector)) for seq, vector in vectors],
        )
        return
    await conn.executemany("delete from memory_vectors where rowid = ?", [(s,) for s, _ in vectors])
    await conn.executemany(
        "insert into memory_vectors (rowid, embedding) values (?, ?)",
        [(seq, to_blob(vector)) for seq, vector in vectors],
    )


async def missing_vectors(conn: Connection, limit: int) -> list[tuple[int, str]]:
    """(seq, content) of memories that are not forgotten and have no vector yet, newest first."""
    if not await vector_table_exists(conn):
        rows = await fetch_all(
            conn,
            "select seq, content from memories where deleted_at is null order by seq desc limit ?",
            (limit,),
        )
    else:
        rows = await fetch_all(
            conn,
            Sql(
                "select seq, content from memories where deleted_at is null"
                " and seq not in (select rowid from memory_vectors) order by seq desc limit ?",
                "select seq, content from memories m where deleted_at is null and not exists"
                " (select 1 from memory_vectors v where v.seq = m.seq) order by seq desc limit ?",
            ),
            (limit,),
        )
    return [(row[0], row[1]) for row in rows]


async def seqs_of(conn: Connection, memory_ids: list[str]) -> list[tuple[int, str]]:
    """(seq, content) of the given memories."""
    rows = await fetch_all(
        conn,
        Sql(
            "select seq, content from memories where id in (select value from json_each(?))",
            "select seq, content from memories where id in"
            " (select json_array_elements_text(cast(? as json)))",
        ),
        (json.dumps(memory_ids),),
    )
    return [(row[0], row[1]) for row in rows]


async def vector_candidates(
    conn: Connection,
    query: list[float],
    agent_id: str,
    layers: list[Layer],
    categories: list[Category] | None,
    limit: int,
) -> list[tuple[float, Candidate]]:
    """(cosine distance, candidate) of the nearest live memories the agent may see."""
    params: dict[str, Any] = {
        "query": pg_vector(query) if conn.dialect == "postgresql" else to_blob(query),
        "k": limit * 4,
        "agent_id": agent_id,
        "layers": json.dumps([layer.value for layer in layers]),
        "categories": json.dumps([c.value for c in categories]) if categories else None,
        "limit": limit,
        "shared": sees_shared(),
    }
    if conn.dialect == "postgresql":  # HNSW returns at most ef_search rows: ask for all k
        await conn.execute(
            "select set_config('hnsw.ef_search', ?, true)", (str(min(1000, max(40, limit * 4))),)
        )
    rows = await fetch_all(conn, _NEAREST, params)
    return [(row["distance"], to_candidate(row)) for row in rows]


async def candidates_of(
    conn: Connection,
    nearest: list[tuple[int, float]],
    agent_id: str,
    layers: list[Layer],
    categories: list[Category] | None,
    limit: int,
) -> list[tuple[float, Candidate]]:
    """`vector_candidates` for (seq, cosine distance) pairs found elsewhere (an in-memory
    matrix): the live memories among them the agent may see, nearest first (equal distances
    in the pairs' order, on both engines)."""
    if not nearest:
        return []
    params: dict[str, Any] = {
        "pairs": json.dumps(nearest),
        "agent_id": agent_id,
        "layers": json.dumps([layer.value for layer in layers]),
        "categories": json.dumps([c.value for c in categories]) if categories else None,
        "limit": limit,
        "shared": sees_shared(),
    }
    rows = await fetch_all(conn, _CANDIDATES_OF, params)
    return [(row["distance"], to_candidate(row)) for row in rows]


_CANDIDATE_COLUMNS = (
    " select knn.distance as distance,"
    " m.id, m.layer, m.created_at, m.updated_at, m.access_count, m.content_key from knn"
)
"""What a vector search returns of each memory it found (`knn` holds the nearest)."""
_SQLITE_VISIBLE = (
    " where (m.agent_id = :agent_id or (m.agent_id is null and :shared))"
    " and m.deleted_at is null and m.superseded_by is null"
    " and m.layer in (select value from json_each(:layers))"
    " and (:categories is null or m.category in (select value from json_each(:categories)))"
)
"""The memories the agent may see, of the asked layers and categories (SQLite)."""
_PG_VISIBLE = (
    " where (m.agent_id = :agent_id or (m.agent_id is null and :shared))"
    " and m.deleted_at is null and m.superseded_by is null"
    " and m.layer in (select json_array_elements_text(cast(:layers as json)))"
    " and (cast(:categories as text) is null or m.category in"
    " (select json_array_elements_text(cast(:categories as json))))"
)
"""The same on PostgreSQL."""


_CANDIDATES_OF = Sql(
    "with knn as (select json_extract(value, '$[0]') as seq,"  # noqa: S608 - constants
    " json_extract(value, '$[1]') as distance, key as place from json_each(:pairs))"
    + _CANDIDATE_COLUMNS
    + " cross join memories m on m.seq = knn.seq"
    + _SQLITE_VISIBLE
    + " order by knn.distance, knn.place limit :limit",
    "with knn as (select cast(p.pair ->> 0 as bigint) as seq,"  # noqa: S608 - constants
    " cast(p.pair ->> 1 as double precision) as distance, p.place"
    " from json_array_elements(cast(:pairs as json)) with ordinality as p(pair, place))"
    + _CANDIDATE_COLUMNS
    + " join memories m on m.seq = knn.seq"
    + _PG_VISIBLE
    + " order by knn.distance, knn.place limit :limit",
)


async def count_vectors(conn: Connection) -> int:
    """How many memory vectors are stored."""
    return await count_rows(conn, "memory_vectors") if await vector_table_exists(conn) else 0


def vector_pieces(conn: Connection, size: int) -> AsyncIterator[list[tuple[int, bytes]]]:
    """Every stored memory vector as (seq, float32 blob), `size` at a time: a reader keeps
    one piece in memory, never the whole table (#28)."""
    return read_pieces(conn, "memory_vectors", size)


async def count_rows(conn: Connection, table: str) -> int:
    """The rows of one of the two vector tables (a name of ours, never user input)."""
    row = await fetch_one(conn, _COUNT[table])
    return int(row[0]) if row else 0


async def read_pieces(
    conn: Connection, table: str, size: int
) -> AsyncIterator[list[tuple[int, bytes]]]:
    """(seq, float32 blob) of every row of one of the two vector tables, `size` rows at a
    time: on SQLite through one cursor (sqlite-vec answers a rowid range or list only by
    scanning, #28), on PostgreSQL by seq ranges of one snapshot (the caller's read
    transaction), each vector in pgvector's binary form, not parsed from text."""
    if conn.dialect == "postgresql":
        async for piece in _pg_pieces(conn, table, size):
            yield piece
        return
    assert isinstance(conn, SqliteConnection)
    async with conn.raw.execute(_EVERY_ROW[table]) as cursor:
        for _ in range(10**9):  # bounded; ends with the table
            rows = await cursor.fetchmany(size)
            if not rows:
                return
            yield [(int(row[0]), bytes(row[1])) for row in rows]


async def _pg_pieces(
    conn: Connection, table: str, size: int
) -> AsyncIterator[list[tuple[int, bytes]]]:
    """`read_pieces` on PostgreSQL: `size` rows at a time in seq order, after the last seq."""
    after = -1
    for _ in range(10**9):  # bounded; ends with the table
        rows = await fetch_all(conn, _PG_PIECE[table], (after, size))
        if not rows:
            return
        yield [(int(row[0]), native_blob(bytes(row[1]))) for row in rows]
        after = int(rows[-1][0])


def native_blob(sent: bytes) -> bytes:
    """pgvector's binary form (dimension and an unused int16, then big-endian float32s) as
    the float32 blob `to_blob` makes."""
    values = array.array("f", sent[4:])
    if sys.byteorder == "little":
        values.byteswap()
    return values.tobytes()


_PG_PIECE = {
    "memory_vectors": "select seq, vector_send(embedding) from memory_vectors"
    " where seq > ? order by seq limit ?",
    "message_vectors": "select seq, vector_send(embedding) from message_vectors"
    " where seq > ? order by seq limit ?",
}
_COUNT = {
    "memory_vectors": "select count(*) from memory_vectors",
    "message_vectors": "select count(*) from message_vectors",
}
_EVERY_ROW = {
    "memory_vectors": "select rowid, embedding from memory_vectors",
    "message_vectors": "select rowid, embedding from message_vectors",
}


# The k nearest first (the HNSW index answers that), then the agent, layer and category
# filters, as sqlite-vec's KNN does: the same candidates on both engines.
_NEAREST = Sql(
    "with knn as (select rowid, distance from memory_vectors"  # noqa: S608 - constants
    " where embedding match :query and k = :k)"
    + _CANDIDATE_COLUMNS
    + " join memories m on m.seq = knn.rowid"
    + _SQLITE_VISIBLE
    + " order by knn.distance limit :limit",
    "with knn as (select seq, embedding <=> :query as distance from memory_vectors"  # noqa: S608 - constants
    " order by embedding <=> :query limit :k)"
    + _CANDIDATE_COLUMNS
    + " join memories m on m.seq = knn.seq"
    + _PG_VISIBLE
    + " order by knn.distance limit :limit",
)


async def delete_vectors(conn: Connection, seqs: list[int]) -> None:
    """Drop the vectors of these memory rows (their text changed or went)."""
    if not seqs or not await vector_table_exists(conn):
        return
    await bump_memory_generation(conn)
    await conn.execute(
        Sql(
            "delete from memory_vectors where rowid in (select value from json_each(?))",
            "delete from memory_vectors where seq in"
            " (select cast(json_array_elements_text(cast(? as json)) as bigint))",
        ),
        (json.dumps(seqs),),
    )


async def cached_vectors(conn: Connection, hashes: list[str], model: str) -> dict[str, list[float]]:
    """Cached vectors of these content hashes for this model."""
    rows = await fetch_all(
        conn,
        Sql(
            "select content_hash, vector from embedding_cache where model = ?"
            " and content_hash in (select value from json_each(?))",
            "select content_hash, vector from embedding_cache where model = ?"
            " and content_hash in (select json_array_elements_text(cast(? as json)))",
        ),
        (model, json.dumps(hashes)),
    )
    return {row[0]: from_blob(bytes(row[1])) for row in rows}


async def cache_vectors(
    conn: Connection, model: str, vectors: dict[str, list[float]], now: datetime
) -> None:
    """Remember vectors by content hash and model."""
    await conn.executemany(
        "insert into embedding_cache (content_hash, model, dimension, vector, created_at)"
        " values (?, ?, ?, ?, ?) on conflict do nothing",
        [(h, model, len(v), to_blob(v), to_text(now)) for h, v in vectors.items()],
    )


async def coverage(conn: Connection) -> dict[str, int]:
    """Live memories with and without a vector."""
    live = await fetch_one(
        conn, "select count(*) from memories where deleted_at is null and superseded_by is null"
    )
    total = int(live[0]) if live else 0
    if not await vector_table_exists(conn):
        return {"with_vectors": 0, "without_vectors": total}
    row = await fetch_one(
        conn,
        Sql(
            "select count(*) from memories where deleted_at is null and superseded_by is null"
            " and seq in (select rowid from memory_vectors)",
            "select count(*) from memories where deleted_at is null and superseded_by is null"
            " and seq in (select seq from memory_vectors)",
        ),
    )
    covered = int(row[0]) if row else 0
    return {"with_vectors": covered, "without_vectors": total - covered}
