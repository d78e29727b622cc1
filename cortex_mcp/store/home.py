"""The data folder on disk: usable before anything opens it, and a database left at the old
default path (~/.cortex) moved once to the new one, only when it is ours.

A file at the old path is recognised as a cortex-mcp database by its marker
(`meta.application = 'cortex-mcp'`, migration `mark_as_cortex_mcp`) or, for files written
before the marker existed, by its schema: `PRAGMA user_version` ≥ 1 and the tables `memories`
(with `content_key` and `decay_score`), `memories_fts` and `meta`. Anything else there (another
program's `cortex.db`, its `worker.pids`) is never read beyond that check, moved or touched.
"""

import contextlib
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from cortex_mcp.errors import ConfigError
from cortex_mcp.store.private import private_folders

MIRROR_NAMES = ("MEMORY.md", "memory")
"""The Markdown mirror cortex-mcp writes into its home (engine/mirror/)."""


def prepare_home(home: Path, named_as: str) -> None:
    """Create the data folder (0700, as every missing folder above it; one that exists keeps
    its mode), or raise ConfigError saying in one line why it cannot be used.

    `named_as` is how the user set it (`CORTEX_HOME`, or "the default data folder").
    """
    if home.exists() and not home.is_dir():
        raise ConfigError(f"{named_as}={home}", "is a file, not a folder", "point it at a folder")
    try:
        private_folders(home)
    except OSError as err:
        raise ConfigError(
            f"{named_as}={home}",
            f"cannot be created ({err.strerror})",
            "create it yourself or choose a folder you can write to",
        ) from err
    if not os.access(home, os.W_OK | os.X_OK):
        raise ConfigError(
            f"{named_as}={home}",
            "is not writable",
            "make it writable (chmod u+w) or choose another folder",
        )


def check_database_file(path: Path) -> None:
    """Raise ConfigError when the database file exists but cannot be opened for writing; the
    file is not changed."""
    if path.exists() and not path.is_file():
        raise ConfigError(f"database {path}", "is not a file", "move it away or set CORTEX_HOME")
    if path.exists() and not os.access(path, os.R_OK | os.W_OK):
        raise ConfigError(
            f"database {path}",
            "is read-only or unreadable",
            "make it readable and writable (chmod u+rw), or export it from a writable copy",
        )


def is_cortex_database(path: Path) -> bool:
    """True when `path` is a SQLite file written by cortex-mcp (marker or schema), read-only."""
    from cortex_mcp.store.sqlite import pick_driver, plain_connection  # not before the handshake

    errors = pick_driver().errors
    try:
        conn = plain_connection(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except errors:
        return False
    try:
        version = conn.execute("pragma user_version").fetchone()[0]
        tables = {row[0] for row in conn.execute("select name from sqlite_master")}
        if version < 1 or not {"memories", "memories_fts", "meta"} <= tables:
            return False
        marker = conn.execute("select value from meta where key = 'application'").fetchone()
        if marker is not None:
            return bool(marker[0] == "cortex-mcp")
        columns = {row[1] for row in conn.execute("pragma table_info(memories)")}
        return {"content_key", "decay_score", "layer", "superseded_by"} <= columns
    except errors:
        return False
    finally:
        conn.close()


def move_legacy_home(legacy: Path, home: Path, filename: str) -> str | None:
    """Move `legacy/filename` (with its WAL, shared memory and the Markdown mirror) into `home`
    once, when it is a cortex-mcp database and `home` has none yet. The one line to show the
    user, or None when there was nothing of ours to move."""
    source, target = legacy / filename, home / filename
    if legacy.resolve() == home.resolve() or target.exists() or not source.is_file():
        return None
    if not is_cortex_database(source):
        return None
    private_folders(home)
    moved = []
    for name in (filename, f"{filename}-wal", f"{filename}-shm", *MIRROR_NAMES):
        if (legacy / name).exists() and not (home / name).exists():
            _move(legacy / name, home / name)
            moved.append(name)
    return f"moved the cortex-mcp database from {legacy} to {home} ({', '.join(moved)})"


def _move(source: Path, target: Path) -> None:
    """Rename when both are on one file system; else copy beside the target and rename it into
    place, so the target is never half-written, then remove the source."""
    try:
        os.replace(source, target)
        return
    except OSError:
        pass
    partial = target.with_name(f".{target.name}.moving")
    if source.is_dir():
        shutil.copytree(source, partial, dirs_exist_ok=True)
    else:
        shutil.copy2(source, partial)
    os.replace(partial, target)
    if source.is_dir():
        shutil.rmtree(source)
    else:
        source.unlink()


TEMP_SUFFIX = ".cortex-tmp"
"""Temporary files beside a page being written end in this (a crash may leave one)."""


def write_atomic(path: Path, text: str, still: Callable[[], bool] | None = None) -> bool:
    """Replace `path` with `text` all at once: readers see the old file or the new, whole, and
    only this user can read it (0600; a folder made for it 0700). Undecodable bytes read from a
    user's file (surrogate escapes) are written back as they were. `still`, asked once the new
    text is on disk, just before the swap: False leaves the file as it is (someone changed it
    meanwhile). True when the file was replaced."""
    private_folders(path.parent)
    handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=TEMP_SUFFIX, dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(text.encode("utf-8", "surrogateescape"))
            file.flush()
            os.fsync(file.fileno())
        if still is not None and not still():
            os.unlink(temp)
            return False
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise
    return True
