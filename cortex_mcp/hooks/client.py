"""A minimal MCP client over the server's local socket: standard library only, so the hook
command starts in milliseconds. It speaks the same JSON-RPC as stdio (one message a line):
`initialize`, `notifications/initialized`, then one `tools/call` or `resources/read`."""

from __future__ import annotations

import json

from cortex_mcp.unicode_text import well_formed

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

PROTOCOL_VERSION = "2025-06-18"
MAX_REPLY_BYTES = 8 << 20


class NoServer(Exception):
    """No server answers on the socket (none running, or a stale socket file)."""


class CallFailed(Exception):
    """The server answered with an error (the tool's `field: rule` line)."""


class Connection:
    """One MCP session on the local socket, initialized on open."""

    def __init__(self, path: Path, timeout: float, total: float | None = None) -> None:
        """Connect and initialize; `timeout` bounds each answer, `total` (None: no bound) the
        whole session's (an injecting hook's host waits for it: a few slow answers in a row
        could each stay under `timeout` and together pass the host's limit)."""
        import socket  # here, not at the top: a skipped prompt or a detached parent never pays it
        import time

        self._timeout = timeout
        self._total = total
        self._deadline = None if total is None else time.monotonic() + total
        self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._socket.settimeout(timeout)
        try:
            self._socket.connect(str(path))
        except OSError as err:
            self._socket.close()
            raise NoServer(f"no cortex-mcp server at {path} ({err.strerror or err})") from err
        self._pending = b""
        self._next_id = 0
        self._request(
            "initialize",
            {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "cortex-mcp-hook", "version": "1"},
            },
        )
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """End the session."""
        self._socket.close()

    def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The tool's structured result; CallFailed with the server's line on an error."""
        result = self._request("tools/call", {"name": name, "arguments": arguments})
        if result.get("isError"):
            texts = [c.get("text", "") for c in result.get("content", []) if isinstance(c, dict)]
            raise CallFailed(" ".join(texts).strip() or f"{name} failed")
        structured = result.get("structuredContent")
        return structured if isinstance(structured, dict) else {}

    def read_resource(self, uri: str) -> str:
        """The text of a resource."""
        result = self._request("resources/read", {"uri": uri})
        contents = result.get("contents") or [{}]
        text = contents[0].get("text", "") if isinstance(contents[0], dict) else ""
        return str(text)

    def _request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self._next_id += 1
        wanted = self._next_id
        self._send({"jsonrpc": "2.0", "id": wanted, "method": method, "params": params})
        while True:
            message = self._receive()
            if message.get("id") != wanted:
                continue  # a notification or log line for someone else
            if "error" in message:
                error = message["error"]
                raise CallFailed(str(error.get("message") if isinstance(error, dict) else error))
            result = message.get("result")
            return result if isinstance(result, dict) else {}

    def _within_total(self) -> None:
        """The next read waits only what is left of the session's total (NoServer when none)."""
        if self._deadline is None:
            return
        import time

        left = self._deadline - time.monotonic()
        if left <= 0:
            raise NoServer(f"the server gave no answer within {self._total:g} s in all")
        self._socket.settimeout(min(self._timeout, left))

    def _send(self, message: dict[str, Any]) -> None:
        data = well_formed(json.dumps(message, ensure_ascii=False)).encode("utf-8") + b"\n"
        try:
            self._socket.sendall(data)
        except OSError as err:
            raise NoServer(f"send: {err.strerror or err}") from err

    def _receive(self) -> dict[str, Any]:
        while b"\n" not in self._pending:
            self._within_total()
            try:
                chunk = self._socket.recv(1 << 16)
            except TimeoutError as err:
                self._within_total()  # the total's NoServer, when it is the total that ran out
                raise NoServer(f"the server gave no answer within {self._timeout:g} s") from err
            except OSError as err:
                raise NoServer(f"receive: {err.strerror or err}") from err
            if not chunk:
                raise NoServer("the server closed the connection")
            self._pending += chunk
            if len(self._pending) > MAX_REPLY_BYTES:
                raise CallFailed("the server's reply is too large")
        line, self._pending = self._pending.split(b"\n", 1)
        try:
            message = json.loads(line)
        except ValueError as err:
            raise CallFailed("the server sent a line that is not JSON") from err
        return message if isinstance(message, dict) else {}
