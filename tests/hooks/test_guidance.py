"""Agent guidance in one place (#25 item 8): the server's instructions, the ingest note and the
hooks say the same thing, and none points at a tool CORTEX_TOOLS does not expose."""

import re
from pathlib import Path

from mcp import Client

from cortex_mcp.config import Settings
from cortex_mcp.guidance import empty_store, ingest_note
from cortex_mcp.hooks.paths import socket_path
from cortex_mcp.server import build_server
from tests.conftest import data_of
from tests.hooks.hosts import (
    claude_exchange,
    hook_env,
    injected,
    payload,
    run_hook_async,
    stderr_lines,
    write_jsonl,
)
from tests.hooks.test_story import eventually, log_rows
from tests.servers import stdio_server

THREE = "cortex_recall,cortex_ingest,cortex_flush"
NO_EXTRACTOR = {"CORTEX_EMBEDDING__PROVIDER": "none", "CORTEX_LLM__PROVIDER": "none"}


def tools_named(text: str) -> set[str]:
    return set(re.findall(r"cortex_[a-z_]+", text))


async def test_instructions_name_only_the_exposed_tools(tmp_path: Path) -> None:
    for chosen in (THREE, "cortex_recall,cortex_remember"):
        settings = Settings.model_validate({"home": tmp_path, "tools": chosen})

        async with Client(build_server(settings)) as client:
            named = tools_named(client.instructions or "")

        assert named == set(chosen.split(",")), chosen


async def test_the_instructions_tell_the_agent_the_hooks_save_for_it(tmp_path: Path) -> None:
    async with Client(build_server(Settings(home=tmp_path))) as client:
        instructions = client.instructions or ""

    assert "Memory from earlier sessions (cortex-mcp)" in instructions
    assert "do not call cortex_ingest or cortex_flush yourself" in instructions


async def test_with_three_tools_neither_ingest_nor_the_session_hook_points_at_remember(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    env = hook_env(home)
    server = stdio_server(home, **NO_EXTRACTOR, CORTEX_TOOLS=THREE)
    async with Client(server) as client:
        await eventually(socket_path(home).exists, "the server's socket exists")
        assert "cortex_remember" not in (client.instructions or "")
        said = data_of(
            await client.call_tool(
                "cortex_ingest",
                {
                    "user_message": "The staging cluster moved to the Frankfurt region last week.",
                    "assistant_message": "Then the latency numbers from before the move are stale.",
                },
            )
        )
        transcript = write_jsonl(
            tmp_path / "s.jsonl", claude_exchange("I prefer tabs over spaces in Go code.", "OK.")
        )
        stop = await run_hook_async("claude-code", "stop", payload("Stop", "s", transcript), env)
        start = await run_hook_async(
            "claude-code", "session-start", payload("SessionStart", "s2", None), env
        )

    assert said["skipped"] == "no LLM" and said["note"] is None  # nothing it could ask for
    assert stop.returncode == 0 and stop.stderr == b""
    context = injected(start.stdout)
    assert "tabs over spaces" in context
    assert tools_named(context) == {"cortex_ingest", "cortex_flush", "cortex_recall"}
    assert "Hooks save this conversation: no need to call cortex_ingest or cortex_flush" in context


async def test_a_moment_whose_tool_is_hidden_is_skipped_with_one_line(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = hook_env(home)
    server = stdio_server(home, **NO_EXTRACTOR, CORTEX_TOOLS="cortex_recall,cortex_remember")
    async with Client(server):
        await eventually(socket_path(home).exists, "the server's socket exists")
        transcript = write_jsonl(
            tmp_path / "s.jsonl", claude_exchange("I prefer tabs over spaces in Go code.", "OK.")
        )
        stop = await run_hook_async("claude-code", "stop", payload("Stop", "s", transcript), env)
        start = await run_hook_async(
            "claude-code", "session-start", payload("SessionStart", "s2", None), env
        )

    assert stop.returncode == 0 and stop.stdout == b""
    assert stderr_lines(stop.stderr) == [
        "cortex-mcp-hook: stop: cortex_ingest is not among CORTEX_TOOLS; skipped"
    ]
    assert log_rows(home) == 0
    assert start.returncode == 0 and "cortex_ingest" not in start.stdout.decode()


def test_the_ingest_note_points_at_remember_only_when_it_is_exposed() -> None:
    assert "cortex_remember" in str(ingest_note(()))
    assert ingest_note(THREE.split(",")) is None


def test_an_empty_store_names_only_the_exposed_ways_in() -> None:
    assert "cortex_ingest" in empty_store(())
    only_remember = empty_store(["cortex_recall", "cortex_remember"])
    assert "cortex_remember" in only_remember and "cortex_ingest" not in only_remember
    assert "cortex_" not in empty_store(["cortex_recall"]).replace("cortex-mcp", "")
