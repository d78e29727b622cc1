"""The server's local socket for the hook command: <home>/hooks/cortex.sock, a Unix socket
in a 0700 folder, itself 0600, so only this user can connect. It speaks MCP exactly as stdio
does (one JSON-RPC message a line, the same tools and resources): no second API.

Every server of a home (stdio, SSE or streamable HTTP) tries to own it; the first one does,
the others look again every `RECLAIM_S` and take over when its owner has gone. The owner
publishes the hook settings beside the socket (the hook command cannot load the settings
without pydantic) and replays the spool: moments that ran while no server was up.
"""

import errno
import json
import logging
import os
import socket
from contextlib import suppress
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types
from anyio.abc import SocketStream
from mcp.server.mcpserver import MCPServer
from mcp.shared.message import SessionMessage

from cortex_mcp.config import Settings
from cortex_mcp.hooks import spool
from cortex_mcp.hooks.moments import Event, Moments
from cortex_mcp.hooks.paths import (
    PUBLISHED_NAME,
    hooks_dir,
    private_dir,
    published_settings,
    socket_path,
    write_private,
)
from cortex_mcp.stdio import rejection

logger = logging.getLogger("cortex_mcp.local_socket")

RECLAIM_S = 10.0
MAX_CONNECTIONS = 16
MAX_LINE = 16 << 20
REPLAY_TIMEOUT_S = 120.0


def owned_elsewhere(path: Path) -> bool:
    """True when a live server answers on `path`; a stale socket file is removed."""
    if not path.exists():
        return False
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(0.5)
    try:
        probe.connect(str(path))
        return True
    except OSError:
        path.unlink(missing_ok=True)
        return False
    finally:
        probe.close()


def hook_settings(settings: Settings) -> dict[str, Any]:
    """What the hook command needs of the settings, as it reads them."""
    published = settings.hooks.model_dump(mode="json", exclude={"socket"})
    published["max_message_chars"] = settings.sieve.max_message_chars
    published["tools"] = list(settings.tools)  # the moments use only what is exposed
    return published


def publish(settings: Settings) -> None:
    """The hook settings, where the hook command reads them."""
    text = json.dumps(hook_settings(settings), indent=2)
    write_private(hooks_dir(settings.home) / PUBLISHED_NAME, text)


def replay_spool(data_home: Path) -> None:
    """Run every spooled moment against this server (in a worker thread: it is a client)."""
    moments = Moments(data_home, published_settings(data_home), REPLAY_TIMEOUT_S)

    def replay(record: dict[str, Any]) -> None:
        event = Event.of(str(record["host"]), str(record["moment"]), record)
        getattr(moments, event.moment.replace("-", "_"))(event)

    done, problems = spool.drain(data_home, replay)
    if done:
        logger.info("hooks: replayed %d spooled moment(s)", done)
    for problem in problems:
        logger.warning("hooks: spool: %s", problem)


async def serve_connection(mcp: MCPServer[Any], stream: SocketStream) -> None:
    """One MCP session over one socket connection."""
    server = mcp._lowlevel_server
    read_send, read_receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_send, write_receive = anyio.create_memory_object_stream[SessionMessage](0)

    async def reader() -> None:
        pending = b""
        async with read_send:
            with suppress(anyio.EndOfStream, anyio.BrokenResourceError, OSError):
                while True:
                    pending += await stream.receive()
                    if len(pending) > MAX_LINE:
                        return
                    *lines, pending = pending.split(b"\n")
                    for raw in lines:
                        line = raw.decode("utf-8", errors="replace")
                        if not line.strip():
                            continue
                        error = rejection(line)
                        if error is not None:
                            await write_send.send(SessionMessage(error))
                            continue
                        message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
                        await read_send.send(SessionMessage(message))

    async def writer() -> None:
        async with write_receive:
            async for outgoing in write_receive:
                data = outgoing.message.model_dump_json(by_alias=True, exclude_unset=True)
                with suppress(anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                    await stream.send(data.encode("utf-8") + b"\n")

    async with stream, anyio.create_task_group() as tasks:
        tasks.start_soon(reader)
        tasks.start_soon(writer)
        await server.run(read_receive, write_send, server.create_initialization_options())
        tasks.cancel_scope.cancel()


async def serve_local_socket(mcp: MCPServer[Any], settings: Settings) -> None:
    """Own the home's socket whenever no other server does, and serve MCP on it."""
    if not settings.hooks.socket or not hasattr(socket, "AF_UNIX"):
        return
    path = socket_path(settings.home)
    private_dir(path.parent)
    limit = anyio.CapacityLimiter(MAX_CONNECTIONS)
    while True:
        if not await anyio.to_thread.run_sync(owned_elsewhere, path):
            try:
                listener = await listen_privately(path)
            except OSError as err:
                if err.errno not in (errno.EADDRINUSE, errno.EEXIST):
                    logger.warning("hooks: cannot listen on %s: %s", path, err.strerror)
                    return
            else:
                await _serve(mcp, settings, listener, path, limit)
        await anyio.sleep(RECLAIM_S)


async def listen_privately(path: Path) -> anyio.abc.SocketListener:
    """A listener on `path` that appears there already listening and 0600: bound and made
    private under a name of its own in the same folder, then renamed (found by a CI run: a
    hook test saw the socket between bind and chmod, 0755)."""
    staged = path.with_name(f".{os.getpid()}")  # never longer than cortex.sock: sun_path
    listener = await anyio.create_unix_listener(staged, mode=0o600)
    try:
        os.rename(staged, path)
    except OSError:
        await listener.aclose()
        with suppress(OSError):
            os.unlink(staged)
        raise
    return listener


async def _serve(
    mcp: MCPServer[Any],
    settings: Settings,
    listener: anyio.abc.SocketListener,
    path: Path,
    limit: anyio.CapacityLimiter,
) -> None:
    inode = os.stat(str(path)).st_ino
    publish(settings)

    async def limited(stream: SocketStream) -> None:
        async with limit:
            await serve_connection(mcp, stream)

    try:
        async with listener, anyio.create_task_group() as tasks:
            tasks.start_soon(listener.serve, limited)
            await anyio.to_thread.run_sync(replay_spool, settings.home, abandon_on_cancel=True)
    finally:
        with suppress(OSError):
            if os.stat(str(path)).st_ino == inode:
                os.unlink(str(path))
