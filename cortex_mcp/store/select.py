"""Which engine holds the store: PostgreSQL when `database.url` is set, else the SQLite file."""

import logging
from pathlib import Path

from cortex_mcp.config import Settings
from cortex_mcp.errors import ConfigError
from cortex_mcp.store.db import Database
from cortex_mcp.store.private import make_private
from cortex_mcp.store.sqlite import open_database

logger = logging.getLogger(__name__)

SQLITE_SUFFIXES = ("", "-wal", "-shm")


async def open_store(settings: Settings) -> Database:
    """Open the configured store (not migrated yet). Raises StoreUnavailable when it cannot be
    reached, ConfigError when PostgreSQL is asked for without its driver installed.

    A SQLite store that other users can read (an earlier version made it 0644) is made this
    user's only once SQLite has opened it (a file that is no database is left as it was),
    saying so in one line: it holds the whole conversation log."""
    if settings.database.url is None:
        path = settings.database_path
        db = await open_database(path, settings.store.busy_timeout_ms, settings.store.synchronous)
        notice = make_private([path.with_name(path.name + end) for end in SQLITE_SUFFIXES])
        if notice:
            logger.warning("%s", notice)
        return db
    try:
        from cortex_mcp.store.postgres import open_postgres
    except ImportError as err:
        raise ConfigError(
            "database.url",
            f"PostgreSQL needs packages that are not installed ({err.name})",
            'pip install "cortex-mcp-server[postgresql]"',
        ) from err
    return await open_postgres(
        settings.database.url.get_secret_value(),
        settings.database.pool_size,
        settings.database.connect_timeout_s,
        settings.database.call_timeout_s,
        settings.database.reconnect_every_s,
    )


async def open_target(where: str, settings: Settings) -> Database:
    """The store at `where`: a postgresql:// URL, or the path of a SQLite file."""
    if where.startswith(("postgresql://", "postgres://")):
        from cortex_mcp.store.postgres import open_postgres

        return await open_postgres(
            where,
            settings.database.pool_size,
            settings.database.connect_timeout_s,
            settings.database.call_timeout_s,
            settings.database.reconnect_every_s,
        )
    return await open_database(
        Path(where), settings.store.busy_timeout_ms, settings.store.synchronous
    )
