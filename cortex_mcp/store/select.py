"""Which engine holds the store: PostgreSQL when `database.url` is set, else the SQLite file."""

from pathlib import Path

from cortex_mcp.config import Settings
from cortex_mcp.errors import ConfigError
from cortex_mcp.store.db import Database
from cortex_mcp.store.sqlite import open_database


async def open_store(settings: Settings) -> Database:
    """Open the configured store (not migrated yet). Raises StoreUnavailable when it cannot be
    reached, ConfigError when PostgreSQL is asked for without its driver installed."""
    if settings.database.url is None:
        return await open_database(
            settings.database_path, settings.store.busy_timeout_ms, settings.store.synchronous
        )
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
