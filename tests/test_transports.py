"""The same client over stdio, SSE and streamable HTTP against real server processes, plus the
HTTP edge: bearer token, loopback-only without a token, Host/Origin checks."""

import sys
from pathlib import Path

import anyio
import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from tests.servers import (
    INITIALIZE,
    MCP_ACCEPT,
    STARTUP_TIMEOUT_S,
    free_port,
    http_server,
    round_trip,
    serve_command,
    server_env,
    stdio_server,
)

TOKEN = "s3cret-token-for-tests-at-least-32-chars"
BEARER = {"Authorization": f"Bearer {TOKEN}"}


async def test_python_dash_m_cortex_mcp_serves_remember_and_recall_over_stdio(
    cortex_home: Path,
) -> None:
    with anyio.fail_after(STARTUP_TIMEOUT_S):
        async with Client(stdio_server(cortex_home)) as client:
            context = await round_trip(client, "The user's cat is called Miso")

    assert "Miso" in context


async def test_cortex_mcp_serve_transport_stdio_runs_the_same_server(cortex_home: Path) -> None:
    params = StdioServerParameters(
        command=str(Path(sys.executable).with_name("cortex-mcp")),
        args=["serve", "--transport", "stdio"],
        env={"CORTEX_HOME": str(cortex_home)},
    )

    with anyio.fail_after(STARTUP_TIMEOUT_S):
        async with Client(params) as client:
            tools = await client.list_tools()
            context = await round_trip(client, "Deployments happen on Thursdays only")

    assert "cortex_remember" in [tool.name for tool in tools.tools]
    assert "Thursdays" in context


async def test_memories_written_over_stdio_are_recalled_by_the_next_process(
    cortex_home: Path,
) -> None:
    with anyio.fail_after(2 * STARTUP_TIMEOUT_S):
        async with Client(stdio_server(cortex_home)) as first:
            await round_trip(first, "The office wifi is named Lighthouse")
        async with Client(stdio_server(cortex_home)) as second:
            found = await second.call_tool("cortex_recall", {"query": "office wifi name"})

    assert found.structured_content is not None
    assert "Lighthouse" in found.structured_content["context"]


async def test_streamable_http_serves_remember_and_recall(cortex_home: Path) -> None:
    async with http_server(cortex_home, "streamable-http") as server:
        with anyio.fail_after(STARTUP_TIMEOUT_S):
            async with Client(f"{server.base_url}/mcp") as client:
                context = await round_trip(client, "The user runs Fedora on the laptop")

    assert "Fedora" in context


async def test_sse_serves_remember_and_recall(cortex_home: Path) -> None:
    async with http_server(cortex_home, "sse") as server:
        with anyio.fail_after(STARTUP_TIMEOUT_S):
            async with Client(sse_client(f"{server.base_url}/sse")) as client:
                context = await round_trip(client, "The user's favourite tea is genmaicha")

    assert "genmaicha" in context


async def test_sse_serves_two_connections_one_after_another(cortex_home: Path) -> None:
    async with http_server(cortex_home, "sse") as server:
        with anyio.fail_after(STARTUP_TIMEOUT_S):
            async with Client(sse_client(f"{server.base_url}/sse")) as first:
                await round_trip(first, "The build server is called Anvil")
            async with Client(sse_client(f"{server.base_url}/sse")) as second:
                found = await second.call_tool("cortex_recall", {"query": "build server"})

    assert found.structured_content is not None
    assert "Anvil" in found.structured_content["context"]


async def test_http_request_without_the_bearer_token_gets_401(cortex_home: Path) -> None:
    env = {"CORTEX_AUTH_TOKEN": TOKEN}
    async with http_server(cortex_home, "streamable-http", env=env) as server:
        with anyio.fail_after(STARTUP_TIMEOUT_S):
            async with httpx2.AsyncClient() as http:
                missing = await http.post(
                    f"{server.base_url}/mcp", json=INITIALIZE, headers=MCP_ACCEPT
                )
                wrong = await http.post(
                    f"{server.base_url}/mcp",
                    json=INITIALIZE,
                    headers={**MCP_ACCEPT, "Authorization": "Bearer not-the-token"},
                )

    assert missing.status_code == 401
    assert missing.headers["www-authenticate"] == "Bearer"
    assert wrong.status_code == 401


