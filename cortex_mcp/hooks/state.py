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

if os.name == "posix":
    import fcntl

    def _lock(descriptor: int) -> None:
        fcntl.flock(descriptor, fcntl.LOCK_EX)

else:  # pragma: no cover - no Unix socket, no hooks server on Windows yet

    def _lock(descriptor: int) -> None:
        return None


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
    descriptor = os.open(path.with_suffix(".lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        _lock(descriptor)
        state = empty_state(host, session_id) | (read_state(path) or {})
        yield state
        write_private(path, json.dumps(state, ensure_ascii=False))
    finally:
        os.close(descriptor)  # closing releases the lock


def count_injection(state: dict[str, Any], tokens: int) -> None:
    """Record one injection of `tokens` (0 when nothing was injected)."""
    state["turns"] = [*state["turns"], tokens][-KEPT_TURNS:]
    state["tokens"] += tokens
