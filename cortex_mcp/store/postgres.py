"""The store on PostgreSQL + pgvector: a psycopg 3 connection pool behind the neutral API.

Statements use the same placeholders as on SQLite (`?` and `:name`); they become psycopg's
`%s` and `%(name)s` here, once per text (a placeholder style, not a translation of SQL: where
the SQL differs, the store module holds both texts, see `db.Sql`).

Every write transaction first takes one transaction-level advisory lock, so writers from any
number of processes take turns exactly as they do on one SQLite file (BEGIN IMMEDIATE): a
check-then-write inside a transaction sees no interleaved writer. Reads never wait for it.
When PostgreSQL is unreachable, a call fails within `call_timeout_s` with a one-line
StoreUnavailable naming the cause; the pool keeps reconnecting in the background with a backoff
capped at `reconnect_every_s` (psycopg_pool's own doubles without bound, so recovery took longer
the longer the outage lasted), so calls work again within about that of the database's return.
"""

import logging
import re
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from functools import lru_cache
from typing import Any

import anyio
import psycopg
import psycopg_pool
from pgvector.psycopg import register_vector_async
from psycopg.rows import RowMaker
from psycopg_pool.base import AttemptWithBackoff

from cortex_mcp.errors import StoreUnavailable
from cortex_mcp.store.db import Connection, Database, Params, Sql
from cortex_mcp.store.names import display_url

logger = logging.getLogger(__name__)

WRITE_LOCK = 0x636F7274  # "cort": the advisory lock every write transaction takes
MIGRATION_LOCK = 0x636F7275  # the same key as migrations_pg: extension and schema alike
_TOKEN = re.compile(r"'(?:[^']|'')*'|::|%|\?|(?<![:\w]):([A-Za-z_]\w*)")


@lru_cache(maxsize=1024)
def placeholders(sql: str) -> str:
    """`?` → `%s`, `:name` → `%(name)s`, `%` → `%%`; `?` and `:x` inside string literals and
    `::` casts kept."""

    def swap(found: re.Match[str]) -> str:
        token = found[0]
        if token.startswith("'"):
            return token.replace("%", "%%")  # psycopg reads % inside literals too
        if token == "?":
            return "%s"
        if token == "%":
            return "%%"
        if found[1]:
            return f"%({found[1]})s"
        return token

    return _TOKEN.sub(swap, sql)


class Row(tuple[Any, ...]):
    """A row addressable by index and by column name (as sqlite3.Row is)."""

    names: dict[str, int]

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return super().__getitem__(self.names[key])
        return super().__getitem__(key)

    def keys(self) -> list[str]:
        """The column names, in order."""
        return list(self.names)


def row_factory(cursor: Any) -> RowMaker[Row]:
    """psycopg row factory making `Row`s named after the cursor's columns."""
    kind = row_kind(tuple(column.name for column in cursor.description or ()))

    def make(values: Sequence[Any]) -> Row:
        return kind(values)

    return make


@lru_cache(maxsize=256)
def row_kind(names: tuple[str, ...]) -> type[Row]:
    """A Row class for one list of column names (made once per distinct list)."""
    return type("Row", (Row,), {"names": {name: i for i, name in enumerate(names)}})


def unavailable(err: Exception) -> StoreUnavailable:
    """A driver or pool error as a one-line cause (no SQL, no password)."""
    if isinstance(err, psycopg_pool.PoolTimeout):
        return StoreUnavailable("PostgreSQL is unreachable (no connection within the timeout)")
    if isinstance(err, psycopg.OperationalError):
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        return StoreUnavailable(f"PostgreSQL is unreachable ({first[:160]})")
    return StoreUnavailable(f"PostgreSQL error ({type(err).__name__}: {str(err)[:160]})")


class PostgresConnection(Connection):
    """A pooled psycopg connection inside one transaction."""

    dialect = "postgresql"

    def __init__(self, conn: psycopg.AsyncConnection[Any]) -> None:
        self.raw = conn

    def _statement(self, sql: str | Sql, params: Params) -> tuple[Any, Params | None]:
        text = self.text(sql)  # without parameters psycopg reads no placeholders (nor %%)
        return (placeholders(text), params) if params else (text, None)

    async def fetch_all(self, sql: str | Sql, params: Params = ()) -> list[Any]:
        """Every row, addressable by index and by column name."""
        cursor = self.raw.cursor(row_factory=row_factory)
        await cursor.execute(*self._statement(sql, params))
        return await cursor.fetchall() if cursor.description else []

    async def execute(self, sql: str | Sql, params: Params = ()) -> int:
        """Run a statement; the number of rows it changed."""
        cursor = await self.raw.execute(*self._statement(sql, params))
        return max(cursor.rowcount, 0)

    async def executemany(self, sql: str | Sql, rows: Iterable[Params]) -> None:
        """Run a statement once per parameter set (pipelined by psycopg)."""
        batch = list(rows)
        if batch:
            async with self.raw.cursor() as cursor:
                await cursor.executemany(placeholders(self.text(sql)), batch)


