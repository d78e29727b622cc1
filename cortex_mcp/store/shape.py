"""What a store holds that lets a recall skip a step (#28 item 7): any live relation (the graph
step), any logged message (the conversation log's text leg). An empty leg costs a statement, a
turn on the connection's thread, at every recall, so a store without relations or a log paid
for both each time.

The shape is read in one statement and kept until the store changes, which is seen without a
statement of its own: the full-text candidates' statement carries SQLite's `data_version`
(`VERSION_COLUMN`), which changes when another connection (another process) has committed, and
this connection's own commits move its `total_changes`. The two, read in the snapshot that
ranks, mark what the kept shape was read for. Where there is no mark (PostgreSQL, a query with
no searchable word, or no full-text match) nothing is kept and no step is skipped.
"""

import weakref
from dataclasses import dataclass

from cortex_mcp.store.db import Connection, Database
from cortex_mcp.store.sqlite import SqliteDatabase

VERSION_COLUMN = "(select data_version from pragma_data_version()) as data_version"
"""A column giving the store's version as the statement's snapshot sees it (SQLite)."""

Mark = tuple[int, int]
"""(data_version, this connection's total_changes): equal marks, the same committed store."""


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


@dataclass(frozen=True)
class _Kept:
    mark: Mark
    shape: StoreShape


_kept: "weakref.WeakKeyDictionary[Database, _Kept]" = weakref.WeakKeyDictionary()


def change_mark(db: Database, version: int | None) -> Mark | None:
    """The mark of the store as a statement of the current read transaction saw it: its
    `data_version` column (None: there was none) and this connection's commits so far (no
    commit of its own can come between: it runs one transaction at a time)."""
    if version is None or not isinstance(db, SqliteDatabase):
        return None
    return int(version), db.conn.total_changes


async def store_shape(conn: Connection, db: Database, mark: Mark | None) -> StoreShape | None:
    """The store's shape in `conn`'s snapshot, read again only when the store changed since
    the `mark` it was kept for (`change_mark`, of the same snapshot); None (skip nothing) when
    there is no mark."""
    if mark is None:
        return None
    kept = _kept.get(db)
    if kept is not None and kept.mark == mark:
        return kept.shape
    row = await conn.fetch_one(SHAPE)
    shape = StoreShape(relations=bool(row and row["relations"]), log=bool(row and row["log"]))
    _kept[db] = _Kept(mark, shape)
    return shape
