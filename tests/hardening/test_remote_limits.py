"""A remote server no one can starve: slow and idle connections are dropped, a flood without
the token does not keep an authenticated client out, sessions are bounded, tokens are long,
and a token acts only for its agents (over streamable HTTP and SSE)."""

import json
import logging
import resource
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from anyio.abc import SocketStream
from mcp import Client
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError
from pydantic import SecretStr

from cortex_mcp.config import Settings, TokenGrant
from cortex_mcp.limits import DESCRIPTOR_RESERVE, RepeatedErrorFilter, connection_cap
from cortex_mcp.remote import UnsafeBind, check_bind
from tests.conftest import data_of
from tests.servers import STARTUP_TIMEOUT_S, HttpServer, http_server, round_trip

ALICE = "alice-token-" + "a" * 32
BOB = "bob-token-" + "b" * 32
ADMIN = "admin-token-" + "c" * 32
CAROL = "carol-token-" + "d" * 32
TOKENS = json.dumps(
    [
        {"token": ALICE, "agents": ["alice"]},
        {"token": BOB, "agents": ["bob", "bob-work"], "shared": "write"},
        {"token": CAROL, "agents": ["carol"], "shared": "none"},
    ]
)
WAIT_S = 20
"""Upper bound for a server-side timeout of 1 s to show: generous for a busy 2-core machine."""


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def closed_by_server(stream: SocketStream) -> bool:
    """Read until the server closes the connection; True when it did."""
    try:
        while await stream.receive():
            pass
    except (anyio.EndOfStream, anyio.BrokenResourceError, ConnectionResetError):
        return True
    return True


# Tokens and binds


def test_a_short_token_is_refused_beyond_loopback_but_fine_on_it() -> None:
    with pytest.raises(UnsafeBind, match="under 32 characters"):
        check_bind(Settings(host="0.0.0.0", auth_token=SecretStr("x")))
    short = TokenGrant(token=SecretStr("short"), agents=["alice"])
    with pytest.raises(UnsafeBind, match="under 32 characters"):
        check_bind(Settings(host="0.0.0.0", auth_tokens=[short]))
    check_bind(Settings(host="127.0.0.1", auth_token=SecretStr("x")))
    check_bind(
        Settings(host="0.0.0.0", auth_tokens=[short.model_copy(update={"token": SecretStr(ALICE)})])
    )


def test_the_connection_cap_stays_below_the_descriptor_limit() -> None:
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        assert connection_cap(10**9) == 10**9
    else:
        assert connection_cap(10**9) == soft - DESCRIPTOR_RESERVE
    assert connection_cap(5) == 5


def test_running_out_of_descriptors_is_logged_once_a_minute_with_a_count() -> None:
    now = [0.0]
    quiet = RepeatedErrorFilter(every_s=60, clock=lambda: now[0])

    def record(text: str) -> logging.LogRecord:
        return logging.LogRecord("asyncio", logging.ERROR, __file__, 1, text, None, None)

    shown = [quiet.filter(record("socket.accept() out of system resource")) for _ in range(1000)]
    assert shown.count(True) == 1
    assert quiet.filter(record("something else entirely"))
    now[0] = 61
    later = record("[Errno 24] Too many open files")
    assert quiet.filter(later) and "999 more like it" in later.getMessage()


# Slow, idle and flooding connections


@asynccontextmanager
async def limited_server(home: Path, **limits: str) -> AsyncIterator[HttpServer]:
    env = {f"CORTEX_REMOTE__{key.upper()}": value for key, value in limits.items()}
    async with http_server(home, "streamable-http", env={"CORTEX_AUTH_TOKEN": ADMIN, **env}) as s:
        yield s


