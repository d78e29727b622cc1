"""The memory browser as an MCP App: the `ui://` resource, the one tool the model sees
(`cortex_browse`) and the tools only the app calls (`_meta.ui.visibility: ["app"]`)."""

import json
from collections.abc import Callable
from importlib import resources
from typing import TYPE_CHECKING, Annotated, Any, Literal

from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult, ListToolsResult, PaginatedRequestParams, TextContent
from pydantic import Field

from cortex_mcp.arguments import HARD_CONTENT_LIMIT, AgentId, MemoryId, reports_errors
from cortex_mcp.models import Category, Layer

if TYPE_CHECKING:
    from cortex_mcp.engine.facade import Engine
else:  # #28 item 5: the SDK reads these annotations at start; the engine loads on first use
    Engine = Any

APP_URI = "ui://cortex/memory-browser"
APP_MIME_TYPE = "text/html;profile=mcp-app"
UI_EXTENSION = "io.modelcontextprotocol/ui"
APP_ONLY: dict[str, Any] = {"ui": {"resourceUri": APP_URI, "visibility": ["app"]}}
OPENS_APP: dict[str, Any] = {"ui": {"resourceUri": APP_URI}}
LISTED_IN_TEXT = 20

DateText = Annotated[str | None, Field(max_length=40, description="ISO date, e.g. 2026-03-01.")]


def app_html() -> str:
    """The built app: one self-contained HTML file shipped in the package."""
    return resources.files("cortex_mcp.ui").joinpath("memory-browser.html").read_text("utf-8")


def is_app_only(meta: dict[str, Any] | None) -> bool:
    """True for a tool whose `_meta.ui.visibility` names the app and not the model."""
    visibility = ((meta or {}).get("ui") or {}).get("visibility")
    return isinstance(visibility, list) and "model" not in visibility


class AppAwareServer(MCPServer[Engine]):
    """An MCPServer that lists app-only tools only to clients that render MCP Apps.

    A client that does not declare the `io.modelcontextprotocol/ui` extension would hand
    every listed tool to its model; those tools stay callable, just not listed to it.
    """

    async def _handle_list_tools(
        self, ctx: ServerRequestContext[Engine], params: PaginatedRequestParams | None
    ) -> ListToolsResult:
        listed = await self.list_tools()
        capabilities = ctx.session.client_capabilities
        if capabilities is not None and UI_EXTENSION in (capabilities.extensions or {}):
            return ListToolsResult(tools=listed)
        return ListToolsResult(tools=[t for t in listed if not is_app_only(t.meta)])


def engine_of(ctx: Context[Engine]) -> Engine:
    """The engine behind this session."""
    return ctx.request_context.lifespan_context


def as_result(document: dict[str, Any], text: str | None = None) -> CallToolResult:
    """A tool result the app reads as structured content (and a plain client as JSON text)."""
    body = text if text is not None else json.dumps(document, ensure_ascii=False)
    return CallToolResult(
        content=[TextContent(type="text", text=body)], structured_content=document
    )


@reports_errors
async def cortex_browse(
    ctx: Context[Engine],
    query: Annotated[str, Field(max_length=HARD_CONTENT_LIMIT)] = "",
    memory_id: Annotated[str, Field(max_length=64)] = "",
    agent_id: AgentId = None,
) -> CallToolResult:
    """Open the memory browser for the user to see, search, fix or clean up their memories
    (memory_id opens one, query searches)."""
    from cortex_mcp.engine import browse
    from cortex_mcp.store.pages import PageFilter

    engine = engine_of(ctx)
    agent = engine.agent(agent_id)
    opened: dict[str, Any] = {"agent_id": agent, "query": query, "memory_id": memory_id}
    if memory_id:
        detail = await browse.memory_detail(engine.runtime, memory_id, agent)
        memory = detail["memory"]
        text = f"Memory {memory['id']} ({memory['layer']}, {memory['state']}): {memory['content']}"
    elif query.strip():
        found = await browse.compare_search(engine.runtime, query, agent, None)
        lines = [f"- {h['id']}: {h['content']}" for h in found["rankings"]["hybrid"][:10]]
        text = f"Search for {query!r} in the memory browser:\n" + "\n".join(lines or ["(none)"])
    else:
        page = await browse.memory_page(
            engine.runtime,
            PageFilter(agent_id=agent),
            sort="newest",
            cursor=None,
            limit=LISTED_IN_TEXT,
        )
        lines = [
            f"- {m['id']} [{m['layer']}/{m['category']}] {m['content']}" for m in page["memories"]
        ]
        text = "Newest memories (the memory browser shows them all):\n" + "\n".join(
            lines or ["(none yet)"]
        )
    return as_result(opened, text)


