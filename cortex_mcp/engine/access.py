"""Recall counts, written in batches: a recall never waits for a write transaction.

Each recall records which memories it returned; the pending records are written in one
transaction by the background loop, before anything reads the counts (stats, search_debug, a
memory's resource, the lifecycle), and at shutdown. When a purge (of this process or another)
ran since the last write, the pending recalls are counted but their query text is dropped: it
may hold what the purge erased.
"""

from dataclasses import dataclass, field
from datetime import datetime

from cortex_mcp.errors import StoreUnavailable
from cortex_mcp.store import memories as rows
from cortex_mcp.store.db import Database
from cortex_mcp.store.purge import purge_epoch


@dataclass
class AccessRecorder:
    """Recalls not yet written: (memory ids in rank order, query, time)."""

    db: Database
    pending: list[tuple[list[str], str, datetime]] = field(default_factory=list)
    epoch: str | None = None
    """The purge epoch the store had when the pending recalls began to gather."""

    async def start(self) -> None:
        """Read the store's purge epoch; call once, before the first recall."""
        async with self.db.read() as conn:
            self.epoch = await purge_epoch(conn)

    def record(self, ranked_ids: list[str], query: str, now: datetime) -> None:
        """Remember that a recall returned these memories; written at the next flush."""
        if ranked_ids:
            self.pending.append((ranked_ids, query, now))

    async def flush(self) -> int:
        """Write every pending recall in one transaction; how many recalls were written."""
        if not self.pending:
            return 0
        batch, self.pending = self.pending, []
        try:
            async with self.db.write() as conn:
                epoch = await purge_epoch(conn)
                purged = epoch != self.epoch
                for ranked_ids, query, now in batch:
                    await rows.bump_access(conn, ranked_ids, None if purged else query, now)
            self.epoch = epoch
        except BaseException:
            self.pending = batch + self.pending  # keep them for the next flush
            raise
        return len(batch)

    async def flush_before_read(self) -> None:
        """Write pending recalls so that a read counts them; when the store cannot take the
        write (a full disk, a read-only file, a database away) they stay pending and the read
        goes on: a read never fails for the bookkeeping before it."""
        try:
            await self.flush()
        except StoreUnavailable:
            return
