"""Sessions over HTTP, bounded per client and in all, without locking anyone out.

A client is its bearer token (or, without tokens, its address). Opening a session when the
client already has `per_client` open, or when `max_sessions` are open in all, first ends the
client's (or everyone's) session that has been idle longest: one whose last message is the
oldest and that has no request being served. Only when every session in the way is busy is the
new one refused (503). So a flood of sessions costs the flooder its own oldest sessions, and
never keeps a new client out until the idle timeout.

- `StreamableSessions`: the streamable HTTP app; a session is ended the way a client ends it
  (an HTTP DELETE with its id, passed to the SDK's app).
- `SseSessions`: the SSE app; a session is its GET /sse stream, ended by cancelling it; a
  stream silent for `idle_timeout_s` is also closed.
"""

import hashlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from urllib.parse import parse_qs

import anyio
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

logger = logging.getLogger(__name__)

CLIENT_KEY = "cortex.client"
"""Where `remote.BearerTokenGate` leaves the accepted token's client key in the scope's state."""
SESSION_HEADER = b"mcp-session-id"
SESSION_ID = b"session_id="
SESSION_CHECK_S = 1.0


def client_key_of_token(token: bytes) -> str:
    """A client's key from its token: a digest, so the token itself is kept nowhere else."""
    return "token:" + hashlib.sha256(token).hexdigest()[:16]


def client_of(scope: Scope) -> str:
    """The client a request comes from: its token's key, else its address."""
    state = scope.get("state") or {}
    if CLIENT_KEY in state:
        return str(state[CLIENT_KEY])
    peer = scope.get("client")
    return f"address:{peer[0]}" if peer else "address:?"


@dataclass
class OpenSession:
    """One session: whose, when it last spoke, how many requests it has in flight."""

    client: str
    last_active: float
    end: Callable[[], Awaitable[None]]
    busy: int = 0


@dataclass
class SessionBook:
    """The open sessions and the rule that picks which ones give way."""

    max_sessions: int
    per_client: int
    clock: Callable[[], float] = time.monotonic
    sessions: dict[str, OpenSession] = field(default_factory=dict)

    def count(self, client: str | None = None) -> int:
        """Sessions open, of `client` or of everyone."""
        if client is None:
            return len(self.sessions)
        return sum(1 for s in self.sessions.values() if s.client == client)

    def full_and_busy(self, client: str) -> bool:
        """True when a new session of `client` would pass a limit and no session in the way
        can give way (every one is serving a request): then, and only then, refuse it."""
        if self.count(client) >= self.per_client and self._idlest(client, None) is None:
            return True
        return self.count() >= self.max_sessions and self._idlest(None, None) is None

    def over_limits(self, opened: str) -> list[str]:
        """The sessions to end now that `opened` is open: the client's idlest while it holds
        more than its share, then everyone's idlest while more than the total are open."""
        client = self.sessions[opened].client
        ending: list[str] = []
        while self.count(client) - self._among(ending, client) > self.per_client:
            victim = self._idlest(client, [opened, *ending])
            if victim is None:
                break
            ending.append(victim)
        while self.count() - len(ending) > self.max_sessions:
            victim = self._idlest(None, [opened, *ending])
            if victim is None:
                break
            ending.append(victim)
        return ending

    def _among(self, ids: list[str], client: str) -> int:
        return sum(1 for sid in ids if self.sessions[sid].client == client)

    def _idlest(self, client: str | None, besides: list[str] | None) -> str | None:
        idle = [
            (s.last_active, sid)
            for sid, s in self.sessions.items()
            if not s.busy and (client is None or s.client == client) and sid not in (besides or [])
        ]
        return min(idle)[1] if idle else None

    def touch(self, session_id: str) -> OpenSession | None:
        """Note a message of this session; the session, if known."""
        found = self.sessions.get(session_id)
        if found is not None:
            found.last_active = self.clock()
        return found

    async def end(self, ids: list[str]) -> None:
        """End these sessions (forgotten first, so none is ended twice)."""
        for sid in ids:
            ended = self.sessions.pop(sid, None)
            if ended is not None:
                logger.info("ending the session idle longest, to make room for a new one")
                await ended.end()


def busy_response(detail: str) -> JSONResponse:
    """503 with Retry-After: every session in the way is serving a request."""
    return JSONResponse(
        {"error": "busy", "detail": detail},
        status_code=503,
        headers={"Retry-After": "5", "Connection": "close"},
    )


