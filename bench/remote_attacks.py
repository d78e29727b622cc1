"""Authenticated latency while the HTTP server is attacked (issue #27), before and after.

Against `python -m cortex_mcp serve --transport streamable-http` on 127.0.0.1 with a bearer
token (its descriptor limit set to 256 with `resource.setrlimit` in the server process, the
macOS default), each attack runs for a bounded time while an authenticated client times
`initialize` on a new connection (a new client arriving) and `cortex_recall` on its open
session:

- half_open: 300 connections that send half a request line and stop, re-opened as soon as the
  server closes one;
- slow_body: 50 authenticated POSTs announcing 1 MB and sending a byte a second; how many the
  server closed;
- session_flood_same_token / _other_token: 150 sessions opened in a burst, with the measuring
  client's own token (what any local process can do on a tokenless loopback server) or with
  another token holder's; can a new client still start one, does the open session still work;
- descriptors: 600 silent connections (more than the 256 descriptors), re-opened as closed;
  the server's CPU and the bytes it wrote to stderr; then SIGTERM under that load and how long
  the server takes to exit.

    nice -n 19 python -m bench.remote_attacks --before /tmp/cortex-before

Writes bench/results/remote_attacks.json.
"""

import argparse
import json
import os
import platform
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import anyio.lowlevel
import httpx2
from anyio.abc import Process, SocketStream

from bench.remote_load import INITIALIZE, TOKEN, free_port
from cortex_mcp.clock import utc_now

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
DESCRIPTORS = 256
OTHER_TOKEN = "other-token-" + "fedcba9876543210" * 3
ATTACK_S = 12.0
CALL_TIMEOUT_S = 5.0
LIMITED_START = (
    "import resource, runpy, sys;"
    f"resource.setrlimit(resource.RLIMIT_NOFILE, ({DESCRIPTORS}, {DESCRIPTORS}));"
    "sys.argv = ['cortex_mcp', *sys.argv[1:]];"
    "runpy.run_module('cortex_mcp', run_name='__main__')"
)


@dataclass
class Server:
    process: Process
    port: int
    stderr: Path

    def cpu_s(self) -> float:
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@asynccontextmanager
async def server(code: Path) -> AsyncIterator[Server]:
    """The server of the package in `code`, at a 256-descriptor limit, on a loopback port."""
    home = Path(tempfile.mkdtemp(prefix="cortex-attack-"))
    port = free_port()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("CORTEX_")},
        "CORTEX_HOME": str(home),
        "CORTEX_AUTH_TOKEN": TOKEN,
        "CORTEX_AUTH_TOKENS": json.dumps([{"token": OTHER_TOKEN, "agents": ["mallory"]}]),
        "CORTEX_EMBEDDING__PROVIDER": "none",
        "CORTEX_LLM__PROVIDER": "none",
        "CORTEX_LIFECYCLE__ENABLED": "false",
        "PYTHONPATH": str(code),
    }
    command = [sys.executable, "-c", LIMITED_START, "serve", "--transport", "streamable-http"]
    command += ["--host", "127.0.0.1", "--port", str(port)]
    stderr = home / "stderr"
    with stderr.open("wb") as errors:
        process = await anyio.open_process(command, env=env, cwd=home, stderr=errors)
    try:
        with anyio.fail_after(120):  # a niced start on a shared, busy machine
            while True:
                try:
                    await (await anyio.connect_tcp("127.0.0.1", port)).aclose()
                    break
                except OSError:
                    await anyio.sleep(0.1)
        yield Server(process, port, stderr)
    finally:
        if process.returncode is None:
            process.kill()
        await process.wait()
        await process.aclose()


async def fresh_initialize(port: int) -> float | None:
    """An authenticated `initialize` on a new connection, in ms; None when refused or late."""
    headers = {"Authorization": f"Bearer {TOKEN}", "Accept": "application/json, text/event-stream"}
    started = time.perf_counter()
    with anyio.move_on_after(CALL_TIMEOUT_S):
        try:
            async with httpx2.AsyncClient(timeout=CALL_TIMEOUT_S) as http:
                answer = await http.post(
                    f"http://127.0.0.1:{port}/mcp", json=INITIALIZE, headers=headers
                )
        except httpx2.HTTPError:
            return None
        return (time.perf_counter() - started) * 1000 if answer.status_code == 200 else None
    return None


