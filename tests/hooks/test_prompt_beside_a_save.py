"""A save never holds up the prompt hook (the key-less re-test): a resumed session's 7 MB
transcript, 6,000 messages none of which went to memory yet, and the UserPromptSubmit right
after its Stop took 14 s, while the Stop's detached child sent them (the plugin gives the
prompt 5 s). The save held the session's state lock while it sent; the prompt hook waited for
that lock to count what it injected.

Here the save is held mid-way at the wire: between the hook commands and the real server
(a stdio subprocess) sits a relay that keeps back every cortex_flush until the test lets it
through, so the prompt hook runs while a save is certainly under way."""

import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest
from anyio.abc import SocketStream

from cortex_mcp.hooks.paths import PUBLISHED_NAME, hooks_dir, private_dir, socket_path
from cortex_mcp.hooks.state import read_state, state_file
from tests.hooks.hosts import claude_line, hook_env, injected, payload, run_hook_async
from tests.hooks.hosts import write_jsonl as write
from tests.hooks.test_story import log_rows, running_server

WAIT_S = 30
"""Bounds every wait here; a prompt hook that waits for the save meets it."""
MESSAGES = 450
"""Three cortex_flush calls' worth (200 a call), and the last exchange to cortex_ingest."""


class HeldFlushes:
    """Relays the hooks' socket of one home to the server's socket of another, keeping back
    each cortex_flush call until `release` is set."""

    def __init__(self) -> None:
        self.flush_seen = anyio.Event()
        self.release = anyio.Event()

    async def serve(self, client: SocketStream, server_socket: Path) -> None:
        server = await anyio.connect_unix(server_socket)
        async with client, server, anyio.create_task_group() as tasks:

            async def upstream() -> None:
                pending = b""
                async for chunk in client:
                    pending += chunk
                    *lines, pending = pending.split(b"\n")
                    for line in lines:
                        if b'"cortex_flush"' in line:
                            self.flush_seen.set()
                            await self.release.wait()
                        await server.send(line + b"\n")
                tasks.cancel_scope.cancel()

            async def downstream() -> None:
                async for chunk in server:
                    await client.send(chunk)
                tasks.cancel_scope.cancel()

            tasks.start_soon(upstream)
            tasks.start_soon(downstream)


@asynccontextmanager
async def relayed_home(server_home: Path, hooks_home: Path) -> AsyncIterator[HeldFlushes]:
    """`hooks_home`, whose socket relays to the server of `server_home` (and whose published
    settings are that server's)."""
    private_dir(hooks_dir(hooks_home))
    shutil.copy(hooks_dir(server_home) / PUBLISHED_NAME, hooks_dir(hooks_home) / PUBLISHED_NAME)
    relay = HeldFlushes()
    listener = await anyio.create_unix_listener(socket_path(hooks_home))
    async with listener, anyio.create_task_group() as tasks:

        async def handle(client: SocketStream) -> None:
            await relay.serve(client, socket_path(server_home))

        tasks.start_soon(listener.serve, handle)
        try:
            yield relay
        finally:
            relay.release.set()
            tasks.cancel_scope.cancel()


def resumed_session(path: Path, session: str) -> Path:
    """A transcript of MESSAGES user and assistant messages, none sent to memory yet."""
    lines = []
    for number in range(MESSAGES):
        role = "user" if number % 2 == 0 else "assistant"
        text = f"Step {number} of the pelican API migration touched module {number % 37}."
        content = text if role == "user" else [{"type": "text", "text": text}]
        lines.append(claude_line(role, content, session=session))
    return write(path, lines)


@pytest.mark.parametrize(("moment", "event"), [("stop", "Stop"), ("pre-compact", "PreCompact")])
async def test_the_prompt_hook_answers_while_a_save_of_its_session_is_under_way(
    tmp_path: Path, moment: str, event: str
) -> None:
    server_home, home = tmp_path / "server", tmp_path / "home"
    transcript = resumed_session(tmp_path / "resumed.jsonl", "resumed")
    env = hook_env(home)  # the save runs in the foreground: as the detached child does
    async with running_server(server_home) as client, relayed_home(server_home, home) as relay:
        fact = "We deploy the pelican API on Fly.io, in the Amsterdam region."
        await client.call_tool("cortex_remember", {"content": fact, "category": "decision"})
        async with anyio.create_task_group() as tasks:
            saved: list[int] = []

            async def save() -> None:
                sent = payload(event, "resumed", transcript)
                done = await run_hook_async("claude-code", moment, sent, env)
                saved.append(done.returncode)

            tasks.start_soon(save)
            with anyio.fail_after(WAIT_S):
                await relay.flush_seen.wait()  # the save is sending: held at the wire
            asked = payload(
                "UserPromptSubmit",
                "resumed",
                transcript,
                prompt="Which region do we deploy the pelican API to?",
            )
            with anyio.fail_after(WAIT_S):  # the save is still held: it must not be waited for
                prompt = await run_hook_async("claude-code", "prompt", asked, env)
            assert not relay.release.is_set()
            relay.release.set()
        rows = log_rows(server_home)
    assert prompt.returncode == 0 and prompt.stderr == b"", prompt.stderr
    assert "Amsterdam" in injected(prompt.stdout), prompt.stdout
    assert saved == [0]
    assert rows == MESSAGES, "every message of the save went to the log"
    state = read_state(state_file(home, "claude-code", "resumed")) or {}
    assert state["position"] == transcript.stat().st_size
    assert state["prompts"] == 1, "the save kept the prompt's count"
