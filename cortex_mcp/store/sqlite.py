"""The store on SQLite: one connection per process, one lock, immediate writes; the driver
chosen once.

The driver is the stdlib `sqlite3` when it can load extensions, else `sqlean` (a build that
can), else the stdlib without vectors: the server then runs BM25-only and says why in stats.
"""

import logging
import sqlite3
import threading
from collections.abc import AsyncIterator, Iterable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from functools import cache, partial
from pathlib import Path
from types import ModuleType
from typing import Any

import aiosqlite
import anyio
import anyio.lowlevel
import anyio.to_thread

from cortex_mcp.errors import StoreUnavailable
from cortex_mcp.store.db import Connection, Database, Params, Sql
from cortex_mcp.store.private import create_private_file, private_folders

logger = logging.getLogger(__name__)

CAUSES = (  # SQLite's message (lowercase) -> the cause a caller reads, with what to do
    ("disk is full", "the disk is full; free some space and retry"),
    ("readonly", "the database file is read-only; make it and its folder writable"),
    ("read-only", "the database file is read-only; make it and its folder writable"),
    ("malformed", "the database file is corrupt; restore it from a backup or an export"),
    ("not a database", "the file is not a SQLite database (or is encrypted or corrupt)"),
    ("unable to open", "the database file cannot be opened; check its path and permissions"),
    ("disk i/o error", "a disk I/O error; check the disk and the file's permissions"),
    ("locked", "another process holds the database lock; retry"),
)


def store_error(err: Exception) -> StoreUnavailable:
    """A SQLite driver error as a one-line cause the caller can act on (no SQL, no path)."""
    text = str(err).lower()
    for needle, cause in CAUSES:
        if needle in text:
            return StoreUnavailable(cause)
    return StoreUnavailable(f"SQLite error ({type(err).__name__}: {str(err)[:120]})")


class SqliteConnection(Connection):
    """An aiosqlite connection behind the neutral API."""

    dialect = "sqlite"

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self.raw = conn

    async def fetch_all(self, sql: "str | Sql", params: Params = ()) -> list[Any]:
        """Every row, in one trip to the connection's thread."""
        # one trip to the connection's thread (execute, fetch and close would take three)
        return list(await self.raw.execute_fetchall(self.text(sql), params))

    async def execute(self, sql: "str | Sql", params: Params = ()) -> int:
        """Run a statement; the number of rows it changed."""
        async with self.raw.execute(self.text(sql), params) as cursor:
            return int(cursor.rowcount)

    async def executemany(self, sql: "str | Sql", rows: Iterable[Params]) -> None:
        """Run a statement once per parameter set."""
        await self.raw.executemany(self.text(sql), rows)


@dataclass(frozen=True)
class Driver:
    """The SQLite binding in use and whether sqlite-vec loads through it."""

    module: ModuleType
    name: str
    vectors: bool
    note: str

    @property
    def errors(self) -> tuple[type[Exception], ...]:
        """The exception classes this driver raises (sqlean's are not sqlite3's)."""
        return (self.module.Error, sqlite3.Error)


@cache
def pick_driver() -> Driver:
    """The best SQLite binding this interpreter has, and whether it can load sqlite-vec (chosen
    once per process)."""
    if hasattr(sqlite3.Connection, "enable_load_extension") and _loads_vec(sqlite3):
        return Driver(sqlite3, "sqlite3", True, "stdlib sqlite3 loads sqlite-vec")
    try:
        import sqlean  # a SQLite build that allows extensions
    except ImportError:
        return Driver(sqlite3, "sqlite3", False, "sqlite3 cannot load extensions; no sqlean")
    if _loads_vec(sqlean):
        return Driver(sqlean, "sqlean", True, "stdlib sqlite3 cannot load extensions; using sqlean")
    return Driver(sqlite3, "sqlite3", False, "sqlite-vec could not be loaded; BM25 only")


def plain_connection(target: str | Path, *, uri: bool = False) -> Any:
    """A synchronous connection through the server's own SQLite library, for a one-off read or
    copy of a store file outside the server's connection.

    Never the stdlib's `sqlite3` beside `sqlean`: two SQLite libraries in one process do not see
    each other's POSIX locks, so one resets the other's write-ahead-log index under it (a
    corrupt read, or SIGBUS on the mapped index) — sqlite.org/howtocorrupt.html §2.2.1.
    """
    return pick_driver().module.connect(str(target), uri=uri)


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


