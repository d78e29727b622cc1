"""The store's neutral API, the same on every engine: a statement written for each dialect
(`Sql`), the connection and database every store module uses, and the fetch helpers.

The implementations are `store/sqlite.py` (one file, one connection per process) and
`store/postgres.py` (a psycopg pool).
"""

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any

Params = Sequence[Any] | Mapping[str, Any]


@dataclass(frozen=True)
class Sql:
    """One statement written for each engine, side by side, with the same parameters: `?` and
    `:name` placeholders in both texts."""

    sqlite: str
    postgresql: str


class Connection(ABC):
    """What the store modules use of a connection, the same on both engines: rows come back
    addressable by index and by column name."""

    dialect: str

    def text(self, sql: "str | Sql") -> str:
        """The statement's text for this engine."""
        if isinstance(sql, Sql):
            return sql.postgresql if self.dialect == "postgresql" else sql.sqlite
        return sql

    @abstractmethod
    async def fetch_all(self, sql: "str | Sql", params: Params = ()) -> list[Any]:
        """Run a statement and return every row."""

    async def fetch_one(self, sql: "str | Sql", params: Params = ()) -> Any | None:
        """Run a statement that selects at most a few rows and return the first, or None."""
        return next(iter(await self.fetch_all(sql, params)), None)

    @abstractmethod
    async def execute(self, sql: "str | Sql", params: Params = ()) -> int:
        """Run a statement; the number of rows it changed."""

    @abstractmethod
    async def executemany(self, sql: "str | Sql", rows: Iterable[Params]) -> None:
        """Run a statement once per parameter set."""


class Database(ABC):
    """The store of this process, on one engine: transactions on a connection of it."""

    dialect: str
    has_vectors: bool
    driver_name: str
    note: str
    location: str

    @abstractmethod
    def write(self) -> AbstractAsyncContextManager[Connection]:
        """A transaction that will write: serialised against other writers up front."""

    @abstractmethod
    def read(self) -> AbstractAsyncContextManager[Connection]:
        """A transaction that only reads: a consistent snapshot."""

    @abstractmethod
    def outside_transaction(self) -> AbstractAsyncContextManager[Connection]:
        """A connection with no transaction open (maintenance statements)."""

    @abstractmethod
    async def close(self) -> None:
        """Release the connections; call once, at shutdown."""

    @abstractmethod
    async def size_bytes(self) -> int:
        """Bytes the store takes on disk."""


async def fetch_all(conn: Connection, sql: str | Sql, params: Params = ()) -> list[Any]:
    """Run a query and return every row."""
    return await conn.fetch_all(sql, params)


async def fetch_one(conn: Connection, sql: str | Sql, params: Params = ()) -> Any | None:
    """Run a query that selects at most a few rows and return the first, or None."""
    return await conn.fetch_one(sql, params)
