"""A loopback HTTP server in a thread, and the switches every fake paid API shares.

The SDKs use `httpx2`, which respx and pytest-httpx do not intercept, so the fakes are real
servers on 127.0.0.1 driven by the real SDK clients.
"""

import json
import socket
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import anyio.to_thread
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response


@contextmanager
def serve(app: Starlette) -> Iterator[str]:
    """Run `app` on a free 127.0.0.1 port in a thread; yield its root URL (no trailing slash)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.001)  # noqa: TID251 - a thread start-up poll, not the event loop
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join()
        sock.close()


@dataclass(frozen=True)
class RecordedRequest:
    """What the SDK sent: path, headers (lower-case names) and the JSON body."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]


class FakeAPI:
    """Switches shared by the fakes; tests set them, the server thread reads them.

    - `replies`: queued reply texts, one per request (then `default_reply`).
    - `requests`: every request received, in order.
    - `status`: answer with this HTTP status and the API's error body instead (e.g. 500).
    - `latency_s`: wait this long before answering (released early by `reset()`).
    - `malformed`: answer 200 with a body that is not JSON.
    """

    default_reply = "ok"

    def __init__(self) -> None:
        self.url = ""
        self.replies: deque[str] = deque()
        self.requests: list[RecordedRequest] = []
        self.status = 200
        self.latency_s = 0.0
        self.malformed = False
        self._released = threading.Event()
        self._arrival = threading.Condition()

    def reset(self) -> None:
        """Back to answering at once with the default reply; wake any request still waiting."""
        self.replies.clear()
        self.requests.clear()
        self.status = 200
        self.latency_s = 0.0
        self.malformed = False
        released, self._released = self._released, threading.Event()
        released.set()

    def release(self) -> None:
        """Answer the requests waiting out `latency_s` now (the queued replies stay)."""
        self.latency_s = 0.0
        released, self._released = self._released, threading.Event()
        released.set()

    def wait_for_requests(self, count: int, timeout_s: float = 10.0) -> bool:
        """Block (in a worker thread) until `count` requests arrived; False on timeout."""
        with self._arrival:
            return self._arrival.wait_for(lambda: len(self.requests) >= count, timeout_s)

    def next_reply(self) -> str:
        """The next queued reply text, or the default one."""
        return self.replies.popleft() if self.replies else self.default_reply

    async def receive(self, request: Request) -> tuple[dict[str, Any], Response | None]:
        """Record the request and apply the switches; a Response means "answer with this"."""
        body = json.loads(await request.body())
        with self._arrival:
            self.requests.append(RecordedRequest(request.url.path, dict(request.headers), body))
            self._arrival.notify_all()
        if self.latency_s:
            # Waits in a worker thread of the server's loop, so other requests still proceed.
            released = self._released
            await anyio.to_thread.run_sync(released.wait, self.latency_s, abandon_on_cancel=True)
        if self.status != 200:
            return body, JSONResponse(self.error_body(self.status), status_code=self.status)
        if self.malformed:
            return body, Response('{"id": "cut off', media_type="application/json")
        return body, None

    def error_body(self, status: int) -> dict[str, Any]:
        """The API's error JSON for `status`."""
        raise NotImplementedError


def count_tokens(text: str) -> int:
    """A deterministic stand-in for a tokenizer: whitespace words plus non-ASCII characters."""
    return len(text.split()) + sum(1 for char in text if ord(char) > 127 and not char.isspace())
