"""What `hooks install` added to each settings file, so that `hooks uninstall` takes away
that and no more: the file and the folders it made, the top-level keys it added (`hooks`,
Cursor's `version`) and the events it added under `hooks`. One JSON file,
<home>/hooks/installed.json (0600), keyed by the settings file's path. With no record (an
install by an earlier version, or under another CORTEX_HOME), uninstall takes away our entries
and a `hooks` object they alone filled, and keeps the file."""

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from cortex_mcp.errors import InvalidInput
from cortex_mcp.hooks.paths import home, hooks_dir, write_private

RECORD_NAME = "installed.json"


def record_file() -> Path:
    """<home>/hooks/installed.json."""
    return hooks_dir(home()) / RECORD_NAME


def records() -> dict[str, Any]:
    """Every settings file's record ({} when there are none or the file cannot be read)."""
    try:
        found = json.loads(record_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def record_of(path: Path) -> dict[str, Any] | None:
    """What install added to `path`: {"created": bool, "folders": [...], "added": [...],
    "events": [...]} (lists of strings); None when there is no record or it has another
    shape."""
    found = records().get(str(path))
    if not isinstance(found, dict) or not isinstance(found.get("created", False), bool):
        return None
    lists = [found.get(key, []) for key in ("folders", "added", "events")]
    if not all(isinstance(v, list) and all(isinstance(i, str) for i in v) for v in lists):
        return None  # hand-edited or broken: as with no record, the file is kept
    return found if all(Path(folder).is_absolute() for folder in lists[0]) else None


def made_by_install(path: Path) -> list[Path]:
    """The folders above `path` that do not exist yet, outermost first."""
    return [folder for folder in reversed(path.parents) if not folder.exists()]


@contextmanager
def recording(path: Path, record: dict[str, Any] | None) -> Iterator[None]:
    """`path`'s record set to `record` (None: dropped) for the change made in the block, and
    put back as it was when the change fails (a failed install leaves no trace)."""
    before = records()
    after = {k: v for k, v in before.items() if k != str(path)}
    if record is not None:
        after[str(path)] = record
    if after != before:
        _save(after)
    try:
        yield
    except BaseException:
        if after != before:
            _save(before)
        raise


def _save(found: dict[str, Any]) -> None:
    try:
        write_private(record_file(), json.dumps(found, indent=2, ensure_ascii=False) + "\n")
    except OSError as err:
        raise InvalidInput(
            str(record_file()), f"cannot be written ({err.strerror}); nothing was changed"
        ) from err
