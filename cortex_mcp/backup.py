"""`cortex-mcp backup` and reading a store whose home cannot be written to.

A backup is one SQLite file holding the whole store: memories in every state, the
conversation log, relations, the dates memories mention, the lifecycle's history and the
embedding cache. From SQLite it is SQLite's online backup (page for page, consistent while a
server writes); from PostgreSQL it is `migrate`'s verified copy into a new SQLite file.
Restoring is `cortex-mcp migrate --from BACKUP --to ...` (or the file put back as the store).

`readable_settings` lets `export`, `backup` and `migrate` work from a read-only home (a
failing disk remounted read-only): the store is read through a snapshot in a temporary folder,
and nothing is written to the home.
"""

import argparse
import json
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from cortex_mcp.config import Settings
from cortex_mcp.errors import ConfigError, InvalidInput, StoreUnavailable
from cortex_mcp.store.copy import Progress, copy_store, counts
from cortex_mcp.store.migrations import migrate
from cortex_mcp.store.names import display_url
from cortex_mcp.store.output import output_target, replace_with
from cortex_mcp.store.select import open_store, open_target
from cortex_mcp.store.snapshot import home_is_writable, snapshot_sqlite


def home_writable(settings: Settings) -> bool:
    """True when the store can be opened as usual (its home, and the SQLite file, writable)."""
    database = settings.database_path if settings.database.url is None else None
    return home_is_writable(settings.home, database)


@contextmanager
def readable_settings(settings: Settings) -> Iterator[Settings]:
    """`settings`, or when the home is read-only, settings whose home is a temporary folder
    holding a snapshot of the SQLite store (PostgreSQL: the home alone moves)."""
    if home_writable(settings):
        yield settings
        return
    with tempfile.TemporaryDirectory(prefix="cortex-read-only-") as scratch:
        moved = settings.model_copy(update={"home": Path(scratch)})
        if settings.database.url is None and settings.database_path.exists():
            snapshot_sqlite(settings.database_path, moved.database_path)
        yield moved


async def backup_store(settings: Settings, output: Path, progress: Progress) -> str:
    """Write the whole store to the SQLite file `output`; the report as JSON."""
    target = output_target(output)  # refuse a device or folder before any work
    with tempfile.TemporaryDirectory(prefix=f".{target.name}.", dir=target.parent) as scratch:
        written = Path(scratch) / target.name
        if settings.database.url is None:
            snapshot_sqlite(settings.database_path, written)
            report: dict[str, object] = {"verified": True}
        else:
            report = await _copy_to_file(settings, written, progress)
        tables = await _counts(settings, written)
        replace_with(output, written)
    return json.dumps({**report, "written": str(target), "rows": tables}, indent=2)


async def _copy_to_file(settings: Settings, written: Path, progress: Progress) -> dict[str, object]:
    source = await open_store(settings)
    try:
        target = await open_target(str(written), settings)
        try:
            await migrate(source)
            await migrate(target)
            copied = await copy_store(source, target, progress)
        finally:
            await target.close()
    finally:
        await source.close()
    if not copied.verified:
        raise StoreUnavailable("the backup does not match its source; nothing was written")
    return {"verified": True}


async def _counts(settings: Settings, written: Path) -> dict[str, int]:
    db = await open_target(str(written), settings)
    try:
        return await counts(db)
    finally:
        await db.close()


async def migrate_command(settings: Settings, args: argparse.Namespace) -> str:
    """Copy the source store into the target (both migrated first); the verified report."""
    if not args.source and not args.target:
        raise InvalidInput("migrate", "give --to URL_OR_FILE (or --from it, to restore it here)")
    source = await (open_target(args.source, settings) if args.source else open_store(settings))
    try:
        try:
            target = await (
                open_target(args.target, settings) if args.target else open_store(settings)
            )
        except StoreUnavailable as err:  # name the target, not the source, as what failed
            where = f"migrate --to {display_url(args.target or 'the configured store')}"
            raise ConfigError(where, err.cause, "nothing was copied") from err
        try:
            await migrate(source)
            await migrate(target)
            report = await copy_store(source, target, progress)
        finally:
            await target.close()
    finally:
        await source.close()
    if not report.verified:
        raise StoreUnavailable("the copy does not match its source (see the counts); run again")
    return json.dumps(report.to_json(), indent=2)


def progress(table: str, rows: int) -> None:
    """A copy's progress, one line per batch on stderr."""
    sys.stderr.write(f"cortex-mcp: copy: {table}: {rows:,} rows\n")
