"""What a store holds that lets a recall skip a step (#28 item 7): any live relation (the graph
step), any logged message (the conversation log's text leg). An empty leg costs a statement, a
turn on the connection's thread, each recall, so a store without relations or a log pays for
both at every call.

The shape is read in one statement and kept until the store changes. A change is seen without a
statement: SQLite's WAL index (the `-shm` file every connection of a WAL database maps) begins
with a header whose change counter every commit of every process increments
(https://www.sqlite.org/walformat.html, "iChange"), so the header's bytes differ after any
commit. The header is read before the read transaction's snapshot is taken, so a shape kept
for those bytes is never older than that snapshot. Where there is no WAL index (PostgreSQL, a
store not in WAL mode, a file that cannot be read) nothing is kept and no step is skipped.
"""

import weakref
from dataclasses import dataclass
from pathlib import Path

from cortex_mcp.store.db import Connection, Database

HEADER_BYTES = 48
"""The first copy of the WAL-index header: version, change counter, frames, page count, salts."""


@dataclass(frozen=True)
class StoreShape:
    """Whether the store holds anything a leg of a recall could find."""

    relations: bool
    """Any live relation (of any agent)."""
    log: bool
    """Any message in the conversation log not forgotten (of any agent)."""


SHAPE = (
    "select exists (select 1 from relations where valid_to is null) as relations,"
    " exists (select 1 from conversation_log where deleted_at is null) as log"
)


@dataclass
class _Kept:
    mark: bytes
    shape: StoreShape


_kept: "weakref.WeakKeyDictionary[Database, _Kept]" = weakref.WeakKeyDictionary()


def change_mark(db: Database) -> bytes | None:
    """The store's WAL-index header now (its bytes change at every commit of any process);
    None when there is none to read. Take it before the read transaction begins."""
    if db.dialect != "sqlite":
        return None
    try:
        with Path(db.location + "-shm").open("rb") as shm:
            header = shm.read(HEADER_BYTES)
    except OSError:
        return None
    return header if len(header) == HEADER_BYTES and any(header) else None


async def store_shape(conn: Connection, db: Database, mark: bytes | None) -> StoreShape | None:
    """The store's shape as `conn`'s snapshot sees it, read again only when the store changed
    since the `mark` it was kept for (`change_mark`, taken before the snapshot); None (skip
    nothing) when the store gives no mark."""
    if mark is None:
        return None
    kept = _kept.get(db)
    if kept is not None and kept.mark == mark:
        return kept.shape
    row = await conn.fetch_one(SHAPE)
    shape = StoreShape(relations=bool(row and row["relations"]), log=bool(row and row["log"]))
    _kept[db] = _Kept(mark, shape)
    return shape
