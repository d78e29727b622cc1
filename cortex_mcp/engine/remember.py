"""Explicit memory: write to core, or reinforce an existing duplicate, or supersede a memory."""

from datetime import datetime

import aiosqlite

from cortex_mcp.config import MemorySettings
from cortex_mcp.errors import InvalidInput, MemoryNotFound
from cortex_mcp.models import SHARED_SCOPE, Category, Layer, Memory, RememberResult, new_memory_id
from cortex_mcp.search.query import match_expression
from cortex_mcp.search.tokenize import jaccard, numbers_of, term_set
from cortex_mcp.store import fts
from cortex_mcp.store import memories as rows
from cortex_mcp.store.logs import log_action

NEAR_DUPLICATE_CANDIDATES = 5


def check_content(content: str, settings: MemorySettings, field: str = "content") -> str:
    """The content, stripped, or InvalidInput naming the field and the rule it breaks."""
    stripped = content.strip()
    if not stripped:
        raise InvalidInput(field, "must not be empty or only whitespace")
    if len(stripped) > settings.max_content_chars:
        raise InvalidInput(
            field, f"{len(stripped):,} characters; the limit is {settings.max_content_chars:,}"
        )
    return stripped


def is_near_duplicate(new: str, old: str, min_jaccard: float) -> bool:
    """Same numbers and nearly the same terms: a restatement, not a changed value."""
    if numbers_of(new) != numbers_of(old):
        return False
    return jaccard(term_set(new), term_set(old)) >= min_jaccard


async def find_duplicate(
    conn: aiosqlite.Connection, content: str, agent_id: str | None, settings: MemorySettings
) -> Memory | None:
    """An exact or near duplicate among the live memories of the same scope, or None."""
    exact = await rows.find_live_by_content(conn, content, agent_id)
    if exact is not None:
        return exact
    match = match_expression(content)
    if match is None:
        return None
    layers = [Layer.CORE, Layer.WORKING, Layer.ARCHIVE]
    visible_to = agent_id if agent_id is not None else ""
    for _, candidate in await fts.text_candidates(
        conn, match, visible_to, layers, None, NEAR_DUPLICATE_CANDIDATES
    ):
        if candidate.agent_id == agent_id and is_near_duplicate(
            content, candidate.content, settings.near_duplicate_jaccard
        ):
            return candidate
    return None


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
) -> RememberResult:
    """Store an explicit memory in core; call inside a write transaction."""
    text = check_content(content, settings)
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
    memory = Memory(
        id=new_memory_id(int(now.timestamp() * 1000)),
        agent_id=owner,
        layer=Layer.CORE,
        category=category,
        content=text,
        source="manual",
        importance=importance,
        confidence=0.9,
        decay_score=1.0,
        access_count=0,
        last_accessed=None,
        created_at=now,
        updated_at=now,
        expires_at=None,
        superseded_by=None,
        deleted_at=None,
        metadata={"tags": sorted(set(tags))} if tags else {},
    )
    await rows.insert_memory(conn, memory)
    if old is None:
        return RememberResult.of("created", memory)
    await rows.mark_superseded(conn, old.id, memory.id, now)
    await log_action(
        conn, "supersede", [old.id, memory.id], {"before": old.content, "after": text}, now
    )
    return RememberResult.of("superseded", memory, old.id)
