"""Per-token agents: the agent ids a bearer token may act for, enforced on every MCP message.

The HTTP edge (`remote.BearerTokenGate`) matches the token and stores its `Grant` in the
request's ASGI state; the transports hand that request to the server with each message, and
`GrantCheck`, an MCP server middleware, checks the message against it before any handler runs:
a tool's `agent_id` must be one of the token's agents (omitted, it is the first), shared memory
is written only with `shared = "write"` and not even seen with `shared = "none"` (every query of
the call leaves it out: `store.scope`), and the resources that read the default agent's memory
need a token allowed to act for it. The single `auth_token` (and stdio) carry no grant: every
agent id is accepted, as before.
"""

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from cortex_mcp.config import Settings
from cortex_mcp.errors import InvalidInput
from cortex_mcp.store.scope import without_shared

GRANT_KEY = "cortex_grant"
MEMORY_URIS = (
    "cortex://core",
    "cortex://profile",
    "cortex://memory/",
    "cortex://working/",
    "cortex://archive/",
)
UNSCOPED_TOOLS = frozenset({"cortex_lifecycle"})
"""Tools that act on every agent's memory: refused to a token limited to some agents."""
SHARED_WRITES = frozenset({"cortex_forget", "cortex_restore"})


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


class GrantCheck:
    """MCP server middleware: refuse or scope each message by its token's grant."""

    def __init__(self, agent_tools: frozenset[str], default_agent: str) -> None:
        self.agent_tools = agent_tools
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
            name, arguments = params.get("name"), dict(params.get("arguments") or {})
            if name in UNSCOPED_TOOLS:
                raise InvalidInput("name", f"{name} acts on every agent: this token may not")
            if name in self.agent_tools:
                arguments["agent_id"] = grant.agent(arguments.get("agent_id"))
            if not grant.shared_write:
                await self._refuse_shared_writes(ctx, str(name), arguments)
            params["arguments"] = arguments
        elif ctx.method == "prompts/get":
            arguments = dict(params.get("arguments") or {})
            arguments["agent_id"] = grant.agent(arguments.get("agent_id"))
            params["arguments"] = arguments
        elif ctx.method == "resources/read":
            uri = str(params.get("uri", ""))
            if uri.startswith(MEMORY_URIS) and self.default_agent not in grant.agents:
                raise InvalidInput(
                    "agent_id",
                    f"this token may act only for {', '.join(grant.agents)}; "
                    f"{uri} shows {self.default_agent}: use cortex_recall",
                )
        return params

    async def _refuse_shared_writes(
        self, ctx: ServerRequestContext[Any, Any], name: str, arguments: dict[str, Any]
    ) -> None:
        if name == "cortex_remember" and arguments.get("scope") == "shared":
            raise InvalidInput("scope", "this token may not write shared memory")
        memory_id = arguments.get("memory_id")
        shared_target = name in SHARED_WRITES and isinstance(memory_id, str)
        if shared_target and await ctx.lifespan_context.is_shared(memory_id):
            raise InvalidInput("memory_id", "is shared memory: this token may not change it")