class RawSession:
    """An MCP session over plain HTTP requests: a transport error is a failed call, never a
    crashed client (the measuring client must outlive what it measures)."""

    def __init__(self, port: int, http: httpx2.AsyncClient) -> None:
        self.url = f"http://127.0.0.1:{port}/mcp"
        self.http = http
        self.headers = {
            "Authorization": f"Bearer {TOKEN}",
            "Accept": "application/json, text/event-stream",
        }
        self.calls = 1

    async def open(self) -> None:
        answer = await self.http.post(self.url, json=INITIALIZE, headers=self.headers)
        self.headers |= {
            "mcp-session-id": answer.headers["mcp-session-id"],
            "mcp-protocol-version": "2025-06-18",
        }
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        await self.http.post(self.url, json=note, headers=self.headers)
        await self.call("cortex_remember", {"content": "The user drinks green tea"})

    async def call(self, tool: str, arguments: dict[str, Any]) -> bool:
        self.calls += 1
        message = {
            "jsonrpc": "2.0",
            "id": self.calls,
            "method": "tools/call",
            "params": {"name": tool, "arguments": arguments},
        }
        answer = await self.http.post(self.url, json=message, headers=self.headers)
        return answer.status_code == 200 and '"result"' in answer.text

    async def timed_recall(self) -> float | None:
        """One recall's round trip in ms; None when it failed or took over CALL_TIMEOUT_S."""
        started = time.perf_counter()
        with anyio.move_on_after(CALL_TIMEOUT_S):
            try:
                if await self.call("cortex_recall", {"query": "tea"}):
                    return (time.perf_counter() - started) * 1000
            except httpx2.HTTPError:
                return None
        return None


@asynccontextmanager
async def recaller(port: int) -> AsyncIterator[RawSession]:
    async with httpx2.AsyncClient(timeout=CALL_TIMEOUT_S) as http:
        session = RawSession(port, http)
        await session.open()
        yield session


def summary(values: list[float | None]) -> dict[str, Any]:
    done = sorted(v for v in values if v is not None)
    return {
        "calls": len(values),
        "failed": len(values) - len(done),
        "p50_ms": round(statistics.median(done), 1) if done else None,
        "p95_ms": round(done[max(0, int(len(done) * 0.95) - 1)], 1) if done else None,
    }


async def measured_calls(port: int, client: RawSession, seconds: float) -> dict[str, Any]:
    """New-client initializes and session recalls, alternating, for `seconds`."""
    fresh: list[float | None] = []
    recalls: list[float | None] = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        fresh.append(await fresh_initialize(port))
        recalls.append(await client.timed_recall())
        await anyio.sleep(0.2)
    return {"new_client_initialize": summary(fresh), "session_recall": summary(recalls)}


class Flood:
    """`count` connections that send `first` and wait, each re-opened when the server closes
    it (bounded: the attack ends when the scope does)."""

    def __init__(self, port: int, count: int, first: bytes) -> None:
        self.port, self.count, self.first = port, count, first
        self.opened = self.closed_by_server = self.connect_failures = 0

    async def hold(self) -> None:
        while True:
            try:
                stream = await anyio.connect_tcp("127.0.0.1", self.port)
            except OSError:
                self.connect_failures += 1
                await anyio.sleep(0.05)
                continue
            self.opened += 1
            try:
                if self.first:
                    await stream.send(self.first)
                while await stream.receive():
                    pass
            except (anyio.EndOfStream, anyio.BrokenResourceError, OSError):
                pass
            finally:
                await stream.aclose()
            self.closed_by_server += 1

    async def run(self, tasks: anyio.abc.TaskGroup) -> None:
        for _ in range(self.count):
            tasks.start_soon(self.hold)
            await anyio.lowlevel.checkpoint()

    def report(self) -> dict[str, int]:
        return {
            "connections_opened": self.opened,
            "closed_by_server": self.closed_by_server,
            "connect_failures": self.connect_failures,
        }


async def flood_process(port: int, count: int, first: bytes, seconds: float) -> dict[str, int]:
    """The flood, run in a process of its own (`--flood`) for `seconds`: its reconnect loops
    must not slow the measuring client's event loop."""
    flood = Flood(port, count, first)
    with anyio.move_on_after(seconds):
        async with anyio.create_task_group() as tasks:
            await flood.run(tasks)
    return flood.report()