@reports_errors
async def cortex_app_memories(
    ctx: Context[Engine],
    layer: Layer | None = None,
    category: Category | None = None,
    scope: Literal["all", "agent", "shared"] = "all",
    tag: Annotated[str | None, Field(max_length=64)] = None,
    project: Annotated[str | None, Field(max_length=100)] = None,
    since: DateText = None,
    until: DateText = None,
    state: Literal["live", "forgotten", "superseded", "all"] = "live",
    sort: Literal["newest", "oldest", "importance"] = "newest",
    cursor: Annotated[str | None, Field(max_length=200)] = None,
    limit: Annotated[int, Field(ge=1, le=200)] = 50,
    agent_id: AgentId = None,
) -> CallToolResult:
    """Memory browser: one page of memories (keyset paging with `cursor`)."""
    from cortex_mcp.engine import browse
    from cortex_mcp.store.pages import PageFilter

    engine = engine_of(ctx)
    where = PageFilter(
        agent_id=engine.agent(agent_id),
        layer=layer,
        category=category,
        scope=scope,
        tag=tag,
        project=project,
        since=since,
        until=until,
        state=state,
    )
    page = await browse.memory_page(engine.runtime, where, sort=sort, cursor=cursor, limit=limit)
    return as_result(page)


@reports_errors
async def cortex_app_memory(
    ctx: Context[Engine], memory_id: MemoryId, agent_id: AgentId = None
) -> CallToolResult:
    """Memory browser: one memory with its metadata, supersede chain and relations."""
    from cortex_mcp.engine import browse

    engine = engine_of(ctx)
    return as_result(await browse.memory_detail(engine.runtime, memory_id, engine.agent(agent_id)))


@reports_errors
async def cortex_app_edit(
    ctx: Context[Engine],
    memory_id: MemoryId,
    content: Annotated[str | None, Field(max_length=HARD_CONTENT_LIMIT)] = None,
    category: Category | None = None,
    importance: Annotated[float | None, Field(ge=0, le=1)] = None,
    layer: Layer | None = None,
    agent_id: AgentId = None,
) -> CallToolResult:
    """Memory browser: correct a memory's content, category, importance or layer by hand."""
    engine = engine_of(ctx)
    detail = await engine.edit_memory(
        memory_id,
        engine.agent(agent_id),
        content=content,
        category=category,
        importance=importance,
        layer=layer,
    )
    return as_result(detail)


@reports_errors
async def cortex_app_search(
    ctx: Context[Engine],
    query: Annotated[str, Field(min_length=1, max_length=HARD_CONTENT_LIMIT)],
    layers: list[Layer] | None = None,
    agent_id: AgentId = None,
) -> CallToolResult:
    """Memory browser: every candidate's score breakdown and the BM25, vector and hybrid
    rankings side by side. Changes nothing."""
    from cortex_mcp.engine import browse

    engine = engine_of(ctx)
    return as_result(
        await browse.compare_search(engine.runtime, query, engine.agent(agent_id), layers)
    )


@reports_errors
async def cortex_app_graph(
    ctx: Context[Engine],
    entity: Annotated[str | None, Field(min_length=1, max_length=200)] = None,
    agent_id: AgentId = None,
) -> CallToolResult:
    """Memory browser: the relation graph (entities, relations, the memories behind them)."""
    from cortex_mcp.engine import browse

    engine = engine_of(ctx)
    return as_result(await browse.relation_graph(engine.runtime, engine.agent(agent_id), entity))