async def test_a_connection_that_sends_half_its_headers_is_dropped(cortex_home: Path) -> None:
    async with limited_server(cortex_home, header_timeout_s="1") as server:
        slow = await anyio.connect_tcp("127.0.0.1", server.port)
        idle = await anyio.connect_tcp("127.0.0.1", server.port)
        await slow.send(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        with anyio.fail_after(WAIT_S):
            assert await closed_by_server(slow)
            assert await closed_by_server(idle)
        await slow.aclose()
        await idle.aclose()


async def test_the_token_is_checked_before_any_body_is_read(cortex_home: Path) -> None:
    async with limited_server(cortex_home) as server:
        stream = await anyio.connect_tcp("127.0.0.1", server.port)
        await stream.send(
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 1000000\r\n\r\n"  # and no body at all
        )
        with anyio.fail_after(WAIT_S):
            answer = await stream.receive()
            assert answer.startswith(b"HTTP/1.1 401 ")
            assert await closed_by_server(stream)  # Connection: close
        await stream.aclose()


async def test_a_flood_of_half_open_connections_does_not_keep_a_token_holder_out(
    cortex_home: Path,
) -> None:
    """The audit's case: a 256-descriptor limit (here 128) and more half-header connections
    than descriptors. Header timeouts are set long, so only the connection cap can help."""
    flood: list[SocketStream] = []
    env = {"CORTEX_AUTH_TOKEN": ADMIN, "CORTEX_REMOTE__HEADER_TIMEOUT_S": "120"}
    async with http_server(cortex_home, "streamable-http", env=env, descriptors=128) as server:
        try:
            for _ in range(200):  # never finishing their headers, and never sending the token
                stream = await anyio.connect_tcp("127.0.0.1", server.port)
                await stream.send(b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                flood.append(stream)
            with anyio.fail_after(WAIT_S):
                async with (
                    create_mcp_http_client(headers=bearer(ADMIN)) as http,
                    Client(streamable_http_client(f"{server.base_url}/mcp", http_client=http)) as c,
                ):
                    assert "tea" in await round_trip(c, "The user drinks green tea")
        finally:
            for stream in flood:
                await stream.aclose()
    assert "Too many open files" not in server.stderr()


# Per-token agents


async def call(client: Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result
    return data_of(result)


async def check_scoping(alice: Client, bob: Client) -> None:
    await call(alice, "cortex_remember", {"content": "Alice keeps her keys in the blue bowl"})
    await call(bob, "cortex_remember", {"content": "The team room is 4B", "scope": "shared"})
    await call(bob, "cortex_remember", {"content": "Bob's work laptop is a ThinkPad keys"})

    mine = await call(alice, "cortex_recall", {"query": "keys"})
    contents = [m["content"] for m in mine["memories"]]  # vectors may add the shared memory
    assert contents[0] == "Alice keeps her keys in the blue bowl"
    assert "ThinkPad" not in json.dumps(mine)
    theirs = await call(bob, "cortex_recall", {"query": "keys blue bowl"})
    assert "blue bowl" not in json.dumps(theirs)
    shared = await call(alice, "cortex_recall", {"query": "team room"})  # shared: readable
    assert "4B" in json.dumps(shared)

    for refused in (
        (
            "cortex_recall",
            {"query": "keys", "agent_id": "bob"},
            "agent_id: this token may act only for alice",
        ),
        ("cortex_remember", {"content": "x", "agent_id": "bob-work"}, "agent_id:"),
        (
            "cortex_remember",
            {"content": "team lunch", "scope": "shared"},
            "scope: this token may not write shared",
        ),
        (
            "cortex_forget",
            {"memory_id": shared["memories"][0]["id"]},
            "memory_id: is shared memory",
        ),
        ("cortex_lifecycle", {"action": "preview"}, "cortex_lifecycle acts on every agent"),
    ):
        tool, arguments, message = refused
        with pytest.raises(MCPError, match=message):
            await alice.call_tool(tool, arguments)
    with pytest.raises(MCPError, match="agent_id: this token may act only for alice"):
        await alice.read_resource("cortex://core")
    work = await call(bob, "cortex_recall", {"query": "ThinkPad", "agent_id": "bob-work"})
    assert "ThinkPad" not in json.dumps(work)  # another of bob's agents: allowed, apart


async def test_each_token_acts_only_for_its_agents_over_streamable_http(cortex_home: Path) -> None:
    async with http_server(cortex_home, "streamable-http", env={"CORTEX_AUTH_TOKENS": TOKENS}) as s:
        with anyio.fail_after(STARTUP_TIMEOUT_S):
            async with (
                create_mcp_http_client(headers=bearer(ALICE)) as alice_http,
                create_mcp_http_client(headers=bearer(BOB)) as bob_http,
                Client(
                    streamable_http_client(f"{s.base_url}/mcp", http_client=alice_http)
                ) as alice,
                Client(streamable_http_client(f"{s.base_url}/mcp", http_client=bob_http)) as bob,
            ):
                await check_scoping(alice, bob)


async def test_each_token_acts_only_for_its_agents_over_sse(cortex_home: Path) -> None:
    async with http_server(cortex_home, "sse", env={"CORTEX_AUTH_TOKENS": TOKENS}) as s:
        with anyio.fail_after(STARTUP_TIMEOUT_S):
            async with (
                Client(sse_client(f"{s.base_url}/sse", headers=bearer(ALICE))) as alice,
                Client(sse_client(f"{s.base_url}/sse", headers=bearer(BOB))) as bob,
            ):
                await check_scoping(alice, bob)


async def test_the_single_token_still_acts_for_any_agent(cortex_home: Path) -> None:
    async with limited_server(cortex_home) as server:
        with anyio.fail_after(STARTUP_TIMEOUT_S):
            async with (
                create_mcp_http_client(headers=bearer(ADMIN)) as http,
                Client(streamable_http_client(f"{server.base_url}/mcp", http_client=http)) as c,
            ):
                await call(
                    c, "cortex_remember", {"content": "Carol likes jazz", "agent_id": "carol"}
                )
                found = await call(c, "cortex_recall", {"query": "jazz", "agent_id": "carol"})
    assert [m["content"] for m in found["memories"]] == ["Carol likes jazz"]


def test_per_token_agents_can_live_in_config_toml_and_are_never_printed(cortex_home: Path):
    cortex_home.mkdir(parents=True, exist_ok=True)
    (cortex_home / "config.toml").write_text(
        f'[[auth_tokens]]\ntoken = "{ALICE}"\nagents = ["alice"]\n\n'
        f'[[auth_tokens]]\ntoken = "{BOB}"\nagents = ["bob"]\nshared = "write"\n',
        encoding="utf-8",
    )

    settings = Settings()

    assert [(t.agents, t.shared) for t in settings.auth_tokens] == [
        (["alice"], "read"),
        (["bob"], "write"),
    ]
    assert ALICE not in settings.model_dump_json() and BOB not in settings.model_dump_json()


async def test_a_token_without_shared_read_never_sees_shared_memory(cortex_home: Path) -> None:
    async with http_server(cortex_home, "streamable-http", env={"CORTEX_AUTH_TOKENS": TOKENS}) as s:
        with anyio.fail_after(STARTUP_TIMEOUT_S):
            async with (
                create_mcp_http_client(headers=bearer(BOB)) as bob_http,
                create_mcp_http_client(headers=bearer(CAROL)) as carol_http,
                create_mcp_http_client(headers=bearer(ALICE)) as alice_http,
                Client(streamable_http_client(f"{s.base_url}/mcp", http_client=bob_http)) as bob,
                Client(
                    streamable_http_client(f"{s.base_url}/mcp", http_client=carol_http)
                ) as carol,
                Client(
                    streamable_http_client(f"{s.base_url}/mcp", http_client=alice_http)
                ) as alice,
            ):
                shared = await call(
                    bob, "cortex_remember", {"content": "The team room is 4B", "scope": "shared"}
                )
                await call(carol, "cortex_remember", {"content": "Carol parks in bay 12"})

                searched = await call(carol, "cortex_recall", {"query": "team room 4B"})
                digest = await call(carol, "cortex_recall", {"query": ""})
                own = await call(carol, "cortex_recall", {"query": "parks bay"})
                with pytest.raises(MCPError, match="memory_id: no memory"):  # not carol's to see
                    await carol.call_tool("cortex_app_memory", {"memory_id": shared["id"]})
                readable = await call(alice, "cortex_recall", {"query": "team room 4B"})

    assert "4B" not in json.dumps(searched) and "4B" not in json.dumps(digest)
    assert [m["content"] for m in own["memories"]] == ["Carol parks in bay 12"]
    assert "4B" in json.dumps(readable)  # a token with shared read still sees it