@dataclass(eq=False)
class SqliteDatabase(Database):
    """The one connection of this process, and the lock that takes turns on it."""

    conn: aiosqlite.Connection
    driver: Driver
    path: Path
    _lock: anyio.Lock = field(default_factory=anyio.Lock)
    dialect = "sqlite"

    def __post_init__(self) -> None:
        self.neutral = SqliteConnection(self.conn)
        self.has_vectors = self.driver.vectors  # sqlite-vec is loaded on this connection
        self.driver_name = self.driver.name
        self.note = self.driver.note
        self.location = str(self.path)

    def write(self) -> AbstractAsyncContextManager[Connection]:
        """BEGIN IMMEDIATE: take the write lock up front, so busy_timeout applies."""
        return self._turn("begin immediate")

    def read(self) -> AbstractAsyncContextManager[Connection]:
        """BEGIN (deferred): a consistent snapshot that never blocks other processes."""
        return self._turn("begin")

    async def size_bytes(self) -> int:
        """Bytes on disk of the database file with its WAL and shared-memory files."""
        total = 0
        for suffix in ("", "-wal", "-shm"):
            path = self.path.with_name(self.path.name + suffix)
            if path.exists():
                total += path.stat().st_size
        return total

    @asynccontextmanager
    async def _turn(self, begin: str) -> AsyncIterator[Connection]:
        errors = self.driver.errors
        async with self._lock:  # one transaction at a time on this connection
            # Once sent, BEGIN runs in the driver's thread even if this task is cancelled: wait
            # for it, so every BEGIN is matched by the ROLLBACK or COMMIT below.
            try:
                with anyio.CancelScope(shield=True):
                    await self.conn.execute(begin)
            except errors as err:
                raise store_error(err) from err
            try:
                yield self.neutral
            except BaseException as err:
                with anyio.CancelScope(shield=True):
                    await self._rollback()
                if isinstance(err, errors):
                    raise store_error(err) from err
                raise
            try:
                with anyio.CancelScope(shield=True):
                    await self.conn.execute("commit")
            except errors as err:
                with anyio.CancelScope(shield=True):
                    await self._rollback()
                raise store_error(err) from err

    async def _rollback(self) -> None:
        """Roll back the open transaction; SQLite may already have (disk full, I/O error)."""
        try:
            await self.conn.execute("rollback")
        except self.driver.errors as err:
            logger.debug("rollback: %s", err)

    @asynccontextmanager
    async def outside_transaction(self) -> AsyncIterator[Connection]:
        """The connection with no transaction open, for statements that cannot run inside one
        (a WAL checkpoint, connection pragmas)."""
        async with self._lock:
            try:
                yield self.neutral
            except self.driver.errors as err:
                raise store_error(err) from err

    async def close(self) -> None:
        """Close the connection; call once, at shutdown."""
        with anyio.CancelScope(shield=True):
            await self.conn.close()


async def open_database(
    path: Path, busy_timeout_ms: int, synchronous: str = "FULL"
) -> SqliteDatabase:
    """Open (creating if needed) the SQLite file at `path` with the best driver available;
    `synchronous` FULL syncs every commit to disk, NORMAL only at WAL checkpoints. A new file
    (and the folders made for it) can be read by this user only: SQLite makes the `-wal` and
    `-shm` files with the database file's mode.

    Raises StoreUnavailable when SQLite cannot use the file; a file that is not a database is
    left as it was.
    """
    private_folders(path.parent)
    create_private_file(path)  # SQLite would make it 0644 less the umask
    driver = pick_driver()
    if not driver.vectors:
        logger.warning("vector search disabled: %s", driver.note)
    try:  # a trial open first: aiosqlite's thread outlives a failed connect and cries at exit
        trial = await anyio.to_thread.run_sync(_connect, driver, path, busy_timeout_ms, synchronous)
        trial.close()
    except driver.errors as err:
        raise store_error(err) from err
    conn = aiosqlite.Connection(partial(_connect, driver, path, busy_timeout_ms, synchronous), 64)
    with anyio.CancelScope(shield=True):  # a connect cancelled half-way leaves its thread behind
        await conn
    conn.row_factory = driver.module.Row
    db = SqliteDatabase(conn=conn, driver=driver, path=path)
    try:
        await anyio.lowlevel.checkpoint()  # a cancellation that came meanwhile: close, then go
    except BaseException:
        with anyio.CancelScope(shield=True):
            await db.close()
        raise
    return db
