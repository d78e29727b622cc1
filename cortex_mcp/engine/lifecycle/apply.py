"""Carrying out a plan: changes in order, a few hundred per transaction, each whole or not at all.

A change applies only if every row it expects is still as planned (live, same layer, same
`updated_at`); otherwise another writer got there first and it is skipped. Within a chunk the
expected states are read once and then followed as the chunk's own changes land. Each chunk's
transaction first renews the run's lease (`fence`), so a run that lost it writes nothing more.
"""

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

from cortex_mcp.engine.lifecycle.plan import Change, logged
from cortex_mcp.models import Memory
from cortex_mcp.store import lifecycle as store
from cortex_mcp.store.db import Connection, Database
from cortex_mcp.store.lifecycle import RowState
from cortex_mcp.store.memories import insert_memory

CHUNK = 500
Fence = Callable[[Connection], Awaitable[None]]


def _state_after(memory: Memory) -> RowState:
    return RowState(
        memory.layer, memory.updated_at, not (memory.superseded_by or memory.deleted_at)
    )


def _still_as_planned(change: Change, states: dict[str, RowState]) -> bool:
    return all(
        states.get(memory_id) == RowState(layer, updated_at, True)
        for memory_id, (layer, updated_at) in change.expect.items()
    )


async def _apply_chunk(
    conn: Connection, changes: list[Change], now: datetime, run: dict[str, Any]
) -> list[Change]:
    states = await store.row_states(conn, list({i for c in changes for i in c.expect}))
    inserts: list[Memory] = []
    updates: list[Memory] = []
    logs: list[tuple[str, list[str], dict[str, Any]]] = []
    skipped: list[Change] = []
    for change in changes:
        if not _still_as_planned(change, states):
            skipped.append(change)
            continue
        inserts += change.inserts
        updates += change.updates
        logs.append((change.action, change.memory_ids, logged({**change.details, **run})))
        states.update({m.id: _state_after(m) for m in change.inserts + change.updates})
    for memory in inserts:
        await insert_memory(conn, memory)
    await store.update_memories(conn, updates)
    await store.log_actions(conn, logs, now)
    return skipped


async def apply_changes(
    db: Database, changes: list[Change], now: datetime, fence: Fence, run: dict[str, Any]
) -> list[Change]:
    """Apply the changes in order; the ones skipped because their memories changed."""
    skipped: list[Change] = []
    for start in range(0, len(changes), CHUNK):
        async with db.write() as conn:
            await fence(conn)
            skipped += await _apply_chunk(conn, changes[start : start + CHUNK], now, run)
    return skipped


async def apply_scores(db: Database, scores: list[tuple[str, float]], fence: Fence) -> None:
    """Record decay scores, a few thousand per transaction."""
    for start in range(0, len(scores), CHUNK * 10):
        async with db.write() as conn:
            await fence(conn)
            await store.set_decay_scores(conn, scores[start : start + CHUNK * 10])
