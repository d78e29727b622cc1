"""Episodes as the resources show them: the recent ones (paged) and one by id, as JSON."""

import json
from typing import Any

from cortex_mcp.engine.runtime import Runtime
from cortex_mcp.errors import InvalidInput, MemoryNotFound
from cortex_mcp.models import Memory, is_memory_id
from cortex_mcp.store import episodes as rows

PAGE_SIZE = 20
MAX_PAGE_SIZE = 100


def _brief(row: rows.EpisodeRow, memory: Memory) -> dict[str, Any]:
    parts = memory.metadata.get("episode", {})
    return {
        "id": memory.id,
        "session_id": row.session_id,
        "project": row.project,
        "layer": memory.layer.value,
        "line": memory.content,
        "goal": parts.get("goal"),
        "outcome": parts.get("outcome"),
        "tools": parts.get("tools", []),
        "errors": sum(1 for a in parts.get("actions", []) if a.get("success") is False),
        "started_at": row.started_at.isoformat(),
        "ended_at": row.ended_at.isoformat(),
    }


async def episodes_json(rt: Runtime, agent: str, page: int, page_size: int) -> str:
    """One page (from 1) of the agent's episodes, latest first, with how many there are."""
    if page < 1:
        raise InvalidInput("page", "must be 1 or more")
    if not 1 <= page_size <= MAX_PAGE_SIZE:
        raise InvalidInput("page_size", f"must be between 1 and {MAX_PAGE_SIZE}")
    async with rt.db.read() as conn:
        found, total = await rows.recent_episodes(conn, agent, page_size, (page - 1) * page_size)
    document = {
        "page": page,
        "page_size": page_size,
        "total": total,
        "next_page": page + 1 if page * page_size < total else None,
        "episodes": [_brief(row, memory) for row, memory in found],
    }
    return json.dumps(document, ensure_ascii=False, indent=2)


async def episode_json(rt: Runtime, memory_id: str, agent: str) -> str:
    """One episode in full: its line, goal, outcome, tools, action nodes, linked memories."""
    if not is_memory_id(memory_id):
        raise InvalidInput("episode_id", "must be an episode id (a UUID)")
    async with rt.db.read() as conn:
        found = await rows.episode_by_id(conn, memory_id, agent)
    if found is None:
        raise MemoryNotFound(memory_id)
    row, memory = found
    document = _brief(row, memory) | {"episode": memory.metadata.get("episode", {})}
    return json.dumps(document, ensure_ascii=False, indent=2)
