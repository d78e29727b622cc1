"""Stored vectors in memory (#28): nearest-neighbour search over a numpy matrix kept in step
with one vector table (the memories' or the log's), about ten times faster than sqlite-vec's
scan at 100,000 rows (docs/benchmarks.md). Every row is scored up to SKETCH_FROM rows; from
there the background loop gives the matrix sketches (engine/vector_sketch.py) and a search
scores exactly only the rows they rank best.

Held as int8 (each unit vector scaled by its own largest component, a quarter of float32's
room: 38 MB instead of 154 MB for 100,000 vectors of e5's 384 dimensions) unless made with
`precision="float32"`; the query stays float32 and each row's similarity is its int8 dot
product times its scale, off float32's by about 5e-4 (KNN top-10 agreement and LoCoMo recall in
docs/benchmarks.md). Read by the background loop in pieces into a matrix of the table's size
(never the whole table as Python objects at once, never on a recall's path: 100,000 vectors
take seconds to read); this process's own new vectors are added as they are stored (into
spare room, so an addition does not copy the matrix); any other change of the table (another
process embedding, a memory edited or purged, a message hidden or erased, a model change)
moves the table's change counter in the store, and until the background loop has read the
table again the search stays in sqlite-vec. A row whose memory or message went is harmless
meanwhile: the store's join drops it. On both engines (#23: PostgreSQL's HNSW index answers
only while the matrix is not in step), and only where numpy is installed (it comes with the
local embedder); otherwise the search stays in sqlite-vec or pgvector.
"""

import importlib.util
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio
import anyio.lowlevel
import anyio.to_thread

from cortex_mcp.engine.row_products import INT8_MAX, row_products
from cortex_mcp.engine.vector_sketch import SAMPLE, Projection, learn, short_list
from cortex_mcp.store import message_vectors, vectors
from cortex_mcp.store.db import Connection, Database

HAS_NUMPY = importlib.util.find_spec("numpy") is not None
GROWTH = 2.0
"""Room made when the matrix is full: as many rows again. Room no vector uses is address space,
not memory (a large array is mapped on its own, `engine/heap.py`, and a page is resident only
once written), so what a growth costs is its copy: the old matrix and the new one's rows both
resident at once, 2 times the matrix for a moment (at 100,000 vectors the peak of a burst of
writes, 244-249 MiB: bench/results/rss-serve-s19-100k-10k*.json). Doubling makes that rare."""
SPARE = 1
"""A matrix read from the store has room for SPARE times its rows more: a session adds to it
without a copy until the store has doubled (growth by a 32nd made the burst's copies)."""
PIECE = 2048
"""Vectors read from the store at a time while loading (3 MB of float32 blobs at 384)."""
SHORT_LIST = 20
"""Rows scored exactly per neighbour asked for, of those the sketches rank best
(engine/vector_sketch.py)."""
SKETCH_FROM = 4 * SHORT_LIST * 400
"""Rows from which a matrix keeps sketches (a recall asks for 400 neighbours: below this the
short list would be over a quarter of the rows, and every row is scored)."""
Precision = Literal["int8", "float32"]


@dataclass(frozen=True)
class VectorTable:
    """Where a matrix's vectors come from: how many the table holds, every (seq, float32
    blob) of it in pieces, and the store's change counter of the table."""

    count: Callable[[Connection], Awaitable[int]]
    pieces: Callable[[Connection, int], AsyncIterator[list[tuple[int, bytes]]]]
    generation: Callable[[Connection], Awaitable[int]]


MEMORIES = VectorTable(vectors.count_vectors, vectors.vector_pieces, vectors.memory_generation)
MESSAGES = VectorTable(
    message_vectors.count_vectors, message_vectors.vector_pieces, vectors.log_generation
)


