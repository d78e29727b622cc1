"""Real cortex-mcp server processes for the transport and process-boundary tests."""

import os
import socket
import sqlite3
import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from subprocess import DEVNULL, PIPE
from typing import Any, cast

import anyio
from anyio.abc import Process
from mcp import Client, StdioServerParameters

from cortex_mcp.store.sqlite import plain_connection
from tests.conftest import data_of

STARTUP_TIMEOUT_S = 30
"""A cold `python -m cortex_mcp` imports mcp, pydantic and uvicorn: slow on a busy 2-core CI box."""

STOP_TIMEOUT_S = 10

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}
"""An MCP `initialize` request, as raw JSON-RPC, for tests that speak the wire themselves."""
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
"""The notification a client sends once it has the `initialize` answer."""
MCP_ACCEPT = {"Accept": "application/json, text/event-stream"}
"""What a streamable HTTP client must accept."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def server_env(home: Path, **extra: str) -> dict[str, str]:
    """This process's environment minus any CORTEX_* setting, on `home`, plus `extra`."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("CORTEX_")}
    return {**env, "CORTEX_HOME": str(home), **test_database(), **extra}


def test_database() -> dict[str, str]:
    """The PostgreSQL database of a test running on PostgreSQL (none on SQLite)."""
    url = os.environ.get("CORTEX_DATABASE_URL")
    return {"CORTEX_DATABASE_URL": url} if url else {}


def stdio_server(home: Path, *command: str, **extra_env: str) -> StdioServerParameters:
    """`python -m cortex_mcp <command>` as a stdio server on `home`."""
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "cortex_mcp", *command],
        env={"CORTEX_HOME": str(home), **test_database(), **extra_env},
    )


@dataclass
class HttpServer:
    """A running `cortex-mcp serve --transport sse|streamable-http` subprocess."""

    process: Process
    port: int
    logs: Path

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stdout(self) -> str:
        return (self.logs / "stdout").read_text(encoding="utf-8", errors="replace")

    def stderr(self) -> str:
        return (self.logs / "stderr").read_text(encoding="utf-8", errors="replace")


def serve_command(transport: str, host: str, port: int) -> list[str]:
    return [
        sys.executable,
        *("-m", "cortex_mcp", "serve"),
        *("--transport", transport, "--host", host, "--port", str(port)),
    ]


async def wait_until_listening(server: HttpServer) -> None:
    """Poll until the server accepts TCP connections on 127.0.0.1, or fail with its stderr."""
    with anyio.fail_after(STARTUP_TIMEOUT_S):
        while True:
            if server.process.returncode is not None:
                code = server.process.returncode
                raise AssertionError(f"server exited with {code}:\n{server.stderr()}")
            try:
                stream = await anyio.connect_tcp("127.0.0.1", server.port)
            except OSError:
                await anyio.sleep(0.05)
            else:
                await stream.aclose()
                return


async def stop(process: Process) -> None:
    """SIGTERM, then SIGKILL if the server does not leave in time; always reaped and closed."""
    with anyio.CancelScope(shield=True):
        if process.returncode is None:
            process.terminate()
            with anyio.move_on_after(STOP_TIMEOUT_S):
                await process.wait()
            if process.returncode is None:
                process.kill()
        await process.aclose()


@asynccontextmanager
async def http_server(
    home: Path,
    transport: str,
    *,
    host: str = "127.0.0.1",
    env: Mapping[str, str] | None = None,
    descriptors: int | None = None,
) -> AsyncIterator[HttpServer]:
    """Start a server on a free port, wait until 127.0.0.1 accepts, terminate it afterwards.

    `host` must be 127.0.0.1 or a wildcard address, so that the server is reachable there.
    `descriptors`: the server's open-file limit (as `ulimit -n`), e.g. the macOS default 256.
    """
    port = free_port()
    logs = home.parent / f"server-{port}"
    logs.mkdir(parents=True)
    command = serve_command(transport, host, port)
    if descriptors is not None:
        command = ["sh", "-c", f'ulimit -n {int(descriptors)} && exec "$0" "$@"', *command]
    with (logs / "stdout").open("wb") as stdout, (logs / "stderr").open("wb") as stderr:
        process = await anyio.open_process(
            command,
            env=server_env(home, **(env or {})),
            stdin=DEVNULL,
            stdout=stdout,
            stderr=stderr,
        )
    server = HttpServer(process, port, logs)
    try:
        await wait_until_listening(server)
        yield server
    finally:
        await stop(process)


async def round_trip(client: Client, content: str) -> str:
    """Remember `content`, recall it by its words, and return the recalled context."""
    stored = data_of(await client.call_tool("cortex_remember", {"content": content}))
    assert stored["action"] == "created"
    found = data_of(await client.call_tool("cortex_recall", {"query": content}))
    assert stored["id"] in [memory["id"] for memory in found["memories"]]
    return str(found["context"])


def read_only(database: Path) -> sqlite3.Connection:
    """The database file opened read-only with the stdlib driver, to check what servers wrote."""
    return cast(sqlite3.Connection, plain_connection(f"file:{database}?mode=ro", uri=True))


def query_one(database: Path, sql: str) -> Any:
    """The first column of the first row of `sql`, on a read-only connection that is closed."""
    conn = read_only(database)
    try:
        return conn.execute(sql).fetchone()[0]
    finally:
        conn.close()


@asynccontextmanager
async def browse_server(home: Path, *args: str, **extra_env: str) -> AsyncIterator[str]:
    """`cortex-mcp browse --no-open` on `home` (and `extra_env`): yields the page URL it prints
    alone on stdout, where scripts read it (with its token)."""
    process = await anyio.open_process(
        [sys.executable, "-m", "cortex_mcp", "browse", "--no-open", *args],
        env=server_env(home, **extra_env),
        stdin=DEVNULL,
        stdout=PIPE,
        stderr=DEVNULL,
    )
    try:
        assert process.stdout is not None
        seen = b""
        with anyio.fail_after(STARTUP_TIMEOUT_S):
            while not seen.endswith(b"\n"):
                seen += await process.stdout.receive()
        (line,) = seen.decode().splitlines()
        assert line.startswith("http://127.0.0.1:") and "?token=" in line, line
        yield line
    finally:
        await stop(process)
