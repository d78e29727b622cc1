"""Keeping the mirror fresh between lifecycle runs: rewrite once changes have been quiet."""

import logging
from collections.abc import Awaitable, Callable

import anyio

from cortex_mcp.engine.mirror.write import catch_up, write_mirror
from cortex_mcp.engine.runtime import Runtime

logger = logging.getLogger(__name__)


class MirrorWriter:
    """Rewrites the mirror once changes have been quiet for `mirror.debounce_s`: MEMORY.md,
    the relations and the working days whose memories changed (the archive months change only
    in lifecycle runs, which rewrite the whole mirror). Each day is read in a short read of its
    own, so tool calls waiting for the connection get their turn in between.

    Call `mark_dirty()` after any change; run `run()` as a background task: it first catches
    the mirror up with the store (edits made while cortex was down are kept, crashed temp files
    removed). `write_pending()` at shutdown writes what the quiet time had not yet written.
    The quiet time is measured on the engine's clock; `sleep` waits (anyio.sleep, or a test's
    clock advance).
    """

    def __init__(
        self, rt: Runtime, sleep: Callable[[float], Awaitable[None]] = anyio.sleep
    ) -> None:
        self.rt = rt
        self.sleep = sleep
        self.writes = 0
        self.caught_up = anyio.Event()
        self._wrote = anyio.Event()

    @property
    def pending(self) -> bool:
        """True while a change waits to be written."""
        return self.rt.mirror.pending

    def mark_dirty(self) -> None:
        """Memory changed: rewrite the mirror after the quiet time."""
        self.rt.mirror.mark_dirty()

    async def run(self) -> None:
        """Forever: wait for a change, wait for quiet, rewrite the mirror."""
        if not self.rt.settings.mirror.enabled:
            return
        try:
            await catch_up(self.rt)
        except Exception:  # a background loop keeps going; the next change retries
            logger.exception("catching the Markdown mirror up failed")
        self.caught_up.set()
        while True:
            await self.rt.mirror.changed.wait()
            await self._quiet()
            self.rt.mirror.taken()
            try:
                await write_mirror(self.rt, archive=False, changed_only=True)
            except Exception:  # a background loop keeps going; the next change retries
                self.rt.mirror.pending = True
                logger.exception("writing the Markdown mirror failed")
            self.writes += 1
            self._wrote.set()
            self._wrote = anyio.Event()

    async def _quiet(self) -> None:
        debounce = self.rt.settings.mirror.debounce_s
        while (wait := debounce - self._since_change()) > 0:
            await self.sleep(wait)

    def _since_change(self) -> float:
        return (self.rt.clock() - self.rt.mirror.last_change).total_seconds()

    async def wait_for_write(self, beyond: int) -> None:
        """Return once more than `beyond` rewrites have finished (for tests and shutdown)."""
        while self.writes <= beyond:
            await self._wrote.wait()

    async def write_pending(self) -> None:
        """At shutdown: write the change the quiet time was still waiting for (shielded)."""
        if not (self.pending and self.rt.settings.mirror.enabled):
            return
        with anyio.CancelScope(shield=True):
            try:
                await write_mirror(self.rt, archive=False, changed_only=True)
                self.rt.mirror.pending = False
            except Exception:  # shutting down: log it; the next start catches up
                logger.exception("writing the Markdown mirror at shutdown failed")
