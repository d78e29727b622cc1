"""Old sessions' hook state taken away: each (host, session) leaves a `.json`, a `.lock`, a
`.runs` and a `.saving` file under <home>/hooks/sessions, and a heavy user starts thousands of
sessions a year. A detached save (Stop, PreCompact, SessionEnd: no one waits for it, and
every host has a Stop) prunes at most once a day, at most PRUNE_BATCH sessions. Standard
library only."""

from __future__ import annotations

import json
import os

from cortex_mcp.hooks.paths import state_dir
from cortex_mcp.hooks.state import open_locked

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time
if TYPE_CHECKING:
    from pathlib import Path

DAY_S = 86_400.0
IDLE_S = 30 * DAY_S
"""A session none of whose files changed for this long, and whose transcript is gone, is
over: Claude Code deletes a transcript 30 days after its session's last activity (its
`cleanupPeriodDays` default), and a session cannot be resumed without it."""
KEPT_S = 180 * DAY_S
"""A session idle this long is pruned even with its transcript still there (Codex keeps its
rollouts): resumed after that, its transcript is read from the start again."""
PRUNE_EVERY_S = DAY_S
PRUNE_BATCH = 200
"""Sessions looked at per prune (the first prune after an upgrade finds a year's files)."""
MARKER = ".pruned"
SUFFIXES = (".json", ".runs", ".lock", ".saving")


def prune_sessions(data_home: Path, now: float) -> int:
    """Remove the state of sessions idle past IDLE_S whose transcript is gone, or past KEPT_S;
    the number removed. Done at most once per PRUNE_EVERY_S; a session whose lock another
    process holds is live and left alone. Two hooks pruning at once remove each file once."""
    folder = state_dir(data_home)
    marker = folder / MARKER
    try:
        if now - marker.stat().st_mtime < PRUNE_EVERY_S:
            return 0
    except FileNotFoundError:
        if not folder.is_dir():
            return 0
    marker.touch(mode=0o600)
    os.utime(marker, (now, now))
    newest: dict[str, float] = {}
    with os.scandir(folder) as entries:
        for entry in entries:
            stem, suffix = os.path.splitext(entry.name)
            if (at := _modified(folder / entry.name)) is None:
                continue  # another hook's prune took it
            if suffix in SUFFIXES and not entry.name.startswith("."):
                newest[stem] = max(newest.get(stem, 0.0), at)
            elif entry.name.endswith(".tmp") and now - at > IDLE_S:
                (folder / entry.name).unlink(missing_ok=True)  # left by a hook killed writing
    idle = sorted((at, stem) for stem, at in newest.items() if now - at > IDLE_S)
    return sum(_prune(folder, stem, now) for _, stem in idle[:PRUNE_BATCH])


def _prune(folder: Path, stem: str, now: float) -> bool:
    """One session's files removed, under its lock, when it is still over; True if they were."""
    lock, saving = folder / f"{stem}.lock", folder / f"{stem}.saving"
    descriptor = open_locked(lock, wait=False)
    if descriptor is None:  # a hook of this session runs now
        return False
    try:
        files = [folder / f"{stem}{suffix}" for suffix in (".json", ".runs")]
        idle_s = now - max((at for p in files if (at := _modified(p)) is not None), default=0.0)
        if idle_s <= IDLE_S or (idle_s <= KEPT_S and _transcript_there(files[0])):
            return False
        held = [open_locked(p, wait=False) if p.exists() else -1 for p in (files[1], saving)]
        try:
            if None in held:  # a copy's claim is being made, or a save is under way
                return False
            for path in files:
                path.unlink(missing_ok=True)
            saving.unlink(missing_ok=True)
        finally:
            for other in held:
                if other is not None and other >= 0:
                    os.close(other)
        lock.unlink(missing_ok=True)
        return True
    finally:
        os.close(descriptor)


def _transcript_there(path: Path) -> bool:
    """True when the session's state names a transcript that still exists."""
    try:
        transcript = json.loads(path.read_text("utf-8")).get("transcript")
    except (OSError, ValueError, AttributeError):
        return False
    return isinstance(transcript, str) and bool(transcript) and os.path.exists(transcript)


def _modified(path: Path) -> float | None:
    """When `path` last changed; None when it is gone."""
    try:
        return path.stat().st_mtime
    except FileNotFoundError:
        return None
