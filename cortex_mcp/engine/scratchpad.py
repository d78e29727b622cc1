"""The scratchpad (seed 002 §4.3): per agent and project, the current focus, open questions and
next steps, carried across sessions. It is read, replaced (redacted, within the configured
length) or put back one version (undo); every version is kept in the lifecycle log. The
digest and the cortex_context prompt show it within a budget of its own."""

from cortex_mcp.engine.language.redaction import Cleaner
from cortex_mcp.engine.runtime import Runtime
from cortex_mcp.errors import InvalidInput
from cortex_mcp.search.budget import estimate_tokens, truncate_to_tokens
from cortex_mcp.store import scratchpad as store
from cortex_mcp.store.scratchpad import Scratchpad

HEADING = "Scratchpad ({project}; current focus, open questions, next steps):"
NO_PROJECT = "no project"


async def read_scratchpad(rt: Runtime, agent: str, project: str | None) -> Scratchpad:
    """The agent's scratchpad for `project` (None: the one of no project), empty if none."""
    async with rt.db.read() as conn:
        return await store.read_scratchpad(conn, agent, project or "")


async def replace_scratchpad(
    rt: Runtime, clean: Cleaner, agent: str, project: str | None, content: str
) -> Scratchpad:
    """Replace the scratchpad with `content`, redacted; InvalidInput (nothing changed) when it
    is over the configured length."""
    limit = rt.settings.workspace.scratchpad_chars
    if len(content) > limit:
        raise InvalidInput("text", f"{len(content):,} characters; the limit is {limit:,}")
    cleaned = clean(content.strip())
    async with rt.db.write() as conn:
        pad = await store.read_scratchpad(conn, agent, project or "")
        if pad.content == cleaned:
            return pad
        return await store.write_scratchpad(conn, pad, cleaned, rt.clock())


async def undo_scratchpad(rt: Runtime, agent: str, project: str | None) -> Scratchpad:
    """Put back the version before the latest replace; InvalidInput when there is none."""
    async with rt.db.write() as conn:
        found = await store.last_replace(conn, agent, project or "")
        if found is None:
            raise InvalidInput("action", "undo: this scratchpad has no earlier version")
        undid, before = found
        pad = await store.read_scratchpad(conn, agent, project or "")
        return await store.write_scratchpad(conn, pad, before, rt.clock(), undid=undid)


def scratchpad_block(pad: Scratchpad, max_tokens: int) -> str:
    """The scratchpad as a block of the digest within `max_tokens` ('' when empty)."""
    if not pad.content.strip() or max_tokens <= 0:
        return ""
    head = HEADING.format(project=pad.project or NO_PROJECT)
    budget = max(1, max_tokens - estimate_tokens(head) - 1)
    body = pad.content if estimate_tokens(pad.content) <= budget else None
    return f"{head}\n{body if body is not None else truncate_to_tokens(pad.content, budget)}"


def scratchpad_markdown(pad: Scratchpad) -> str:
    """The scratchpad as the cortex://scratchpad resource shows it."""
    title = f"# Scratchpad: {pad.project or NO_PROJECT}"
    if not pad.content:
        note = (
            "Empty. Keep the current focus, open questions and next steps here with "
            "cortex_scratchpad (action=replace); it comes back at the start of every session."
        )
        return f"{title}\n\n{note}\n"
    when = pad.updated_at.isoformat() if pad.updated_at else "never"
    return f"{title}\n\n_Updated {when}._\n\n{pad.content}\n"
