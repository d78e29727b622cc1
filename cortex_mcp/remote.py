"""SSE and streamable HTTP: loopback unless a token is set, bearer auth (one token, or one per
set of agents), Host/Origin checks, and the limits of `limits` (timeouts, a connection cap,
bounded sessions)."""

import errno
import hmac
import ipaddress
import logging
import re
import socket
from collections.abc import AsyncIterator, Callable, Coroutine, Sequence
from contextlib import asynccontextmanager
from typing import Any, Literal

import anyio
import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Mount
from starlette.types import ASGIApp, Receive, Scope, Send

from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import Engine
from cortex_mcp.engine.host import EngineHost
from cortex_mcp.errors import CortexError
from cortex_mcp.grants import GRANT_KEY, Grant, token_grants
from cortex_mcp.limits import (
    ACCEPT_BACKLOG,
    BodyDeadline,
    CortexUvicorn,
    connection_cap,
    guarded_protocol,
    quiet_repeated_accept_errors,
)
from cortex_mcp.sessions import (
    CLIENT_KEY,
    SessionBook,
    SseSessions,
    StreamableSessions,
    client_key_of_token,
)

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


def is_wildcard(host: str) -> bool:
    """True for 0.0.0.0 and ::, which listen on every address but name none."""
    try:
        return ipaddress.ip_address(host.strip("[]")).is_unspecified
    except ValueError:
        return False


def host_header_name(host: str) -> str:
    """`host` as it appears in a Host header: IPv6 literals in brackets."""
    return f"[{host.strip('[]')}]" if ":" in host else host


def host_patterns(allowed: str) -> list[str]:
    """An allowed Host as the SDK matches it; a name without a port accepts any port."""
    if allowed.endswith(":*") or re.fullmatch(r"(\[[^]]*\]|[^:\[\]]*):[0-9]+", allowed):
        return [allowed]
    name = host_header_name(allowed)
    return [name, f"{name}:*"]


MIN_REMOTE_TOKEN_CHARS = 32


def check_bind(settings: Settings) -> None:
    """Refuse to expose memory beyond this machine without a bearer token, or with a blank or
    short one (under 32 characters: guessable)."""
    token = settings.auth_token
    if token is not None and not token.get_secret_value().strip():
        raise UnsafeBind("CORTEX_AUTH_TOKEN is set but blank: set a real token or unset it")
    tokens = [t.token for t in settings.auth_tokens] + ([token] if token is not None else [])
    if any(not t.get_secret_value().strip() for t in tokens):
        raise UnsafeBind("CORTEX_AUTH_TOKENS: a token is blank")
    if is_loopback(settings.host):
        pass
    elif not tokens:
        raise UnsafeBind(
            f"refusing to listen on {settings.host}: set CORTEX_AUTH_TOKEN to require a bearer "
            "token, or bind 127.0.0.1"
        )
    elif any(len(t.get_secret_value().strip()) < MIN_REMOTE_TOKEN_CHARS for t in tokens):
        raise UnsafeBind(
            f"refusing to listen on {settings.host} with a token under {MIN_REMOTE_TOKEN_CHARS} "
            "characters: set CORTEX_AUTH_TOKEN to a long random one (e.g. openssl rand -hex 32)"
        )
    if is_wildcard(settings.host) and not settings.allowed_hosts:
        logger.warning(
            "listening on every address of this machine, but only requests for 127.0.0.1 and "
            "localhost are accepted: list the names clients use in CORTEX_ALLOWED_HOSTS"
        )


def transport_security(settings: Settings) -> TransportSecuritySettings:
    """Host/Origin checks against DNS rebinding: loopback names plus what the user allowed."""
    hosts = ["127.0.0.1:*", "localhost:*", "[::1]:*"]
    hosts += [pattern for allowed in settings.allowed_hosts for pattern in host_patterns(allowed)]
    origins = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"]
    if not is_loopback(settings.host) and not is_wildcard(settings.host):
        name = host_header_name(settings.host)
        hosts.append(f"{name}:*")
        origins += [f"http://{name}:*", f"https://{name}:*"]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=hosts,
        allowed_origins=[*origins, *settings.allowed_origins],
    )