async def test_sse_without_the_bearer_token_gets_401(cortex_home: Path) -> None:
    async with http_server(cortex_home, "sse", env={"CORTEX_AUTH_TOKEN": TOKEN}) as server:
        with anyio.fail_after(STARTUP_TIMEOUT_S):
            async with httpx2.AsyncClient() as http:
                stream = await http.get(f"{server.base_url}/sse")
                message = await http.post(f"{server.base_url}/messages/", json=INITIALIZE)

    assert stream.status_code == 401
    assert message.status_code == 401


async def test_streamable_http_client_sending_the_bearer_token_round_trips(
    cortex_home: Path,
) -> None:
    async with http_server(cortex_home, "streamable-http", env={"CORTEX_AUTH_TOKEN": TOKEN}) as (
        server
    ):
        with anyio.fail_after(STARTUP_TIMEOUT_S):
            async with (
                create_mcp_http_client(headers=BEARER) as http,
                Client(
                    streamable_http_client(f"{server.base_url}/mcp", http_client=http)
                ) as client,
            ):
                context = await round_trip(client, "Invoices are due on the 5th of each month")

    assert "Invoices" in context


async def test_sse_client_sending_the_bearer_token_round_trips(cortex_home: Path) -> None:
    async with http_server(cortex_home, "sse", env={"CORTEX_AUTH_TOKEN": TOKEN}) as server:
        with anyio.fail_after(STARTUP_TIMEOUT_S):
            async with Client(sse_client(f"{server.base_url}/sse", headers=BEARER)) as client:
                context = await round_trip(client, "The user's standing desk is set to 112 cm")

    assert "standing desk" in context


async def test_non_loopback_host_without_a_token_exits_with_a_clear_message(
    cortex_home: Path,
) -> None:
    for transport in ["streamable-http", "sse"]:
        with anyio.fail_after(STARTUP_TIMEOUT_S):
            result = await anyio.run_process(
                serve_command(transport, "0.0.0.0", free_port()),
                env=server_env(cortex_home),
                check=False,
            )

        assert result.returncode == 2
        assert "CORTEX_AUTH_TOKEN" in result.stderr.decode()
        assert "0.0.0.0" in result.stderr.decode()
        assert result.stdout == b""


async def test_blank_token_is_refused_at_startup(
    cortex_home: Path,
) -> None:
    with anyio.fail_after(STARTUP_TIMEOUT_S):
        result = await anyio.run_process(
            serve_command("streamable-http", "0.0.0.0", free_port()),
            env=server_env(cortex_home, CORTEX_AUTH_TOKEN="  "),
            check=False,
        )

    assert result.returncode == 2
    assert "CORTEX_AUTH_TOKEN" in result.stderr.decode()


async def test_wildcard_host_with_a_token_listens_requires_it_and_points_to_allowed_hosts(
    cortex_home: Path,
) -> None:
    env = {"CORTEX_AUTH_TOKEN": TOKEN}
    async with http_server(cortex_home, "streamable-http", host="0.0.0.0", env=env) as server:
        with anyio.fail_after(STARTUP_TIMEOUT_S):
            async with httpx2.AsyncClient() as http:
                refused = await http.post(
                    f"{server.base_url}/mcp", json=INITIALIZE, headers=MCP_ACCEPT
                )
                accepted = await http.post(
                    f"{server.base_url}/mcp", json=INITIALIZE, headers={**MCP_ACCEPT, **BEARER}
                )

    assert refused.status_code == 401
    assert accepted.status_code == 200
    assert "CORTEX_ALLOWED_HOSTS" in server.stderr()


