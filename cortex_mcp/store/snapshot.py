"""A consistent copy of the SQLite store taken with read access only (`cortex-mcp backup`, and
`export` or `migrate` from a read-only home: a failing disk remounted read-only still lets the
user take their memory off it).

SQLite's online backup copies page by page from one read transaction, so a server writing at
the same time is no problem. A store whose home cannot be written to is opened `immutable`
when it has no write-ahead log (SQLite could not create the log's index there, and nothing can
be writing to it); with a log, read-only (the log's pages are part of the store).
"""

import os
from pathlib import Path

from cortex_mcp.errors import StoreUnavailable
from cortex_mcp.store.private import create_private_file
from cortex_mcp.store.sqlite import pick_driver, plain_connection


def home_is_writable(home: Path, database: Path | None) -> bool:
    """True when the home (and the database file, if any) can be written to."""
    if not home.is_dir():
        return os.access(home.parent if home.parent.exists() else Path("/"), os.W_OK)
    if not os.access(home, os.W_OK | os.X_OK):
        return False
    return database is None or not database.exists() or os.access(database, os.W_OK)


def snapshot_sqlite(source: Path, into: Path) -> None:
    """Copy the store at `source` to the new file `into` (0600: it holds the whole store),
    reading `source` only."""
    if not source.is_file():
        raise StoreUnavailable(f"{source} does not exist")
    wal = source.with_name(f"{source.name}-wal")
    writable = os.access(source.parent, os.W_OK)
    mode = "mode=ro" if writable or wal.exists() else "immutable=1"
    errors = pick_driver().errors
    try:
        reader = plain_connection(f"{source.resolve().as_uri()}?{mode}", uri=True)
    except errors as err:
        raise StoreUnavailable(f"{source} cannot be read ({err})") from err
    create_private_file(into)  # SQLite would make it 0644 less the umask
    try:
        writer = plain_connection(into)  # a new file, page-for-page the store
        try:
            reader.backup(writer)
        finally:
            writer.close()
    except errors as err:
        raise StoreUnavailable(f"{source} cannot be copied ({err})") from err
    finally:
        reader.close()