@dataclass
class VectorMatrix:
    """Every stored vector of one table as rows of a matrix (int8 with a scale per row, or
    float32), with their `seq`s."""

    table: VectorTable
    precision: Precision = "int8"
    piece: int = PIECE
    """Vectors read from the store at a time while loading."""
    sketch_from: int = SKETCH_FROM
    """Rows from which the matrix keeps sketches for a first pass (engine/vector_sketch.py)."""
    seqs: Any = None
    rows: Any = None
    """Unit rows (int8: divided by their scale); only the first `size` are held vectors, the
    rest spare room."""
    scales: Any = None
    """What each row is multiplied by to be a unit vector again (1 for float32)."""
    size: int = 0
    generation: int = -1
    """The store's change counter the matrix stands for (-1: not loaded)."""
    projection: Projection | None = None
    """The sketches' centre and directions; None: no sketches (a small matrix, or not made
    yet: the background loop makes them after a read), every row is scored."""
    sketches: Any = None
    """Each row's sketch (int8), beside `rows`."""
    sketch_scales: Any = None
    _lock: anyio.Lock = field(default_factory=anyio.Lock)

    def usable(self, conn: Connection) -> bool:
        """True where the matrix can answer: numpy installed (either engine, #23)."""
        return HAS_NUMPY

    @property
    def nbytes(self) -> int:
        """The bytes of the rows held (the spare room, never written, takes no memory)."""
        held = (self.seqs, self.rows, self.scales, self.sketches, self.sketch_scales)
        return sum(int(part[: self.size].nbytes) for part in held if part is not None)

    async def nearest(
        self, conn: Connection, query: list[float], k: int
    ) -> list[tuple[int, float]] | None:
        """(seq, cosine distance) of the `k` nearest stored vectors, nearest first; None when
        the matrix is not in step with the store (sqlite-vec answers then)."""
        generation = self.generation
        if generation < 0:
            return None
        if not self.size:
            return [] if await self.table.generation(conn) == generation else None
        # in a worker thread (as on s4-recall's branch): the event loop serves other calls
        # meanwhile, and the memories' and the log's searches of one recall run on two cores;
        # the arrays are taken here with the change counter they stand for, so an addition
        # meanwhile cannot be half seen; the store's counter is read while the product runs
        # (not before it: one turn of the connection less ahead of the product, #23), and a
        # product of a matrix not in step is thrown away
        found: list[list[tuple[int, float]]] = []
        held = self._held()

        async def product() -> None:
            found.append(await anyio.to_thread.run_sync(_top, held, query, k))

        async with anyio.create_task_group() as group:
            group.start_soon(product)
            stored = await self.table.generation(conn)
        return found[0] if stored == generation else None

    def search(self, query: list[float], k: int) -> list[tuple[int, float]]:
        """(seq, cosine distance) of the `k` rows nearest to `query`, nearest first."""
        if not self.size:
            return []
        return _top(self._held(), query, k)

    def _held(self) -> "Held":
        """The held rows as they are now (views: a later addition is not half seen)."""
        rough = None
        if self.projection is not None:
            size = self.size
            rough = (self.projection, self.sketches[:size], self.sketch_scales[:size])
        return Held(self.seqs[: self.size], self.rows[: self.size], self.scales[: self.size], rough)

    async def refresh(self, db: Database) -> bool:
        """Read the table again when the store changed since the matrix was read (the
        background loop calls this); True when it did."""
        if not HAS_NUMPY:
            return False
        async with self._lock:
            async with db.read() as conn:
                stored = await self.table.generation(conn)
                read = stored != self.generation
                if read:
                    await self._load(conn, stored)
            await self._sketch()
        return read

    async def _sketch(self) -> None:
        """Learn the sketches' directions and sketch every row, in a worker thread, when the
        matrix is large enough for a first pass over sketches to pay and has none yet."""
        if self.projection is not None or self.size < self.sketch_from:
            return
        rows, scales, size = self.rows, self.scales, self.size
        projection, sketches, sketch_scales = await anyio.to_thread.run_sync(
            _sketched, rows, scales, size
        )
        if self.rows is not rows:
            return  # rows dropped or moved meanwhile: the next pass sketches them
        if self.size > size:  # this process's rows added meanwhile
            added = _unit_rows(self.rows[size : self.size], self.scales[size : self.size])
            sketches[size : self.size], sketch_scales[size : self.size] = projection.sketches(added)
        self.projection, self.sketches, self.sketch_scales = projection, sketches, sketch_scales

    async def _load(self, conn: Connection, stored: int) -> None:
        """Stand for the table as it is at change `stored`: its rows read a piece at a time
        into arrays of the table's size and a little room (the old matrix is let go first)."""
        import numpy as np

        self.forget()
        count = await self.table.count(conn)
        if not count:
            self.generation = stored
            return
        room = count + count * SPARE + 16  # this process's next vectors go in without a copy
        seqs = np.empty(room, dtype=np.int64)
        rows: Any = None
        scales = np.empty(room, dtype=np.float32)
        filled = 0
        async for piece in self.table.pieces(conn, self.piece):
            piece = piece[: count - filled]  # the count and the rows are of one snapshot
            taken = len(piece)
            if rows is None:
                rows = np.empty((room, len(piece[0][1]) // 4), dtype=self._dtype())
            seqs[filled : filled + taken] = [seq for seq, _ in piece]
            block = np.frombuffer(b"".join(blob for _, blob in piece), dtype=np.float32)
            del piece  # the blobs go before the piece is scaled
            end = filled + taken
            rows[filled:end], scales[filled:end] = self._encode(block.reshape(taken, -1))
            filled = end
            await anyio.lowlevel.checkpoint()  # recalls of the other matrix go on
        if rows is not None:
            self.seqs, self.rows, self.scales = seqs, rows, scales
            self.size = filled
        self.generation = stored

    def _dtype(self) -> Any:
        import numpy as np

        return np.int8 if self.precision == "int8" else np.float32

    def _encode(self, block: Any) -> tuple[Any, Any]:
        """Float32 vectors as (rows, scales) of this matrix's precision, unit length."""
        import numpy as np

        norms = np.linalg.norm(block, axis=1)
        unit = block / np.where(norms == 0, 1.0, norms)[:, None]  # the one float32 copy
        if self.precision == "float32":
            return unit, np.ones(len(unit), dtype=np.float32)
        largest = np.abs(unit).max(axis=1)
        scales = np.where(largest == 0, 1.0, largest / INT8_MAX).astype(np.float32)
        unit /= scales[:, None]
        return np.rint(unit, out=unit).astype(np.int8), scales

    def appended(self, stored: list[tuple[int, list[float]]], before: int) -> None:
        """This process stored `stored` (seq, vector) pairs, replacing any earlier vector of
        the same seq, in one change of the table after change `before`: take them in if the
        matrix stood for `before` (otherwise the next search sees another counter and the
        table is read again)."""
        if not stored or self.generation < 0 or self.generation != before:
            return
        import numpy as np

        added, scales = self._encode(np.asarray([vector for _, vector in stored], dtype=np.float32))
        seqs = np.asarray([seq for seq, _ in stored], dtype=np.int64)
        if self.rows is None or self.rows.shape[1] != added.shape[1]:
            self.forget()
            self.seqs, self.rows, self.scales, self.size = seqs, added, scales, len(seqs)
        else:
            self._drop(seqs)
            self._make_room(len(seqs))
            end = self.size + len(seqs)
            self.seqs[self.size : end] = seqs
            self.rows[self.size : end] = added
            self.scales[self.size : end] = scales
            if self.projection is not None:
                rough = self.projection.sketches(_unit_rows(added, scales))
                self.sketches[self.size : end], self.sketch_scales[self.size : end] = rough
            self.size = end
        self.generation = before + 1

    def _drop(self, seqs: Any) -> None:
        """Remove the rows of these seqs (their vectors are being replaced)."""
        import numpy as np

        dropped = np.isin(self.seqs[: self.size], seqs)
        if not dropped.any():
            return
        kept = np.flatnonzero(~dropped)
        # into new arrays, not in place: a search in a worker thread may hold the old ones
        self.seqs, self.rows, self.scales, self.sketches, self.sketch_scales = (
            _taken(array, kept) for array in self._arrays()
        )
        self.size = len(kept)

    def _make_room(self, count: int) -> None:
        """Spare room for `count` more rows (a copy into a larger matrix when full)."""
        if self.size + count <= len(self.rows):
            return
        room = max(self.size + count, int(len(self.rows) * GROWTH) + 16)
        self.seqs, self.rows, self.scales, self.sketches, self.sketch_scales = (
            _grown(array, self.size, room) for array in self._arrays()
        )

    def _arrays(self) -> tuple[Any, Any, Any, Any, Any]:
        return self.seqs, self.rows, self.scales, self.sketches, self.sketch_scales

    def forget(self) -> None:
        """Drop the matrix (the model changed): read again on the next refresh."""
        self.seqs, self.rows, self.scales, self.size, self.generation = None, None, None, 0, -1
        self.projection, self.sketches, self.sketch_scales = None, None, None


@dataclass(frozen=True)
class Held:
    """A matrix's rows as one search sees them: seqs, rows, scales and, where it keeps them,
    (projection, sketches, sketch scales)."""

    seqs: Any
    rows: Any
    scales: Any
    rough: tuple[Projection, Any, Any] | None


def _top(held: Held, query: list[float], k: int) -> list[tuple[int, float]]:
    """(seq, cosine distance) of the `k` rows nearest to `query`, nearest first: every row
    scored, or where the matrix keeps sketches and the short list is under a quarter of it,
    the SHORT_LIST × `k` rows the sketches rank best."""
    import numpy as np

    target = np.asarray(query, dtype=np.float32)
    target /= max(float(np.linalg.norm(target)), 1e-12)
    seqs, rows, scales = held.seqs, held.rows, held.scales
    if held.rough is not None and 4 * SHORT_LIST * k <= len(rows):
        projection, sketches, sketch_scales = held.rough
        chosen = short_list(sketches, sketch_scales, projection.query(target), SHORT_LIST * k)
        seqs, rows, scales = seqs[chosen], rows[chosen], scales[chosen]
    # numpy's loops, not `@`: a product with one vector in BLAS spreads over every core, and
    # on a busy machine waiting for those threads costs up to a hundred times the sum itself
    similarity = row_products(rows, target)
    similarity *= scales
    k = min(k, len(similarity))
    top = np.argpartition(-similarity, k - 1)[:k]
    top = top[np.argsort(-similarity[top], kind="stable")]
    return list(zip(seqs[top].tolist(), (1.0 - similarity[top]).tolist(), strict=True))


def _sketched(rows: Any, scales: Any, size: int) -> tuple[Projection, Any, Any]:
    """A projection learnt from a sample of the first `size` rows, and every one of them
    sketched a piece at a time (into arrays of the matrix's room)."""
    import numpy as np

    sample = np.linspace(0, size - 1, num=min(size, SAMPLE)).astype(np.int64)
    projection = learn(_unit_rows(rows[sample], scales[sample]))
    width = projection.basis.shape[1]
    sketches = np.empty((len(rows), width), dtype=np.int8)
    sketch_scales = np.empty(len(rows), dtype=np.float32)
    for start in range(0, size, PIECE):
        end = min(size, start + PIECE)
        unit = _unit_rows(rows[start:end], scales[start:end])
        sketches[start:end], sketch_scales[start:end] = projection.sketches(unit)
    return projection, sketches, sketch_scales


def _unit_rows(rows: Any, scales: Any) -> Any:
    """Held rows as float32 unit vectors again."""
    import numpy as np

    return rows.astype(np.float32) * scales[:, None]


def _taken(held: Any, kept: Any) -> Any:
    """A new array of `held`'s shape holding its rows `kept` first (None stays None)."""
    import numpy as np

    if held is None:
        return None
    taken = np.empty_like(held)
    taken[: len(kept)] = held[kept]
    return taken


def _grown(held: Any, size: int, room: int) -> Any:
    """A new array of `room` rows holding `held`'s first `size` (None stays None)."""
    import numpy as np

    if held is None:
        return None
    grown = np.empty((room, *held.shape[1:]), dtype=held.dtype)
    grown[:size] = held[:size]
    return grown


def memory_matrix() -> VectorMatrix:
    """An empty matrix of the memories' vectors."""
    return VectorMatrix(MEMORIES)


def message_matrix() -> VectorMatrix:
    """An empty matrix of the log's vectors."""
    return VectorMatrix(MESSAGES)
