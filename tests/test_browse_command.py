"""`cortex-mcp browse` end to end without a browser: loopback only, the token required for the
page and for MCP, the page self-contained, the app reachable through it."""

import socket
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import anyio
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from cortex_mcp.browser.app import APP_URI
from tests.conftest import read_text
from tests.servers import INITIALIZE, MCP_ACCEPT, STARTUP_TIMEOUT_S, browse_server


def other_address() -> str | None:
    """A non-loopback IPv4 address of this machine, if it has one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: nothing is sent for a UDP connect
        except OSError:
            return None
        address = str(probe.getsockname()[0])
    return None if address.startswith("127.") else address


async def test_browse_serves_the_page_only_with_the_token_and_mcp_only_with_the_bearer(
    cortex_home: Path,
) -> None:
    async with browse_server(cortex_home) as url:
        parts = urlsplit(url)
        token = parse_qs(parts.query)["token"][0]
        base = f"{parts.scheme}://{parts.netloc}"
        with anyio.fail_after(STARTUP_TIMEOUT_S):
            async with httpx2.AsyncClient() as http:
                page = await http.get(url)
                no_token = await http.get(f"{base}/")
                wrong = await http.get(f"{base}/?token=not-{token}")
                bare_mcp = await http.post(f"{base}/mcp", json=INITIALIZE, headers=MCP_ACCEPT)
            bearer = {"Authorization": f"Bearer {token}"}
            async with (
                create_mcp_http_client(headers=bearer) as session_http,
                Client(streamable_http_client(f"{base}/mcp", http_client=session_http)) as client,
            ):
                tools = {t.name for t in (await client.list_tools()).tools}
                app = await read_text(client, APP_URI)

    assert parts.hostname == "127.0.0.1"
    assert len(token) >= 32
    assert page.status_code == 200
    assert "default-src 'none'" in page.headers["content-security-policy"]
    assert "connect-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["cache-control"] == "no-store"
    assert "<script" in page.text and 'src="http' not in page.text
    assert (no_token.status_code, wrong.status_code, bare_mcp.status_code) == (403, 403, 401)
    assert "cortex_browse" in tools
    assert app.lstrip().lower().startswith("<!doctype html>")


async def test_browse_listens_on_loopback_only_with_a_fresh_token_each_run(
    cortex_home: Path,
) -> None:
    async with browse_server(cortex_home) as first:
        port = urlsplit(first).port
        assert port is not None
        address = other_address()
        if address is not None:
            with socket.socket() as probe:
                probe.settimeout(2)
                refused = probe.connect_ex((address, port)) != 0
            assert refused, f"browse answered on {address}"
    async with browse_server(cortex_home) as second:
        pass

    assert parse_qs(urlsplit(first).query)["token"] != parse_qs(urlsplit(second).query)["token"]


async def test_browse_refuses_a_port_in_use_with_one_line(cortex_home: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        done = await anyio.run_process(
            [sys.executable, "-m", "cortex_mcp", "browse", "--no-open", "--port", str(port)],
            check=False,
        )

    assert done.returncode == 2
    assert done.stderr.decode().strip().startswith(f"cortex-mcp: browse: port {port}:")
    assert "Traceback" not in done.stderr.decode()
