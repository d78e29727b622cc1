"""Stored vectors in memory (#28): exact nearest-neighbour search over a numpy matrix kept in
step with one vector table (the memories' or the log's), about ten times faster than
sqlite-vec's scan at 100,000 rows (docs/benchmarks.md).

Read whole by the background loop (never on a recall's path: 100,000 vectors take seconds to
read); this process's own new vectors are added as they are stored (into spare room, so an
addition does not copy the matrix); any other change of the table (another process embedding, a
memory edited or purged, a message hidden or erased, a model change) moves the table's change
counter in the store, and until the background loop has read the table again the search stays
in sqlite-vec. A row whose memory or message went is harmless meanwhile: the store's join drops
it. SQLite only (PostgreSQL's HNSW index answers there), and only where numpy is installed (it
comes with the local embedder); otherwise the search stays in sqlite-vec.
"""

import importlib.util
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import anyio

from cortex_mcp.store import message_vectors, vectors
from cortex_mcp.store.db import Connection, Database

HAS_NUMPY = importlib.util.find_spec("numpy") is not None
GROWTH = 1.5
"""Spare room made when the matrix is full: additions cost a copy only now and then."""


@dataclass(frozen=True)
class VectorTable:
    """Where a matrix's vectors come from: every (seq, float32 blob) of the table, and the
    store's change counter of the table."""

    read_all: Callable[[Connection], Awaitable[list[tuple[int, bytes]]]]
    generation: Callable[[Connection], Awaitable[int]]


MEMORIES = VectorTable(vectors.all_vectors, vectors.memory_generation)
MESSAGES = VectorTable(message_vectors.all_vectors, vectors.log_generation)


@dataclass
class VectorMatrix:
    """Every stored vector of one table as rows of a float32 matrix, with their `seq`s."""

    table: VectorTable
    seqs: Any = None
    rows: Any = None
    """Unit rows; only the first `size` are held vectors, the rest spare room."""
    size: int = 0
    generation: int = -1
    """The store's change counter the matrix stands for (-1: not loaded)."""
    _lock: anyio.Lock = field(default_factory=anyio.Lock)

    def usable(self, conn: Connection) -> bool:
        """True where the matrix can answer: numpy installed, the store on SQLite."""
        return HAS_NUMPY and conn.dialect == "sqlite"

    async def nearest(
        self, conn: Connection, query: list[float], k: int
    ) -> list[tuple[int, float]] | None:
        """(seq, cosine distance) of the `k` nearest stored vectors, nearest first; None when
        the matrix is not in step with the store (sqlite-vec answers then)."""
        if self.generation < 0 or await self.table.generation(conn) != self.generation:
            return None
        if not self.size:
            return []
        seqs, rows = self.seqs[: self.size], self.rows[: self.size]
        # in a worker thread: the event loop serves other calls meanwhile, and the memories'
        # and the log's searches of one recall run on two cores (#28)
        return await anyio.to_thread.run_sync(_top, seqs, rows, query, k)

    async def refresh(self, db: Database) -> bool:
        """Read the table again when the store changed since the matrix was read (the
        background loop calls this); True when it did."""
        if not HAS_NUMPY or db.dialect != "sqlite":
            return False
        async with self._lock:
            async with db.read() as conn:
                stored = await self.table.generation(conn)
                if stored == self.generation:
                    return False
                found = await self.table.read_all(conn)
            await self._take(found, stored)
        return True

    async def _take(self, found: list[tuple[int, bytes]], stored: int) -> None:
        """Stand for `found`, the table as it was at change `stored`."""
        import numpy as np

        seqs = np.fromiter((seq for seq, _ in found), dtype=np.int64, count=len(found))
        # in a worker thread, outside the transaction: recalls go on meanwhile
        rows = await anyio.to_thread.run_sync(_unit_rows, found) if found else None
        self.seqs, self.rows, self.size, self.generation = seqs, rows, len(found), stored

    def appended(self, stored: list[tuple[int, list[float]]], before: int) -> None:
        """This process stored `stored` (seq, vector) pairs, replacing any earlier vector of
        the same seq, in one change of the table after change `before`: take them in if the
        matrix stood for `before` (otherwise the next search sees another counter and the
        table is read again)."""
        if not stored or self.generation < 0 or self.generation != before:
            return
        import numpy as np

        added = _unit(np.asarray([vector for _, vector in stored], dtype=np.float32))
        seqs = np.asarray([seq for seq, _ in stored], dtype=np.int64)
        if self.rows is None or self.rows.shape[1] != added.shape[1]:
            self.seqs, self.rows, self.size = seqs, added, len(seqs)
        else:
            self._drop(seqs)
            self._make_room(len(seqs))
            self.seqs[self.size : self.size + len(seqs)] = seqs
            self.rows[self.size : self.size + len(seqs)] = added
            self.size += len(seqs)
        self.generation = before + 1

    def _drop(self, seqs: Any) -> None:
        """Remove the rows of these seqs (their vectors are being replaced)."""
        import numpy as np

        held = np.isin(self.seqs[: self.size], seqs)
        if not held.any():
            return
        kept = np.flatnonzero(~held)
        self.seqs[: len(kept)] = self.seqs[kept]
        self.rows[: len(kept)] = self.rows[kept]
        self.size = len(kept)

    def _make_room(self, count: int) -> None:
        """Spare room for `count` more rows (a copy into a larger matrix when full)."""
        import numpy as np

        if self.size + count <= len(self.rows):
            return
        room = max(self.size + count, int(len(self.rows) * GROWTH) + 16)
        rows = np.empty((room, self.rows.shape[1]), dtype=np.float32)
        seqs = np.empty(room, dtype=np.int64)
        rows[: self.size], seqs[: self.size] = self.rows[: self.size], self.seqs[: self.size]
        self.rows, self.seqs = rows, seqs

    def forget(self) -> None:
        """Drop the matrix (the model changed): read again on the next refresh."""
        self.seqs, self.rows, self.size, self.generation = None, None, 0, -1


def memory_matrix() -> VectorMatrix:
    """An empty matrix of the memories' vectors."""
    return VectorMatrix(MEMORIES)


def message_matrix() -> VectorMatrix:
    """An empty matrix of the log's vectors."""
    return VectorMatrix(MESSAGES)


def _top(seqs: Any, rows: Any, query: list[float], k: int) -> list[tuple[int, float]]:
    """(seq, cosine distance) of the `k` rows nearest to `query`, nearest first."""
    import numpy as np

    # einsum, not `@`: a product with one vector in BLAS spreads over every core, and on a
    # busy machine waiting for those threads costs up to a hundred times the sum itself
    similarity = np.einsum("ij,j->i", rows, np.asarray(query, dtype=np.float32))
    k = min(k, len(similarity))
    top = np.argpartition(-similarity, k - 1)[:k]
    top = top[np.argsort(-similarity[top], kind="stable")]
    return [(int(seqs[i]), float(1.0 - similarity[i])) for i in top]


def _unit_rows(found: list[tuple[int, bytes]]) -> Any:
    """The float32 blobs as unit rows of one matrix, filled and scaled in place (no second
    copy of the matrix at any time)."""
    import numpy as np

    rows = np.empty((len(found), len(found[0][1]) // 4), dtype=np.float32)
    for i, (_, blob) in enumerate(found):
        rows[i] = np.frombuffer(blob, dtype=np.float32)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    rows /= np.where(norms == 0, 1.0, norms)
    return rows


def _unit(rows: Any) -> Any:
    """Rows scaled to length 1 (cosine similarity becomes a dot product)."""
    import numpy as np

    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return rows / np.where(norms == 0, 1.0, norms)
