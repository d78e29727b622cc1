"""The HTTP server refuses before it is starved (#27): the connection cap holds at accept time,
slow bodies are cut off, and a flood of sessions ends the flooder's idlest sessions instead of
locking every new client out."""

import json
import logging
from pathlib import Path

import anyio
import httpx2
import pytest
from anyio.abc import SocketStream

from cortex_mcp.limits import RepeatedErrorFilter
from tests.servers import HttpServer, http_server

ADMIN = "admin-token-" + "c" * 32
MALLORY = "mallory-token-" + "m" * 32
TOKENS = json.dumps([{"token": MALLORY, "agents": ["mallory"]}])
WAIT_S = 20
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
PING = {"jsonrpc": "2.0", "id": 2, "method": "ping"}


def headers(token: str, session: str | None = None) -> dict[str, str]:
    found = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"}
    if session:
        found |= {"mcp-session-id": session, "mcp-protocol-version": "2025-06-18"}
    return found


async def still_open(stream: SocketStream) -> bool:
    """True when the server has not closed the connection (nothing arrives within 50 ms)."""
    with anyio.move_on_after(0.05):
        try:
            await stream.receive()
        except (anyio.EndOfStream, anyio.BrokenResourceError, ConnectionResetError):
            return False
    return True


def open_descriptors(server: HttpServer) -> int:
    return len(list(Path(f"/proc/{server.process.pid}/fd").iterdir()))


@pytest.mark.skipif(not Path("/proc/self/fd").exists(), reason="counts descriptors in /proc")
async def test_the_connection_cap_holds_at_accept_time(cortex_home: Path) -> None:
    env = {
        "CORTEX_AUTH_TOKEN": ADMIN,
        "CORTEX_REMOTE__HEADER_TIMEOUT_S": "120",  # only the cap can close them
        "CORTEX_REMOTE__MAX_CONNECTIONS": "40",
    }
    flood: list[SocketStream] = []
    env["CORTEX_REMOTE__IDLE_TIMEOUT_S"] = "120"
    async with http_server(cortex_home, "streamable-http", env=env) as server:
        served = await anyio.connect_tcp("127.0.0.1", server.port)  # a client already served,
        await served.send(  # kept alive between its requests
            f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n".encode()
            + f"Authorization: Bearer {ADMIN}\r\nContent-Type: application/json\r\n".encode()
            + b"Accept: application/json, text/event-stream\r\n"
            + f"Content-Length: {len(json.dumps(INITIALIZE))}\r\n\r\n".encode()
            + json.dumps(INITIALIZE).encode()
        )
        with anyio.fail_after(WAIT_S):
            assert (await served.receive()).startswith(b"HTTP/1.1 200 ")
        idle_descriptors = open_descriptors(server)
        try:
            for _ in range(400):
                flood.append(await anyio.connect_tcp("127.0.0.1", server.port))
            await anyio.sleep(1)  # the last accepts, and the closes they cause, are done
            kept = [stream for stream in flood if await still_open(stream)]
            held = open_descriptors(server) - idle_descriptors
            served_kept = await still_open(served)
        finally:
            for stream in [*flood, served]:
                await stream.aclose()
    assert served_kept  # the silent connections went first
    assert len(kept) <= 40
    assert held <= 40
    assert kept == flood[-len(kept) :]  # the newest are kept: the oldest waiting ones went


async def test_a_body_slower_than_the_body_timeout_gets_408_and_a_closed_connection(
    cortex_home: Path,
) -> None:
    env = {"CORTEX_AUTH_TOKEN": ADMIN, "CORTEX_REMOTE__BODY_TIMEOUT_S": "1"}
    async with http_server(cortex_home, "streamable-http", env=env) as server:
        stream = await anyio.connect_tcp("127.0.0.1", server.port)
        await stream.send(
            f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n".encode()
            + b"Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
            + f"Authorization: Bearer {ADMIN}\r\n".encode()
            + b"Content-Length: 1000\r\n\r\n{"
        )
        answer = b""
        with anyio.fail_after(WAIT_S):
            try:
                while chunk := await stream.receive():
                    answer += chunk
            except (anyio.EndOfStream, anyio.BrokenResourceError, ConnectionResetError):
                pass
        await stream.aclose()
        log = server.stderr()
    assert answer.startswith(b"HTTP/1.1 408 "), answer[:80]
    assert "Traceback" not in log


async def open_session(http: httpx2.AsyncClient, url: str, token: str) -> httpx2.Response:
    return await http.post(url, json=INITIALIZE, headers=headers(token))


