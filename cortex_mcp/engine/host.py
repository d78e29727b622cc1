"""One engine per server process, shared by every connection that server accepts, and the work
it does beside the requests: back-fill vectors, extract what the LLM owes from the conversation
log, apply the log's retention."""

import gc
import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import TYPE_CHECKING

import anyio
import anyio.to_thread

from cortex_mcp.clock import Clock, utc_now
from cortex_mcp.config import Settings
from cortex_mcp.engine.heap import HeapRelease, anonymous_bytes, release_freed, tune_heap
from cortex_mcp.models import StoredMemory

if TYPE_CHECKING:  # #28 item 5: the engine's modules load when it opens, not at import
    from cortex_mcp.engine.facade import Engine
    from cortex_mcp.engine.runtime import Runtime

logger = logging.getLogger(__name__)

BACKGROUND_INTERVAL_S = 10.0


async def background_pass(rt: "Runtime") -> None:
    """One round: write pending recall counts, embed memories still without a vector, extract
    due exchanges from the log, erase log messages past their retention."""
    from cortex_mcp.engine.ingest.backlog import extract_backlog
    from cortex_mcp.engine.ingest.log import prune
    from cortex_mcp.engine.ingest.restated import merge_restatements
    from cortex_mcp.engine.writes import Written, follow_up, refresh_owed_profiles

    await rt.access.flush()
    try:
        while await rt.vectors.backfill() > 0:
            await anyio.lowlevel.checkpoint()
    finally:
        if rt.vectors.started is not None:
            rt.vectors.started.set()  # the first recalls wait for this (#25)
    await merge_restatements(rt)  # paraphrases of older memories, now that they have vectors

    async def extracted(agent: str, stored: list[StoredMemory]) -> None:
        superseded = [m.category for m in stored if m.superseded_id]
        await follow_up(rt, agent, Written([m.id for m in stored], superseded))

    await extract_backlog(rt, extracted=extracted)
    await refresh_owed_profiles(rt)  # left by writes that must not wait for an LLM
    await prune(rt)


async def settle_after_start(rt: "Runtime") -> None:
    """Once the first pass is done: load the LLM's SDK now rather than during the first
    extraction (beside the user's next calls), then move what the start made (settings,
    the engine, the vector matrices) out of the garbage collector's sight, so its
    collections stay short while a tool call runs (#25). The start's garbage is collected
    first (frozen, its cycles would never be), and the C heap's free pages go back to the
    system (#28 item 6)."""
    await rt.llm.cascade.warm()
    if not gc.get_freeze_count():  # once a process: its first engine's start
        gc.collect()
        gc.freeze()
    await anyio.to_thread.run_sync(release_freed)


async def run_background(rt: "Runtime", interval_s: float = BACKGROUND_INTERVAL_S) -> None:
    """Repeat background passes until cancelled at shutdown; a failed pass is only logged.
    After a pass, freed memory goes back to the system when the process grew by a few MiB
    since the last time (#28 item 6)."""
    first = True
    heap = HeapRelease()
    while True:
        rt.wake = anyio.Event()  # a wake-up during the pass starts the next one at once
        try:
            await background_pass(rt)
            if first:
                first = False
                await settle_after_start(rt)
                heap.after = anonymous_bytes()  # growth counts from the start's release
            elif heap.due():
                await anyio.to_thread.run_sync(heap.release)
        except Exception:  # the top of a background loop: log and carry on
            logger.exception("background pass failed; retrying in %.0f s", interval_s)
        rt.passes.finish_one()
        with anyio.move_on_after(interval_s):
            await rt.wake.wait()


class EngineHost:
    """Opens the engine for its first user and closes it after the last one leaves.

    stdio and in-process clients have one user; SSE runs the MCP lifespan once per
    connection, so the HTTP app holds a use of its own for as long as it runs.
    """

    def __init__(self, settings: Settings, clock: Clock = utc_now) -> None:
        self.settings = settings
        self.clock = clock
        self._engine: Engine | None = None
        self._stack: AsyncExitStack | None = None
        self._users = 0
        self._lock = anyio.Lock()

    @property
    def is_open(self) -> bool:
        """True while the engine is open (someone uses the host)."""
        return self._engine is not None

    @property
    def engine(self) -> "Engine":
        """The open engine; only valid while someone uses the host."""
        if self._engine is None:
            raise RuntimeError("the engine is not open: no MCP session is running")
        return self._engine

    @asynccontextmanager
    async def use(self) -> AsyncIterator["Engine"]:
        """Share the engine for the duration of the block, opening it if needed."""
        async with self._lock:
            if self._users == 0:
                from cortex_mcp.engine.facade import open_engine
                from cortex_mcp.engine.lifecycle import LifecycleScheduler

                tune_heap()  # before the engine's threads allocate (#28 item 6)
                stack = AsyncExitStack()
                engine = await stack.enter_async_context(open_engine(self.settings, self.clock))
                tasks = await stack.enter_async_context(anyio.create_task_group())
                engine.runtime.vectors.started = anyio.Event()  # recalls wait for its back-fill
                tasks.start_soon(run_background, engine.runtime)
                tasks.start_soon(LifecycleScheduler(engine.runtime).run)
                tasks.start_soon(engine.mirror.run)
                stack.callback(tasks.cancel_scope.cancel)
                self._engine = engine
                self._stack = stack
            self._users += 1
        try:
            yield self.engine
        finally:
            # No lock or shield here: the task group in the stack must be exited from the
            # scope it was entered in; the engine's own close is shielded.
            self._users -= 1
            if self._users == 0 and self._stack is not None:
                stack, self._stack, self._engine = self._stack, None, None
                await stack.aclose()
