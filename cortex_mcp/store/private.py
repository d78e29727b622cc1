"""Files only their user can read: the store holds every memory and the verbatim conversation
log, so what cortex writes from it is 0600 and a folder it makes for it 0700.

The modes are asked for at creation (`mkdir(mode=0o700)`, `open(..., 0o600)`), so the umask
can only take bits away, never give other users any. A folder that already exists is never
changed: the user may have made it (an existing `CORTEX_HOME`), and the files in it are what
hold the content. SQLite gives a database's `-wal` and `-shm` files the mode of the database
file, so a database created 0600 keeps its log and index private too.

On Windows a mode is only a read-only flag: the creation calls still work, and nothing is
tightened (every file there reads as 0666).
"""

import contextlib
import os
import shutil
import stat
from pathlib import Path

PRIVATE_FOLDER = 0o700
PRIVATE_FILE = 0o600
OTHERS = 0o077
"""The group and other permission bits."""


def private_folders(path: Path) -> Path:
    """`path` made if missing, 0700, and so is every missing folder above it; a folder that
    exists is left as it is."""
    for folder in reversed([path, *path.parents]):
        if not folder.exists():
            with contextlib.suppress(FileExistsError):  # another process made it meanwhile
                folder.mkdir(mode=PRIVATE_FOLDER)
    return path


def create_private_file(path: Path) -> None:
    """Create `path` empty and 0600 when it does not exist (an existing file is untouched).
    Trouble is left to whoever opens it next, who reports it in its own words."""
    with contextlib.suppress(OSError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE))


def copy_private(source: Path, target: Path) -> None:
    """Copy `source` to the new file `target`, 0600, keeping the source's times
    (`shutil.copy2` would copy its mode as well)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    descriptor = os.open(target, flags, PRIVATE_FILE)
    with open(source, "rb") as reading, os.fdopen(descriptor, "wb") as writing:
        shutil.copyfileobj(reading, writing)
    times = source.stat()
    os.utime(target, ns=(times.st_atime_ns, times.st_mtime_ns))


def others_can_open(path: Path) -> int | None:
    """The mode of `path` when its group or other users have any permission on it; None when
    they have none, it does not exist, or this is Windows."""
    if os.name == "nt":
        return None
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return None
    return mode if mode & OTHERS else None


def make_private(paths: list[Path]) -> str | None:
    """Take the group's and other users' permissions off each of `paths` that has any; one line
    saying what was done (or could not be), None when every file was private already."""
    loose = {path: mode for path in paths if (mode := others_can_open(path)) is not None}
    if not loose:
        return None
    names = ", ".join(path.name for path in loose)
    modes = ", ".join(sorted({f"{mode:04o}" for mode in loose.values()}))
    folder = next(iter(loose)).parent
    try:
        for path, mode in loose.items():
            os.chmod(path, mode & ~OTHERS)
    except OSError as err:
        return (
            f"{names} in {folder} can be read by other users ({modes}) and could not be made"
            f" private ({err.strerror}); run chmod 600 on them"
        )
    return f"{names} in {folder} could be read by other users ({modes}); now this user's only"
