"""The audit's remote load, before and after the limits of issue #14 (loopback only, bounded).

Against `python -m cortex_mcp serve` on 127.0.0.1, with a bearer token:

- slow: 275 connections that send half their headers and 275 that send nothing, held for
  15 s while an authenticated client calls `cortex_recall`; how many the server closed, and
  the recall latency alongside;
- idle: 3,000 idle connections, then 20 recalls timed;
- descriptors: the server under a 256-descriptor limit (the macOS default), 300 half-header
  connections without the token, then 5 authenticated calls on new connections (5 s each at
  most) and the bytes the server wrote to stderr in 10 s;
- sse: 1,500 SSE streams opened; how many were accepted, and the server's resident memory
  before, with the streams open, and 5 s after they closed.

    python -m bench.remote_load                                 # this tree
    python -m bench.remote_load --before /tmp/cortex-before     # and an older cortex_mcp

Writes bench/results/remote_load.json.
"""

import argparse
import json
import os
import platform
import socket
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
import httpx2
from anyio.abc import Process, SocketStream
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from cortex_mcp.clock import utc_now

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
TOKEN = "bench-token-" + "0123456789abcdef" * 3
CALL_TIMEOUT_S = 5.0


@dataclass
class Server:
    process: Process
    port: int
    stderr: Path

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
        return 0.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@asynccontextmanager
async def server(
    code: Path, transport: str, descriptors: int | None = None
) -> AsyncIterator[Server]:
    """The server of the package in `code` on a free loopback port, stopped afterwards."""
    home = Path(tempfile.mkdtemp(prefix="cortex-load-"))
    port = free_port()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("CORTEX_")},
        "CORTEX_HOME": str(home),
        "CORTEX_AUTH_TOKEN": TOKEN,
        "CORTEX_EMBEDDING__PROVIDER": "none",
        "CORTEX_LLM__PROVIDER": "none",
        "CORTEX_LIFECYCLE__ENABLED": "false",
        "PYTHONPATH": str(code),
    }
    command = [sys.executable, "-m", "cortex_mcp", "serve", "--transport", transport]
    command += ["--host", "127.0.0.1", "--port", str(port)]
    if descriptors is not None:
        command = ["sh", "-c", f'ulimit -n {descriptors} && exec "$0" "$@"', *command]
    stderr = home / "stderr"
    with stderr.open("wb") as errors:
        process = await anyio.open_process(command, env=env, cwd=home, stderr=errors)
    try:
        with anyio.fail_after(30):
            while True:
                try:
                    await (await anyio.connect_tcp("127.0.0.1", port)).aclose()
                    break
                except OSError:
                    await anyio.sleep(0.1)
        yield Server(process, port, stderr)
    finally:
        process.terminate()
        with anyio.move_on_after(10):
            await process.wait()
        if process.returncode is None:
            process.kill()
        await process.aclose()


@asynccontextmanager
async def recaller(port: int) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with (
        create_mcp_http_client(headers=headers) as http,
        Client(streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http)) as client,
    ):
        await client.call_tool("cortex_remember", {"content": "The user drinks green tea"})
        yield client


async def timed_recall(client: Client) -> float | None:
    """One recall's round trip in ms, or None when it took longer than CALL_TIMEOUT_S."""
    started = time.perf_counter()
    with anyio.move_on_after(CALL_TIMEOUT_S):
        await client.call_tool("cortex_recall", {"query": "tea"})
        return (time.perf_counter() - started) * 1000
    return None


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"},
    },
}


async def fresh_call(port: int) -> float | None:
    """An authenticated `initialize` on a new connection, in ms; None if it took over 5 s."""
    headers = {
        "Authorization": f"Bearer {TOKEN}",
        "Accept": "application/json, text/event-stream",
    }
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


async def open_many(port: int, count: int, first_bytes: bytes) -> list[SocketStream]:
    streams = []
    for _ in range(count):
        try:
            stream = await anyio.connect_tcp("127.0.0.1", port)
        except OSError:
            break
        streams.append(stream)
        if first_bytes:
            try:
                await stream.send(first_bytes)
            except (anyio.BrokenResourceError, OSError):
                continue  # closed by the server already (a cap): still counted as opened
    return streams