async def test_a_session_flood_ends_the_flooders_idlest_sessions_not_the_new_clients(
    cortex_home: Path,
) -> None:
    env = {
        "CORTEX_AUTH_TOKEN": ADMIN,
        "CORTEX_AUTH_TOKENS": TOKENS,
        "CORTEX_REMOTE__MAX_SESSIONS": "6",
        "CORTEX_REMOTE__MAX_SESSIONS_PER_CLIENT": "3",
    }
    async with http_server(cortex_home, "streamable-http", env=env) as server:
        url = f"{server.base_url}/mcp"
        async with httpx2.AsyncClient(timeout=WAIT_S) as http:
            mine = (await open_session(http, url, ADMIN)).headers["mcp-session-id"]
            flood = [await open_session(http, url, MALLORY) for _ in range(10)]
            newcomer = await open_session(http, url, ADMIN)
            flooder_sessions = [r.headers.get("mcp-session-id") for r in flood]
            first = await http.post(url, json=PING, headers=headers(MALLORY, flooder_sessions[0]))
            last = await http.post(url, json=PING, headers=headers(MALLORY, flooder_sessions[-1]))
            still_mine = await http.post(url, json=PING, headers=headers(ADMIN, mine))

    assert [r.status_code for r in flood] == [200] * 10  # none refused: the idlest gave way
    assert newcomer.status_code == 200
    assert first.status_code == 404 and last.status_code == 200
    assert still_mine.status_code == 200  # another client's flood never ends my session


async def test_past_the_total_the_idlest_session_of_anyone_gives_way(cortex_home: Path) -> None:
    env = {
        "CORTEX_AUTH_TOKEN": ADMIN,
        "CORTEX_REMOTE__MAX_SESSIONS": "4",
        "CORTEX_REMOTE__MAX_SESSIONS_PER_CLIENT": "100",
    }
    async with http_server(cortex_home, "streamable-http", env=env) as server:
        url = f"{server.base_url}/mcp"
        async with httpx2.AsyncClient(timeout=WAIT_S) as http:
            opened = [await open_session(http, url, ADMIN) for _ in range(8)]
            ids = [r.headers["mcp-session-id"] for r in opened]
            answers = [
                (await http.post(url, json=PING, headers=headers(ADMIN, i))).status_code
                for i in ids
            ]
    assert [r.status_code for r in opened] == [200] * 8
    assert answers == [404] * 4 + [200] * 4


async def test_sse_streams_past_the_limit_end_the_idlest_and_an_idle_one_is_closed(
    cortex_home: Path,
) -> None:
    env = {
        "CORTEX_AUTH_TOKEN": ADMIN,
        "CORTEX_REMOTE__MAX_SESSIONS": "2",
        "CORTEX_REMOTE__SESSION_IDLE_TIMEOUT_S": "1",
    }
    async with http_server(cortex_home, "sse", env=env) as server:
        url = f"{server.base_url}/sse"
        auth = {"Authorization": f"Bearer {ADMIN}"}
        async with httpx2.AsyncClient(headers=auth, timeout=WAIT_S) as http:
            with anyio.fail_after(WAIT_S):
                async with http.stream("GET", url) as first, http.stream("GET", url) as second:
                    assert (first.status_code, second.status_code) == (200, 200)
                    async with http.stream("GET", url) as third:
                        assert third.status_code == 200  # the idlest (first) gave way
                        async for _ in first.aiter_bytes():  # ended
                            pass
                        async for _ in second.aiter_bytes():  # idle past 1 s: closed
                            pass


def test_the_invalid_descriptor_errors_of_accept_retries_are_rate_limited() -> None:
    now = [0.0]
    quiet = RepeatedErrorFilter(every_s=60, clock=lambda: now[0])

    def record(text: str) -> logging.LogRecord:
        return logging.LogRecord("asyncio", logging.ERROR, __file__, 1, text, None, None)

    shown = [
        quiet.filter(record("Exception in callback _start_serving: Invalid file descriptor: -1"))
        for _ in range(500)
    ]
    assert shown.count(True) == 1


async def test_requests_that_open_no_session_end_none(cortex_home: Path) -> None:
    env = {"CORTEX_AUTH_TOKEN": ADMIN, "CORTEX_REMOTE__MAX_SESSIONS_PER_CLIENT": "2"}
    async with http_server(cortex_home, "streamable-http", env=env) as server:
        url = f"{server.base_url}/mcp"
        async with httpx2.AsyncClient(timeout=WAIT_S) as http:
            ids = [(await open_session(http, url, ADMIN)).headers["mcp-session-id"] for _ in "ab"]
            strays = [
                (await http.post(url, json=PING, headers=headers(ADMIN))).status_code
                for _ in range(5)  # no session id and no initialize: refused by the SDK
            ]
            answers = [
                (await http.post(url, json=PING, headers=headers(ADMIN, i))).status_code
                for i in ids
            ]
    assert all(status >= 400 for status in strays)
    assert answers == [200, 200]
