"""Projects (seed 003 §3.2): what a write stores is filed under the project the call names (or
the one the client's roots or the hook's working folder map to). Memories keep it in their
metadata, conversation-log messages in a column of their own; recall reads it back
(`engine/recall/project.py`)."""

from cortex_mcp.engine.runtime import Runtime
from cortex_mcp.store import projects as store


async def log_mark(rt: Runtime, project: str | None) -> int:
    """Where the conversation log ends before a write that files under `project` (0: none)."""
    if project is None:
        return 0
    async with rt.db.read() as conn:
        return await store.last_message_seq(conn)


async def file_under(
    rt: Runtime,
    project: str | None,
    memory_ids: list[str],
    logged: tuple[str, str | None, int] | None = None,
) -> None:
    """File the memories a write stored under `project` (None: no project, nothing to do),
    and with `logged` (agent, session, mark) the messages it logged after the mark; a memory
    already filed elsewhere (a duplicate reinforced) keeps its project."""
    if project is None:
        return
    async with rt.db.write() as conn:
        await store.set_project(conn, project, memory_ids, logged)


async def known_projects(rt: Runtime, agent: str) -> list[str]:
    """The projects an agent's memories belong to (the browser's filter offers them)."""
    async with rt.db.read() as conn:
        return await store.projects_of(conn, agent)
