"""Limits that keep one client (or a flood of them) from starving the others over HTTP.

- `GuardedH11Protocol`: uvicorn's h11 protocol with a header timeout (a connection must send
  its request headers within `remote.header_timeout_s`, counted from the connect, so a
  slowloris is dropped) and a connection cap applied as each connection is accepted: past
  `max_connections`, the oldest open connection that has not sent a request is closed (else
  the oldest idle keep-alive one; this one, if every other is serving). The cap is derived
  from the descriptor limit (`connection_cap`) with room for the listening socket's accept
  burst (`ACCEPT_BACKLOG`: asyncio accepts up to `backlog` connections before any of them is
  seen), so `accept()` never runs out of descriptors, and CPython's retry-per-EMFILE storm
  never starts.
- `BodyDeadline`: a request's body must arrive within `remote.body_timeout_s` of its headers;
  a slower one is answered 408 and its connection closed.
- `RepeatedErrorFilter`: "Too many open files", failed accepts and the invalid-descriptor
  errors their retries leave at shutdown are logged once a minute with a count, not once each.
"""

import logging
import resource
import socket
import time
from collections.abc import Callable
from typing import Any

import anyio
import uvicorn
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

logger = logging.getLogger(__name__)

ACCEPT_BACKLOG = 16
"""How many connections asyncio accepts in one go before the protocol of any of them runs
(CPython's `_accept_connection` takes the listening backlog for this)."""
KERNEL_BACKLOG = 1024
"""The listening socket's queue in the kernel, set once asyncio listens with ACCEPT_BACKLOG:
connections wait there without costing this process a descriptor, and a client's connect is
not dropped (and retried a second or more later) because a flood filled a short queue."""
DESCRIPTOR_RESERVE = 64 + 2 * ACCEPT_BACKLOG
"""Descriptors kept free for the database, logs and outgoing provider calls, and for two
accept bursts whose connections are not counted yet (or closed but not yet released)."""


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
        open_now = [c for c in self.connections if not c.transport.is_closing()]
        if len(open_now) > self.max_connections:
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
        """Close the oldest open connection that has not sent a whole request yet, else the
        oldest kept alive between requests (a client that was served), else this one; one
        already closing does not count (it would be closed again, and nothing freed)."""
        waiting = [
            c
            for c in self.connections
            if isinstance(c, GuardedH11Protocol)
            and c is not self
            and c._waiting()
            and not c.transport.is_closing()
        ]
        silent = [c for c in waiting if c._serving() is None]
        oldest = min(silent or waiting, key=lambda c: c.connected_at, default=self)
        oldest.transport.abort()  # at once: nothing to flush to a connection that sent nothing


def guarded_protocol(header_timeout_s: float, max_connections: int) -> type[GuardedH11Protocol]:
    """The protocol class uvicorn should use, with these limits."""
    return type(
        "CortexH11Protocol",
        (GuardedH11Protocol,),
        {"header_timeout_s": header_timeout_s, "max_connections": max_connections},
    )


class CortexUvicorn(uvicorn.Server):
    """uvicorn's server, its listening sockets given KERNEL_BACKLOG once asyncio has set up
    its accept loop with the small ACCEPT_BACKLOG (see there)."""

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:  # noqa: D102
        await super().startup(sockets)
        for sock in sockets or []:
            sock.listen(KERNEL_BACKLOG)


class BodyDeadline:
    """ASGI middleware: the whole body of a request must arrive within `timeout_s` of its
    headers; past it the request is cancelled (the app never sees a half body) and the client
    gets 408 and a closed connection. Streams that read no body (GET) are not limited."""

    def __init__(self, app: ASGIApp, timeout_s: float) -> None:
        self.app = app
        self.timeout_s = timeout_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on with a receive that cancels it at the deadline."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        deadline = anyio.current_time() + self.timeout_s
        body_done, late, started = [False], [False], [False]
        with anyio.CancelScope() as request:

            async def timed_receive() -> Message:
                if body_done[0]:
                    return await receive()
                with anyio.move_on_after(max(0.0, deadline - anyio.current_time())):
                    message = await receive()
                    if message["type"] != "http.request" or not message.get("more_body", False):
                        body_done[0] = True
                    return message
                late[0] = True
                request.cancel()
                await anyio.lowlevel.checkpoint()  # the cancellation, raised here
                return {"type": "http.disconnect"}  # never reached

            async def noting_send(message: Message) -> None:
                if message["type"] == "http.response.start":
                    started[0] = True
                await send(message)

            await self.app(scope, timed_receive, noting_send)
        if late[0] and not started[0]:
            logger.info("closing a request whose body took over %.0f s", self.timeout_s)
            answer = JSONResponse(
                {"error": "request timeout", "detail": f"send the body within {self.timeout_s} s"},
                status_code=408,
                headers={"Connection": "close"},
            )
            await answer(scope, receive, send)


class RepeatedErrorFilter(logging.Filter):
    """Let one record about running out of descriptors through per `every_s`, with a count."""

    MARKERS = (
        "Too many open files",
        "EMFILE",
        "ENFILE",
        "out of system resource",
        "Invalid file descriptor",  # the accept retries asyncio scheduled, run after shutdown
    )

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
