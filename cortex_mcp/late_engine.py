"""Answer the MCP handshake first, open the engine right after it (#28 item 5).

Opening the store (its migrations, the providers, the recall-count recorder, the background
tasks) used to come before the `initialize` answer, and a client waits for that answer before
it does anything. Now a session's lifespan hands the SDK a stand-in at once and opens the
engine as soon as the client says it is initialized (or the first call that needs the engine
arrives, or the session ends, whichever comes first). `EngineGate` makes every call that needs
the engine wait for it; a store that cannot be opened ends the session with its own error, one
line at the command line, as a failed start did before.

When the engine is already open (the HTTP app holds it for as long as it runs), a session uses
it at once, as before.
"""

from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, cast

import anyio
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext

if TYPE_CHECKING:
    from cortex_mcp.engine.facade import Engine
    from cortex_mcp.engine.host import EngineHost

NEEDS_ENGINE = frozenset({"tools/call", "resources/read", "prompts/get", "completion/complete"})
"""Methods whose handlers read or write memory: they wait until the engine is open."""
NO_WANT = frozenset({"initialize", "ping"})
"""Methods that do not start the opening: the handshake itself and a liveness probe."""


class EngineOpening:
    """When the engine is wanted, and whether it is open yet."""

    def __init__(self) -> None:
        self.wanted = anyio.Event()
        self.ready = anyio.Event()

    async def wait(self) -> None:
        """Ask for the engine and return once it is open."""
        self.wanted.set()
        await self.ready.wait()


class LateEngine:
    """Stands in for the engine in the session's lifespan context; every attribute is the open
    engine's (`EngineGate` lets no call through before it is open)."""

    def __init__(self, host: "EngineHost") -> None:
        self._host = host

    def __getattr__(self, name: str) -> Any:
        return getattr(self._host.engine, name)


class EngineGate:
    """MCP server middleware, first in the chain: starts the opening once the handshake is done
    and holds back every call that needs the engine until it is open."""

    def __init__(self) -> None:
        self.opening: EngineOpening | None = None
        """The opening a session's lifespan started; None while the engine is held open."""
        self.when_open: list[Callable[[], Coroutine[Any, Any, None]]] = []
        """Jobs to run beside a session once its engine is open (the hooks' local socket)."""

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> Any:
        """Wait for the engine when the call needs it; want it once past the handshake."""
        if self.opening is None:
            pass
        elif ctx.method in NEEDS_ENGINE:
            await self.opening.wait()
        elif ctx.method not in NO_WANT:
            self.opening.wanted.set()
        result: HandlerResult = await call_next(ctx)
        return result


def sole_error(group: BaseExceptionGroup[Any]) -> BaseException:
    """The one error inside nested task-group wrappers, or the group when it holds several."""
    error: BaseException = group
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


@asynccontextmanager
async def engine_after_handshake(host: "EngineHost", gate: EngineGate) -> AsyncIterator["Engine"]:
    """The engine for one MCP session: at once when the host holds it open, else a stand-in
    while it opens beside the session (see the module's docstring)."""
    if host.is_open:
        async with host.use() as engine:
            yield engine
        return
    opening = gate.opening = EngineOpening()
    stop = anyio.Event()

    async def hold() -> None:
        await opening.wanted.wait()
        async with host.use(), anyio.create_task_group() as beside:
            opening.ready.set()
            for job in gate.when_open:
                beside.start_soon(job)
            await stop.wait()
            beside.cancel_scope.cancel()

    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(hold)
            try:
                yield cast("Engine", LateEngine(host))
            finally:
                opening.wanted.set()  # a session that ended before any call still checks the store
                stop.set()
    except BaseExceptionGroup as group:
        raise sole_error(group) from None
