"""Episodes from the hooks (#26 item 1, #25's SessionEnd): a real server on stdio with its local
socket, the real `cortex-mcp-hook` command fed JSON on stdin and a Claude Code transcript on
disk. A session whose tool calls fail and then succeed ends; its episode, with the error and the
fix, comes back in a later session. PreCompact and SessionEnd of one session make one episode;
imported transcripts make one episode per file that ran a tool, and importing again makes no
second one."""

import json
from pathlib import Path
from typing import Any

from tests.conftest import data_of, read_json
from tests.hooks.hosts import (
    claude_line,
    hook_env,
    payload,
    run_hook_async,
    write_jsonl,
)
from tests.hooks.test_import import cortex
from tests.hooks.test_story import running_server
from tests.servers import query_one

REQUEST = "The login test fails on CI with a missing fixture; please fix it."
FIX = "Fixed: db_session moved to tests/conftest.py and the login tests pass now."


def tool_use(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    block = {"type": "tool_use", "id": call_id, "name": name, "input": arguments}
    return claude_line("assistant", [block])


def tool_result(call_id: str, text: str, is_error: bool = False) -> dict[str, Any]:
    block = {
        "type": "tool_result",
        "tool_use_id": call_id,
        "content": [{"type": "text", "text": text}],
        "is_error": is_error,
    }
    return claude_line("user", [block])


def said(role: str, text: str) -> dict[str, Any]:
    return claude_line(role, [{"type": "text", "text": text}] if role == "assistant" else text)


def failing_then_fixed() -> list[dict[str, Any]]:
    """A Claude Code session: a test run fails, a decision, an edit, the run passes."""
    return [
        said("user", REQUEST),
        tool_use("t1", "Bash", {"command": "pytest tests/test_login.py"}),
        tool_result("t1", "E   fixture 'db_session' not found\n1 failed, 3 passed", True),
        said(
            "assistant",
            "The fixture db_session lives in tests/db/conftest.py, which CI does not load. "
            "I will move it to tests/conftest.py.",
        ),
        tool_use("t2", "Edit", {"file_path": "tests/conftest.py"}),
        tool_result("t2", "The file tests/conftest.py has been updated."),
        tool_use("t3", "Bash", {"command": "pytest tests/test_login.py"}),
        tool_result("t3", "4 passed in 0.3s"),
        said("assistant", FIX),
    ]


def episodes(home: Path) -> int:
    return int(query_one(home / "cortex.db", "select count(*) from episodes"))


async def test_a_session_that_failed_then_fixed_comes_back_in_a_later_session(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    env = hook_env(home)
    async with running_server(home) as client:
        one = write_jsonl(tmp_path / "one.jsonl", failing_then_fixed())
        stop = await run_hook_async("claude-code", "stop", payload("Stop", "one", one), env)
        assert stop.returncode == 0 and stop.stderr == b"", stop.stderr
        assert episodes(home) == 0  # a turn is not a session
        end = await run_hook_async(
            "claude-code", "session-end", payload("SessionEnd", "one", one, reason="exit"), env
        )
        assert end.returncode == 0 and end.stderr == b"", end.stderr

        listed = await read_json(client, "cortex://episodes")
        assert listed["total"] == 1
        brief = listed["episodes"][0]
        assert brief["session_id"] == "one" and brief["goal"] == REQUEST
        assert brief["outcome"] == FIX and brief["errors"] == 1
        episode = await read_json(client, f"cortex://episodes/{brief['id']}")
        actions = episode["episode"]["actions"]
        assert [(a["tool"], a["success"]) for a in actions] == [
            ("Bash", False),
            ("Edit", True),
            ("Bash", True),
        ]
        assert "fixture 'db_session' not found" in actions[0]["error"]

    # A later session (a new server process) meets the same error: recall brings the episode
    # back as one line holding the error and the fix.
    async with running_server(home) as later:
        found = data_of(
            await later.call_tool(
                "cortex_recall",
                {"query": "pytest says fixture db_session not found on CI again. How did we fix?"},
            )
        )
    top = found["memories"][0]
    assert top["id"] == brief["id"] and "\n" not in top["content"]
    assert "fixture 'db_session' not found" in top["content"] and FIX[:-1] in top["content"]
    assert sum(1 for line in found["context"].splitlines() if "Episode:" in line) == 1


async def test_pre_compact_then_session_end_make_one_episode_with_its_decisions(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    env = hook_env(home)
    lines = failing_then_fixed()
    async with running_server(home) as client:
        path = write_jsonl(tmp_path / "s.jsonl", lines[:4])
        compact = await run_hook_async(
            "claude-code", "pre-compact", payload("PreCompact", "s", path, trigger="auto"), env
        )
        assert compact.returncode == 0 and compact.stderr == b"", compact.stderr
        assert episodes(home) == 1
        first = (await read_json(client, "cortex://episodes"))["episodes"][0]
        assert first["outcome"].startswith("last step Bash: failed")  # so far: the failure
        write_jsonl(path, lines[4:], append=True)
        end = await run_hook_async(
            "claude-code", "session-end", payload("SessionEnd", "s", path, reason="exit"), env
        )
        again = await run_hook_async(
            "claude-code", "session-end", payload("SessionEnd", "s", path, reason="exit"), env
        )
        assert end.returncode == 0 and again.returncode == 0, end.stderr + again.stderr
        assert episodes(home) == 1
        listed = await read_json(client, "cortex://episodes")
        assert listed["total"] == 1 and listed["episodes"][0]["id"] == first["id"]
        episode = await read_json(client, f"cortex://episodes/{first['id']}")
    assert episode["outcome"] == FIX
    failed = episode["episode"]["actions"][0]
    assert failed["decision"].startswith("The fixture db_session lives in tests/db/conftest.py")


def test_imported_transcripts_that_ran_tools_make_one_episode_each_and_again_none(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "projects"
    folder.mkdir()
    write_jsonl(folder / "a1.jsonl", failing_then_fixed())
    write_jsonl(
        folder / "b2.jsonl",
        [said("user", "Rename the module m1 to m2."), said("assistant", "Done: renamed.")],
    )
    home = tmp_path / "home"

    done = cortex(home, "import", str(folder), "--transcripts", "claude-code")
    assert done.returncode == 0, done.stderr
    assert episodes(home) == 1  # b2 is a chat: no tool ran, no episode
    again = cortex(home, "import", str(folder), "--transcripts", "claude-code")
    assert again.returncode == 0 and json.loads(again.stdout)["messages"] == 0
    assert episodes(home) == 1
    goals = query_one(
        home / "cortex.db",
        "select group_concat(m.content, ' | ') from episodes e join memories m"
        " on m.id = e.memory_id",
    )
    assert REQUEST in goals and "Rename the module" not in goals
