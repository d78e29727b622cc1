"""Moments that found no server wait in <home>/hooks/spool until one starts. A record is a
pointer (host, moment, session id, transcript path, cwd): never conversation text, so
nothing read from a transcript is written anywhere before the server's redaction. Replayed
records read the transcript from where the session's state stopped, so a moment spooled
twice sends its lines once. Standard library only."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path

from cortex_mcp.hooks.paths import spool_dir, write_private

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time
if TYPE_CHECKING:
    from typing import Any

MAX_RECORDS = 1000
"""Records kept at most; beyond that the oldest go (their lines are still in the transcript
and the next moment of the same session sends them)."""


def put(data_home: Path, pointer: dict[str, Any]) -> Path:
    """Spool one moment's pointer (0600 in a 0700 folder)."""
    folder = spool_dir(data_home)
    name = f"{time.time_ns():020d}-{os.getpid()}.json"
    path = folder / name
    write_private(path, json.dumps(pointer, ensure_ascii=False))
    records = sorted(folder.glob("*.json"))
    for old in records[: max(0, len(records) - MAX_RECORDS)]:
        old.unlink(missing_ok=True)
    return path


def drain(data_home: Path, replay: Callable[[dict[str, Any]], None]) -> tuple[int, list[str]]:
    """Replay every spooled record in order, removing each one replayed; the count replayed
    and one line per record that failed (left for the next start when the server was gone,
    removed when the record itself is bad)."""
    done = 0
    problems: list[str] = []
    for path in sorted(spool_dir(data_home).glob("*.json")):
        try:
            record = json.loads(path.read_text("utf-8"))
            if not isinstance(record, dict):
                raise ValueError("not a JSON object")
        except (OSError, ValueError) as err:
            problems.append(f"{path.name}: {err}")
            path.unlink(missing_ok=True)
            continue
        try:
            replay(record)
        except Exception as err:  # one record's trouble never stops the others
            problems.append(f"{path.name}: {type(err).__name__}: {err}")
            if isinstance(err, OSError):  # the transcript is gone: nothing to replay
                path.unlink(missing_ok=True)
            continue
        path.unlink(missing_ok=True)
        done += 1
    return done, problems
