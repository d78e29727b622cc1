"""`cortex-mcp browse`: the memory browser in any web browser, for hosts without MCP Apps.

One server on 127.0.0.1 and nothing else: `/` serves a small host page (the official AppBridge
and MCP client, built from ui/) to whoever holds the random token made for this run, and
`/mcp` is cortex-mcp over streamable HTTP behind the same token as a bearer. The page reads
the app from `ui://cortex/memory-browser` and relays for it, as Claude Desktop or VS Code do.
"""

import hmac
import secrets
import socket
from collections.abc import Callable
from importlib import resources
from urllib.parse import parse_qs

import uvicorn
from pydantic import SecretStr
from starlette.responses import HTMLResponse, PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from cortex_mcp.config import Settings
from cortex_mcp.engine.host import EngineHost
from cortex_mcp.remote import http_app
from cortex_mcp.server import build_server

LOOPBACK = "127.0.0.1"
PAGE_PATHS = {"/", "/index.html"}
PAGE_HEADERS = {
    # The page and the app it frames run inline code only; they talk to this server only.
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
        "img-src data:; connect-src 'self'; frame-src 'self'; base-uri 'none'; "
        "form-action 'none'"
    ),
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
}


def host_page() -> str:
    """The built host page: one self-contained HTML file shipped in the package."""
    return resources.files("cortex_mcp.ui").joinpath("browse-host.html").read_text("utf-8")


def browse_app(settings: Settings, token: str) -> ASGIApp:
    """The page at `/` (token in the query) and MCP at `/mcp` (token as a bearer)."""
    local = settings.model_copy(update={"host": LOOPBACK, "auth_token": SecretStr(token)})
    host = EngineHost(local)
    mcp = http_app(build_server(local, host=host), host, local, "streamable-http")
    page = host_page()
    expected = token.encode()

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] not in PAGE_PATHS:
            await mcp(scope, receive, send)
            return
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        given = query.get("token", [""])[0].encode()
        if hmac.compare_digest(given, expected):
            response: PlainTextResponse | HTMLResponse = HTMLResponse(page, headers=PAGE_HEADERS)
        else:
            response = PlainTextResponse(
                "open the link cortex-mcp browse printed: it carries the token", status_code=403
            )
        await response(scope, receive, send)

    return app


def loopback_socket(port: int) -> socket.socket:
    """A listening TCP socket on 127.0.0.1 (`port` 0 picks a free one)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((LOOPBACK, port))
    sock.listen(64)
    return sock


async def serve_browser(settings: Settings, port: int, ready: Callable[[str], None]) -> None:
    """Serve the memory browser on 127.0.0.1 until cancelled; `ready` gets the page URL."""
    token = secrets.token_urlsafe(32)
    sock = loopback_socket(port)
    bound = sock.getsockname()[1]
    config = uvicorn.Config(
        browse_app(settings, token),
        log_level=settings.log_level.lower(),
        log_config=None,
    )
    ready(f"http://{LOOPBACK}:{bound}/?token={token}")
    await uvicorn.Server(config).serve(sockets=[sock])
