"""Cursor's hooks (#25 item 6): sessionStart injects the digest; stop, preCompact and
sessionEnd save from Cursor's agent transcript, fed through the real hook command with stdin
as Cursor documents it (conversation_id, workspace_roots, transcript_path; null from its CLI,
which keeps the transcript under ~/.cursor/projects)."""

import json
from pathlib import Path
from typing import Any

from tests.hooks.hosts import hook_env, run_hook_async, stderr_lines, write_jsonl
from tests.hooks.test_story import log_rows, running_server

WORKSPACE = "/work/pelican"


def cursor_exchange(user: str, reply: str, tool: tuple[str, dict[str, Any]] | None = None):
    """Lines of a Cursor agent transcript: the user's query (wrapped as Cursor wraps it), a tool
    call, the reply."""
    lines: list[dict[str, Any]] = [
        {
            "role": "user",
            "message": {
                "content": [
                    {
                        "type": "text",
                        "text": f"<timestamp>Wednesday, Nov 25, 2026</timestamp>\n"
                        f"<user_query>\n{user}\n</user_query>",
                    }
                ]
            },
        }
    ]
    if tool is not None:
        name, arguments = tool
        lines.append(
            {
                "role": "assistant",
                "message": {"content": [{"type": "tool_use", "name": name, "input": arguments}]},
            }
        )
    lines.append({"role": "assistant", "message": {"content": [{"type": "text", "text": reply}]}})
    return lines


def cursor_stdin(event: str, conversation: str, transcript: Path | None, **fields: Any):
    """What Cursor sends every hook, and the event's own fields."""
    return {
        "conversation_id": conversation,
        "generation_id": "gen-1",
        "model": "claude-4-sonnet",
        "hook_event_name": event,
        "cursor_version": "2.1.0",
        "workspace_roots": [WORKSPACE],
        "user_email": None,
        "transcript_path": str(transcript) if transcript else None,
        **fields,
    }


async def test_cursor_saves_at_stop_compaction_and_end_and_injects_at_session_start(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    env = hook_env(home)
    transcript = write_jsonl(
        tmp_path / "c1.jsonl",
        cursor_exchange(
            "We decided to deploy the pelican API on Fly.io instead of Heroku.",
            "Noted, the pelican API goes to Fly.io.",
            ("Shell", {"command": "fly launch"}),
        ),
    )
    async with running_server(home) as client:
        stop = await run_hook_async(
            "cursor",
            "stop",
            cursor_stdin("stop", "c1", transcript, status="completed", loop_count=0),
            env,
        )
        assert stop.returncode == 0 and json.loads(stop.stdout) == {}, stop.stderr
        assert log_rows(home) == 3  # the query (unwrapped), the reply, the tool call

        for n in range(5):
            write_jsonl(transcript, cursor_exchange(f"Step {n}?", f"Step {n} done."), True)
        compact = await run_hook_async(
            "cursor",
            "pre-compact",
            cursor_stdin("preCompact", "c1", transcript, trigger="auto"),
            env,
        )
        end = await run_hook_async(
            "cursor",
            "session-end",
            cursor_stdin("sessionEnd", "c1", transcript, reason="completed"),
            env,
        )
        assert compact.returncode == 0 and end.returncode == 0
        assert log_rows(home) == 13  # each step once: sessionEnd found nothing new

        start = await run_hook_async(
            "cursor",
            "session-start",
            cursor_stdin("sessionStart", "c2", None, session_id="c2", is_background_agent=False),
            env,
        )
        recalled = await client.call_tool("cortex_recall", {"query": "pelican deploy"})

    assert "Fly.io" in json.loads(start.stdout)["additional_context"]
    contents = json.dumps(recalled.structured_content)
    assert "<user_query>" not in contents and "timestamp" not in contents


async def test_cursor_cli_stop_without_a_transcript_path_finds_the_transcript_itself(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    user_home = tmp_path / "user"
    folder = user_home / ".cursor" / "projects" / "work-pelican" / "agent-transcripts"
    folder.mkdir(parents=True)
    write_jsonl(
        folder / "cli-7.jsonl",
        cursor_exchange("I prefer pnpm over npm for JavaScript projects.", "pnpm it is."),
    )
    env = hook_env(home, HOME=str(user_home))
    async with running_server(home):
        stop = await run_hook_async(
            "cursor", "stop", cursor_stdin("stop", "cli-7", None, status="completed"), env
        )
        missing = await run_hook_async(
            "cursor", "stop", cursor_stdin("stop", "no-such", None, status="completed"), env
        )

    assert stop.returncode == 0 and stderr_lines(stop.stderr) == []
    assert missing.returncode == 0 and json.loads(missing.stdout) == {}
    assert log_rows(home) == 2


async def test_cursor_has_no_prompt_hook(tmp_path: Path) -> None:
    done = await run_hook_async(
        "cursor",
        "prompt",
        cursor_stdin("beforeSubmitPrompt", "c", None, prompt="hi"),
        hook_env(tmp_path / "home"),
    )

    assert done.returncode == 0 and json.loads(done.stdout) == {}
    assert stderr_lines(done.stderr) == [
        "cortex-mcp-hook: cursor has no prompt hook here (README: Hooks)"
    ]