class StreamableSessions:
    """ASGI middleware for the streamable HTTP app: per-client and total session limits,
    the idlest session ended to make room."""

    def __init__(self, app: ASGIApp, book: SessionBook) -> None:
        self.app = app
        self.book = book
        self.lock = anyio.Lock()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Admit, note or end sessions around the SDK's handling of the request."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        session_id = dict(scope.get("headers", [])).get(SESSION_HEADER)
        if session_id is None and scope["method"] == "POST":
            await self._open(scope, receive, send)
        elif session_id is not None:
            await self._use(session_id.decode("latin-1"), scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def _open(self, scope: Scope, receive: Receive, send: Send) -> None:
        client = client_of(scope)
        if self.book.full_and_busy(client):
            await busy_response("every open session is serving a request")(scope, receive, send)
            return
        opened: list[str] = []

        async def noting_send(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] < 400:
                found = dict(message.get("headers", [])).get(SESSION_HEADER)
                if found:
                    opened.append(found.decode("latin-1"))
            await send(message)

        await self.app(scope, receive, noting_send)
        if opened:  # open now: the idlest in the way give way (never a request refused)
            template = dict(scope)
            self.book.sessions[opened[0]] = OpenSession(
                client, self.book.clock(), lambda: self._delete(template, opened[0])
            )
            async with self.lock:
                await self.book.end(self.book.over_limits(opened[0]))

    async def _use(self, session_id: str, scope: Scope, receive: Receive, send: Send) -> None:
        session = self.book.touch(session_id)
        serving = session is not None and scope["method"] == "POST"
        if serving and session is not None:
            session.busy += 1
        try:
            await self.app(scope, receive, send)
        finally:
            if serving and session is not None:
                session.busy -= 1
            if session is not None:
                session.last_active = self.book.clock()
            if scope["method"] == "DELETE":
                self.book.sessions.pop(session_id, None)

    async def _delete(self, template: Scope, session_id: str) -> None:
        """End a session as its client would: DELETE with its id, through the SDK's app."""
        headers = [(k, v) for k, v in template.get("headers", []) if k == b"host"]
        scope = {
            **template,
            "method": "DELETE",
            "headers": [*headers, (SESSION_HEADER, session_id.encode("latin-1"))],
            "query_string": b"",
        }

        async def no_body() -> Message:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def discard(message: Message) -> None:
            return None

        with anyio.CancelScope(shield=True), anyio.move_on_after(5):
            await self.app(scope, no_body, discard)


@dataclass
class Stream:
    """One SSE stream: its client, session id once known, last message, how to end it."""

    client: str
    last_active: float
    scope: anyio.CancelScope
    session_id: str | None = None


class SseSessions:
    """ASGI middleware for the SSE app: per-client and total stream limits (the idlest stream
    ended to make room), and streams silent for `idle_timeout_s` closed."""

    def __init__(
        self,
        app: ASGIApp,
        max_sessions: int,
        idle_timeout_s: float,
        per_client: int | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.app = app
        self.idle_timeout_s = idle_timeout_s
        self.book = SessionBook(max_sessions, per_client or max_sessions, clock)
        self.clock = clock
        self.by_session: dict[str, str] = {}

    @property
    def streams(self) -> int:
        """Streams open now."""
        return len(self.book.sessions)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Count and watch GET /sse streams; note each POSTed message's session."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
        elif scope["method"] == "GET" and scope["path"].rstrip("/").endswith("/sse"):
            await self._stream(scope, receive, send)
        else:
            session = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("session_id")
            if session and session[0] in self.by_session:
                self.book.touch(self.by_session[session[0]])
            await self.app(scope, receive, send)

    async def _stream(self, scope: Scope, receive: Receive, send: Send) -> None:
        client = client_of(scope)
        if self.book.full_and_busy(client):
            await busy_response("every SSE session is open and busy")(scope, receive, send)
            return
        key = f"stream-{id(scope)}"
        ended: list[bool] = []
        session: list[str] = []

        async def noting_send(message: Message) -> None:
            body = message.get("body", b"") if message["type"] == "http.response.body" else b""
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                ended.append(True)
            if not session and SESSION_ID in body:
                found = body.split(SESSION_ID, 1)[1].split(b"\r", 1)[0].split(b"\n", 1)[0]
                session.append(found.decode("latin-1").strip())
                self.by_session[session[0]] = key
            await send(message)

        try:
            async with anyio.create_task_group() as tasks:
                stream = tasks.cancel_scope

                async def end() -> None:
                    stream.cancel()

                self.book.sessions[key] = OpenSession(client, self.clock(), end)
                await self.book.end(self.book.over_limits(key))
                tasks.start_soon(self._expire, stream, key)
                await self.app(scope, receive, noting_send)
                stream.cancel()
            if session and not ended:  # ended by us: close the stream properly, not mid-chunk
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            self.book.sessions.pop(key, None)
            if session:
                self.by_session.pop(session[0], None)

    async def _expire(self, stream: anyio.CancelScope, key: str) -> None:
        while True:
            await anyio.sleep(min(SESSION_CHECK_S, self.idle_timeout_s))
            found = self.book.sessions.get(key)
            if found is None:
                return
            if self.clock() - found.last_active >= self.idle_timeout_s:
                logger.info(
                    "closing an SSE session idle for %.0f s", self.clock() - found.last_active
                )
                stream.cancel()
                return
