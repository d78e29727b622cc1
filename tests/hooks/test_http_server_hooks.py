"""The hooks reach a `serve --transport streamable-http` (or `sse`) server too (tester 13): only
the stdio server listened on the home's hook socket, so a Cursor user configured by URL got
"no cortex-mcp server at …/cortex.sock" from every hook while a server on the same home ran.
The real hook command, a real HTTP server subprocess."""

import stat
from pathlib import Path

import pytest

from cortex_mcp.hooks.paths import socket_path
from tests.hooks.hosts import claude_exchange, hook_env, injected, payload, run_hook_async
from tests.hooks.hosts import write_jsonl as write
from tests.hooks.test_story import SERVER_ENV, eventually, log_rows
from tests.servers import http_server


@pytest.mark.parametrize("transport", ["streamable-http", "sse"])
async def test_the_hooks_save_and_inject_through_an_http_server(
    tmp_path: Path, transport: str
) -> None:
    home = tmp_path / "home"
    env = hook_env(home)
    async with http_server(home, transport, env=SERVER_ENV):
        await eventually(socket_path(home).exists, "the HTTP server's hook socket exists")
        assert stat.S_IMODE(socket_path(home).stat().st_mode) == 0o600
        assert stat.S_IMODE(socket_path(home).parent.stat().st_mode) == 0o700
        said = "We decided to use Redis Streams instead of Kafka for the event bus."
        one = write(tmp_path / "one.jsonl", claude_exchange(said, "Noted: Redis Streams."))

        saved = await run_hook_async("claude-code", "stop", payload("Stop", "one", one), env)
        asked = payload("UserPromptSubmit", "two", None, prompt="Which event bus do we use?")
        answered = await run_hook_async("claude-code", "prompt", asked, env)

    assert saved.returncode == 0 and saved.stderr == b"", saved.stderr
    assert log_rows(home) == 2
    assert answered.returncode == 0 and answered.stderr == b"", answered.stderr
    assert "Redis Streams" in injected(answered.stdout)
    assert not socket_path(home).exists()  # the server took its socket with it
