"""Purge erases the bytes: only an explicit request does this, never the lifecycle.

Purge hard-deletes a memory with the stored copies of its exchange, the queue entry, vectors,
cached embeddings, full-text rows and log snapshots (leaving a tombstone), scrubs its text from
other rows, erases the conversation log's messages it came from, zeroes freed pages and
truncates the WAL, then rewrites the Markdown mirror.
"""

import logging
from typing import Any

import anyio
from pydantic import BaseModel, Field

from cortex_mcp.engine.lease import Lease, LifecycleBusy, new_owner
from cortex_mcp.engine.mirror.write import write_mirror
from cortex_mcp.engine.runtime import Runtime
from cortex_mcp.errors import InvalidInput, MemoryNotFound
from cortex_mcp.models import is_memory_id
from cortex_mcp.store import conversation as log
from cortex_mcp.store import exchanges
from cortex_mcp.store import memories as rows
from cortex_mcp.store import purge as erase
from cortex_mcp.store.db import Connection

logger = logging.getLogger(__name__)

LEASE_WAIT_S = 30.0
"""How long a purge waits for a lifecycle run in progress to finish."""

SCRUB_MIN_CHARS = 16
"""A purged memory's text is also scrubbed from other rows when it is at least this long
(shorter texts, "yes", would rewrite unrelated memories)."""


class PurgeReport(BaseModel):
    """What a purge erased (ids and counts; never content)."""

    purged: list[str] = Field(description="Memories deleted, with the copies of their exchange.")
    rewritten: list[str] = Field(description="Other memories the purged text was cut out of.")
    unlinked: list[str] = Field(description="Memories a purged memory had superseded; forgotten.")
    queue_entries: int
    log_entries: int = Field(description="Log snapshots replaced by a tombstone.")
    access_entries: int
    wal_truncated: bool


class PurgePreview(BaseModel):
    """What `purge --matching TEXT` would erase."""

    memories: list[dict[str, Any]] = Field(description="Memories whose content holds the text.")
    rewritten: list[str] = Field(description="Memories the text would be cut out of.")
    queue_entries: int
    log_entries: int
    access_entries: int


async def purge(rt: Runtime, memory_ids: list[str], agent_id: str | None) -> PurgeReport:
    """Erase these memories (visible to the agent; forgotten ones too) and every copy."""
    for memory_id in memory_ids:
        if not is_memory_id(memory_id):
            raise InvalidInput("memory_id", "must be a memory id (a UUID such as recall returns)")
    agent = rt.agent(agent_id)
    async with rt.db.read() as conn:
        for memory_id in memory_ids:
            if await rows.get_visible_memory(conn, memory_id, agent) is None:
                raise MemoryNotFound(memory_id)
    return await _erase(rt, memory_ids, None)


async def purge_matching(rt: Runtime, text: str) -> PurgeReport:
    """Erase every memory (any agent) whose text contains `text`, and `text` wherever else it
    is stored."""
    _check_needle(text)
    async with rt.db.read() as conn:
        ids, _ = await erase.matching_memories(conn, text)
    return await _erase(rt, ids, text)


async def preview_matching(rt: Runtime, text: str) -> PurgePreview:
    """What `purge_matching` would erase; changes nothing."""
    _check_needle(text)
    async with rt.db.read() as conn:
        ids, mentioning = await erase.matching_memories(conn, text)
        found = await rows.memories_by_id(conn, ids)
        places = await erase.places_with(conn, text)
    listed = [
        {
            "id": m.id,
            "agent_id": m.agent_id,
            "layer": m.layer.value,
            "state": "forgotten" if m.deleted_at else "superseded" if m.superseded_by else "live",
            "content": m.content[:120],
        }
        for m in found.values()
    ]
    return PurgePreview(memories=listed, rewritten=mentioning, **places)


def _check_needle(text: str) -> None:
    if len(text.strip()) < 3:
        raise InvalidInput("matching", "needs at least 3 characters")


async def _erase(rt: Runtime, memory_ids: list[str], needle: str | None) -> PurgeReport:
    """Erase under the lifecycle lease, so no run planned on the old rows (a profile made from
    a purged memory) writes the text back."""
    lease = await _take_lease(rt)
    try:
        return await _erase_holding(rt, memory_ids, needle)
    finally:
        await lease.release()


async def erase_conversation(conn: Connection, memory_ids: list[str], needle: str | None) -> int:
    """The conversation log's part of a purge: the exchanges these memories came from, the
    messages they were extracted from, and every message holding `needle`."""
    erased = 0
    for memory in (await rows.memories_by_id(conn, memory_ids)).values():
        exchange = memory.metadata.get("exchange_id")
        if isinstance(exchange, str):
            erased += await log.erase_exchange(conn, exchange)
    return erased + await log.erase_said(conn, memory_ids, needle or "")


async def _take_lease(rt: Runtime) -> Lease:
    """The lifecycle lease, waiting up to LEASE_WAIT_S for a run in progress to finish."""
    lease = Lease(rt, f"purge:{new_owner()}")
    with anyio.move_on_after(LEASE_WAIT_S):
        while True:
            try:
                await lease.take()
                return lease
            except LifecycleBusy:
                await anyio.sleep(0.2)
    raise InvalidInput("memory_id", "a lifecycle run is in progress; purge again when it ends")


async def _erase_holding(rt: Runtime, memory_ids: list[str], needle: str | None) -> PurgeReport:
    await rt.access.flush()  # recalls of these memories still buffered are erased too
    now, done = rt.clock(), erase.Erased()
    await erase.secure_delete(rt.db, True)
    try:
        async with rt.db.write() as conn:
            copies = [
                m.id for m in await exchanges.siblings(conn, memory_ids) if exchanges.is_copy(m)
            ]
            context_holders = [
                m for m in await exchanges.siblings(conn, memory_ids) if "context" in m.metadata
            ]
            targets = list(dict.fromkeys(memory_ids + copies))
            said = await erase_conversation(conn, targets, needle)
            for holder in context_holders:
                if holder.id not in targets:
                    metadata = {k: v for k, v in holder.metadata.items() if k != "context"}
                    await exchanges.set_metadata(conn, holder.id, metadata)
            texts = await erase.erase_memories(conn, targets, now, done)
            for text in [t for t in texts if len(t) >= SCRUB_MIN_CHARS] + [needle or ""]:
                if text.strip():
                    await erase.scrub_text(conn, text, done)
            await erase.tombstone(conn, targets, now)
            await erase.rebuild_text_index(conn)
            await log.optimize_log_index(conn)
        truncated = await erase.rewrite_file(rt.db)
    finally:
        await erase.secure_delete(rt.db, False)
    logger.info(
        "purge: %d memories erased, %d rewritten, %d queue entries, %d log snapshots,"
        " %d logged messages",
        len(done.memories),
        len(done.rewritten),
        done.queue_entries,
        done.log_entries,
        said,
    )
    if rt.settings.mirror.enabled:
        await write_mirror(rt)
    return PurgeReport(
        purged=done.memories,
        rewritten=done.rewritten,
        unlinked=done.unlinked,
        queue_entries=done.queue_entries,
        log_entries=done.log_entries,
        access_entries=done.access_entries,
        wal_truncated=truncated,
    )
