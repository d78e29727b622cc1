"""Per-token grants: what a bearer token may read and write, checked on every MCP message.

The HTTP edge (`remote.BearerTokenGate`) matches the token and stores its `Grant` in the
request's ASGI state; the transports hand that request to the server with each message, and
`GrantCheck`, an MCP server middleware, is the one authorisation point: it checks every message
against the grant before any handler runs. The rules hold by construction, for every tool the
server has, whenever it was added:

- a tool acts for one agent: its `agent_id` must be one of the token's (omitted, the first); a
  tool that takes no `agent_id` acts on every agent and is refused;
- every argument whose value names a memory or a logged exchange (whatever the argument is
  called) is looked up: another agent's is "not found"; a shared one is seen only with shared
  read, and changed (by a tool not annotated read-only) only with `shared = "write"`; a
  writing tool's `scope = "shared"` needs `shared = "write"` too;
- shared memory is not even seen with `shared = "none"` (every query of the call leaves it out:
  `store.scope`);
- a resource shows the default agent's memory, so only a token allowed to act for it reads one,
  except the few that show no memory (`AGENT_FREE_URIS`).

The single `auth_token` (and stdio) carry no grant: every agent id is accepted, as before.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from cortex_mcp.config import Settings
from cortex_mcp.errors import InvalidInput, MemoryNotFound
from cortex_mcp.models import SHARED_SCOPE, is_memory_id
from cortex_mcp.store.scope import without_shared

GRANT_KEY = "cortex_grant"
AGENT_FREE_URIS = ("cortex://stats", "cortex://hooks/stats", "ui://")
"""Resources that show no memory: any token reads them. Every other resource needs a token
allowed to act for the default agent."""


@dataclass(frozen=True)
class ToolShape:
    """What the grant check needs to know of a tool: whether it writes, its argument names."""

    writes: bool
    arguments: frozenset[str]


ToolLookup = Callable[[str], ToolShape | None]
"""The server's tools by name (None: no such tool, the server says so itself)."""


@dataclass(frozen=True)
class Grant:
    """What one token may do: act for these agents, and perhaps see and write shared memory."""

    agents: tuple[str, ...]
    shared_write: bool
    shared_read: bool = True

    def agent(self, asked: object) -> str:
        """The agent a call acts for: the one asked, if allowed; the token's first when none."""
        if asked is None or asked == "":
            return self.agents[0]
        if asked not in self.agents:
            raise InvalidInput("agent_id", f"this token may act only for {', '.join(self.agents)}")
        return str(asked)

    def check(self, field: str, value: str, owner: str | None, writes: bool) -> None:
        """InvalidInput unless this token may read (or, `writes`, change) what `value` names,
        owned by agent `owner` (None: shared memory)."""
        if owner is not None:
            if owner not in self.agents:
                raise MemoryNotFound(value, field=field)  # another's: not even its existence
            return
        if not self.shared_read:
            raise MemoryNotFound(value, field=field)
        if writes and not self.shared_write:
            raise InvalidInput(field, "is shared memory: this token may not change it")


def token_grants(settings: Settings) -> dict[bytes, Grant | None]:
    """Every accepted token: the single `auth_token` (no limits) and each `auth_tokens` entry."""
    tokens: dict[bytes, Grant | None] = {}
    if settings.auth_token is not None:
        tokens[settings.auth_token.get_secret_value().strip().encode()] = None
    for entry in settings.auth_tokens:
        grant = Grant(tuple(entry.agents), entry.shared == "write", entry.shared != "none")
        tokens[entry.token.get_secret_value().strip().encode()] = grant
    return tokens


def grant_of(ctx: ServerRequestContext[Any, Any]) -> Grant | None:
    """The grant of the token that carried this message; None on stdio or without limits."""
    request = ctx.request
    scope = getattr(request, "scope", None)
    if not isinstance(scope, Mapping):
        return None
    state = scope.get("state")
    found = state.get(GRANT_KEY) if isinstance(state, Mapping) else None
    return found if isinstance(found, Grant) else None


def named_ids(arguments: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(argument, value) for every argument value, or element of a list, shaped like an id."""
    found = []
    for name, value in arguments.items():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str) and is_memory_id(item):
                found.append((name, item))
    return found


class GrantCheck:
    """MCP server middleware: refuse or scope each message by its token's grant."""

    def __init__(self, tools: ToolLookup, default_agent: str) -> None:
        self.tools = tools
        self.default_agent = default_agent

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        """Check the message, fill in the agent, then hand it on."""
        grant = grant_of(ctx)
        if grant is None:
            return await call_next(ctx)
        try:
            params = await self.scoped(ctx, grant)
        except InvalidInput as error:
            raise MCPError(code=INVALID_PARAMS, message=str(error)) from error
        if grant.shared_read:
            return await call_next(replace(ctx, params=params))
        with without_shared():  # every query of this call leaves shared memory out
            return await call_next(replace(ctx, params=params))

    async def scoped(self, ctx: ServerRequestContext[Any, Any], grant: Grant) -> Any:
        """The message's params with the agent filled in, or InvalidInput."""
        params = dict(ctx.params or {})
        if ctx.method == "tools/call":
            name = str(params.get("name"))
            shape = self.tools(name)
            if shape is not None:
                params["arguments"] = await self.tool_arguments(ctx, grant, name, shape)
        elif ctx.method == "prompts/get":
            arguments = dict(params.get("arguments") or {})
            arguments["agent_id"] = grant.agent(arguments.get("agent_id"))
            params["arguments"] = arguments
        elif ctx.method == "resources/read":
            uri = str(params.get("uri", ""))
            if not uri.startswith(AGENT_FREE_URIS) and self.default_agent not in grant.agents:
                raise InvalidInput(
                    "agent_id",
                    f"this token may act only for {', '.join(grant.agents)}; "
                    f"{uri} shows {self.default_agent}: use cortex_recall",
                )
        return params

    async def tool_arguments(
        self, ctx: ServerRequestContext[Any, Any], grant: Grant, name: str, shape: ToolShape
    ) -> dict[str, Any]:
        """A tool call's arguments with its agent filled in, once every memory, exchange and
        scope it names is this token's to read (or, for a writing tool, to change)."""
        arguments = dict(ctx.params.get("arguments") or {}) if ctx.params else {}
        if "agent_id" not in shape.arguments:
            raise InvalidInput("name", f"{name} acts on every agent: this token may not")
        arguments["agent_id"] = grant.agent(arguments.get("agent_id"))
        wants_shared = arguments.get("scope") == SHARED_SCOPE
        if shape.writes and wants_shared and not grant.shared_write:
            raise InvalidInput("scope", "this token may not write shared memory")
        named = named_ids({k: v for k, v in arguments.items() if k != "agent_id"})
        if named:
            owners = await ctx.lifespan_context.owners([value for _, value in named])
            for field, value in named:
                if value in owners:
                    grant.check(field, value, owners[value], shape.writes)
        return arguments
