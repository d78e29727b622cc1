"""The whole MCP surface of cortex-mcp in one screen: lifespan, tools, resources."""

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from functools import partial
from typing import TYPE_CHECKING, Any

from mcp.server.context import CallNext, ServerRequestContext
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, InputRequiredResult, ToolAnnotations
from mcp_types import Tool as MCPTool

from cortex_mcp import __version__, tools
from cortex_mcp.arguments import (
    argument_limits,
    check_limits,
    check_params_shape,
    one_line,
    with_limits,
    with_structured_content,
    without_titles,
)
from cortex_mcp.browser import app as browser
from cortex_mcp.clock import Clock, utc_now
from cortex_mcp.config import Settings
from cortex_mcp.engine.host import EngineHost
from cortex_mcp.errors import InvalidInput
from cortex_mcp.grants import GrantCheck, ToolShape
from cortex_mcp.guidance import STEPS as ALL_GUIDED
from cortex_mcp.guidance import instructions
from cortex_mcp.hooks import stats as hook_stats
from cortex_mcp.late_engine import EngineGate, engine_after_handshake
from cortex_mcp.resources import MemoryResources

if TYPE_CHECKING:  # #28 item 5: the engine loads after the handshake (late_engine.py)
    from cortex_mcp.engine.facade import Engine

INSTRUCTIONS = instructions(ALL_GUIDED)

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
ERASES = ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False)
"""A tool that can overwrite or erase the user's data for good (forget with purge, an edit)."""
RECALL = READ_ONLY  # it bumps access counts: ranking bookkeeping, not the user's data
TITLES = {
    "cortex_recall": "Recall memories",
    "cortex_remember": "Remember a fact",
    "cortex_ingest": "Learn from an exchange",
    "cortex_flush": "Save messages before compaction",
    "cortex_forget": "Forget a memory",
    "cortex_restore": "Restore a forgotten memory",
    "cortex_search_debug": "Explain a recall",
    "cortex_lifecycle": "Consolidate memory",
    "cortex_profile": "Write the user's profile",
    "cortex_scratchpad": "Read or write the scratchpad",
}


BROWSER_ANNOTATIONS = {
    "cortex_browse": READ_ONLY,
    "cortex_app_memories": READ_ONLY,
    "cortex_app_memory": READ_ONLY,
    "cortex_app_edit": ERASES,
    "cortex_app_search": READ_ONLY,
    "cortex_app_graph": READ_ONLY,
    "cortex_app_stats": READ_ONLY,
    "cortex_app_lifecycle_log": READ_ONLY,
    "cortex_app_exchanges": READ_ONLY,
    "cortex_app_lifecycle_changes": READ_ONLY,
}

ToolEntry = tuple[Callable[..., Any], ToolAnnotations]
ALL_TOOLS: list[ToolEntry] = [
    (tools.cortex_recall, RECALL),
    (tools.cortex_remember, WRITES),
    (tools.cortex_ingest, WRITES),
    (tools.cortex_flush, WRITES),
    (tools.cortex_forget, ERASES),
    (tools.cortex_restore, WRITES),
    (tools.cortex_search_debug, READ_ONLY),
    (tools.cortex_lifecycle, WRITES),
    (tools.cortex_profile, WRITES),
    (tools.cortex_scratchpad, WRITES),
]


def exposed(settings: Settings, entries: list[ToolEntry]) -> list[ToolEntry]:
    """The tools `settings.tools` (CORTEX_TOOLS) allows; all of them when it names none."""
    if not settings.tools:
        return entries
    known = {fn.__name__ for fn, _ in entries} | {"cortex_browse"}
    unknown = sorted(set(settings.tools) - known)
    if unknown:
        raise InvalidInput(
            "tools", f"unknown tool(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}"
        )
    return [(fn, notes) for fn, notes in entries if fn.__name__ in settings.tools]


HANDSHAKE = frozenset({"initialize", "ping"})
"""Requests answered without the tools, resources and prompts being declared."""


class Declarations:
    """MCP server middleware, first of cortex's: declares the tools, resources and prompt to
    the SDK on the first request after the handshake (#28 item 5). Each declaration builds a
    pydantic model and a JSON schema, together a tenth of the SDK's own import time, and
    `initialize` needs none of them."""

    def __init__(self, declare: Callable[[], None]) -> None:
        self._declare: Callable[[], None] | None = declare

    def ensure(self) -> None:
        """Declare everything now, once."""
        if self._declare is not None:
            declare, self._declare = self._declare, None
            declare()

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> Any:
        """Declare before any request but the handshake's is served."""
        if ctx.method not in HANDSHAKE:
            self.ensure()
        return await call_next(ctx)


