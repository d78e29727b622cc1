"""Carrying out a plan: changes in order, a few hundred per transaction at most, each whole or
not at all; between transactions the run pauses, so other writers are not kept waiting.

A change applies only if every row it expects is still as planned (live, same layer, same
`updated_at`); otherwise another writer got there first and it is skipped. Within a chunk the
expected states are read once and then followed as the chunk's own changes land. Each chunk's
transaction first renews the run's lease (`fence`), so a run that lost it writes nothing more.
"""

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any

import anyio

from cortex_mcp.engine.lifecycle.plan import Change, logged
from cortex_mcp.models import Memory
from cortex_mcp.store import lifecycle as store
from cortex_mcp.store.db import Connection, Database
from cortex_mcp.store.lifecycle import RowState
from cortex_mcp.store.memories import insert_memory, memories_by_id

CHUNK = 500
"""Changes per transaction at most."""
FEWEST = 20
"""Changes per transaction at least, however slow the machine."""
HOLD_S = 0.03
"""How long a run's transaction should hold the write lock."""
PAUSE_MOST_S = 0.1
"""The longest pause between two transactions of a run."""
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
    """Apply a chunk: the full rows its edits rewrite are read here, then followed as the
    chunk's own changes land, and let go with the chunk."""
    states = await store.row_states(conn, list({i for c in changes for i in c.expect}))
    created = {m.id for c in changes for m in c.inserts}
    edited = list({e.id for c in changes for e in c.updates} - created)
    rows = await memories_by_id(conn, edited)
    inserts: list[Memory] = []
    updates: list[Memory] = []
    logs: list[tuple[str, list[str], dict[str, Any]]] = []
    skipped: list[Change] = []
    for change in changes:
        if not _still_as_planned(change, states):
            skipped.append(change)
            continue
        before = {e.id: rows[e.id] for e in change.updates if e.id in rows}
        rows.update({m.id: m for m in change.inserts})
        after = {m.id: m for m in change.inserts}
        for edit in change.updates:
            after[edit.id] = rows[edit.id] = edit.applied(rows[edit.id])
            updates.append(after[edit.id])
        inserts += change.inserts
        details = logged({**change.details, **run}, before, after)
        logs.append((change.action, change.memory_ids, details))
        states.update({i: _state_after(m) for i, m in after.items()})
    for memory in inserts:
        await insert_memory(conn, memory)
    await store.update_memories(conn, updates)
    await store.log_actions(conn, logs, now)
    return skipped


async def apply_changes(
    db: Database, changes: list[Change], now: datetime, fence: Fence, run: dict[str, Any]
) -> list[Change]:
    """Apply the changes in order; the ones skipped because their memories changed. Writers
    of this and other processes get their turns in between (`Turns`)."""
    skipped: list[Change] = []
    turns, start = Turns(CHUNK), 0
    while start < len(changes):
        chunk = changes[start : start + turns.size]
        async with turns.held(db) as conn:
            await fence(conn)
            skipped += await _apply_chunk(conn, chunk, now, run)
        start += len(chunk)
    return skipped


async def apply_scores(db: Database, scores: list[tuple[str, float]], fence: Fence) -> None:
    """Record decay scores, a few thousand per transaction at most, giving way in between."""
    turns, start = Turns(CHUNK * 10), 0
    while start < len(scores):
        batch = scores[start : start + turns.size]
        async with turns.held(db) as conn:
            await fence(conn)
            await store.set_decay_scores(conn, batch)
        start += len(batch)


class Turns:
    """A run's write transactions, sized to hold the write lock about `HOLD_S` each, with a
    pause as long as the last one held it before the next: a writer waiting on SQLite's busy
    timeout (which polls) or on PostgreSQL's lock finds it free within a few of its polls,
    so writes during a run at 100,000 memories are not queued behind the whole run."""

    def __init__(self, most: int) -> None:
        self.most = most
        self.size = most
        self.last_held: float | None = None

    @asynccontextmanager
    async def held(self, db: Database) -> AsyncIterator[Connection]:
        """One write transaction, after a pause as long as the previous one held the lock (none
        before the first: a run of one transaction never waits); then the next one's size."""
        if self.last_held is not None:
            await anyio.sleep(min(self.last_held, PAUSE_MOST_S))
        started = time.perf_counter()
        async with db.write() as conn:
            yield conn
        held = self.last_held = time.perf_counter() - started
        if held > HOLD_S:
            self.size = max(FEWEST, self.size // 2)
        elif held < HOLD_S / 2:
            self.size = min(self.most, self.size * 2)
