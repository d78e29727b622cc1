"""SSE and streamable HTTP: loopback unless a token is set, bearer auth, Host/Origin checks."""

import hmac
import ipaddress
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Literal

import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Mount
from starlette.types import ASGIApp, Receive, Scope, Send

from cortex_mcp.config import Settings
from cortex_mcp.engine import Engine
from cortex_mcp.engine.host import EngineHost
from cortex_mcp.errors import CortexError

logger = logging.getLogger(__name__)

HttpTransport = Literal["sse", "streamable-http"]
LOOPBACK_NAMES = {"localhost", "127.0.0.1", "::1"}


class UnsafeBind(CortexError):
    """A non-loopback address was asked for without a bearer token."""


def is_loopback(host: str) -> bool:
    """True for localhost and any address in 127.0.0.0/8 or ::1."""
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(settings: Settings) -> None:
    """Refuse to expose memory beyond this machine without a bearer token."""
    if not is_loopback(settings.host) and settings.auth_token is None:
        raise UnsafeBind(
            f"refusing to listen on {settings.host}: set CORTEX_AUTH_TOKEN to require a bearer "
            "token, or bind 127.0.0.1"
        )


def transport_security(settings: Settings) -> TransportSecuritySettings:
    """Host/Origin checks against DNS rebinding: loopback names plus what the user allowed."""
    hosts = ["127.0.0.1:*", "localhost:*", "[::1]:*", *settings.allowed_hosts]
    origins = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"]
    if not is_loopback(settings.host):
        hosts.append(f"{settings.host}:*")
        origins += [f"http://{settings.host}:*", f"https://{settings.host}:*"]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=hosts,
        allowed_origins=[*origins, *settings.allowed_origins],
    )


class BearerTokenGate:
    """ASGI middleware: every HTTP request must carry `Authorization: Bearer <token>`."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer 401 unless the request carries the token; pass everything else through."""
        if scope["type"] == "http":
            given = dict(scope["headers"]).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                response = JSONResponse(
                    {"error": "unauthorized", "detail": "send Authorization: Bearer <token>"},
                    status_code=401,
                    headers={"WWW-Authenticate": "Bearer"},
                )
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def http_app(
    mcp: MCPServer[Engine], host: EngineHost, settings: Settings, transport: HttpTransport
) -> ASGIApp:
    """The ASGI app for a transport: the SDK's app, the engine held open, the token checked."""
    security = transport_security(settings)
    if transport == "sse":
        inner = mcp.sse_app(transport_security=security, host=settings.host)
    else:
        inner = mcp.streamable_http_app(transport_security=security, host=settings.host)

    @asynccontextmanager
    async def hold_engine(app: Starlette) -> AsyncIterator[None]:
        async with host.use(), inner.router.lifespan_context(app):
            yield

    app: ASGIApp = Starlette(routes=[Mount("/", app=inner)], lifespan=hold_engine)
    if settings.auth_token is not None:
        app = BearerTokenGate(app, settings.auth_token.get_secret_value())
    return app


async def serve_http(
    mcp: MCPServer[Engine], host: EngineHost, settings: Settings, transport: HttpTransport
) -> None:
    """Serve `mcp` over SSE or streamable HTTP until cancelled."""
    check_bind(settings)
    app = http_app(mcp, host, settings, transport)
    config = uvicorn.Config(
        app, host=settings.host, port=settings.port, log_level=settings.log_level.lower()
    )
    path = "/sse" if transport == "sse" else "/mcp"
    logger.warning("cortex-mcp %s on http://%s:%d%s", transport, settings.host, settings.port, path)
    await uvicorn.Server(config).serve()