class CortexServer(browser.AppAwareServer):
    """The SDK's server with the configured length limits in the tool schemas and every
    argument error as `field: rule` (the SDK's own text names a generated model, links to
    pydantic's site and echoes the input)."""

    def __init__(self, name: str, limits: dict[str, int], gate: EngineGate, **options: Any) -> None:
        super().__init__(name, **options)
        self.limits = limits
        self.gate = gate
        self.declarations = Declarations(lambda: None)
        """Set by build_server; a direct call below ensures them too (no request ran yet)."""

    async def list_tools(self) -> list[MCPTool]:
        """The tools, their string limits set from the configuration."""
        self.declarations.ensure()
        listed = await super().list_tools()
        for tool in listed:
            tool.input_schema = without_titles(with_limits(tool.input_schema, self.limits))
        return listed

    def tool_shape(self, name: str) -> ToolShape | None:
        """What the grant check needs of a tool (any tool, whenever it was added)."""
        schema = self._tool_input_schema(name)
        if schema is None:
            return None
        tool = self._tool_manager.get_tool(name)
        read_only = (
            tool is not None and tool.annotations is not None and tool.annotations.read_only_hint
        )
        return ToolShape(writes=not read_only, arguments=frozenset(schema.get("properties", {})))

    def check_known(self, name: str, arguments: dict[str, Any]) -> None:
        """ToolError for an argument the tool does not take: a misspelt one is never ignored
        (the memory would be written without what the caller meant to say)."""
        schema = self._tool_input_schema(name)
        taken = set(schema.get("properties", {})) if schema else set()
        unknown = sorted(set(arguments) - taken) if schema else []
        if unknown:
            listed = ", ".join(sorted(taken))
            raise ToolError(f"{unknown[0]}: is not an argument of {name} (it takes {listed})")

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: "Context[Engine, Any] | None" = None
    ) -> CallToolResult | InputRequiredResult:
        """Run a tool; any argument or domain error is one `field: rule` line."""
        self.declarations.ensure()
        self.check_known(name, arguments)
        check_limits(arguments, self.limits)
        try:
            result = await super().call_tool(name, arguments, context)
        except ToolError as err:
            raise one_line(err) from err.__cause__
        return with_structured_content(result)


@asynccontextmanager
async def lifespan(host: EngineHost, server: "MCPServer[Engine]") -> AsyncIterator["Engine"]:
    """Share the process's engine with this MCP session for as long as it lives."""
    async with host.use() as engine:
        yield engine


@asynccontextmanager
async def lifespan_after_handshake(
    host: EngineHost, gate: EngineGate, server: "MCPServer[Engine]"
) -> AsyncIterator["Engine"]:
    """As `lifespan`, but the engine opens after the handshake when no one holds it open yet
    (late_engine.py): the stdio server's start (#28 item 5)."""
    async with engine_after_handshake(host, gate) as engine:
        yield engine


def build_server(
    settings: Settings,
    clock: Clock = utc_now,
    host: EngineHost | None = None,
    *,
    open_after_handshake: bool = False,
) -> CortexServer:
    """The whole MCP surface of cortex-mcp: lifespan, tools, resources.

    Pass `host` to share the engine with something else that keeps it open (the HTTP app).
    `open_after_handshake` (the stdio command): `initialize` is answered before the engine
    opens; otherwise the session starts with the engine open, as an in-process client expects.
    """
    host = host or EngineHost(settings, clock)
    chosen = exposed(settings, ALL_TOOLS)
    gate = EngineGate()
    mcp = CortexServer(
        "cortex-mcp",
        limits=argument_limits(settings),
        gate=gate,
        version=__version__,
        instructions=instructions([fn.__name__ for fn, _ in chosen]),
        lifespan=(
            partial(lifespan_after_handshake, host, gate)
            if open_after_handshake
            else partial(lifespan, host)
        ),
        log_level=settings.log_level,
    )
    mcp.declarations = Declarations(partial(declare, mcp, settings, chosen, host))
    mcp.middleware.append(mcp.declarations)  # first: nothing is served undeclared
    mcp.middleware.append(gate)  # calls that need the engine wait for it
    mcp.middleware.append(check_params_shape)
    mcp.middleware.append(GrantCheck(mcp.tool_shape, settings.memory.default_agent_id))
    return mcp


def declare(
    mcp: CortexServer, settings: Settings, chosen: list[ToolEntry], host: EngineHost
) -> None:
    """The tools, resources and prompt of `build_server`, declared to the SDK (Declarations
    does it on the first request after the handshake)."""
    # No output schemas: they would double what every tools/list costs the client's context.
    # Every tool still returns structured content beside its text.
    for tool, annotations in chosen:
        # One line per description: the docstring's indentation would cost context tokens.
        description = " ".join((tool.__doc__ or "").split())
        mcp.add_tool(
            tool,
            title=TITLES[tool.__name__],
            description=description,
            annotations=annotations,
            structured_output=False,
        )
    if not settings.tools or "cortex_browse" in settings.tools:
        browser.add_memory_browser(mcp, BROWSER_ANNOTATIONS)
    reads = MemoryResources(host)
    mcp.resource("cortex://core", mime_type="text/markdown")(reads.core)
    mcp.resource("cortex://profile", mime_type="text/markdown")(reads.profile)
    mcp.resource("cortex://stats", mime_type="application/json")(reads.stats)
    mcp.resource("cortex://memory/{memory_id}", mime_type="application/json")(reads.memory)
    mcp.resource("cortex://lifecycle/log", mime_type="application/json")(reads.lifecycle_log)
    mcp.resource("cortex://working/{date}", mime_type="text/markdown")(reads.working)
    mcp.resource("cortex://archive/{month}", mime_type="text/markdown")(reads.archive)
    mcp.resource("cortex://relations", mime_type="text/markdown")(reads.relations)
    mcp.resource("cortex://episodes", mime_type="application/json")(reads.episodes)
    mcp.resource("cortex://episodes/page/{page}", mime_type="application/json")(reads.episodes_page)
    mcp.resource("cortex://episodes/{episode_id}", mime_type="application/json")(reads.episode)
    mcp.resource("cortex://entity/{name}", mime_type="application/json")(reads.entity)
    mcp.prompt("cortex_context", title="Load memory")(reads.context_prompt)
    mcp.resource("cortex://scratchpad", mime_type="text/markdown")(reads.scratchpad)
    mcp.resource("cortex://scratchpad/{project}", mime_type="text/markdown")(
        reads.project_scratchpad
    )
    mcp.resource("cortex://hooks/stats", mime_type="application/json")(
        hook_stats.resource(settings.home)
    )
