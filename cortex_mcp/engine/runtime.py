"""What every part of the engine runs on: the store, the settings, the clock, the providers, and
the signals that wake the background tasks.

The bottom of the engine: the use cases below the facade take a `Runtime` (or only the values
they need), never the facade, so nothing below it calls back up.
"""

import logging
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime

import anyio

from cortex_mcp.clock import Clock, utc_now
from cortex_mcp.config import Settings, provider_environment
from cortex_mcp.engine.access import AccessRecorder
from cortex_mcp.engine.embedding import VectorIndex
from cortex_mcp.engine.language.redaction import ProviderGuard
from cortex_mcp.engine.llm import LanguageModel
from cortex_mcp.providers.build import build_embedder_cascade
from cortex_mcp.store.db import Database
from cortex_mcp.store.migrations import migrate
from cortex_mcp.store.select import open_store

logger = logging.getLogger(__name__)

LATENCY_WINDOW = 1000


class PassCounter:
    """Counts finished background passes, so tests can wait for one without sleeping."""

    def __init__(self) -> None:
        self.count = 0
        self._finished = anyio.Event()

    def finish_one(self) -> None:
        """Record a finished pass and wake whoever waits for it."""
        self.count += 1
        self._finished.set()
        self._finished = anyio.Event()

    async def wait_beyond(self, count: int) -> None:
        """Return once more than `count` passes have finished."""
        while self.count <= count:
            await self._finished.wait()


class MirrorSignal:
    """Memory changed since the Markdown mirror was last written; the mirror's writer waits on
    this and rewrites once changes have been quiet."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.pending = False
        self.last_change: datetime = clock()
        self.changed = anyio.Event()
        self.written_days: dict[str, str] = {}
        """The working days' marks as the mirror last wrote them (engine/mirror/write.py)."""
        self.version: int | str | None = None
        """The store's version those marks were read at (store/working_days.py)."""

    def mark_dirty(self) -> None:
        """Memory changed: rewrite the mirror after the quiet time."""
        self.last_change = self.clock()
        self.pending = True
        self.changed.set()

    def taken(self) -> None:
        """The writer starts a rewrite: later changes need another."""
        self.changed = anyio.Event()
        self.pending = False


@dataclass
class Runtime:
    """The engine's shared state for one server process."""

    db: Database
    settings: Settings
    llm: LanguageModel
    vectors: VectorIndex
    clock: Clock = utc_now
    recall_latencies_ms: deque[float] = field(default_factory=lambda: deque(maxlen=LATENCY_WINDOW))
    extraction_lag_ms: deque[float] = field(default_factory=lambda: deque(maxlen=LATENCY_WINDOW))
    """From an exchange logged to its deep-channel extraction done (the background's lag)."""
    passes: PassCounter = field(default_factory=PassCounter)
    wake: anyio.Event = field(default_factory=anyio.Event)
    profiles_owed: set[str] = field(default_factory=set)
    """Agents whose profile a write left to the background pass (`writes.follow_up`)."""
    mirror_lock: anyio.Lock = field(default_factory=anyio.Lock)
    access: AccessRecorder = field(init=False)
    mirror: MirrorSignal = field(init=False)

    def __post_init__(self) -> None:
        self.access = AccessRecorder(self.db)
        self.mirror = MirrorSignal(self.clock)

    def agent(self, agent_id: str | None) -> str:
        """The agent a call acts for: the one it names, else the configured default."""
        return agent_id or self.settings.memory.default_agent_id

    def embed_soon(self, memory_ids: list[str]) -> None:
        """Have the background loop embed new memories now, off the caller's path."""
        if memory_ids and self.vectors.configured:
            self.wake.set()


@asynccontextmanager
async def open_runtime(
    settings: Settings, clock: Clock = utc_now, environ: dict[str, str] | None = None
) -> AsyncIterator[Runtime]:
    """Open the database (migrating it) and the providers; yield the runtime; close on exit.

    `environ` holds the standard provider variables (OPENAI_API_KEY, ...); by default they are
    read from the process environment. Nothing here touches the network or loads a model.
    """
    environ = provider_environment() if environ is None else environ
    db = await open_store(settings)
    llm = LanguageModel.from_settings(settings.llm, environ, settings.sieve.llm_max_tokens)
    llm.guard = ProviderGuard(settings.sieve.redact_secrets, settings.redaction.kinds)
    embedder = build_embedder_cascade(settings.embedding, environ)
    if settings.embedding.provider == "auto" and embedder.embedder is None:
        logger.warning("semantic search is off (%s); recall uses BM25 alone", embedder.note)
    try:
        await migrate(db)
        batch, drop = settings.embedding.batch_size, settings.embedding.drop_function_words
        index = VectorIndex(db, embedder, clock, batch, drop_function_words=drop, guard=llm.guard)
        runtime = Runtime(db=db, settings=settings, llm=llm, vectors=index, clock=clock)
        await runtime.access.start()
        try:
            yield runtime
        finally:
            with anyio.CancelScope(shield=True):
                await runtime.access.flush()
    finally:
        with anyio.CancelScope(shield=True):
            await llm.aclose()
            await embedder.aclose()
            await db.close()
