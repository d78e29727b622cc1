"""The audit trail: lifecycle_log rows with the ids they touched and before/after snapshots."""

import json
from datetime import datetime
from typing import Any

from cortex_mcp.clock import to_text
from cortex_mcp.store.db import Connection


async def log_action(
    conn: Connection,
    action: str,
    memory_ids: list[str],
    details: dict[str, Any],
    now: datetime,
) -> None:
    """Record one change to memory (forget, restore, supersede, promote, ...) with its details."""
    await conn.execute(
        "insert into lifecycle_log (action, memory_ids, details, executed_at) values (?, ?, ?, ?)",
        (
            action,
            json.dumps(memory_ids),
            json.dumps(details, ensure_ascii=False, default=str),
            to_text(now),
        ),
    )
