"""Vectors for memories and queries: cached, batched, back-filled, re-embedded on model change.

Embedding never blocks a write: memories are embedded right after they are stored when the
embedder answers in time, and otherwise by the back-fill. Vector search answers for each memory
as soon as it has its vector of the configured model (#23: no wait for the whole back-fill);
the others are found by BM25 meanwhile. After a model change it is off until the first vector
of the new model is stored.
"""

import logging
import os
from array import array
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import anyio

from cortex_mcp.clock import Clock
from cortex_mcp.engine.embedding_pace import BatchPace
from cortex_mcp.engine.vector_matrix import VectorMatrix, memory_matrix, message_matrix
from cortex_mcp.providers.cascade import EmbedderCascade
from cortex_mcp.search.query import embedded_part, embedding_query
from cortex_mcp.store import message_vectors, vectors
from cortex_mcp.store.db import Connection, Database
from cortex_mcp.store.meta import get_meta, set_meta

logger = logging.getLogger(__name__)

Writer = Callable[[Connection, list[tuple[int, list[float]]], int], Awaitable[Callable[[], None]]]
"""Stores (seq, vector) pairs of one table in the caller's write transaction (given the
vectors' dimension); returns what to do once that transaction committed."""


COMPLETE_KEY = "embedding.complete"
START_WAIT_S = 4.0
"""How long the first recalls after a start wait for the start's back-fill (#25)."""
QUERY_CACHE_SIZE = 256
"""Query vectors kept, each packed (`packed`): 1.5 KB a float32 vector, not a list's 12 KB."""
MAX_WORKERS = 2
ROUND_BATCHES = 4
"""Batches each worker takes from one read of the memories still without a vector."""


