"""Work the server does beside the requests: back-fill vectors, extract what the LLM owes from
the conversation log, apply the log's retention."""

import logging
from typing import TYPE_CHECKING

import anyio

if TYPE_CHECKING:
    from cortex_mcp.engine import Engine

logger = logging.getLogger(__name__)

BACKGROUND_INTERVAL_S = 10.0


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


async def background_pass(engine: "Engine") -> None:
    """One round: write pending recall counts, embed memories still without a vector, extract
    due exchanges from the log, erase log messages past their retention."""
    await engine.access.flush()
    while await engine.vectors.backfill() > 0:
        await anyio.lowlevel.checkpoint()
    await engine.retry_queued()
    await engine.prune_conversation()


async def run_background(engine: "Engine", interval_s: float = BACKGROUND_INTERVAL_S) -> None:
    """Repeat background passes until cancelled at shutdown; a failed pass is only logged."""
    while True:
        engine.wake = anyio.Event()  # a wake-up during the pass starts the next one at once
        try:
            await background_pass(engine)
        except Exception:  # the top of a background loop: log and carry on
            logger.exception("background pass failed; retrying in %.0f s", interval_s)
        engine.passes.finish_one()
        with anyio.move_on_after(interval_s):
            await engine.wake.wait()
