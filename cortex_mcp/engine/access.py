"""Recall counts, written in batches: a recall never waits for a write transaction.

Each recall records which memories it returned; the pending records are written in one
transaction by the background loop, before anything reads the counts (stats, search_debug, a
memory's resource, the lifecycle), and at shutdown.
"""

from dataclasses import dataclass, field
from datetime import datetime

from cortex_mcp.store import memories as rows
from cortex_mcp.store.db import Database


@dataclass
class AccessRecorder:
    """Recalls not yet written: (memory ids in rank order, query, time)."""

    db: Database
    pending: list[tuple[list[str], str, datetime]] = field(default_factory=list)

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
                for ranked_ids, query, now in batch:
                    await rows.bump_access(conn, ranked_ids, query, now)
        except BaseException:
            self.pending = batch + self.pending  # keep them for the next flush
            raise
        return len(batch)