async def closed_count(streams: list[SocketStream]) -> int:
    closed = 0
    for stream in streams:
        with anyio.move_on_after(0.01):
            try:
                while await stream.receive():
                    pass
            except (anyio.EndOfStream, anyio.BrokenResourceError, OSError):
                closed += 1
    return closed


async def close_all(streams: list[SocketStream]) -> None:
    for stream in streams:
        await stream.aclose()


def p50(values: list[float | None]) -> float | None:
    done = [v for v in values if v is not None]
    return round(statistics.median(done), 1) if done else None


HALF = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "


async def slow(code: Path) -> dict[str, Any]:
    async with server(code, "streamable-http") as s, recaller(s.port) as client:
        baseline = [await timed_recall(client) for _ in range(10)]
        streams = await open_many(s.port, 275, HALF) + await open_many(s.port, 275, b"")
        during = []
        for _ in range(30):
            during.append(await timed_recall(client))
            await anyio.sleep(0.5)
        closed = await closed_count(streams)
        await close_all(streams)
    return {
        "opened": len(streams),
        "closed_by_server_within_15s": closed,
        "recall_p50_ms_alone": p50(baseline),
        "recall_p50_ms_alongside": p50(during),
        "recalls_timed_out": during.count(None),
    }


async def idle(code: Path) -> dict[str, Any]:
    async with server(code, "streamable-http") as s, recaller(s.port) as client:
        baseline = [await timed_recall(client) for _ in range(10)]
        streams = await open_many(s.port, 3000, b"")
        during = [await timed_recall(client) for _ in range(20)]
        await close_all(streams)
    return {
        "opened": len(streams),
        "recall_p50_ms_alone": p50(baseline),
        "recall_p50_ms_with_idle": p50(during),
        "recalls_timed_out": during.count(None),
    }


async def descriptors(code: Path) -> dict[str, Any]:
    async with server(code, "streamable-http", descriptors=256) as s:
        streams = await open_many(s.port, 300, b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        before = s.stderr.stat().st_size
        calls = [await fresh_call(s.port) for _ in range(5)]
        await anyio.sleep(max(0.0, 10 - CALL_TIMEOUT_S * calls.count(None)))
        written = s.stderr.stat().st_size - before
        await close_all(streams)
    return {
        "half_header_connections": len(streams),
        "authenticated_calls_ok": len([c for c in calls if c is not None]),
        "authenticated_calls_failed": calls.count(None),
        "call_p50_ms": p50(calls),
        "stderr_bytes_in_10s": written,
    }


async def sse(code: Path) -> dict[str, Any]:
    async with server(code, "sse") as s:
        request = (
            f"GET /sse HTTP/1.1\r\nHost: 127.0.0.1:{s.port}\r\nAccept: text/event-stream\r\n"
            f"Authorization: Bearer {TOKEN}\r\n\r\n"
        ).encode()
        rss_before = s.rss_mb()
        streams = await open_many(s.port, 1500, request)
        accepted = refused = 0
        for stream in streams:
            with anyio.move_on_after(2):
                try:
                    head = await stream.receive()
                    accepted += head.startswith(b"HTTP/1.1 200")
                    refused += head.startswith(b"HTTP/1.1 503")
                except (anyio.EndOfStream, anyio.BrokenResourceError, OSError):
                    refused += 1
        rss_open = s.rss_mb()
        await close_all(streams)
        await anyio.sleep(5)
        rss_after = s.rss_mb()
    return {
        "streams_opened": len(streams),
        "accepted": accepted,
        "refused": refused,
        "rss_mb_before": rss_before,
        "rss_mb_streams_open": rss_open,
        "rss_mb_5s_after_close": rss_after,
    }


async def measure(code: Path) -> dict[str, Any]:
    return {
        "slow": await slow(code),
        "idle": await idle(code),
        "descriptors_256": await descriptors(code),
        "sse": await sse(code),
    }


async def run(before: Path | None) -> dict[str, Any]:
    runs = {"after": await measure(ROOT)}
    if before is not None:
        runs["before"] = await measure(before)
    return {
        "runs": runs,
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}",
        "date": utc_now().strftime("%Y-%m-%d"),
    }


def main() -> None:
    """Measure, print and save."""
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--before", type=Path, help="a directory holding an older cortex_mcp")
    result = anyio.run(run, options.parse_args().before)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "remote_load.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    sys.stdout.write(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
