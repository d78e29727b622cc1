"""Hook state files are pruned: every (host, session) leaves a .json, a .lock and a .runs
under <home>/hooks/sessions, and they piled up for ever (thousands a year for a heavy user).
A detached save prunes sessions idle for 30 days whose transcript is gone (180 days when it
is still there), at most once a day, never a session whose hook holds its lock."""

import os
import time
from pathlib import Path

import anyio
import pytest

from cortex_mcp.hooks.paths import state_dir
from cortex_mcp.hooks.prune import DAY_S
from cortex_mcp.hooks.state import first_run, open_locked, session_state, state_file
from tests.hooks.hosts import (
    claude_exchange,
    hook_env,
    payload,
    run_hook,
    run_hook_async,
    write_jsonl,
)
from tests.hooks.test_story import eventually


def session(home: Path, name: str, transcript: Path | None, idle_days: float) -> list[Path]:
    """A session's state as the moments leave it, last touched `idle_days` ago."""
    with session_state(home, "claude-code", name) as state:
        state["transcript"] = str(transcript) if transcript else ""
        state["position"] = 100
    first_run(home, "claude-code", name, "stop", "f", time.time())
    path = state_file(home, "claude-code", name)
    files = [path, path.with_suffix(".lock"), path.with_suffix(".runs")]
    at = time.time() - idle_days * DAY_S
    for file in files:
        os.utime(file, (at, at))
    return files


def stop(home: Path, tmp_path: Path, name: str) -> None:
    """Claude Code's Stop for a session of today, run as Claude Code runs it."""
    transcript = write_jsonl(tmp_path / f"{name}.jsonl", claude_exchange("Use pnpm?", "Yes."))
    done = run_hook("claude-code", "stop", payload("Stop", name, transcript), hook_env(home))
    assert done.returncode == 0 and done.stderr == b"", done.stderr


def test_a_save_prunes_sessions_idle_a_month_and_keeps_live_ones(tmp_path: Path) -> None:
    home = tmp_path / "home"
    kept_transcript = write_jsonl(tmp_path / "kept.jsonl", claude_exchange("a", "b"))
    gone = session(home, "gone", tmp_path / "deleted.jsonl", idle_days=31)
    never = session(home, "never", None, idle_days=40)
    resumable = session(home, "resumable", kept_transcript, idle_days=40)
    ancient = session(home, "ancient", kept_transcript, idle_days=200)
    recent = session(home, "recent", None, idle_days=29)
    (state_dir(home) / ".x.json.123.tmp").write_text("{", encoding="utf-8")
    os.utime(state_dir(home) / ".x.json.123.tmp", (0, 0))  # a write a killed hook left

    stop(home, tmp_path, "today")

    assert not any(p.exists() for p in [*gone, *never, *ancient])
    assert all(p.exists() for p in [*resumable, *recent])
    assert state_file(home, "claude-code", "today").with_suffix(".runs").exists()
    assert not (state_dir(home) / ".x.json.123.tmp").exists()

    later = session(home, "later", None, idle_days=60)
    stop(home, tmp_path, "today")  # pruned already today: not again

    assert all(p.exists() for p in later)


def test_a_session_whose_hook_holds_its_lock_is_not_pruned(tmp_path: Path) -> None:
    home = tmp_path / "home"
    files = session(home, "busy", None, idle_days=45)
    descriptor = open_locked(files[1])  # its moment runs now (a lock is per open file)
    assert descriptor is not None
    try:
        stop(home, tmp_path, "today")
    finally:
        os.close(descriptor)

    assert all(p.exists() for p in files)


async def test_two_saves_pruning_at_once_both_exit_cleanly(tmp_path: Path) -> None:
    home = tmp_path / "home"
    old = [p for n in range(20) for p in session(home, f"old{n}", None, idle_days=90)]
    env = hook_env(home)
    runs = []

    async def one(name: str) -> None:
        transcript = write_jsonl(tmp_path / f"{name}.jsonl", claude_exchange("Hi", "Hello."))
        runs.append(
            await run_hook_async("claude-code", "stop", payload("Stop", name, transcript), env)
        )

    async with anyio.create_task_group() as group:
        group.start_soon(one, "a")
        group.start_soon(one, "b")

    assert all(run.returncode == 0 and run.stderr == b"" for run in runs), runs
    assert not any(p.exists() for p in old)
    assert not (home / "hooks" / "hooks.log").exists()


def waits_for_lock(inode: int) -> bool:
    """True when some process waits for a lock on the file `inode` (Linux's /proc/locks)."""
    locks = Path("/proc/locks").read_text(encoding="utf-8").splitlines()
    return any("->" in line and f":{inode} " in line for line in locks)


@pytest.mark.skipif(not Path("/proc/locks").exists(), reason="needs Linux's /proc/locks")
async def test_a_hook_waiting_while_a_prune_unlinks_its_lock_file_locks_the_new_file(
    tmp_path: Path,
) -> None:
    """A hook that opened a session's .lock and waited while a prune removed it would hold a
    lock on a file no one else opens, beside a hook locking the new one."""
    path = tmp_path / "claude-code-s-0.lock"
    pruning = open_locked(path)
    assert pruning is not None
    inode = os.fstat(pruning).st_ino
    got: list[int | None] = []

    async def hook() -> None:
        got.append(await anyio.to_thread.run_sync(open_locked, path))

    with anyio.fail_after(10):
        async with anyio.create_task_group() as group:
            group.start_soon(hook)
            await eventually(lambda: waits_for_lock(inode), "the hook waits for the lock")
            path.unlink()  # what a prune does, holding the lock
            os.close(pruning)

    descriptor = got[0]
    assert descriptor is not None
    try:
        assert path.exists() and os.fstat(descriptor).st_ino == path.stat().st_ino
    finally:
        os.close(descriptor)
