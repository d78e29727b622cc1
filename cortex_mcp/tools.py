"""The cortex_* tools: typed arguments (the SDK validates them), one engine call each."""

from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Annotated, Any, Literal

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult, TextContent
from pydantic import AwareDatetime, BaseModel, BeforeValidator, Field

from cortex_mcp.arguments import (
    HARD_CONTENT_LIMIT,
    AgentId,
    MemoryId,
    ProjectName,
    SessionId,
    reports_errors,
    sampler_of,
)
from cortex_mcp.errors import InvalidInput
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
from cortex_mcp.roots import current_project

if TYPE_CHECKING:
    from cortex_mcp.engine.facade import Engine
    from cortex_mcp.engine.forget_text import ForgetMatching
else:  # #28 item 5: the SDK reads these annotations at start; the engine loads on first use
    Engine = ForgetMatching = Any


def lent_sampler(ctx: Context[Engine]) -> AbstractContextManager[None]:
    """The client's sampling lent to the engine's LLM for one call; the providers behind it
    load on the first call that can use them, not at the server's start."""
    from cortex_mcp.engine.llm import lend_sampler

    return lend_sampler(sampler_of(ctx))


def true_or_false(value: object) -> object:
    """A destructive flag as JSON's true or false, or the text "true" / "false" (models send
    it so); anything else ("yes", 1) is refused rather than taken for true."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise ValueError("must be true or false")


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
    project: ProjectName = "",
    tags: Annotated[list[Annotated[str, Field(max_length=64)]], Field(max_length=20)] | None = None,
) -> Annotated[CallToolResult, RecallResult]:
    """Call before answering anything that may depend on earlier conversations: the user's
    identity, preferences, decisions, projects, corrections. Returns a ready-to-use context
    block. An empty query returns the core memory digest and the user profile."""
    named, explicit = await current_project(ctx, project)
    result = await ctx.request_context.lifespan_context.recall(
        query,
        max_results=max_results,
        max_tokens=max_tokens,
        layers=layers,
        categories=categories,
        agent_id=agent_id,
        project=named,
        only_project=explicit,
        tags=tags,
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
    project: ProjectName = "",
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
        project=(await current_project(ctx, project))[0],
    )


@reports_errors
async def cortex_forget(
    ctx: Context[Engine],
    memory_id: Annotated[str, Field(max_length=64, description="Or an exchange_id.")] = "",
    reason: Annotated[str | None, Field(max_length=500)] = None,
    agent_id: AgentId = None,
    purge: Annotated[bool, BeforeValidator(true_or_false)] = False,
    matching: Annotated[str, Field(max_length=500)] = "",
    confirm: Annotated[str, Field(max_length=64)] = "",
) -> ForgetResult | ForgetMatching:
    """Forget a wrong or unwanted memory, or a logged exchange, by id; or all that holds
    `matching` text (first call previews, then pass its `confirm`). purge=true: for good."""
    engine = ctx.request_context.lifespan_context
    if bool(memory_id) == bool(matching):
        raise InvalidInput("memory_id", "give memory_id or matching (one of them)")
    if matching:
        return await engine.forget_matching(
            matching, purge=purge, confirm=confirm or None, reason=reason, agent_id=agent_id
        )
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

    # other keys a chat history carries (`name`, `tool_call_id`) are ignored, not refused:
    # refusing them would lose a whole flush

    role: Literal["user", "assistant", "system", "tool"]
    content: Annotated[str, Field(max_length=HARD_CONTENT_LIMIT)]
    said_at: AwareDatetime | None = None  # when it was said (a transcript line's time)


@reports_errors
async def cortex_ingest(
    ctx: Context[Engine],
    user_message: Annotated[str, Field(max_length=HARD_CONTENT_LIMIT)],
    assistant_message: Annotated[str, Field(max_length=HARD_CONTENT_LIMIT)] = "",
    session_id: SessionId = None,
    tool_calls: Annotated[list[dict[str, Any]], Field(max_length=50)] | None = None,
    agent_id: AgentId = None,
    project: ProjectName = "",
    said_at: AwareDatetime | None = None,
) -> IngestResult:
    """Call after each exchange worth keeping, with the user's message and your reply: cortex
    keeps what matters from both sides and ignores small talk."""
    # said_at: when the exchange was said (its transcript time; a hook sending it later);
    # none: now
    with lent_sampler(ctx):
        return await ctx.request_context.lifespan_context.ingest(
            user_message,
            assistant_message,
            session_id=session_id,
            tool_calls=tool_calls,
            agent_id=agent_id,
            project=(await current_project(ctx, project))[0],
            said_at=said_at,
        )


@reports_errors
async def cortex_flush(
    ctx: Context[Engine],
    messages: Annotated[list[ChatMessage], Field(max_length=5000)],
    session_id: SessionId = None,
    reason: Annotated[str, Field(min_length=1, max_length=64)] = "compaction",
    agent_id: AgentId = None,
    project: ProjectName = "",
) -> FlushResult:
    """Call before your context is compacted or trimmed, with the messages about to go. Every
    message is kept in the conversation log, and what matters is extracted."""
    with lent_sampler(ctx):
        return await ctx.request_context.lifespan_context.flush(
            [(m.role, m.content) for m in messages],
            session_id=session_id,
            reason=reason,
            agent_id=agent_id,
            project=(await current_project(ctx, project))[0],
            said_at=[m.said_at for m in messages] if any(m.said_at for m in messages) else (),
        )


@reports_errors
async def cortex_lifecycle(
    ctx: Context[Engine], action: Literal["preview", "run"] = "preview"
) -> dict[str, Any]:
    """Consolidate memory now: promote, merge duplicates, decay and archive, compress old
    months into summaries, refresh the profile and MEMORY.md. It also runs nightly on its
    own; "preview" reports what a run would do and changes nothing."""
    with lent_sampler(ctx):
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


@reports_errors
async def cortex_scratchpad(
    ctx: Context[Engine],
    action: Literal["read", "replace", "undo"] = "read",
    text: Annotated[str, Field(max_length=20_000)] = "",
    project: ProjectName = "",
    agent_id: AgentId = None,
) -> dict[str, Any]:
    """Your notes for this project across sessions: current focus, open questions, next
    steps. "replace" writes the whole text; "undo" puts back the previous version."""
    named, _ = await current_project(ctx, project)
    pad = await ctx.request_context.lifespan_context.scratchpad(
        action, text, agent_id=agent_id, project=named
    )
    return {"project": pad.project or None, "content": pad.content, "updated_at": pad.updated_at}