def default_workers() -> int:
    """One back-fill batch per core this process may use, at most MAX_WORKERS."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(MAX_WORKERS, cores or 1))


async def get_meta_outside(db: Database, key: str) -> str | None:
    """A meta value read in a transaction of its own."""
    async with db.read() as conn:
        return await get_meta(conn, key)


@dataclass
class VectorIndex:
    """The memories' vectors in the store, kept in step with the configured embedder."""

    db: Database
    embedder: EmbedderCascade
    clock: Clock
    batch_size: int = 64
    drop_function_words: bool = False
    guard: Callable[[str], str] = field(default=lambda text: text)
    """The last redaction of every text sent to the embedder (set from the settings)."""
    said: VectorMatrix = field(default_factory=message_matrix)
    """The log's vectors in memory, for a fast nearest-neighbour search (#28)."""
    kept: VectorMatrix = field(default_factory=memory_matrix)
    """The memories' vectors in memory, likewise (#28)."""
    workers: int = field(default_factory=lambda: default_workers())
    """Back-fill batches embedded at once: one per core, at most two (#28)."""
    started: anyio.Event | None = None
    """Made when a background loop starts (`EngineHost`), set once its first back-fill has
    nothing left to embed or gave up, or a recall waited its limit; None: no back-fill runs
    here, nothing to wait for."""
    answering: bool = False
    """True when the stored vectors answered the last search (`searchable`): a recall then
    starts embedding its query at once, before it reads the store (#23)."""
    _queries: "OrderedDict[str, array[float]]" = field(default_factory=OrderedDict)
    _embedding: dict[str, anyio.Event] = field(default_factory=dict)
    """Queries being embedded now: a second caller waits for the first's vector."""
    _pace: BatchPace = field(init=False)

    def __post_init__(self) -> None:
        self._pace = BatchPace(self.batch_size, target_s=min(2.0, self.embedder.timeout_s / 4))

    @property
    def configured(self) -> bool:
        """True when vectors can exist at all: sqlite-vec loaded and an embedder configured."""
        return self.db.has_vectors and self.embedder.available

    @property
    def model(self) -> str | None:
        """The configured embedding model."""
        return self.embedder.embedder.model if self.embedder.embedder else None

    async def caught_up_after_start(self, limit_s: float = START_WAIT_S) -> None:
        """Before a recall: wait, at most `limit_s`, for the back-fill the start runs, so what
        the last run logged just before it exited (its vectors never made) is found by
        meaning from the first question on (#25). Free once that back-fill is done, and once
        one recall has waited its limit: a long back-fill (after an import, a model change)
        goes on, but no later recall waits for it."""
        if self.started is None or self.started.is_set() or not self.configured:
            return
        with anyio.move_on_after(limit_s):
            await self.started.wait()
        self.started.set()

    async def searchable(self, conn: Connection | None = None) -> bool:
        """True when the stored vectors are of the configured model, whether or not every
        memory has one yet (read in `conn`'s transaction when one is given)."""
        if not self.configured:
            return False
        if conn is None:
            async with self.db.read() as own:
                return await self.searchable(own)
        model, _ = await vectors.search_state(conn, COMPLETE_KEY)
        self.answering = model is not None and model == self.model
        return self.answering

    async def _vectors_of(
        self, items: list[tuple[int, str]]
    ) -> tuple[dict[str, list[float]], dict[str, list[float]], list[str]] | None:
        """(every vector by content hash, the freshly embedded ones, each item's hash): cached
        vectors are reused, the rest embedded in one call; None when the embedder failed."""
        assert self.model is not None
        hashes = [vectors.content_hash(text) for _, text in items]
        async with self.db.read() as conn:
            known = await vectors.cached_vectors(conn, hashes, self.model)
        todo = {h: text for h, (_, text) in zip(hashes, items, strict=True) if h not in known}
        fresh: dict[str, list[float]] = {}
        if todo:
            sent = [self.guard(text) for text in todo.values()]
            embedded = await self.embedder.embed(sent, kind="passage")
            if embedded is None:
                return None
            fresh = dict(zip(todo, embedded, strict=True))
        return {**known, **fresh}, fresh, hashes

    async def index(self, items: list[tuple[int, str]]) -> int:
        """Embed and store vectors for (seq, content) pairs of memories; how many were stored."""
        return await self._index(items, self._write_memories)

    async def index_messages(self, items: list[tuple[int, str]]) -> int:
        """Embed and store vectors for (seq, content) pairs of logged messages (#23); how many
        were stored. A message hidden or erased meanwhile gets none."""
        return await self._index(items, self._write_messages)

    async def _index(self, items: list[tuple[int, str]], write: Writer) -> int:
        """Embed (from the cache where it can) and store through `write`, in one write
        transaction with the cache; how many items were handled."""
        if not self.configured or not items or self.model is None:
            return 0
        got = await self._vectors_of(items)
        if got is None:
            return 0
        found, fresh, hashes = got
        dimension = len(next(iter(found.values())))
        pairs = [(seq, found[h]) for (seq, _), h in zip(items, hashes, strict=True)]
        async with self.db.write() as conn:
            if await vectors.ensure_vector_table(conn, self.model, dimension):
                await set_meta(conn, COMPLETE_KEY, "0")
            await vectors.cache_vectors(conn, self.model, fresh, self.clock())
            committed = await write(conn, pairs, dimension)
        committed()
        return len(items)

    async def _write_memories(
        self, conn: Connection, pairs: list[tuple[int, list[float]]], dimension: int
    ) -> Callable[[], None]:
        """The memories' writer; after the commit the in-memory matrix takes them."""
        before = await vectors.memory_generation(conn)
        await vectors.upsert_vectors(conn, pairs)
        return lambda: self.kept.appended(pairs, before)

    async def _write_messages(
        self, conn: Connection, pairs: list[tuple[int, list[float]]], dimension: int
    ) -> Callable[[], None]:
        """The log's writer: only visible messages get a vector; after the commit the
        in-memory matrix takes them."""
        if not await message_vectors.table_exists(conn):
            await message_vectors.create_table(conn, dimension)
        visible = set(await message_vectors.visible(conn, [seq for seq, _ in pairs]))
        stored = [(seq, vector) for seq, vector in pairs if seq in visible]
        before = await vectors.log_generation(conn)
        await message_vectors.upsert(conn, stored)
        return lambda: self.said.appended(stored, before)

    async def index_memories(self, memory_ids: list[str]) -> int:
        """Embed the given memories now (best effort; the back-fill catches failures)."""
        if not self.configured or not memory_ids:
            return 0
        async with self.db.read() as conn:
            items = await vectors.seqs_of(conn, memory_ids)
        return await self.index(items)

    async def backfill(self) -> int:
        """Embed one batch of memories without a vector, or when none is left one batch of
        logged messages without one; how many were embedded (0: nothing is left).

        After a model change the old vectors are dropped first, so everything is re-embedded.
        """
        if not self.configured:
            return 0
        async with self.db.read() as conn:
            model, _ = await vectors.recorded_model(conn)
            exists = await vectors.vector_table_exists(conn)
        if exists and model != self.model:
            async with self.db.write() as conn:
                await vectors.drop_vector_table(conn)
                await set_meta(conn, COMPLETE_KEY, "0")
            logger.warning("embedding model changed from %s to %s: re-embedding", model, self.model)
        async with self.db.read() as conn:
            wanted = self._pace.size * self.workers * ROUND_BATCHES
            missing = await vectors.missing_vectors(conn, wanted)
            said = [] if missing else await message_vectors.missing(conn, wanted)
        if missing:
            return await self._batches(missing, self.index)
        if await get_meta_outside(self.db, COMPLETE_KEY) != "1":
            async with self.db.write() as conn:
                await set_meta(conn, COMPLETE_KEY, "1")
        if said:
            return await self._batches(said, self.index_messages)
        await self.kept.refresh(self.db)  # nothing left to embed: the matrices catch up
        await self.said.refresh(self.db)
        return 0

    async def _batches(
        self,
        items: list[tuple[int, str]],
        index: Callable[[list[tuple[int, str]]], Awaitable[int]],
    ) -> int:
        """Index `items` by `workers` tasks, each taking the next batch (of the pace's size) as
        soon as its last one is stored, so no core waits for a slower batch (#28 item 4); the
        pace learns from every batch. After a failed batch no new one starts. How many were
        indexed."""
        left = list(items)
        counts: list[int] = []
        failed = False

        async def worker() -> None:
            nonlocal failed
            while left and not failed:
                batch = left[: self._pace.size]
                del left[: len(batch)]
                started = anyio.current_time()
                done = await index(batch)
                counts.append(done)
                if done < len(batch):
                    failed = True
                    self._pace.failed()
                else:
                    self._pace.took(len(batch), anyio.current_time() - started)

        async with anyio.create_task_group() as tasks:
            for _ in range(max(1, self.workers)):
                tasks.start_soon(worker)
        return sum(counts)

    async def query_vector(self, text: str) -> list[float] | None:
        """The query's vector (cached in memory), or None when the embedder cannot answer.

        With `drop_function_words` the model sees it without its English function words.
        """
        if self.drop_function_words:
            text = embedding_query(text)
        text = embedded_part(text)
        if text in self._queries:
            self._queries.move_to_end(text)
            return self._queries[text].tolist()
        if text in self._embedding:  # being embedded (a recall started it early): wait for it
            await self._embedding[text].wait()
            kept = self._queries.get(text)
            return None if kept is None else kept.tolist()
        self._embedding[text] = done = anyio.Event()
        try:
            embedded = await self.embedder.embed([self.guard(text)], kind="query")
            if not embedded:
                return None
            self._queries[text] = packed(embedded[0])
            if len(self._queries) > QUERY_CACHE_SIZE:
                self._queries.popitem(last=False)
            return embedded[0]
        finally:
            del self._embedding[text]
            done.set()


def packed(vector: list[float]) -> "array[float]":
    """The vector as float32 when that keeps every value exactly (the local model's), else as
    float64 (an API's JSON numbers): `tolist()` gives back the same floats either way."""
    narrow = array("f", vector)
    return narrow if narrow.tolist() == vector else array("d", vector)
