"""The log's vectors in memory (#28): exact nearest-neighbour search over a numpy matrix kept
in step with `message_vectors`, about ten times faster than sqlite-vec's scan at 100,000
messages (docs/benchmarks.md).

Read whole by the background loop (never on a recall's path: 100,000 vectors take seconds to
read); this process's own new vectors are appended as they are stored; any other change of the
table (another process embedding, a message hidden or erased, a model change) moves the store's
change counter (`log_generation`), and until the background loop has read the table again the
search stays in sqlite-vec. A row whose message went
is harmless meanwhile: the store's join drops it. SQLite only (PostgreSQL's HNSW index answers
there), and only where numpy is installed (it comes with the local embedder); otherwise the
search stays in sqlite-vec.
"""

import importlib.util
from dataclasses import dataclass, field
from typing import Any

import anyio

from cortex_mcp.store import message_vectors
from cortex_mcp.store.db import Connection, Database
from cortex_mcp.store.vectors import log_generation

HAS_NUMPY = importlib.util.find_spec("numpy") is not None


@dataclass
class MessageMatrix:
    """Every stored message vector as rows of a float32 matrix, with their `seq`s."""

    seqs: Any = None
    rows: Any = None
    generation: int = -1
    """The store's change counter the matrix stands for (-1: not loaded)."""
    _lock: anyio.Lock = field(default_factory=anyio.Lock)

    def usable(self, conn: Connection) -> bool:
        """True where the matrix can answer: numpy installed, the store on SQLite."""
        return HAS_NUMPY and conn.dialect == "sqlite"

    async def nearest(
        self, conn: Connection, query: list[float], k: int
    ) -> list[tuple[int, float]] | None:
        """(seq, cosine distance) of the `k` nearest stored message vectors, nearest first;
        None when the matrix is not in step with the store (sqlite-vec answers then)."""
        if self.generation < 0 or await log_generation(conn) != self.generation:
            return None
        if self.rows is None or not len(self.seqs):
            return []
        import numpy as np

        seqs, rows = self.seqs, self.rows
        similarity = rows @ np.asarray(query, dtype=np.float32)
        k = min(k, len(similarity))
        top = np.argpartition(-similarity, k - 1)[:k]
        top = top[np.argsort(-similarity[top], kind="stable")]
        return [(int(seqs[i]), float(1.0 - similarity[i])) for i in top]

    async def refresh(self, db: Database) -> bool:
        """Read the table again when the store changed since the matrix was read (the
        background loop calls this); True when it did."""
        if not HAS_NUMPY or db.dialect != "sqlite":
            return False
        async with self._lock, db.read() as conn:
            stored = await log_generation(conn)
            if stored == self.generation:
                return False
            await self._load(conn, stored)
        return True

    async def _load(self, conn: Connection, stored: int) -> None:
        import numpy as np

        found = await message_vectors.all_vectors(conn)
        if not found:
            self.seqs, self.rows, self.generation = np.zeros(0, dtype=np.int64), None, stored
            return
        self.seqs = np.fromiter((seq for seq, _ in found), dtype=np.int64, count=len(found))
        self.rows = _unit(np.vstack([np.frombuffer(blob, dtype=np.float32) for _, blob in found]))
        self.generation = stored

    def appended(self, vectors: list[tuple[int, list[float]]], before: int) -> None:
        """This process stored `vectors` for messages that had none, in one change of the
        table after change `before`: add them if the matrix stood for `before` (otherwise the
        next search sees another counter and reads the table again)."""
        if not vectors or self.generation < 0 or self.generation != before:
            return
        import numpy as np

        added = _unit(np.asarray([vector for _, vector in vectors], dtype=np.float32))
        seqs = np.asarray([seq for seq, _ in vectors], dtype=np.int64)
        if self.rows is None or self.rows.shape[1] != added.shape[1]:
            self.seqs, self.rows = seqs, added
        else:
            self.seqs = np.concatenate([self.seqs, seqs])
            self.rows = np.vstack([self.rows, added])
        self.generation = before + 1

    def forget(self) -> None:
        """Drop the matrix (the model changed): read again on the next search."""
        self.seqs, self.rows, self.generation = None, None, -1


def _unit(rows: Any) -> Any:
    """Rows scaled to length 1 (cosine similarity becomes a dot product)."""
    import numpy as np

    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return rows / np.where(norms == 0, 1.0, norms)
