"""Explicit memory: write to core, or reinforce an existing duplicate, or supersede a memory."""

from datetime import datetime

import aiosqlite

from cortex_mcp.config import MemorySettings
from cortex_mcp.engine.duplicates import check_content, find_duplicate
from cortex_mcp.engine.update import Proposal, build_memory
from cortex_mcp.errors import InvalidInput, MemoryNotFound
from cortex_mcp.models import SHARED_SCOPE, Category, Layer, RememberResult
from cortex_mcp.store import memories as rows
from cortex_mcp.store.logs import log_action


async def remember(
    conn: aiosqlite.Connection,
    *,
    content: str,
    category: Category,
    importance: float,
    tags: list[str],
    agent_id: str,
    scope: str,
    supersedes: str | None,
    settings: MemorySettings,
    now: datetime,
    context: str | None = None,
) -> RememberResult:
    """Store an explicit memory in core; call inside a write transaction."""
    text = check_content(content, settings)
    around = check_content(context, settings, "context") if context and context.strip() else None
    owner = None if scope == SHARED_SCOPE else agent_id
    old = None
    if supersedes is not None:
        old = await rows.get_visible_memory(conn, supersedes, agent_id)
        if old is None or old.deleted_at is not None:
            raise MemoryNotFound(supersedes, field="supersedes")
        if old.superseded_by is not None:
            raise InvalidInput("supersedes", f"memory {supersedes!r} is already superseded")
    duplicate = await find_duplicate(conn, text, owner, settings)
    if duplicate is not None and duplicate.id != supersedes:
        bumped = await rows.reinforce_memory(conn, duplicate, importance, tags, now)
        return RememberResult.of("duplicate", bumped)
    proposal = Proposal(
        content=text,
        category=category,
        importance=importance,
        layer=Layer.CORE,
        source="manual",
        channel="remember",
        confidence=0.9,
        extra=({"tags": sorted(set(tags))} if tags else {})
        | ({"context": around} if around else {}),
    )
    memory = build_memory(proposal, owner, now, Layer.CORE)
    await rows.insert_memory(conn, memory)
    if old is None:
        return RememberResult.of("created", memory)
    await rows.mark_superseded(conn, old.id, memory.id, now)
    await log_action(
        conn, "supersede", [old.id, memory.id], {"before": old.content, "after": text}, now
    )
    return RememberResult.of("superseded", memory, old.id)
