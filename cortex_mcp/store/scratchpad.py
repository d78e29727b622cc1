"""The scratchpad table (one text per agent and project) and its versions in the lifecycle log.

Every replace is a `scratchpad` row of `lifecycle_log` with the text before and after; an undo
is a `scratchpad_undo` row naming the replace it took back, so a second undo goes one version
further back. The project '' is "no project".
"""

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from cortex_mcp.clock import from_text, to_text
from cortex_mcp.store.db import Connection, Sql
from cortex_mcp.store.logs import log_action

REPLACED = "scratchpad"
UNDONE = "scratchpad_undo"
VERSIONS = Sql(
    "select id, action, details from lifecycle_log where action in (?, ?)"
    " and json_extract(details, '$.agent_id') = ? and json_extract(details, '$.project') = ?"
    " order by id desc limit 1000",
    "select id, action, details from lifecycle_log where action in (?, ?)"
    " and details::jsonb ->> 'agent_id' = ? and details::jsonb ->> 'project' = ?"
    " order by id desc limit 1000",
)
"""The latest versions of one scratchpad, newest first (bounded: undo goes back 1,000 at most)."""


@dataclass(frozen=True)
class Scratchpad:
    """One agent's scratchpad for one project ('' = none)."""

    agent_id: str
    project: str
    content: str
    updated_at: datetime | None


async def read_scratchpad(conn: Connection, agent_id: str, project: str) -> Scratchpad:
    """The scratchpad, empty when none was written."""
    row = await conn.fetch_one(
        "select content, updated_at from scratchpads where agent_id = ? and project = ?",
        (agent_id, project),
    )
    if row is None:
        return Scratchpad(agent_id, project, "", None)
    return Scratchpad(agent_id, project, row["content"], from_text(row["updated_at"]))


async def write_scratchpad(
    conn: Connection, pad: Scratchpad, content: str, now: datetime, undid: int | None = None
) -> Scratchpad:
    """Replace the text and log the version (`undid`: the replace an undo takes back)."""
    await conn.execute(
        "insert into scratchpads (agent_id, project, content, updated_at) values (?, ?, ?, ?)"
        " on conflict (agent_id, project) do update set content = excluded.content,"
        " updated_at = excluded.updated_at",
        (pad.agent_id, pad.project, content, to_text(now)),
    )
    details: dict[str, Any] = {
        "agent_id": pad.agent_id,
        "project": pad.project,
        "before": pad.content,
        "after": content,
    }
    if undid is not None:
        details["undid"] = undid
    await log_action(conn, UNDONE if undid is not None else REPLACED, [], details, now)
    return Scratchpad(pad.agent_id, pad.project, content, now)


async def last_replace(conn: Connection, agent_id: str, project: str) -> tuple[int, str] | None:
    """(log id, text before it) of the latest replace no undo has taken back, or None."""
    rows = await conn.fetch_all(VERSIONS, (REPLACED, UNDONE, agent_id, project))
    undone: set[int] = set()
    for row in rows:
        details = json.loads(row["details"])
        if row["action"] == UNDONE:
            undone.add(int(details["undid"]))
        elif int(row["id"]) not in undone:
            return int(row["id"]), str(details["before"])
    return None


async def scratchpad_projects(conn: Connection, agent_id: str) -> list[str]:
    """The projects an agent has a scratchpad for."""
    rows = await conn.fetch_all(
        "select project from scratchpads where agent_id = ? order by project", (agent_id,)
    )
    return [str(row["project"]) for row in rows]


async def scrub_scratchpads(conn: Connection, text: str, marker: str) -> None:
    """Replace `text` (ignoring case) by `marker` in every scratchpad (a purge)."""
    target = text.lower()
    rows = await conn.fetch_all(
        "select agent_id, project, content from scratchpads where instr(lower(content), ?) > 0",
        (target,),
    )
    for row in rows:
        content, lowered, parts, start = row["content"], row["content"].lower(), [], 0
        while (found := lowered.find(target, start)) >= 0:
            parts += [content[start:found], marker]
            start = found + len(text)
        await conn.execute(
            "update scratchpads set content = ? where agent_id = ? and project = ?",
            ("".join(parts) + content[start:], row["agent_id"], row["project"]),
        )
