"""Per-session state of the hooks: how far the transcript went to memory (so the same lines
are never sent twice) and what was injected (tokens per turn and per session). One JSON file
per session under <home>/hooks/sessions, 0600, changed under an exclusive lock. It holds
positions and counts, never transcript text. Standard library only."""

from __future__ import annotations

import binascii
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from cortex_mcp.hooks.paths import private_dir, state_dir, write_private

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time
if TYPE_CHECKING:
    from typing import Any

KEPT_TURNS = 200
"""Per-turn token counts kept per session (the totals keep counting)."""
REPEAT_WINDOW_S = 10.0
"""A moment run again on the same input within this is the same event run twice: the host
starts every copy of our hook at once (a host that runs them one after the other waits at
most a couple of seconds for an injecting moment)."""

if os.name == "posix":
    import fcntl

    def _lock(descriptor: int, wait: bool = True) -> bool:
        """Lock `descriptor` exclusively; without `wait`, False when another process has it."""
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            return False
        return True

else:  # pragma: no cover - no Unix socket, no hooks server on Windows yet

    def _lock(descriptor: int, wait: bool = True) -> bool:
        return True


def open_locked(path: Path, wait: bool = True) -> int | None:
    """`path` opened (made if missing, 0600) and locked exclusively: the descriptor, or None
    when `wait` is False and another process holds it. A file that pruning (`prune`) unlinked
    while this process waited for it is let go and opened afresh, so two processes never hold
    locks on two files of one name."""
    while True:
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            if not _lock(descriptor, wait):
                os.close(descriptor)
                return None
            if os.fstat(descriptor).st_ino == os.stat(path).st_ino:
                return descriptor
        except FileNotFoundError:
            pass
        except BaseException:
            os.close(descriptor)
            raise
        os.close(descriptor)  # unlinked under us: the lock was on a file no one else opens


def state_file(data_home: Path, host: str, session_id: str) -> Path:
    """The state file of one host session: the id's safe characters and a checksum of the
    whole id (ids are the host's text; hashlib would load OpenSSL into every hook)."""
    raw = f"{host}\0{session_id}".encode()
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in session_id[:64])
    return state_dir(data_home) / f"{host}-{safe}-{binascii.crc32(raw):08x}.json"


def empty_state(host: str, session_id: str) -> dict[str, Any]:
    """A session nothing has happened in yet."""
    return {
        "host": host,
        "session_id": session_id,
        "transcript": "",
        "position": 0,
        "prompts": 0,
        "skipped": 0,
        "turns": [],
        "tokens": 0,
        "ingested": 0,
        "flushed": 0,
        "ended": False,
    }


def read_state(path: Path) -> dict[str, Any] | None:
    """A state file's content, or None when it is missing or unreadable."""
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


@contextmanager
def session_state(data_home: Path, host: str, session_id: str) -> Iterator[dict[str, Any]]:
    """The session's state, written back when the block ends; one process at a time."""
    path = state_file(data_home, host, session_id)
    private_dir(path.parent)
    descriptor = open_locked(path.with_suffix(".lock"))
    assert descriptor is not None  # waited for
    try:
        state = empty_state(host, session_id) | (read_state(path) or {})
        yield state
        write_private(path, json.dumps(state, ensure_ascii=False))
    finally:
        os.close(descriptor)  # closing releases the lock


@contextmanager
def saving(data_home: Path, host: str, session_id: str) -> Iterator[None]:
    """One save of the session at a time (Stop, PreCompact, SessionEnd): a lock of its own
    (`.saving`), held while the save reads the transcript and sends it. The state's lock
    (`session_state`) is taken only to read where the save starts and to write where it got
    to, so the prompt hook, which takes it to count what it injected, never waits for a save:
    a resumed session's 6,000 messages held it 14 s (the host gives the prompt 5)."""
    path = state_file(data_home, host, session_id).with_suffix(".saving")
    private_dir(path.parent)
    descriptor = open_locked(path)
    assert descriptor is not None  # waited for
    try:
        yield
    finally:
        os.close(descriptor)  # closing releases the lock


def count_injection(state: dict[str, Any], tokens: int) -> None:
    """Record one injection of `tokens` (0 when nothing was injected)."""
    state["turns"] = [*state["turns"], tokens][-KEPT_TURNS:]
    state["tokens"] += tokens


def first_run(
    data_home: Path, host: str, session_id: str, moment: str, fingerprint: str, now: float
) -> bool:
    """False for a copy: this moment already ran on the same input (`fingerprint`) less than
    REPEAT_WINDOW_S ago. A host that finds our hook in both the user's and the project's
    settings starts it twice for one event (Codex runs every matching hook; Claude Code and
    Gemini CLI drop a copy only when its command text is the same; Cursor runs Claude Code's
    entries beside its own, `entry.run`). The last run of each moment is kept per session,
    changed under an exclusive lock: of two copies started together, one acts. With nowhere
    to keep it, every copy acts."""
    path = state_file(data_home, host, session_id).with_suffix(".runs")
    try:
        private_dir(path.parent)
        descriptor = open_locked(path)
    except OSError:
        return True
    assert descriptor is not None  # waited for
    try:
        try:
            runs = json.loads(os.read(descriptor, 1 << 16) or b"{}")
        except ValueError:
            runs = {}
        runs = runs if isinstance(runs, dict) else {}
        last = runs.get(moment)
        if (
            isinstance(last, list)
            and len(last) == 2
            and last[0] == fingerprint
            and isinstance(last[1], int | float)
            and abs(now - last[1]) < REPEAT_WINDOW_S  # a copy may read the clock first
        ):
            return False
        runs[moment] = [fingerprint, now]
        os.lseek(descriptor, 0, os.SEEK_SET)
        os.ftruncate(descriptor, 0)
        os.write(descriptor, json.dumps(runs).encode())
        return True
    except OSError:
        return True
    finally:
        os.close(descriptor)  # closing releases the lock
