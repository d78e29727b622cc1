"""Cursor runs the hooks in Claude Code's settings files too ("third-party hooks",
https://cursor.com/docs/reference/third-party-hooks: ~/.claude/settings.json and the
project's .claude/settings.json, SessionStart mapped to sessionStart, Stop to stop,
UserPromptSubmit to beforeSubmitPrompt; all matching hooks from every source run). With
`hooks install cursor` and `hooks install claude-code` both done, each Cursor event starts
`cortex-mcp-hook cursor …` and `cortex-mcp-hook claude-code …` at once, with Cursor's stdin.
The event is Cursor's either way: one injection, one save."""

import json
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.hooks.hosts import hook_env, injected, run_hook_async, stderr_lines, write_jsonl
from tests.hooks.test_cursor import cursor_exchange, cursor_stdin
from tests.hooks.test_story import log_rows, running_server

MEMORY = "# Memory\n\n- [preference] The user prefers pnpm over npm for JavaScript projects.\n"
CLAUDE_NAMES = {
    "sessionStart": "SessionStart",
    "stop": "Stop",
    "beforeSubmitPrompt": "UserPromptSubmit",
}


async def both_entries(
    moment: str, stdin: dict[str, Any], env: dict[str, str]
) -> tuple[subprocess.CompletedProcess[bytes], subprocess.CompletedProcess[bytes]]:
    """The entry from ~/.cursor/hooks.json and the one from ~/.claude/settings.json, started
    together for one Cursor event (the Claude Code entry's input named either way)."""
    claude = {**stdin, "hook_event_name": CLAUDE_NAMES[stdin["hook_event_name"]]}
    done: dict[str, subprocess.CompletedProcess[bytes]] = {}

    async def one(host: str, given: dict[str, Any]) -> None:
        done[host] = await run_hook_async(host, moment, given, env)

    async with anyio.create_task_group() as group:
        group.start_soon(one, "cursor", stdin)
        group.start_soon(one, "claude-code", claude)
    assert all(run.returncode == 0 for run in done.values())
    return done["cursor"], done["claude-code"]


def cursor_context(stdout: bytes) -> str:
    return str(json.loads(stdout).get("additional_context", ""))


@pytest.mark.parametrize("generation", ["gen-1", None])
async def test_a_cursor_session_start_through_both_entries_injects_once(
    tmp_path: Path, generation: str | None
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "MEMORY.md").write_text(MEMORY, encoding="utf-8")  # no server: the mirror's start
    env = hook_env(home)
    start = cursor_stdin("sessionStart", "c1", None, session_id="c1", is_background_agent=False)
    if generation is None:  # none sent: the input minus its event's name tells the event
        del start["generation_id"]

    cursor, claude = await both_entries("session-start", start, env)

    contexts = [cursor_context(cursor.stdout), injected(claude.stdout)]
    assert sum("pnpm" in context for context in contexts) == 1, contexts
    assert cursor.stderr == b"" and claude.stderr == b""

    later = await both_entries("session-start", {**start, "session_id": "c2"}, env)

    assert (
        sum("pnpm" in c for c in (cursor_context(later[0].stdout), injected(later[1].stdout))) == 1
    )


async def test_a_cursor_exchange_through_both_entries_is_saved_once(tmp_path: Path) -> None:
    home = tmp_path / "home"
    user_home = tmp_path / "user"  # Cursor's CLI sends no transcript_path: found under here
    folder = user_home / ".cursor" / "projects" / "work-pelican" / "agent-transcripts"
    folder.mkdir(parents=True)
    transcript = write_jsonl(
        folder / "c1.jsonl",
        cursor_exchange("We deploy the pelican API on Fly.io.", "Noted: Fly.io."),
    )
    env = hook_env(home, HOME=str(user_home))
    async with running_server(home):
        for stdin in (
            cursor_stdin("stop", "c1", None, status="completed", loop_count=0),
            cursor_stdin("stop", "c1", transcript, status="completed", loop_count=0),
        ):
            cursor, claude = await both_entries("stop", stdin, env)
            assert stderr_lines(cursor.stderr) == [] and stderr_lines(claude.stderr) == []
        once = log_rows(home)

        write_jsonl(transcript, cursor_exchange("And the docs site?", "Netlify."), append=True)
        await both_entries(
            "stop", cursor_stdin("stop", "c1", transcript, generation_id="gen-2"), env
        )

        assert once == 2  # the user's message and the reply, once
        assert log_rows(home) == 4


async def test_cursor_s_before_submit_prompt_through_the_claude_code_entry_does_nothing(
    tmp_path: Path,
) -> None:
    """Cursor's beforeSubmitPrompt cannot add context: the Claude Code entry Cursor maps to it
    returns at once, no recall and no line, instead of failing or spending the user's wait."""
    stdin = cursor_stdin("UserPromptSubmit", "c1", None, prompt="Which database for billing?")

    done = await run_hook_async("claude-code", "prompt", stdin, hook_env(tmp_path / "home"))

    assert done.returncode == 0 and done.stdout == b"" and done.stderr == b""
    assert not (tmp_path / "home" / "hooks" / "sessions").exists()
