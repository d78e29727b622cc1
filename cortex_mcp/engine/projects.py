"""Projects (seed 003 §3.2): what a write stores is filed under the project the call names (or
the one the client's roots or the hook's working folder map to). Memories keep it in their
metadata, conversation-log messages in a column of their own; recall reads it back
(`engine/recall/project.py`)."""

from collections.abc import Awaitable, Callable
from typing import TypeVar

from cortex_mcp.engine.runtime import Runtime
from cortex_mcp.store import projects as store

T = TypeVar("T")


async def in_project(
    rt: Runtime,
    project: str | None,
    messages_of: tuple[str, str | None],
    write: Callable[[], Awaitable[T]],
    memory_ids: Callable[[T], list[str]],
) -> T:
    """Run `write`; then file the memories it wrote and the messages it logged for (agent,
    session) under `project` (None: no project, nothing to do)."""
    if project is None:
        return await write()
    async with rt.db.read() as conn:
        before = await store.last_message_seq(conn)
    result = await write()
    agent, session = messages_of
    async with rt.db.write() as conn:
        await store.set_project(conn, project, memory_ids(result), (agent, session, before))
    return result


async def known_projects(rt: Runtime, agent: str) -> list[str]:
    """The projects an agent's memories belong to (the browser's filter offers them)."""
    async with rt.db.read() as conn:
        return await store.projects_of(conn, agent)