class BearerTokenGate:
    """ASGI middleware: every HTTP request must carry `Authorization: Bearer <token>`, checked
    from the headers alone, before any of the body is read. A token limited to some agents
    leaves its `Grant` in the request's state for `grants.GrantCheck`."""

    def __init__(self, app: ASGIApp, tokens: str | dict[bytes, Grant | None]) -> None:
        self.app = app
        self.tokens = {tokens.strip().encode(): None} if isinstance(tokens, str) else tokens

    def accepts(self, authorization: bytes) -> bool:
        """True for `Bearer <token>`; the scheme is case-insensitive (RFC 9110)."""
        return self.match(authorization)[0]

    def match(self, authorization: bytes) -> tuple[bool, Grant | None]:
        """(accepted, the token's grant) for an Authorization header."""
        accepted, grant, _ = self.identify(authorization)
        return accepted, grant

    def identify(self, authorization: bytes) -> tuple[bool, Grant | None, bytes]:
        """(accepted, the token's grant, the token) for an Authorization header."""
        scheme, _, credentials = authorization.strip().partition(b" ")
        given = credentials.strip()
        accepted, grant, matched = False, None, b""
        for token, token_grant in self.tokens.items():  # every one compared: constant time
            if hmac.compare_digest(given, token):
                accepted, grant, matched = True, token_grant, token
        return scheme.lower() == b"bearer" and accepted, grant, matched

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer 401 unless the request carries a token; pass everything else through."""
        authorization = dict(scope.get("headers", [])).get(b"authorization", b"")
        accepted, grant, token = self.identify(authorization)
        if scope["type"] == "http" and not accepted:
            await discard_some_body(receive)
            response = JSONResponse(
                {"error": "unauthorized", "detail": "send Authorization: Bearer <token>"},
                status_code=401,
                headers={"WWW-Authenticate": "Bearer", "Connection": "close"},
            )
            await response(scope, receive, send)
            return
        if grant is not None:
            scope.setdefault("state", {})[GRANT_KEY] = grant
        if accepted:  # sessions are counted per token (limits.SessionBook)
            scope.setdefault("state", {})[CLIENT_KEY] = client_key_of_token(token)
        await self.app(scope, receive, send)


REFUSED_BODY_BYTES = 64 * 1024
REFUSED_BODY_WAIT_S = 0.5


async def discard_some_body(receive: Receive) -> None:
    """Read and drop what a refused request has already sent of its body (a bounded amount,
    briefly): closing on unread bytes resets the connection, and the client would see a reset
    instead of the 401. The decision was made from the headers alone."""
    seen = 0
    with anyio.move_on_after(REFUSED_BODY_WAIT_S):
        while seen <= REFUSED_BODY_BYTES:
            message = await receive()
            if message["type"] != "http.request":
                return
            seen += len(message.get("body", b""))
            if not message.get("more_body", False):
                return


def http_app(
    mcp: MCPServer[Engine],
    host: EngineHost,
    settings: Settings,
    transport: HttpTransport,
    beside: Sequence[Callable[[], Coroutine[Any, Any, None]]] = (),
) -> ASGIApp:
    """The ASGI app for a transport: the SDK's app, the engine held open (with the jobs
    `beside` it running while it is: the hooks' local socket), the token checked."""
    security = transport_security(settings)
    limits = settings.remote
    inner: Starlette
    served: ASGIApp
    if transport == "sse":
        inner = mcp.sse_app(transport_security=security, host=settings.host)
        served = SseSessions(
            inner,
            limits.max_sessions,
            limits.session_idle_timeout_s,
            limits.max_sessions_per_client,
        )
    else:
        inner = mcp.streamable_http_app(
            transport_security=security,
            host=settings.host,
            max_sessions=None,  # StreamableSessions bounds them, ending the idlest instead
            session_idle_timeout=limits.session_idle_timeout_s,
        )
        book = SessionBook(limits.max_sessions, limits.max_sessions_per_client)
        served = StreamableSessions(inner, book)

    @asynccontextmanager
    async def hold_engine(app: Starlette) -> AsyncIterator[None]:
        async with (
            host.use(),
            inner.router.lifespan_context(app),
            anyio.create_task_group() as jobs,
        ):
            for job in beside:
                jobs.start_soon(job)
            yield
            jobs.cancel_scope.cancel()

    app: ASGIApp = Starlette(routes=[Mount("/", app=served)], lifespan=hold_engine)
    app = BodyDeadline(app, limits.body_timeout_s)
    tokens = token_grants(settings)
    if tokens:
        app = BearerTokenGate(app, tokens)
    return app


SHUTDOWN_GRACE_S = 1
"""On SIGTERM, requests being served get this long to finish before they are cancelled."""


async def serve_http(
    mcp: MCPServer[Engine],
    host: EngineHost,
    settings: Settings,
    transport: HttpTransport,
    beside: Sequence[Callable[[], Coroutine[Any, Any, None]]] = (),
) -> None:
    """Serve `mcp` over SSE or streamable HTTP until cancelled (`beside`: jobs that run
    while the app holds the engine open)."""
    check_bind(settings)
    app = http_app(mcp, host, settings, transport, beside)
    limits = settings.remote
    config = uvicorn.Config(
        app,
        host=settings.host.strip("[]"),
        port=settings.port,
        log_level=settings.log_level.lower(),
        log_config=None,  # uvicorn's own config sends access logs to stdout; ours is stderr
        http=guarded_protocol(limits.header_timeout_s, connection_cap(limits.max_connections)),
        timeout_keep_alive=limits.idle_timeout_s,
        timeout_graceful_shutdown=SHUTDOWN_GRACE_S,
        backlog=ACCEPT_BACKLOG,
    )
    sock = listening_socket(settings)  # before the URL is announced: a busy port says so first
    quiet_repeated_accept_errors()
    path = "/sse" if transport == "sse" else "/mcp"
    url = f"http://{host_header_name(settings.host)}:{settings.port}{path}"
    logger.warning("cortex-mcp %s on %s", transport, url)
    with sock:
        await CortexUvicorn(config).serve(sockets=[sock])


class PortUnavailable(CortexError):
    """The address and port cannot be bound (in use, or not allowed)."""


def listening_socket(settings: Settings) -> socket.socket:
    """A socket bound to the configured host and port, handed to uvicorn; binding here reports
    a busy port in one line before any URL is announced."""
    host = settings.host.strip("[]")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, settings.port))
    except OSError as err:
        sock.close()
        reason = "already in use" if err.errno == errno.EADDRINUSE else (err.strerror or str(err))
        raise PortUnavailable(
            f"port {settings.port} on {host}: {reason}; stop the other server or choose another"
            " port (--port or CORTEX_PORT)"
        ) from err
    return sock  # uvicorn listens once the app has started, so "accepting" still means "ready"
