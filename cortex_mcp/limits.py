"""Limits that keep one client (or a flood of them) from starving the others over HTTP.

- `GuardedH11Protocol`: uvicorn's h11 protocol with a header timeout (a connection must send
  its request headers within `remote.header_timeout_s`, counted from the connect, so a
  slowloris is dropped) and a connection cap: past `max_connections` (kept below the process's
  descriptor limit), the oldest connection still waiting to send a request is closed.
- `SseSessions`: at most `max_sessions` SSE streams; a stream whose session sent no message
  for `session_idle_timeout_s` is closed.
- `RepeatedErrorFilter`: "Too many open files" and its kind are logged once a minute with a
  count, not once per failed accept.
"""

import logging
import resource
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs

import anyio
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

logger = logging.getLogger(__name__)

DESCRIPTOR_RESERVE = 64
"""Descriptors kept free for the database, logs and outgoing provider calls."""
SESSION_CHECK_S = 1.0
SESSION_ID = b"session_id="


def connection_cap(configured: int) -> int:
    """`configured`, lowered to stay below this process's open-file limit."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return configured
    return max(1, min(configured, soft - DESCRIPTOR_RESERVE))


class GuardedH11Protocol(H11Protocol):
    """h11 with a header timeout and a connection cap (set by `guarded_protocol`)."""

    header_timeout_s: float = 10.0
    max_connections: int = 200

    def connection_made(self, transport: Any) -> None:  # noqa: D102 - asyncio protocol
        super().connection_made(transport)
        self.connected_at = time.monotonic()
        self.header_timer: Any = self.loop.call_later(self.header_timeout_s, self._headers_late)
        if len(self.connections) > self.max_connections:
            self._evict()

    def handle_events(self) -> None:  # noqa: D102 - uvicorn's
        super().handle_events()
        if self._serving() is not None and self.header_timer is not None:
            self.header_timer.cancel()
            self.header_timer = None

    def connection_lost(self, exc: Exception | None) -> None:  # noqa: D102 - asyncio protocol
        if getattr(self, "header_timer", None) is not None:
            self.header_timer.cancel()
            self.header_timer = None
        super().connection_lost(exc)

    def _serving(self) -> Any:
        """The request being served, or None (uvicorn types it as never None)."""
        return self.cycle

    def _waiting(self) -> bool:
        """True while no request of this connection is being served."""
        cycle = self._serving()
        return cycle is None or bool(cycle.response_complete)

    def _headers_late(self) -> None:
        self.header_timer = None
        if self._serving() is None and not self.transport.is_closing():
            self.transport.close()

    def _evict(self) -> None:
        """Close the oldest connection that is not serving a request (this one if none)."""
        waiting = [
            c for c in self.connections if isinstance(c, GuardedH11Protocol) and c._waiting()
        ]
        oldest = min(waiting, key=lambda c: c.connected_at, default=self)
        oldest.transport.close()


def guarded_protocol(header_timeout_s: float, max_connections: int) -> type[GuardedH11Protocol]:
    """The protocol class uvicorn should use, with these limits."""
    return type(
        "CortexH11Protocol",
        (GuardedH11Protocol,),
        {"header_timeout_s": header_timeout_s, "max_connections": max_connections},
    )


class SseSessions:
    """ASGI middleware for the SSE app: bound the streams, close idle ones."""

    def __init__(
        self,
        app: ASGIApp,
        max_sessions: int,
        idle_timeout_s: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.app = app
        self.max_sessions = max_sessions
        self.idle_timeout_s = idle_timeout_s
        self.clock = clock
        self.streams = 0
        self.last_message: dict[str, float] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Count and watch GET /sse streams; note each POSTed message's session."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
        elif scope["method"] == "GET" and scope["path"].rstrip("/").endswith("/sse"):
            await self._stream(scope, receive, send)
        else:
            session = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("session_id")
            if session and session[0] in self.last_message:
                self.last_message[session[0]] = self.clock()
            await self.app(scope, receive, send)

    async def _stream(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.streams >= self.max_sessions:
            busy = JSONResponse(
                {"error": "busy", "detail": f"{self.max_sessions} SSE sessions are open"},
                status_code=503,
                headers={"Retry-After": "10", "Connection": "close"},
            )
            await busy(scope, receive, send)
            return
        self.streams += 1
        session: list[str] = []
        started = self.clock()

        ended: list[bool] = []

        async def noting_send(message: Message) -> None:
            body = message.get("body", b"") if message["type"] == "http.response.body" else b""
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                ended.append(True)
            if not session and SESSION_ID in body:
                found = body.split(SESSION_ID, 1)[1].split(b"\r", 1)[0].split(b"\n", 1)[0]
                session.append(found.decode("latin-1").strip())
                self.last_message[session[0]] = self.clock()
            await send(message)

        try:
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(self._expire, tasks.cancel_scope, session, started)
                await self.app(scope, receive, noting_send)
                tasks.cancel_scope.cancel()
            if session and not ended:  # expired: end the stream properly, not mid-chunk
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            self.streams -= 1
            if session:
                self.last_message.pop(session[0], None)

    async def _expire(self, stream: anyio.CancelScope, session: list[str], started: float) -> None:
        while True:
            await anyio.sleep(min(SESSION_CHECK_S, self.idle_timeout_s))
            last = self.last_message.get(session[0], started) if session else started
            if self.clock() - last >= self.idle_timeout_s:
                logger.info("closing an SSE session idle for %.0f s", self.clock() - last)
                stream.cancel()
                return


class RepeatedErrorFilter(logging.Filter):
    """Let one record about running out of descriptors through per `every_s`, with a count."""

    MARKERS = ("Too many open files", "EMFILE", "ENFILE", "out of system resource")

    def __init__(self, every_s: float = 60.0, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.every_s = every_s
        self.clock = clock
        self.last_shown: float | None = None
        self.suppressed = 0

    def filter(self, record: logging.LogRecord) -> bool:
        """False for a repeat within `every_s`; the first after it says how many were dropped."""
        text = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            text += f" {record.exc_info[1]}"
        if not any(marker in text for marker in self.MARKERS):
            return True
        now = self.clock()
        if self.last_shown is not None and now - self.last_shown < self.every_s:
            self.suppressed += 1
            return False
        if self.suppressed:
            record.msg = f"{record.msg} ({self.suppressed} more like it were not logged)"
        record.exc_info = None  # one line, not a traceback per failed accept
        self.last_shown, self.suppressed = now, 0
        return True


def quiet_repeated_accept_errors(every_s: float = 60.0) -> RepeatedErrorFilter:
    """Install the filter on the loggers that report failed accepts; returns it."""
    shared = RepeatedErrorFilter(every_s)
    for name in ("asyncio", "uvicorn.error"):
        logging.getLogger(name).addFilter(shared)
    return shared
