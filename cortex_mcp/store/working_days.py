"""The mirror's marks of its working days: per day of the live working memories an agent sees,
a mark that changes whenever that day's page would (how many, the newest update, the sum of
their sequence numbers). The mirror rewrites only the days whose mark moved.

Reading every day's mark is a group-by over every live working memory: 35 ms at 100,000
memories, after every write, holding the connection a recall waits for (#28 item 2). On SQLite
the marks are therefore kept, and only the days that changed are read again:

- temporary triggers on this connection note the day of every working memory it inserts,
  deletes, or changes in a column a mark reads (they live and die with the connection, change
  no schema, and roll back with the write that fired them);
- `data_version` says whether another connection (another process) committed since the marks
  were read; if one did, or the connection is not the one the marks were kept for, every day is
  read again.

PostgreSQL reads every day each time.
"""

import json
import weakref
from dataclasses import dataclass, field
from typing import Any

from cortex_mcp.models import Layer
from cortex_mcp.store.db import Connection, Database, fetch_all, fetch_one
from cortex_mcp.store.meta import purge_mark
from cortex_mcp.store.scope import sees_shared
from cortex_mcp.store.sqlite import SqliteDatabase

_EVERY_DAY = (
    "select substr(created_at, 1, 10), count(*), max(updated_at), sum(seq) from memories"
    " where layer = :layer and deleted_at is null and superseded_by is null"
    " and (agent_id = :agent_id or (agent_id is null and :shared)) group by 1"
)
_THESE_DAYS = (
    "select substr(m.created_at, 1, 10), count(*), max(m.updated_at), sum(m.seq)"
    " from json_each(:days) d cross join memories m indexed by memories_by_layer_created"
    " on m.layer = :layer and m.created_at >= d.value and m.created_at < d.value || '~'"
    " where m.deleted_at is null and m.superseded_by is null"
    " and (m.agent_id = :agent_id or (m.agent_id is null and :shared)) group by 1"
)
"""Only these days' marks, each day a range of the (layer, created_at) index."""

_TRIGGERS = [
    "create temp table if not exists touched_days (day text primary key)",
    "create temp trigger if not exists touched_days_insert after insert on main.memories"
    " when new.layer = 'working' begin insert or ignore into touched_days"
    " values (substr(new.created_at, 1, 10)); end",
    "create temp trigger if not exists touched_days_delete after delete on main.memories"
    " when old.layer = 'working' begin insert or ignore into touched_days"
    " values (substr(old.created_at, 1, 10)); end",
    "create temp trigger if not exists touched_days_update after update of"
    " layer, deleted_at, superseded_by, updated_at, created_at, agent_id on main.memories"
    " when old.layer = 'working' or new.layer = 'working'"
    " begin insert or ignore into touched_days values (substr(old.created_at, 1, 10));"
    " insert or ignore into touched_days values (substr(new.created_at, 1, 10)); end",
]
"""The days this connection's writes touched (`insert or ignore`: never a write's failure)."""

MOST_DAYS_READ_APART = 64
"""More days touched than this (an import, a lifecycle run) and every day is read at once."""


@dataclass
class _Kept:
    connection: object
    """The driver's connection the triggers are on (a reopened store has none)."""
    agent_id: str
    shared: bool
    version: int
    """`data_version` before the marks were read."""
    marks: dict[str, str] = field(default_factory=dict)


_kept: "weakref.WeakKeyDictionary[Database, _Kept]" = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class DayMarks:
    """The working days' marks, and how they were read."""

    marks: dict[str, str]
    """Per day (YYYY-MM-DD), its mark."""
    version: int | None
    """SQLite's `data_version` on this connection when they were read (None on PostgreSQL):
    two reads with the same version saw no other process commit between them, so every day
    that came or went in between was touched by this process."""


async def working_day_marks(db: Database, agent_id: str) -> dict[str, str]:
    """Per day (YYYY-MM-DD) of the live working memories an agent sees, its mark."""
    return (await day_marks(db, agent_id)).marks


async def day_marks(db: Database, agent_id: str) -> DayMarks:
    """The marks of the working days an agent sees. (A second read-only SQLite connection in a
    worker thread, so recalls need not wait for this scan, crashed a test run with SIGBUS
    when the store's folder went away under it: it reads on the store's own.)"""
    shared = sees_shared()
    params: dict[str, Any] = {"layer": Layer.WORKING.value, "agent_id": agent_id, "shared": shared}
    async with db.read() as conn:
        if not isinstance(db, SqliteDatabase):
            return DayMarks(_marks(await fetch_all(conn, _EVERY_DAY, params)), None)
        version = await _data_version(conn)
        kept = _kept.get(db)
        if (
            kept is None
            or kept.connection is not db.conn
            or (kept.agent_id, kept.shared, kept.version) != (agent_id, shared, version)
        ):
            for statement in _TRIGGERS:
                await conn.execute(statement)
            await conn.execute("delete from touched_days")
            marks = _marks(await fetch_all(conn, _EVERY_DAY, params))
            _kept[db] = _Kept(db.conn, agent_id, shared, version, marks)
            return DayMarks(dict(marks), version)
        days = [row[0] for row in await fetch_all(conn, "select day from touched_days")]
        if days:
            await conn.execute("delete from touched_days")
            if len(days) > MOST_DAYS_READ_APART:
                kept.marks = _marks(await fetch_all(conn, _EVERY_DAY, params))
            else:
                these = params | {"days": json.dumps(days)}
                read = _marks(await fetch_all(conn, _THESE_DAYS, these))
                kept.marks = {d: m for d, m in kept.marks.items() if d not in days} | read
        return DayMarks(dict(kept.marks), version)


async def store_version(conn: Connection) -> int | str:
    """What moves when another process changes the store under a mirror write: SQLite's
    `data_version` on this connection (any commit); on PostgreSQL, which has no such version,
    the mark each purge leaves (`meta.purge_mark`): a purge at least is seen there."""
    if conn.dialect != "sqlite":
        return await purge_mark(conn)
    return await _data_version(conn)


async def _data_version(conn: Connection) -> int:
    """SQLite's `data_version`: it moves when another connection commits."""
    row = await fetch_one(conn, "select data_version from pragma_data_version()")
    return int(row[0]) if row is not None else -1


def _marks(rows: list[Any]) -> dict[str, str]:
    return {str(row[0]): f"{row[1]} {row[2]} {row[3]}" for row in rows}
