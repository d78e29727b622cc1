"""The cortex_* tools: typed arguments (the SDK validates them), one engine call each."""

import copy
import functools
import json
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, Literal, ParamSpec, TypeVar

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, SamplingMessage, TextContent
from pydantic import BaseModel, Field, ValidationError

from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import Engine
from cortex_mcp.engine.llm import lend_sampler
from cortex_mcp.errors import CortexError, ProviderUnavailable
from cortex_mcp.models import (
    Category,
    FlushResult,
    ForgetResult,
    IngestResult,
    Layer,
    RecallResult,
    RememberResult,
    SearchDebug,
)
from cortex_mcp.providers.sampling import Sample

P = ParamSpec("P")
R = TypeVar("R")

HARD_CONTENT_LIMIT = 100_000
"""Upper bound of the Python signatures; tools/list shows (and calls obey) the configured limits
from `argument_limits` instead: content 8,000, query 2,000, messages 32,000 by default."""
RULE_WORDING = (  # pydantic's opening words -> ours
    ("Input should be", "must be"),
    ("String should", "must"),
    ("List should", "must"),
    ("Field required", "required"),
    ("Value error, ", ""),
)
MOST_PROBLEMS_SHOWN = 3


def argument_limits(settings: Settings) -> dict[str, int]:
    """The configured length limit of each string argument that has one, by argument name."""
    message = settings.sieve.max_message_chars
    return {
        "content": settings.memory.max_content_chars,
        "query": settings.memory.max_query_chars,
        "context": message,
        "user_message": message,
        "assistant_message": message,
    }


def with_limits(schema: dict[str, Any], limits: dict[str, int]) -> dict[str, Any]:
    """A copy of a tool's input schema with each limited string's maxLength set to its limit
    (a flushed message's content to the message limit)."""
    schema = copy.deepcopy(schema)
    for name, node in schema.get("properties", {}).items():
        if name in limits:
            _set_max_length(node, limits[name])
    for definition in schema.get("$defs", {}).values():
        content = definition.get("properties", {}).get("content")
        if content is not None:
            _set_max_length(content, limits["user_message"])
    return schema


def _set_max_length(node: dict[str, Any], limit: int) -> None:
    if "maxLength" in node:
        node["maxLength"] = limit
    for branch in node.get("anyOf", []):
        _set_max_length(branch, limit)


def check_limits(arguments: dict[str, Any], limits: dict[str, int]) -> None:
    """Raise ToolError for a string argument longer than its configured limit."""
    for name, limit in limits.items():
        value = arguments.get(name)
        if isinstance(value, str) and len(value) > limit:
            raise ToolError(f"{name}: {len(value):,} characters; the limit is {limit:,}")


def with_structured_content(result: R) -> R:
    """A result whose one text block is a JSON object also carries it as structured content,
    so every tool answers both ways (clients that read `structuredContent` need no parsing)."""
    if not isinstance(result, CallToolResult) or result.structured_content is not None:
        return result
    if len(result.content) != 1 or not isinstance(result.content[0], TextContent):
        return result
    try:
        value = json.loads(result.content[0].text)
    except ValueError:
        return result
    if isinstance(value, dict):
        result.structured_content = value
    return result


def one_line(err: ToolError) -> ToolError:
    """The SDK's ToolError as `field: rule` (no tool-name prefix, model name, URL or input)."""
    cause = err.__cause__
    if isinstance(cause, ValidationError):
        return ToolError(argument_problems(cause))
    if isinstance(cause, ToolError) and not isinstance(cause.__cause__, ValidationError):
        return ToolError(str(cause))
    return err


def argument_problems(err: ValidationError) -> str:
    """A pydantic ValidationError of tool arguments as `field: rule[; field: rule]`."""
    problems = err.errors(include_url=False, include_input=False, include_context=False)
    parts = []
    for problem in problems[:MOST_PROBLEMS_SHOWN]:
        field = ".".join(str(part) for part in problem["loc"]) or "arguments"
        rule = str(problem["msg"])
        for theirs, ours in RULE_WORDING:
            if rule.startswith(theirs):
                rule = ours + rule[len(theirs) :]
                break
        parts.append(f"{field}: {rule}")
    more = len(problems) - MOST_PROBLEMS_SHOWN
    return "; ".join(parts) + (f" (and {more} more)" if more > 0 else "")


