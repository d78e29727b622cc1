"""The tools' argument plumbing, shared by the cortex_* tools, the memory browser's tools and
the server: the common argument types, the configured length limits in the schemas, `field:
rule` error wording, and errors and results in the shape a client reads."""

import copy
import functools
import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, Any, ParamSpec, TypeVar

from mcp.server.context import CallNext, ServerRequestContext
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, CallToolResult, SamplingMessage, TextContent
from pydantic import Field, ValidationError

from cortex_mcp.config import Settings
from cortex_mcp.errors import CortexError, ProviderUnavailable
from cortex_mcp.providers.sampling import Sample

if TYPE_CHECKING:  # #28 item 5: the stdio start imports no engine before the handshake
    from cortex_mcp.engine.facade import Engine

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


def without_titles(node: Any) -> Any:
    """A schema without the titles pydantic derives from names ("Max Results" beside
    `max_results`): they repeat the name and cost every client's context window (#26)."""
    if isinstance(node, dict):
        return {
            key: without_titles(value)
            for key, value in node.items()
            if not (key == "title" and isinstance(value, str))
        }
    if isinstance(node, list):
        return [without_titles(item) for item in node]
    return node


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


AGENT_ID_PATTERN = r"^[A-Za-z0-9_.:@-]+$"
AGENT_ID_LIMIT = 64
AgentId = Annotated[
    str | None,
    Field(
        max_length=AGENT_ID_LIMIT,
        pattern=AGENT_ID_PATTERN,
        description="Whose memory; omit for the default agent.",
    ),
]
MemoryId = Annotated[str, Field(max_length=64, description="A memory id from cortex_recall.")]
SessionId = Annotated[str | None, Field(max_length=128, description="Conversation id, if any.")]
ProjectName = Annotated[str, Field(max_length=100)]
"""The project a call concerns; "" (the default): the client's root folder's, else none."""


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


def sampler_of(ctx: "Context[Engine]") -> Sample | None:
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


OBJECT_PARAMS = {"tools/call": "arguments", "prompts/get": "arguments"}
"""Methods whose named params field must be a JSON object when present."""


async def check_params_shape(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> Any:
    """MCP server middleware: a call whose `arguments` is not an object (`"arguments":
    "notadict"`) is refused with one line naming the field, before the SDK's validation turns it
    into "Invalid request parameters" with no detail."""
    field = OBJECT_PARAMS.get(ctx.method)
    value = (ctx.params or {}).get(field) if field else None
    if field and value is not None and not isinstance(value, dict):
        kind = type(value).__name__.replace("str", "a string").replace("list", "a list")
        raise MCPError(
            code=INVALID_PARAMS,
            message=f"params.{field}: must be an object of named arguments, not {kind}",
        )
    return await call_next(ctx)