class PostgresDatabase(Database):
    """A pool of connections to one PostgreSQL database."""

    dialect = "postgresql"
    driver_name = "psycopg"

    def __init__(self, pool: psycopg_pool.AsyncConnectionPool[Any], location: str) -> None:
        self.pool = pool
        self.location = location
        self.has_vectors = True
        self.note = "PostgreSQL with pgvector"

    def write(self) -> AbstractAsyncContextManager[Connection]:
        """A transaction that takes the store's write lock first."""
        return self._transaction(write=True)

    def read(self) -> AbstractAsyncContextManager[Connection]:
        """A transaction that only reads, on one snapshot; it never waits for a writer."""
        return self._transaction(write=False)

    @asynccontextmanager
    async def _transaction(self, write: bool) -> AsyncIterator[Connection]:
        try:
            conn = await self._connection()
            try:
                async with conn.transaction():
                    neutral = PostgresConnection(conn)
                    if write:
                        await conn.execute("select pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
                    else:  # one snapshot for every statement, as a deferred BEGIN on SQLite
                        await conn.execute("set transaction isolation level repeatable read")
                    yield neutral
            finally:
                with anyio.CancelScope(shield=True):
                    await self.pool.putconn(conn)
        except (psycopg.Error, psycopg_pool.PoolTimeout) as err:
            raise unavailable(err) from err

    async def _connection(self) -> psycopg.AsyncConnection[Any]:
        """A pooled connection within the pool's timeout, given up early once the pool's
        reconnects are failing (see WAIT_SLICE_S)."""
        deadline = anyio.current_time() + self.pool.timeout
        while True:
            remaining = deadline - anyio.current_time()
            try:
                conn: psycopg.AsyncConnection[Any] = await self.pool.getconn(
                    timeout=max(0.01, min(WAIT_SLICE_S, remaining))
                )
                return conn
            except psycopg_pool.PoolTimeout:
                down = isinstance(self.pool, BoundedReconnectPool) and self.pool.down
                if down or remaining <= WAIT_SLICE_S:
                    raise

    @asynccontextmanager
    async def outside_transaction(self) -> AsyncIterator[Connection]:
        """A pooled connection in autocommit mode (VACUUM and the like)."""
        try:
            async with self.pool.connection() as conn:
                yield PostgresConnection(conn)
        except (psycopg.Error, psycopg_pool.PoolTimeout) as err:
            raise unavailable(err) from err

    async def size_bytes(self) -> int:
        """The database's size as PostgreSQL reports it (tables, indexes, TOAST)."""
        async with self.read() as conn:
            row = await conn.fetch_one("select pg_database_size(current_database())")
        return int(row[0]) if row else 0

    async def close(self) -> None:
        """Close every pooled connection."""
        await self.pool.close()


class CappedBackoff(AttemptWithBackoff):
    """psycopg_pool's reconnect backoff, starting at a tenth of a second and never waiting
    more than `most_s` between attempts."""

    INITIAL_DELAY = 0.1

    def __init__(self, *, timeout: float, most_s: float) -> None:
        super().__init__(timeout=timeout)
        self.most_s = most_s

    def update_delay(self, now: float) -> None:
        """The next delay: doubled, as psycopg_pool does, then capped."""
        super().update_delay(now)
        self.delay = min(self.delay, self.most_s)


class BoundedReconnectPool(psycopg_pool.AsyncConnectionPool[Any]):
    """The pool, reconnecting with `CappedBackoff` (it has no setting of its own for this), and
    knowing whether its last attempt to connect failed (the database is down)."""

    reconnect_every_s: float = 0.5
    down: bool = False

    async def _add_connection(
        self, attempt: AttemptWithBackoff | None, growing: bool = False
    ) -> None:
        if attempt is None:
            attempt = CappedBackoff(timeout=self.reconnect_timeout, most_s=self.reconnect_every_s)
        await super()._add_connection(attempt, growing)

    async def _connect(self, timeout: float | None = None) -> Any:  # noqa: ASYNC109 - theirs
        try:
            conn = await super()._connect(timeout)
        except psycopg.OperationalError:
            self.down = True
            raise
        self.down = False
        return conn


WAIT_SLICE_S = 0.25
"""A call waits for a pooled connection in slices this long, and stops at the first slice that
ends with the database known to be down: a call that opens several transactions fails in
about this much each, not the whole `call_timeout_s` each."""


async def _configure(conn: psycopg.AsyncConnection[Any]) -> None:
    await register_vector_async(conn)


async def _create_extension(url: str, timeout_s: float) -> None:
    """pgvector must exist before the pool registers its type on each connection."""
    async with await psycopg.AsyncConnection.connect(
        url, autocommit=True, connect_timeout=max(1, int(timeout_s))
    ) as conn:
        await conn.execute("select pg_advisory_lock(%s)", (MIGRATION_LOCK,))
        try:
            await conn.execute("create extension if not exists vector")
        finally:
            await conn.execute("select pg_advisory_unlock(%s)", (MIGRATION_LOCK,))


async def open_postgres(
    url: str,
    pool_size: int,
    timeout_s: float,
    call_timeout_s: float | None = None,
    reconnect_every_s: float = 0.5,
) -> PostgresDatabase:
    """Connect a pool to the database at `url` (creating the pgvector extension if needed);
    opening waits up to `timeout_s`, each call later up to `call_timeout_s` (default: the same).

    Raises StoreUnavailable, naming the cause, when PostgreSQL cannot be reached.
    """
    try:
        await _create_extension(url, timeout_s)
        pool = BoundedReconnectPool(
            url,
            min_size=1,
            max_size=max(1, pool_size),
            kwargs={"autocommit": True, "connect_timeout": max(2, int(timeout_s))},
            configure=_configure,
            check=psycopg_pool.AsyncConnectionPool.check_connection,
            timeout=call_timeout_s or timeout_s,
            reconnect_timeout=300,  # retried with backoff; later calls try again
            open=False,
        )
        pool.reconnect_every_s = reconnect_every_s
        await pool.open(wait=True, timeout=timeout_s)
    except (psycopg.Error, psycopg_pool.PoolTimeout) as err:
        raise unavailable(err) from err
    return PostgresDatabase(pool, display_url(url))
