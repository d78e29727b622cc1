"""The project of memories (`metadata.project`) and of conversation-log messages (the `project`
column): set once, after the write that made them, and listed for the browser (#26)."""

import json

from cortex_mcp.store.db import Connection, Sql

STAMP_MEMORIES = Sql(
    "update memories set metadata = json_set(metadata, '$.project', ?)"
    " where id in (select value from json_each(?))"
    " and json_extract(metadata, '$.project') is null",
    "update memories set metadata = (metadata::jsonb || jsonb_build_object('project',"
    " cast(? as text)))::text where id in (select json_array_elements_text(cast(? as json)))"
    " and (metadata::jsonb ->> 'project') is null",
)
STAMP_MESSAGES = Sql(
    "update conversation_log set project = ? where seq > ? and agent_id = ?"
    " and session_id is ? and project is null",
    "update conversation_log set project = ? where seq > ? and agent_id = ?"
    " and session_id is not distinct from cast(? as text) and project is null",
)
EXCHANGE_PROJECTS = Sql(
    "select distinct exchange_id, project from conversation_log"
    " where exchange_id in (select value from json_each(?)) and project is not null",
    "select distinct exchange_id, project from conversation_log"
    " where exchange_id in (select json_array_elements_text(cast(? as json)))"
    " and project is not null",
)
MEMORY_PROJECTS = Sql(
    "select distinct json_extract(metadata, '$.project') from memories"
    " where (agent_id = ? or agent_id is null) and deleted_at is null"
    " and json_extract(metadata, '$.project') is not null",
    "select distinct metadata::jsonb ->> 'project' from memories"
    " where (agent_id = ? or agent_id is null) and deleted_at is null"
    " and (metadata::jsonb ->> 'project') is not null",
)


async def last_message_seq(conn: Connection) -> int:
    """The sequence number of the newest conversation-log message (0: none yet)."""
    row = await conn.fetch_one("select coalesce(max(seq), 0) from conversation_log")
    return int(row[0]) if row else 0


async def set_project(
    conn: Connection,
    project: str,
    memory_ids: list[str],
    logged: tuple[str, str | None, int] | None,
) -> None:
    """Give these memories, and with `logged` the (agent, session) messages logged after a
    sequence number, `project`, where they have none yet."""
    if memory_ids:
        await conn.execute(STAMP_MEMORIES, (project, json.dumps(memory_ids)))
    if logged is not None:
        agent, session, after = logged
        await conn.execute(STAMP_MESSAGES, (project, after, agent, session))


async def file_message(conn: Connection, seq: int, project: str) -> None:
    """File one logged message under `project` (an import: the project its export names)."""
    await conn.execute("update conversation_log set project = ? where seq = ?", (project, seq))


async def projects_of(conn: Connection, agent_id: str) -> list[str]:
    """Every project an agent's live memories belong to, by name."""
    rows = await conn.fetch_all(MEMORY_PROJECTS, (agent_id,))
    return sorted(str(row[0]) for row in rows)


async def projects_of_exchanges(conn: Connection, exchange_ids: list[str]) -> dict[str, str]:
    """The project each of these logged exchanges was filed under (those with one)."""
    if not exchange_ids:
        return {}
    rows = await conn.fetch_all(EXCHANGE_PROJECTS, (json.dumps(exchange_ids),))
    return {str(row[0]): str(row[1]) for row in rows}
