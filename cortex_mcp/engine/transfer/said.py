"""The conversation log in a JSON export, and back: an export without it would not be lossless
(a fact said once and never extracted lives only there).

Each message is exported with its exchange, session, agent, role, text, time, the memories
extracted from it, the project it is filed under (null: none) and, for a hidden one (exported
only with forgotten memories), when it was hidden. An import adds the exchanges the log does
not hold yet (an exchange already there is skipped whole), each message redacted like every
path in and checked like a memory row; a row without `project` (an export written before
messages had one) is filed under none.
"""

from typing import Any

from cortex_mcp.clock import from_text, to_text
from cortex_mcp.engine.language.redaction import Cleaner
from cortex_mcp.engine.transfer.validate import Problems
from cortex_mcp.errors import InvalidInput
from cortex_mcp.models import is_memory_id
from cortex_mcp.project_names import MAX_PROJECT_CHARS, clean_project
from cortex_mcp.store import conversation as log
from cortex_mcp.store.db import Connection
from cortex_mcp.store.projects import file_message

ROLES = frozenset({"user", "assistant", "system", "tool"})


async def exported_messages(conn: Connection, with_hidden: bool) -> list[dict[str, Any]]:
    """The log as export rows, oldest first."""
    return [
        {
            "agent_id": message.agent_id,
            "session_id": message.session_id,
            "exchange_id": message.exchange_id,
            "origin": message.origin,
            "role": message.role,
            "content": message.content,
            "created_at": to_text(message.created_at),
            "memory_ids": message.memory_ids,
            "project": project,
            "hidden_at": hidden_at,
        }
        for message, hidden_at, project in await log.all_messages(conn, with_hidden)
    ]


def _text(row: dict[str, Any], name: str, limit: int, required: bool = True) -> str | None:
    value = row.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str) or (required and not value.strip()) or len(value) > limit:
        raise InvalidInput(name, f"must be text of 1 to {limit:,} characters")
    return value


def checked_message(row: object, limit: int) -> dict[str, Any]:
    """One export row of the log, checked; InvalidInput naming the field otherwise."""
    if not isinstance(row, dict):
        raise InvalidInput("message", "must be an object")
    exchange = _text(row, "exchange_id", 64)
    if exchange is None or not is_memory_id(exchange):
        raise InvalidInput("exchange_id", "must be an exchange id (a UUID)")
    if row.get("role") not in ROLES:
        raise InvalidInput("role", f"must be one of {', '.join(sorted(ROLES))}")
    ids = row.get("memory_ids", [])
    if not isinstance(ids, list) or not all(isinstance(i, str) and is_memory_id(i) for i in ids):
        raise InvalidInput("memory_ids", "must be a list of memory ids")
    checked = {
        "agent_id": _text(row, "agent_id", 64),
        "session_id": _text(row, "session_id", 128, required=False),
        "exchange_id": exchange,
        "origin": _text(row, "origin", 32),
        "role": row["role"],
        "content": _text(row, "content", limit),
        "memory_ids": ids,
        "project": clean_project(_text(row, "project", MAX_PROJECT_CHARS, required=False)),
    }
    for name in ("created_at", "hidden_at"):
        value = row.get(name)
        if value is None and name == "hidden_at":
            checked[name] = None
            continue
        try:
            checked[name] = from_text(str(value))
        except (TypeError, ValueError) as error:
            raise InvalidInput(name, "must be an ISO date-time") from error
    return checked


async def insert_messages(
    conn: Connection,
    rows: list[tuple[int, object]],
    clean: Cleaner,
    limit: int,
    problems: Problems,
    restored: set[str],
) -> tuple[int, int]:
    """Add a batch of exported messages whose exchange the log lacks (or that this import is
    restoring: `restored`, the exchanges it added, grows with this batch's); (added,
    skipped)."""
    valid = []
    for number, row in rows:
        try:
            valid.append(checked_message(row, limit))
        except InvalidInput as error:
            problems.add(f"conversation[{number}]", error)
    held = await log.logged_exchanges(conn, sorted({m["exchange_id"] for m in valid}))
    added = 0
    for message in valid:
        if message["exchange_id"] in held and message["exchange_id"] not in restored:
            continue
        restored.add(message["exchange_id"])
        seq = await log.append_message(
            conn,
            agent_id=message["agent_id"],
            session_id=message["session_id"],
            exchange_id=message["exchange_id"],
            origin=message["origin"],
            role=message["role"],
            content=clean(message["content"]),
            created_at=to_text(message["created_at"]),
            memory_ids=message["memory_ids"],
        )
        if message["project"] is not None:
            await file_message(conn, seq, clean(message["project"]))
        if message["hidden_at"] is not None:
            await log.hide_messages(conn, [seq], message["hidden_at"])
        added += 1
    return added, len(valid) - added