AgentId = Annotated[
    str | None,
    Field(
        max_length=64,
        pattern=r"^[A-Za-z0-9_.:@-]+$",
        description="Whose memory; omit for the default agent.",
    ),
]
MemoryId = Annotated[str, Field(max_length=64, description="A memory id from cortex_recall.")]


def reports_errors(tool: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    """Let the model read what went wrong: mcp 2.x shows it only ToolError text."""

    @functools.wraps(tool)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await tool(*args, **kwargs)
        except CortexError as err:
            raise ToolError(str(err)) from err
        except BaseExceptionGroup as group:  # a task group inside the engine (recall's search)
            found = first_cortex_error(group)
            if found is None:
                raise
            raise ToolError(str(found)) from found

    return wrapper


def first_cortex_error(group: BaseExceptionGroup[BaseException]) -> CortexError | None:
    """The first CortexError anywhere in a (nested) exception group, if any."""
    for error in group.exceptions:
        if isinstance(error, CortexError):
            return error
        if isinstance(error, BaseExceptionGroup):
            nested = first_cortex_error(error)
            if nested is not None:
                return nested
    return None


def sampler_of(ctx: Context[Engine]) -> Sample | None:
    """The client's model as a `sample` callable, when the client declared sampling."""
    capabilities = ctx.client_capabilities
    if capabilities is None or capabilities.sampling is None:
        return None
    session = ctx.session

    async def sample(system: str, prompt: str, max_tokens: int) -> str:
        message = SamplingMessage(role="user", content=TextContent(type="text", text=prompt))
        try:
            result = await session.create_message(
                [message], max_tokens=max_tokens, system_prompt=system
            )
        except MCPError as err:
            raise ProviderUnavailable(f"sampling: {err}") from err
        content = result.content
        return content.text if isinstance(content, TextContent) else ""

    return sample


@reports_errors
async def cortex_recall(
    ctx: Context[Engine],
    query: Annotated[
        str, Field(max_length=HARD_CONTENT_LIMIT, description="What to look for; empty = digest.")
    ] = "",
    max_results: Annotated[int, Field(ge=1, le=50)] = 8,
    max_tokens: Annotated[int, Field(ge=50, le=32_000)] = 2000,
    layers: list[Layer] | None = None,
    categories: list[Category] | None = None,
    agent_id: AgentId = None,
) -> Annotated[CallToolResult, RecallResult]:
    """Call before answering anything that may depend on earlier conversations: the user's
    identity, preferences, decisions, projects, corrections. Returns a ready-to-use context
    block. An empty query returns the core memory digest and the user profile."""
    result = await ctx.request_context.lifespan_context.recall(
        query,
        max_results=max_results,
        max_tokens=max_tokens,
        layers=layers,
        categories=categories,
        agent_id=agent_id,
    )
    return CallToolResult(
        content=[TextContent(type="text", text=result.context)],
        structured_content=result.model_dump(mode="json"),
    )


@reports_errors
async def cortex_remember(
    ctx: Context[Engine],
    content: Annotated[
        str,
        Field(min_length=1, max_length=HARD_CONTENT_LIMIT, description="One self-contained fact."),
    ],
    category: Category = Category.FACT,
    importance: Annotated[float, Field(ge=0, le=1, description="0 trivia … 1 never forget.")] = 0.7,
    tags: Annotated[list[Annotated[str, Field(max_length=64)]], Field(max_length=20)] | None = None,
    agent_id: AgentId = None,
    scope: Literal["agent", "shared"] = "agent",
    supersedes: Annotated[
        str | None, Field(max_length=64, description="Id of a memory this one corrects.")
    ] = None,
    context: Annotated[
        str | None,
        Field(
            max_length=HARD_CONTENT_LIMIT,
            description="2 turns before and after it: searched, not shown.",
        ),
    ] = None,
    relations: Annotated[
        list[list[str]] | None,
        Field(max_length=20, description="[subject, predicate, object] links it states."),
    ] = None,
) -> RememberResult:
    """Store a lasting fact, preference, decision or correction. A near-duplicate reinforces
    the existing one; `supersedes` replaces a wrong one; scope="shared" shows it to every
    agent."""
    return await ctx.request_context.lifespan_context.remember(
        content,
        context=context,
        category=category,
        importance=importance,
        tags=tags,
        agent_id=agent_id,
        scope=scope,
        supersedes=supersedes,
        relations=relations,
    )


@reports_errors
async def cortex_forget(
    ctx: Context[Engine],
    memory_id: MemoryId,
    reason: Annotated[str | None, Field(max_length=500)] = None,
    agent_id: AgentId = None,
    purge: bool = False,
) -> ForgetResult:
    """Forget a wrong or unwanted memory and its exchange's copy (purge=true: for good)."""
    engine = ctx.request_context.lifespan_context
    if purge:
        return await engine.purge([memory_id], agent_id=agent_id)
    return await engine.forget(memory_id, reason=reason, agent_id=agent_id)


@reports_errors
async def cortex_restore(
    ctx: Context[Engine], memory_id: MemoryId, agent_id: AgentId = None
) -> ForgetResult:
    """Bring back a memory removed with cortex_forget."""
    return await ctx.request_context.lifespan_context.restore(memory_id, agent_id=agent_id)


@reports_errors
async def cortex_search_debug(
    ctx: Context[Engine],
    query: Annotated[str, Field(max_length=HARD_CONTENT_LIMIT)],
    layers: list[Layer] | None = None,
    agent_id: AgentId = None,
) -> SearchDebug:
    """Explain a recall: each candidate's score components, the query terms, the backends
    that answered. Changes nothing."""
    return await ctx.request_context.lifespan_context.search_debug(
        query, agent_id=agent_id, layers=layers
    )


class ChatMessage(BaseModel):
    """One message of the conversation being flushed."""

    role: Literal["user", "assistant", "system", "tool"]
    content: Annotated[str, Field(max_length=HARD_CONTENT_LIMIT)]


SessionId = Annotated[str | None, Field(max_length=128, description="Conversation id, if any.")]


@reports_errors
async def cortex_ingest(
    ctx: Context[Engine],
    user_message: Annotated[str, Field(max_length=HARD_CONTENT_LIMIT)],
    assistant_message: Annotated[str, Field(max_length=HARD_CONTENT_LIMIT)] = "",
    session_id: SessionId = None,
    tool_calls: Annotated[list[dict[str, Any]], Field(max_length=50)] | None = None,
    agent_id: AgentId = None,
) -> IngestResult:
    """Call after each exchange worth keeping, with the user's message and your reply. cortex
    extracts what is worth remembering from both sides (identity, preferences, decisions,
    corrections, conclusions, project state) and ignores small talk."""
    with lend_sampler(sampler_of(ctx)):
        return await ctx.request_context.lifespan_context.ingest(
            user_message,
            assistant_message,
            session_id=session_id,
            tool_calls=tool_calls,
            agent_id=agent_id,
        )


@reports_errors
async def cortex_flush(
    ctx: Context[Engine],
    messages: Annotated[list[ChatMessage], Field(min_length=1, max_length=5000)],
    session_id: SessionId = None,
    reason: Annotated[str, Field(min_length=1, max_length=64)] = "compaction",
    agent_id: AgentId = None,
) -> FlushResult:
    """Call before your context is compacted or trimmed, with the messages about to go. Every
    message is kept in the conversation log, and what matters is extracted."""
    with lend_sampler(sampler_of(ctx)):
        return await ctx.request_context.lifespan_context.flush(
            [(m.role, m.content) for m in messages],
            session_id=session_id,
            reason=reason,
            agent_id=agent_id,
        )


@reports_errors
async def cortex_lifecycle(
    ctx: Context[Engine], action: Literal["preview", "run"] = "preview"
) -> dict[str, Any]:
    """Consolidate memory now: promote, merge duplicates, decay and archive, compress old
    months into summaries, refresh the profile and MEMORY.md. It also runs nightly on its
    own; "preview" reports what a run would do and changes nothing."""
    with lend_sampler(sampler_of(ctx)):
        report = await ctx.request_context.lifespan_context.run_lifecycle(
            dry_run=action == "preview"
        )
    return report.brief()


@reports_errors
async def cortex_profile(
    ctx: Context[Engine],
    content: Annotated[
        str,
        Field(
            max_length=HARD_CONTENT_LIMIT,
            description="The user's own words about themselves; empty removes them.",
        ),
    ],
    agent_id: AgentId = None,
) -> dict[str, Any]:
    """Write what the user says about themselves (or wants kept out of memory) into their
    profile. It stays ahead of the automatic profile through every re-synthesis."""
    profile = await ctx.request_context.lifespan_context.set_profile(content, agent_id=agent_id)
    return {"id": profile.id, "profile": profile.content}