@reports_errors
async def cortex_app_stats(ctx: Context[Engine], agent_id: AgentId = None) -> CallToolResult:
    """Memory browser: the numbers behind the statistics charts and the profile."""
    from cortex_mcp.engine import browse

    engine = engine_of(ctx)
    return as_result(await browse.browser_stats(engine.runtime, engine.agent(agent_id)))


@reports_errors
async def cortex_app_lifecycle_log(
    ctx: Context[Engine], limit: Annotated[int, Field(ge=1, le=50)] = 10
) -> CallToolResult:
    """Memory browser: the latest lifecycle runs with their before/after reports."""
    runs = await engine_of(ctx).lifecycle_log(limit)
    return as_result({"runs": runs})


@reports_errors
async def cortex_app_lifecycle_changes(
    ctx: Context[Engine],
    run_id: Annotated[int, Field(ge=1, le=2**63 - 1)],
    limit: Annotated[int, Field(ge=1, le=500)] = 100,
    agent_id: AgentId = None,
) -> CallToolResult:
    """Memory browser: what one lifecycle run changed, each memory before and after."""
    from cortex_mcp.engine import browse

    engine = engine_of(ctx)
    changes = await browse.lifecycle_changes(engine.runtime, run_id, engine.agent(agent_id), limit)
    return as_result({"run_id": run_id, "changes": changes})


@reports_errors
async def cortex_app_exchanges(
    ctx: Context[Engine],
    limit: Annotated[int, Field(ge=1, le=100)] = 20,
    agent_id: AgentId = None,
) -> CallToolResult:
    """Memory browser: the latest exchanges, what was said and what each channel stored."""
    from cortex_mcp.engine import browse

    engine = engine_of(ctx)
    entries = await browse.extraction_log(engine.runtime, engine.agent(agent_id), limit)
    return as_result({"exchanges": entries})


APP_TOOLS: list[Callable[..., Any]] = [
    cortex_app_memories,
    cortex_app_memory,
    cortex_app_edit,
    cortex_app_search,
    cortex_app_graph,
    cortex_app_stats,
    cortex_app_lifecycle_log,
    cortex_app_lifecycle_changes,
    cortex_app_exchanges,
]


TITLES = {
    "cortex_browse": "Open the memory browser",
    "cortex_app_memories": "Memory browser: a page of memories",
    "cortex_app_memory": "Memory browser: one memory",
    "cortex_app_edit": "Memory browser: edit a memory",
    "cortex_app_search": "Memory browser: search with scores",
    "cortex_app_graph": "Memory browser: relation graph",
    "cortex_app_stats": "Memory browser: statistics",
    "cortex_app_lifecycle_log": "Memory browser: lifecycle runs",
    "cortex_app_exchanges": "Memory browser: extraction log",
    "cortex_app_lifecycle_changes": "Memory browser: a run's changes",
}


def add_memory_browser(mcp: MCPServer[Engine], annotations: dict[str, Any]) -> None:
    """Register the app resource, `cortex_browse` and the app-only tools on `mcp`.

    `annotations` maps a tool name to its ToolAnnotations (read-only or writes).
    """
    mcp.resource(
        APP_URI,
        name="memory-browser",
        title="cortex memory browser",
        description="Browse, search, correct and clean up memory (an MCP App).",
        mime_type=APP_MIME_TYPE,
        meta={"ui": {"prefersBorder": True}},
    )(app_html)
    entries: list[tuple[Callable[..., Any], dict[str, Any]]] = [(cortex_browse, OPENS_APP)]
    entries += [(tool, APP_ONLY) for tool in APP_TOOLS]
    for tool, meta in entries:
        mcp.add_tool(
            tool,
            title=TITLES[tool.__name__],
            description=" ".join((tool.__doc__ or "").split()),
            annotations=annotations[tool.__name__],
            structured_output=False,
            meta=meta,
        )