async def test_wildcard_host_accepts_the_names_listed_in_allowed_hosts(cortex_home: Path) -> None:
    env = {"CORTEX_AUTH_TOKEN": TOKEN, "CORTEX_ALLOWED_HOSTS": '["cortex.lan"]'}
    async with http_server(cortex_home, "streamable-http", host="0.0.0.0", env=env) as server:
        with anyio.fail_after(STARTUP_TIMEOUT_S):
            async with httpx2.AsyncClient(headers={**MCP_ACCEPT, **BEARER}) as http:
                listed = await http.post(
                    f"{server.base_url}/mcp",
                    json=INITIALIZE,
                    headers={"Host": f"cortex.lan:{server.port}"},
                )
                unlisted = await http.post(
                    f"{server.base_url}/mcp",
                    json=INITIALIZE,
                    headers={"Host": f"other.lan:{server.port}"},
                )

    assert listed.status_code == 200
    assert unlisted.status_code == 421
    assert "CORTEX_ALLOWED_HOSTS" not in server.stderr()


async def test_bearer_scheme_is_accepted_in_any_letter_case(cortex_home: Path) -> None:
    async with http_server(
        cortex_home, "streamable-http", env={"CORTEX_AUTH_TOKEN": TOKEN}
    ) as server:
        with anyio.fail_after(STARTUP_TIMEOUT_S):
            async with httpx2.AsyncClient() as http:
                response = await http.post(
                    f"{server.base_url}/mcp",
                    json=INITIALIZE,
                    headers={**MCP_ACCEPT, "Authorization": f"bearer {TOKEN}"},
                )

    assert response.status_code == 200


async def test_http_server_logs_go_to_stderr_and_never_to_stdout(cortex_home: Path) -> None:
    env = {"CORTEX_LOG_LEVEL": "INFO"}
    async with http_server(cortex_home, "streamable-http", env=env) as server:
        with anyio.fail_after(STARTUP_TIMEOUT_S):
            async with Client(f"{server.base_url}/mcp") as client:
                await round_trip(client, "The user's editor font is Iosevka")

    assert server.stdout() == ""
    assert '"POST /mcp HTTP/1.1" 200' in server.stderr()


async def test_port_zero_is_a_configuration_error_not_the_default_port(cortex_home: Path) -> None:
    with anyio.fail_after(STARTUP_TIMEOUT_S):
        result = await anyio.run_process(
            serve_command("streamable-http", "127.0.0.1", 0),
            env=server_env(cortex_home),
            check=False,
        )

    assert result.returncode == 2
    assert result.stderr.decode().startswith("cortex-mcp: --port: ")
    assert len(result.stderr.decode().splitlines()) == 1


async def test_foreign_host_header_is_rejected_even_with_the_token(cortex_home: Path) -> None:
    env = {"CORTEX_AUTH_TOKEN": TOKEN}
    async with http_server(cortex_home, "streamable-http", env=env) as server:
        with anyio.fail_after(STARTUP_TIMEOUT_S):
            async with httpx2.AsyncClient() as http:
                foreign = await http.post(
                    f"{server.base_url}/mcp",
                    json=INITIALIZE,
                    headers={**MCP_ACCEPT, **BEARER, "Host": "evil.example"},
                )
                own = await http.post(
                    f"{server.base_url}/mcp", json=INITIALIZE, headers={**MCP_ACCEPT, **BEARER}
                )

    assert 400 <= foreign.status_code < 500
    assert own.status_code == 200


async def test_foreign_origin_is_rejected_even_with_the_token(cortex_home: Path) -> None:
    env = {"CORTEX_AUTH_TOKEN": TOKEN}
    async with http_server(cortex_home, "sse", env=env) as server:
        with anyio.fail_after(STARTUP_TIMEOUT_S):
            async with httpx2.AsyncClient() as http:
                response = await http.get(
                    f"{server.base_url}/sse",
                    headers={**BEARER, "Origin": "http://evil.example"},
                )

    assert response.status_code == 403


async def test_foreign_host_header_is_rejected_without_a_token_on_loopback(
    cortex_home: Path,
) -> None:
    async with http_server(cortex_home, "streamable-http") as server:
        with anyio.fail_after(STARTUP_TIMEOUT_S):
            async with httpx2.AsyncClient() as http:
                response = await http.post(
                    f"{server.base_url}/mcp",
                    json=INITIALIZE,
                    headers={**MCP_ACCEPT, "Host": "evil.example:80"},
                )

    assert response.status_code == 421
