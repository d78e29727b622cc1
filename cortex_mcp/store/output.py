"""Writing a command's result to the file the user named (`export --output`, `backup`).

Only a regular file or a new path is written, whole or not at all (a temporary file beside it,
synced, then renamed over it). A new file can be read by this user only (0600: it holds
memories, or the whole store); a file that was there keeps its permissions. A symlink is
followed: its target is written and the link stays a link. Anything else (a device such as
/dev/full, a FIFO, a folder) is refused in one line and left as it was: renaming over it would
replace the device with a regular file.
"""

import contextlib
import os
import stat
import tempfile
from pathlib import Path

from cortex_mcp.errors import InvalidInput

TEMP_SUFFIX = ".partial"


def output_target(path: Path) -> Path:
    """The regular file (existing or new) that writing `path` means: symlinks followed.
    Raises InvalidInput("output", ...) for anything that is not a regular file."""
    target = Path(os.path.realpath(path))
    try:
        mode = target.stat().st_mode
    except FileNotFoundError as err:
        if not target.parent.is_dir():
            folder = target.parent
            raise InvalidInput("output", f"{path}: its folder {folder} does not exist") from err
        return target
    if not stat.S_ISREG(mode):
        kind = "a folder" if stat.S_ISDIR(mode) else "a device, FIFO or socket"
        raise InvalidInput("output", f"{path} is {kind}, not a regular file; nothing was written")
    return target


def write_output(path: Path, data: bytes) -> Path:
    """Write `data` to the regular file `path` means (see `output_target`), all at once:
    readers see the old file or the new one, whole. The file written."""
    target = output_target(path)
    handle, temp = tempfile.mkstemp(
        prefix=f".{target.name}.", suffix=TEMP_SUFFIX, dir=target.parent
    )
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        with contextlib.suppress(FileNotFoundError):
            os.chmod(temp, stat.S_IMODE(target.stat().st_mode))  # keep the file's permissions
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise
    return target


def replace_with(path: Path, written: Path) -> Path:
    """Move the finished file `written` (in the target's folder) onto what `path` means; a file
    that was there keeps its permissions, as `write_output` keeps them."""
    target = output_target(path)
    with contextlib.suppress(FileNotFoundError):
        os.chmod(written, stat.S_IMODE(target.stat().st_mode))
    os.replace(written, target)
    return target
