"""One connection per process, one lock, immediate writes; the SQLite driver chosen once.

The driver is the stdlib `sqlite3` when it can load extensions, else `sqlean` (a build that
can), else the stdlib without vectors: the server then runs BM25-only and says why in stats.
"""

import logging
import sqlite3
import threading
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

import aiosqlite
import anyio

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Driver:
    """The SQLite binding in use and whether sqlite-vec loads through it."""

    module: ModuleType
    name: str
    vectors: bool
    note: str


def pick_driver() -> Driver:
    """The best SQLite binding this interpreter has, and whether it can load sqlite-vec."""
    if hasattr(sqlite3.Connection, "enable_load_extension") and _loads_vec(sqlite3):
        return Driver(sqlite3, "sqlite3", True, "stdlib sqlite3 loads sqlite-vec")
    try:
        import sqlean  # a SQLite build that allows extensions
    except ImportError:
        return Driver(sqlite3, "sqlite3", False, "sqlite3 cannot load extensions; no sqlean")
    if _loads_vec(sqlean):
        return Driver(sqlean, "sqlean", True, "stdlib sqlite3 cannot load extensions; using sqlean")
    return Driver(sqlite3, "sqlite3", False, "sqlite-vec could not be loaded; BM25 only")


def _loads_vec(module: ModuleType) -> bool:
    """True when sqlite-vec loads into a throwaway connection of this driver."""
    try:
        import sqlite_vec
    except ImportError:
        return False
    conn = module.connect(":memory:")
    try:
        conn.enable_load_extension(True)
        sqlite_vec.load(conn)
        conn.enable_load_extension(False)
    except (AttributeError, module.Error, sqlite3.Error, OSError):
        return False
    finally:
        conn.close()
    return True


SYNCHRONOUS = ("FULL", "NORMAL")
WAL_RETRY_S = 0.05


def _set_wal(driver: Driver, conn: Any, busy_timeout_ms: int) -> None:
    """Switch to WAL. Two processes opening a new file at once can get "database is locked"
    here without SQLite calling the busy handler: retry within the busy timeout."""
    waited = threading.Event()
    for _ in range(max(1, int(busy_timeout_ms / 1000 / WAL_RETRY_S))):
        try:
            conn.execute("pragma journal_mode = wal")
            return
        except driver.module.OperationalError as error:
            if "locked" not in str(error):
                raise
            waited.wait(WAL_RETRY_S)  # in the driver's own thread, never the event loop
    conn.execute("pragma journal_mode = wal")


def _connect(driver: Driver, path: Path, busy_timeout_ms: int, synchronous: str) -> Any:
    """Open the file with the driver, in autocommit mode, with pragmas and sqlite-vec loaded."""
    conn = driver.module.connect(
        str(path), isolation_level=None, check_same_thread=False, timeout=busy_timeout_ms / 1000
    )
    conn.execute(f"pragma busy_timeout = {int(busy_timeout_ms)}")
    _set_wal(driver, conn, busy_timeout_ms)
    if synchronous not in SYNCHRONOUS:
        raise ValueError(f"synchronous must be one of {SYNCHRONOUS}")
    conn.execute(f"pragma synchronous = {synchronous}")
    conn.execute("pragma foreign_keys = on")
    if driver.vectors:
        import sqlite_vec

        conn.enable_load_extension(True)
        sqlite_vec.load(conn)
        conn.enable_load_extension(False)
    return conn


@dataclass
class Database:
    """The one connection of this process, and the lock that takes turns on it."""

    conn: aiosqlite.Connection
    driver: Driver
    path: Path
    _lock: anyio.Lock = field(default_factory=anyio.Lock)

    @property
    def has_vectors(self) -> bool:
        """True when sqlite-vec is loaded on this connection."""
        return self.driver.vectors

    def write(self) -> AbstractAsyncContextManager[aiosqlite.Connection]:
        """BEGIN IMMEDIATE: take the write lock up front, so busy_timeout applies."""
        return self._turn("begin immediate")

    def read(self) -> AbstractAsyncContextManager[aiosqlite.Connection]:
        """BEGIN (deferred): a consistent snapshot that never blocks other processes."""
        return self._turn("begin")

    @asynccontextmanager
    async def _turn(self, begin: str) -> AsyncIterator[aiosqlite.Connection]:
        async with self._lock:  # one transaction at a time on this connection
            # Once sent, BEGIN runs in the driver's thread even if this task is cancelled: wait
            # for it, so every BEGIN is matched by the ROLLBACK or COMMIT below.
            with anyio.CancelScope(shield=True):
                await self.conn.execute(begin)
            try:
                yield self.conn
            except BaseException:
                with anyio.CancelScope(shield=True):
                    await self.conn.execute("rollback")
                raise
            with anyio.CancelScope(shield=True):
                await self.conn.execute("commit")

    async def close(self) -> None:
        """Close the connection; call once, at shutdown."""
        with anyio.CancelScope(shield=True):
            await self.conn.close()


async def open_database(path: Path, busy_timeout_ms: int, synchronous: str = "FULL") -> Database:
    """Open (creating if needed) the SQLite file at `path` with the best driver available;
    `synchronous` FULL syncs every commit to disk, NORMAL only at WAL checkpoints."""
    path.parent.mkdir(parents=True, exist_ok=True)
    driver = pick_driver()
    if not driver.vectors:
        logger.warning("vector search disabled: %s", driver.note)
    conn = aiosqlite.Connection(partial(_connect, driver, path, busy_timeout_ms, synchronous), 64)
    await conn
    conn.row_factory = driver.module.Row
    return Database(conn=conn, driver=driver, path=path)


async def fetch_all(conn: aiosqlite.Connection, sql: str, params: Any = ()) -> list[Any]:
    """Run a query and return every row, in one trip to the connection's thread (a trip costs
    about as much as a small query: execute, fetch and close would take three)."""
    return list(await conn.execute_fetchall(sql, params))


async def fetch_one(conn: aiosqlite.Connection, sql: str, params: Any = ()) -> Any | None:
    """Run a query that selects at most a few rows and return the first, or None."""
    rows = await conn.execute_fetchall(sql, params)
    return next(iter(rows), None)
