"""A real PostgreSQL 16 with pgvector for the tests, from the `pgserver` wheel: started once per
test session as a local process (socket in a temporary folder), one fresh database per test,
copied from a migrated template (CREATE DATABASE ... TEMPLATE takes milliseconds).

Where it cannot start, the PostgreSQL half of the engine-parametrized tests is skipped with the
reason; CI installs the dev extra, so it runs there.
"""

import itertools
import os
import re
import shutil
import tempfile
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

ENGINES = ("sqlite", "postgresql")
URL_VARIABLE = "CORTEX_DATABASE_URL"


@dataclass
class LocalPostgres:
    """The session's server: its admin URL and a counter naming fresh databases."""

    data_dir: Path
    admin_url: str
    server: Any
    names: Iterator[int] = field(default_factory=itertools.count)

    def url(self, name: str) -> str:
        """The URL of database `name` on this server."""
        return self.admin_url.replace("/postgres?", f"/{name}?", 1)

    def fresh_database(self) -> str:
        """A new database with the current schema; its URL."""
        import psycopg

        name = f"t{os.getpid()}_{next(self.names)}"
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            conn.execute(f"create database {name} template cortex_template")  # a name we made
        return self.url(name)

    def restart(self) -> None:
        """Start the stopped server again on the same files."""
        import pgserver

        self.server = pgserver.get_server(self.data_dir, cleanup_mode="stop")  # type: ignore[attr-defined]

    def stop(self) -> None:
        """Stop the server and remove its files."""
        self.server.cleanup()
        shutil.rmtree(self.data_dir, ignore_errors=True)


def start_local_postgres() -> LocalPostgres:
    """Start pgserver in a temporary folder and build the migrated template database."""
    import psycopg

    data_dir = Path(tempfile.mkdtemp(prefix="cortex-pg-"))
    with warnings.catch_warnings():  # platformdirs: no XDG_RUNTIME_DIR on CI machines
        warnings.simplefilter("ignore")
        import pgserver

        server = pgserver.get_server(data_dir, cleanup_mode="stop")  # type: ignore[attr-defined]
    local = LocalPostgres(data_dir, server.get_uri(), server)
    with psycopg.connect(local.admin_url, autocommit=True) as conn:
        conn.execute("create database cortex_template")
    anyio.run(_migrate, local.url("cortex_template"))
    return local


async def _migrate(url: str) -> None:
    from cortex_mcp.store.migrations import migrate
    from cortex_mcp.store.postgres import open_postgres

    db = await open_postgres(url, 1, 10)
    try:
        await migrate(db)
    finally:
        await db.close()


def vector_backend() -> str:
    """The vector search's name in reports for the engine this test runs on."""
    return "pgvector" if os.environ.get(URL_VARIABLE) else "sqlite-vec"


class PostgresInspector:
    """A plain psycopg connection with sqlite3's `execute(sql, params)` shape (`?`
    placeholders), so a test reads the store from outside on either engine."""

    row_factory: Any = None  # rows are addressable by name already (sqlite3.Row's shape)

    def __init__(self, url: str) -> None:
        import psycopg

        from cortex_mcp.store.postgres import row_factory

        self.conn = psycopg.connect(url, autocommit=True, row_factory=row_factory)

    def execute(self, sql: str, params: Any = ()) -> Any:
        """Run one statement; the cursor."""
        return self.conn.execute(re.sub(r"\?", "%s", sql), params or None)

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()

    def __enter__(self) -> "PostgresInspector":
        return self

    def __exit__(self, *exc: object) -> None:
        self.conn.close()
