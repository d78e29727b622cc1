"""The stdio edge: every line gets an answer, and a signal stops the server at once.

mcp 2.3's `stdio_server` parses each line with pydantic and, when that fails, hands the
exception to the session, which logs it at DEBUG and drops it: a client that sent a malformed
line, a lone surrogate (`"\\ud800"`) or JSON nested 200 deep waits for ever. Here each line is
checked first; one the SDK would drop is answered with a JSON-RPC error (-32700 parse error, or
-32600 invalid request with the id when one can be read) and one warning on stderr, and never
reaches the SDK. Blank lines are skipped.

stdin is read by a daemon thread with `os.read` (no buffered-reader lock, so the process can
exit while the read blocks): Ctrl-C (SIGINT) and SIGTERM end the server at once, with the
shell's codes 130 and 143, even while no client writes anything.
"""

import json
import logging
import os
import signal
import sys
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import suppress
from typing import Any, cast

import anyio
import anyio.from_thread
import anyio.lowlevel
import mcp_types as types
from anyio import TASK_STATUS_IGNORED
from anyio.abc import TaskStatus
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

logger = logging.getLogger("cortex_mcp.stdio")

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
READ_CHUNK = 1 << 16


def rejection(line: str) -> types.JSONRPCError | None:
    """The error reply for a line the SDK cannot take, or None when the SDK accepts it."""
    try:
        types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        return None
    except ValidationError:
        pass
    try:
        data = json.loads(line)
    except (ValueError, RecursionError):
        return _error(None, PARSE_ERROR, "Parse error: the line is not valid JSON")
    request_id = data.get("id") if isinstance(data, dict) else None
    if isinstance(request_id, bool) or not isinstance(request_id, str | int):
        request_id = None
    if _deeper_than(data, 190):
        reason = "nested too deeply"
    elif _has_lone_surrogate(data):
        reason = "a string holds a lone surrogate (not valid Unicode)"
    else:
        reason = "not a JSON-RPC 2.0 request, notification or response"
    return _error(request_id, INVALID_REQUEST, f"Invalid Request: {reason}")


def _error(request_id: str | int | None, code: int, message: str) -> types.JSONRPCError:
    error = types.ErrorData(code=code, message=message)
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error)


def _deeper_than(data: Any, limit: int) -> bool:
    """True when `data` nests lists and objects more than `limit` levels (iteratively)."""
    level: list[tuple[Any, int]] = [(data, 0)]
    while level:
        item, depth = level.pop()
        if depth > limit:
            return True
        if isinstance(item, dict):
            level += [(value, depth + 1) for value in item.values()]
        elif isinstance(item, list):
            level += [(value, depth + 1) for value in item]
    return False


def _has_lone_surrogate(data: Any) -> bool:
    text = json.dumps(data, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


class CheckedLines:
    """stdin as the SDK reads it (`async for line in stdin`), minus the lines it would drop:
    those are answered here through the SDK's own writer, so replies never interleave."""

    def __init__(self, lines: AsyncIterator[bytes]) -> None:
        self._lines = lines
        self._send: Callable[[SessionMessage], Awaitable[None]] | None = None
        self._ready = anyio.Event()

    def answer_through(self, send: Callable[[SessionMessage], Awaitable[None]]) -> None:
        """Where error replies go: the send of the stream the SDK writes to stdout."""
        self._send = send
        self._ready.set()

    def __aiter__(self) -> AsyncIterator[str]:
        return self._checked()

    async def _checked(self) -> AsyncIterator[str]:
        async for raw in self._lines:
            line = raw.decode("utf-8", errors="replace")
            if not line.strip():
                continue
            reply = rejection(line)
            if reply is None:
                yield line
                continue
            logger.warning("stdin: %s (answered %d)", reply.error.message, reply.error.code)
            await self._ready.wait()
            assert self._send is not None
            await self._send(SessionMessage(reply))


async def stdin_lines(fd: int = 0) -> AsyncIterator[bytes]:
    """Lines of `fd`, read by a daemon thread so a blocked read never holds up an exit."""
    send, receive = anyio.create_memory_object_stream[bytes](16)
    token = anyio.lowlevel.current_token()

    def pump() -> None:
        pending = b""
        with suppress(Exception):  # the loop may be gone when a read returns
            while chunk := os.read(fd, READ_CHUNK):
                pending += chunk
                *lines, pending = pending.split(b"\n")
                for line in lines:
                    anyio.from_thread.run(send.send, line, token=token)
            if pending:
                anyio.from_thread.run(send.send, pending, token=token)
        with suppress(Exception):
            anyio.from_thread.run_sync(send.close, token=token)

    threading.Thread(target=pump, name="cortex-stdin", daemon=True).start()
    async with receive:
        async for line in receive:
            yield line


async def serve_stdio(
    mcp: MCPServer[Any],
    notice: str | None = None,
    beside: Callable[[], Coroutine[Any, Any, None]] | None = None,
) -> int:
    """Serve `mcp` on stdin/stdout until EOF (exit code 0), SIGINT (130) or SIGTERM (143).
    `notice` (for a terminal) goes to stderr once the signals are watched, so a Ctrl-C typed
    after it always stops the server the same way. `beside` (the hooks' local socket) runs
    for as long as stdio does."""
    lines = CheckedLines(stdin_lines())
    exit_code = 0
    async with anyio.create_task_group() as tasks:

        async def watch_signals(*, task_status: TaskStatus[None] = TASK_STATUS_IGNORED) -> None:
            nonlocal exit_code
            with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as received:
                task_status.started()
                async for signum in received:
                    exit_code = 128 + signum
                    tasks.cancel_scope.cancel()
                    return

        if sys.platform != "win32":  # asyncio has no signal handlers there: Ctrl-C raises
            await tasks.start(watch_signals)
        if beside is not None:
            tasks.start_soon(beside)
        if notice:
            sys.stderr.write(notice + "\n")
            sys.stderr.flush()
        async with stdio_server(stdin=cast("anyio.AsyncFile[str]", lines)) as (reads, writes):
            lines.answer_through(writes.send)
            # MCPServer.run_stdio_async does exactly this with the SDK's own stdin reader.
            server = mcp._lowlevel_server
            await server.run(reads, writes, server.create_initialization_options())
        tasks.cancel_scope.cancel()
    return exit_code
