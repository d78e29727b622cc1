"""The whole MCP surface of cortex-mcp in one screen: lifespan, tools, resources."""

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from functools import partial
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations

from cortex_mcp import __version__, tools
from cortex_mcp.clock import Clock, utc_now
from cortex_mcp.config import Settings
from cortex_mcp.engine import Engine
from cortex_mcp.engine.host import EngineHost
from cortex_mcp.errors import InvalidInput
from cortex_mcp.resources import MemoryResources

INSTRUCTIONS = """\
cortex-mcp is your long-term memory of this user, kept across sessions and agents.
- Before answering anything that may depend on the past (who the user is, their preferences,
  decisions, projects, earlier corrections), call cortex_recall with the topic as the query.
  Call it with an empty query at the start of a conversation for the core memory digest.
- When the user states a lasting fact, preference or decision, or asks you to remember
  something, call cortex_remember. When they correct a memory, pass its id as `supersedes`.
- After each exchange worth keeping, call cortex_ingest with the user's message and your reply;
  cortex extracts what matters from both sides and ignores small talk. When its result says
  there is no LLM here, you are the extractor: save the lasting facts with cortex_remember.
- Before your context is compacted or trimmed, call cortex_flush with the messages about to go.
- When a memory is wrong or unwanted, call cortex_forget with its id.
Memories are stored in the language they were written in; do not translate them."""

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)


ToolEntry = tuple[Callable[..., Any], ToolAnnotations]


def exposed(settings: Settings, entries: list[ToolEntry]) -> list[ToolEntry]:
    """The tools `settings.tools` (CORTEX_TOOLS) allows; all of them when it names none."""
    if not settings.tools:
        return entries
    known = {fn.__name__ for fn, _ in entries}
    unknown = sorted(set(settings.tools) - known)
    if unknown:
        raise InvalidInput(
            "tools", f"unknown tool(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}"
        )
    return [(fn, notes) for fn, notes in entries if fn.__name__ in settings.tools]


@asynccontextmanager
async def lifespan(host: EngineHost, server: MCPServer[Engine]) -> AsyncIterator[Engine]:
    """Share the process's engine with this MCP session for as long as it lives."""
    async with host.use() as engine:
        yield engine


def build_server(
    settings: Settings, clock: Clock = utc_now, host: EngineHost | None = None
) -> MCPServer[Engine]:
    """The whole MCP surface of cortex-mcp: lifespan, tools, resources.

    Pass `host` to share the engine with something else that keeps it open (the HTTP app).
    """
    host = host or EngineHost(settings, clock)
    mcp = MCPServer[Engine](
        "cortex-mcp",
        version=__version__,
        instructions=INSTRUCTIONS,
        lifespan=partial(lifespan, host),
        log_level=settings.log_level,
    )
    # No output schemas: they would double what every tools/list costs the client's context.
    # cortex_recall still returns structured content beside its context block.
    for tool, annotations in exposed(
        settings,
        [
            (tools.cortex_recall, WRITES),  # bumps access counts
            (tools.cortex_remember, WRITES),
            (tools.cortex_ingest, WRITES),
            (tools.cortex_flush, WRITES),
            (tools.cortex_forget, WRITES),
            (tools.cortex_restore, WRITES),
            (tools.cortex_search_debug, READ_ONLY),
            (tools.cortex_lifecycle, WRITES),
            (tools.cortex_profile, WRITES),
        ],
    ):
        # One line per description: the docstring's indentation would cost context tokens.
        description = " ".join((tool.__doc__ or "").split())
        mcp.add_tool(
            tool, description=description, annotations=annotations, structured_output=False
        )
    reads = MemoryResources(host)
    mcp.resource("cortex://core", mime_type="text/markdown")(reads.core)
    mcp.resource("cortex://profile", mime_type="text/markdown")(reads.profile)
    mcp.resource("cortex://stats", mime_type="application/json")(reads.stats)
    mcp.resource("cortex://memory/{memory_id}", mime_type="application/json")(reads.memory)
    mcp.resource("cortex://lifecycle/log", mime_type="application/json")(reads.lifecycle_log)
    mcp.resource("cortex://working/{date}", mime_type="text/markdown")(reads.working)
    mcp.resource("cortex://archive/{month}", mime_type="text/markdown")(reads.archive)
    mcp.prompt("cortex_context", title="Load memory")(reads.context_prompt)
    return mcp