async def attack(code: Path, count: int, first: bytes) -> dict[str, Any]:
    async with server(code) as s, recaller(s.port) as client:
        alone = await measured_calls(s.port, client, 3)
        before_cpu, before_err = s.cpu_s(), s.stderr.stat().st_size
        command = [sys.executable, "-m", "bench.remote_attacks", "--flood", str(s.port)]
        command += [str(count), first.hex(), str(ATTACK_S + 5)]
        flooder = await anyio.open_process(command, cwd=ROOT)
        await anyio.sleep(1)  # the flood under way
        during = await measured_calls(s.port, client, ATTACK_S)
        cpu = s.cpu_s() - before_cpu
        written = s.stderr.stat().st_size - before_err
        s.process.send_signal(signal.SIGTERM)
        stopping = time.perf_counter()
        exited = False
        with anyio.move_on_after(30):
            await s.process.wait()
            exited = True
        stopped_s = time.perf_counter() - stopping
        assert flooder.stdout is not None
        report = json.loads((await flooder.stdout.receive(1 << 16)).decode())
        await flooder.wait()
    return {
        "alone": alone,
        "under_attack": during,
        **report,
        "server_cpu_share": round(cpu / ATTACK_S, 2),
        "stderr_bytes": written,
        "sigterm_exit_s": round(stopped_s, 2) if exited else None,
    }


async def half_open(code: Path) -> dict[str, Any]:
    return await attack(code, 300, b"POST /mcp HTT")


async def descriptors(code: Path) -> dict[str, Any]:
    return await attack(code, 600, b"")


async def slow_body(code: Path) -> dict[str, Any]:
    head = (
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"Accept: application/json, text/event-stream\r\nAuthorization: Bearer {TOKEN}\r\n"
        "Content-Length: 1000000\r\n\r\n{"
    ).encode()
    closed = [0]

    async def trickle(stream: SocketStream) -> None:
        try:
            while True:
                await anyio.sleep(1)
                await stream.send(b" ")
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            closed[0] += 1

    async with server(code) as s, recaller(s.port) as client:
        alone = await measured_calls(s.port, client, 3)
        streams = []
        for _ in range(50):
            stream = await anyio.connect_tcp("127.0.0.1", s.port)
            await stream.send(head.replace(b"{port}", str(s.port).encode(), 1))
            streams.append(stream)
        async with anyio.create_task_group() as tasks:
            for stream in streams:
                tasks.start_soon(trickle, stream)
            during = await measured_calls(s.port, client, ATTACK_S + 20)
            tasks.cancel_scope.cancel()
        for stream in streams:
            await stream.aclose()
    return {
        "alone": alone,
        "under_attack": during,
        "slow_bodies": 50,
        "closed_by_server_within_s": {"seconds": ATTACK_S + 23, "closed": closed[0]},
    }


async def session_flood(code: Path, token: str) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"}
    async with server(code) as s, recaller(s.port) as client:
        alone = await measured_calls(s.port, client, 3)
        opened = refused = 0
        async with httpx2.AsyncClient(timeout=CALL_TIMEOUT_S) as http:
            for _ in range(150):
                answer = await http.post(
                    f"http://127.0.0.1:{s.port}/mcp", json=INITIALIZE, headers=headers
                )
                opened += answer.status_code == 200
                refused += answer.status_code == 503
        during = await measured_calls(s.port, client, ATTACK_S)
    return {
        "alone": alone,
        "flood_sessions_opened": opened,
        "flood_sessions_refused": refused,
        "after_flood": during,
    }


SCENARIOS = {
    "half_open": half_open,
    "slow_body": slow_body,
    "session_flood_same_token": lambda code: session_flood(code, TOKEN),
    "session_flood_other_token": lambda code: session_flood(code, OTHER_TOKEN),
    "descriptors": descriptors,
}


async def measure(code: Path, only: list[str], label: str) -> None:
    """Run the scenarios one by one, saving each result as it comes."""
    for name in only:
        result = await SCENARIOS[name](code)
        save(label, name, result)
        sys.stdout.write(json.dumps({name: result}, indent=2) + "\n")


def save(label: str, name: str, result: dict[str, Any]) -> None:
    path = RESULTS / "remote_attacks.json"
    saved = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {"runs": {}}
    saved["runs"].setdefault(label, {})[name] = result
    saved["machine"] = (
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    )
    saved["date"] = utc_now().strftime("%Y-%m-%d")
    RESULTS.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(saved, indent=2) + "\n", encoding="utf-8")


def main() -> None:
    """Measure, print and save (merged into the saved results, scenario by scenario)."""
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--code", type=Path, default=ROOT, help="the tree holding cortex_mcp")
    options.add_argument("--label", default="after", help="the run's name in the results")
    options.add_argument("--only", nargs="*", default=list(SCENARIOS), choices=list(SCENARIOS))
    options.add_argument("--flood", nargs=4, help=argparse.SUPPRESS)
    args = options.parse_args()
    if args.flood:
        port, count, first, seconds = args.flood
        report = anyio.run(
            flood_process, int(port), int(count), bytes.fromhex(first), float(seconds)
        )
        sys.stdout.write(json.dumps(report) + "\n")
        return
    anyio.run(measure, args.code, args.only, args.label)


if __name__ == "__main__":
    main()
