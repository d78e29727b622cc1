"""cortex_forget and cortex_restore: a soft delete that covers what was derived, and its undo.

Everything one ingest (or flush) stores is linked to its exchange. Forgetting a memory also
forgets the stored copies of that exchange's text (a session summary) and hides the context
other memories of the exchange carry, and the messages it was extracted from leave recall;
restoring it brings all of that back.
"""

import logging
from datetime import datetime
from typing import Any

from cortex_mcp.engine.runtime import Runtime
from cortex_mcp.errors import InvalidInput, MemoryNotFound
from cortex_mcp.models import Category, ForgetResult, Memory, is_memory_id
from cortex_mcp.store import conversation as log
from cortex_mcp.store import exchanges
from cortex_mcp.store import memories as rows
from cortex_mcp.store.db import Connection
from cortex_mcp.store.logs import log_action

logger = logging.getLogger(__name__)


async def visible(conn: Any, memory_id: str, agent_id: str) -> Memory:
    """The memory if the agent may see it; InvalidInput or MemoryNotFound otherwise."""
    if not is_memory_id(memory_id):
        raise InvalidInput("memory_id", "must be a memory id (a UUID such as those recall returns)")
    memory = await rows.get_visible_memory(conn, memory_id, agent_id)
    if memory is None:
        raise MemoryNotFound(memory_id)
    return memory


async def owners(rt: Runtime, ids: list[str]) -> dict[str, str | None]:
    """The agent owning each memory or logged exchange these ids name (None: shared memory);
    ids that name nothing are absent."""
    async with rt.db.read() as conn:
        found = await rows.memories_by_id(conn, ids)
        logged = await log.exchange_owners(conn, [i for i in ids if i not in found])
    owned: dict[str, str | None] = {i: m.agent_id for i, m in found.items()}
    return owned | logged


async def own_exchange(conn: Connection, exchange_id: str, agent: str) -> bool:
    """True when `exchange_id` names an exchange logged for this agent (and no memory it
    sees: an id is looked up as a memory first)."""
    if not is_memory_id(exchange_id):
        return False
    if await rows.get_visible_memory(conn, exchange_id, agent) is not None:
        return False
    return (await log.exchange_owners(conn, [exchange_id])).get(exchange_id) == agent


async def forget(rt: Runtime, memory_id: str, reason: str | None, agent: str) -> ForgetResult:
    """Soft-delete a memory, or hide a logged exchange (its id from recall's conversation):
    it leaves recall, and cortex_restore brings it back."""
    async with rt.db.write() as conn:
        if await own_exchange(conn, memory_id, agent):
            hidden = await log.hide_exchange(conn, memory_id, rt.clock())
            if not hidden:
                raise InvalidInput("memory_id", "is already forgotten; cortex_restore undoes that")
            await log_action(conn, "forget_exchange", [], {"exchange_id": memory_id}, rt.clock())
            return ForgetResult(memory_id=memory_id, deleted=True, reason=reason, messages=hidden)
        memory = await visible(conn, memory_id, agent)
        if memory.deleted_at is not None:
            raise InvalidInput("memory_id", "is already forgotten; cortex_restore undoes that")
        now = rt.clock()
        await rows.set_deleted(conn, memory.id, now, reason)
        derived = await forget_derived(conn, memory, now, reason)
        await hide_said(conn, memory, now)
        details = {"reason": reason} | ({"derived": derived} if derived else {})
        await log_action(conn, "forget", [memory.id, *derived], details, now)
    logger.debug("forget: %s with %d copies of its exchange", memory.id, len(derived))
    return ForgetResult(memory_id=memory.id, deleted=True, reason=reason, derived=derived)


async def restore(rt: Runtime, memory_id: str, agent: str) -> tuple[ForgetResult, Category]:
    """Undo a forget, or a supersede: the memory is live again (the one that replaced it stays
    live too); with the memory's category, which may concern the profile."""
    async with rt.db.write() as conn:
        if await own_exchange(conn, memory_id, agent):
            shown = await log.unhide_whole_exchange(conn, memory_id)
            if not shown:
                raise InvalidInput("memory_id", "is not forgotten; there is nothing to restore")
            await log_action(conn, "restore_exchange", [], {"exchange_id": memory_id}, rt.clock())
            result = ForgetResult(memory_id=memory_id, deleted=False, messages=shown)
            return result, Category.CONTEXT
        memory = await visible(conn, memory_id, agent)
        now = rt.clock()
        derived: list[str] = []
        if memory.deleted_at is not None:
            await rows.set_deleted(conn, memory.id, None, None)
            derived = await restore_derived(conn, memory)
            await unhide_said(conn, memory, memory.deleted_at)
            await log_action(conn, "restore", [memory.id, *derived], {}, now)
            reason = None
        elif memory.superseded_by is not None:
            await rows.clear_superseded(conn, memory.id, now)
            details = {"was_superseded_by": memory.superseded_by}
            await log_action(conn, "restore_superseded", [memory.id], details, now)
            reason = f"was superseded by {memory.superseded_by}"
        else:
            raise InvalidInput(
                "memory_id", "is neither forgotten nor superseded; there is nothing to restore"
            )
    result = ForgetResult(memory_id=memory.id, deleted=False, reason=reason, derived=derived)
    return result, memory.category


async def forget_derived(
    conn: Connection, memory: Memory, now: datetime, reason: str | None
) -> list[str]:
    """Forget the stored copies of `memory`'s exchange (unless it is one itself) and hide the
    context (the exchange's words) other memories of it carry; the ids of the copies forgotten."""
    forgotten = []
    for sibling in await exchanges.siblings(conn, [memory.id]):
        metadata = dict(sibling.metadata)
        hidden = list(metadata.get("context_hidden_by", []))
        if "context" in metadata and memory.id not in hidden:
            metadata["context_hidden_by"] = [*hidden, memory.id]
        if (
            exchanges.is_copy(sibling)
            and sibling.deleted_at is None
            and not exchanges.is_copy(memory)
        ):
            await rows.set_deleted(conn, sibling.id, now, reason)
            metadata |= {"forget_reason": reason, "forgotten_with": memory.id}
            forgotten.append(sibling.id)
        if metadata != sibling.metadata:
            await exchanges.set_metadata(conn, sibling.id, metadata)
    return forgotten


async def restore_derived(conn: Connection, memory: Memory) -> list[str]:
    """Undo `forget_derived`: the copies forgotten with `memory` come back, and so does the
    context it hid; the ids of the copies restored."""
    restored = []
    for sibling in await exchanges.siblings(conn, [memory.id]):
        metadata = dict(sibling.metadata)
        if metadata.get("forgotten_with") == memory.id:
            await rows.set_deleted(conn, sibling.id, None, None)
            metadata = {k: v for k, v in metadata.items() if k != "forgotten_with"}
            metadata["forget_reason"] = None
            restored.append(sibling.id)
        hidden = [i for i in metadata.pop("context_hidden_by", []) if i != memory.id]
        if hidden:
            metadata["context_hidden_by"] = hidden
        if metadata != sibling.metadata:
            await exchanges.set_metadata(conn, sibling.id, metadata)
    return restored


async def hide_said(conn: Connection, memory: Memory, now: datetime) -> None:
    """Hide the messages a memory was extracted from, and its whole exchange when that was
    one ingest (a forget)."""
    await log.hide_messages_of(conn, memory.id, now)
    exchange = memory.metadata.get("exchange_id")
    if isinstance(exchange, str) and await log.exchange_origin(conn, exchange) == "ingest":
        await log.hide_exchange(conn, exchange, now)


async def unhide_said(conn: Connection, memory: Memory, hidden_at: datetime) -> None:
    """Show again what `hide_said` hid for this memory at `hidden_at` (a restore)."""
    await log.unhide_messages_of(conn, memory.id, hidden_at)
    exchange = memory.metadata.get("exchange_id")
    if isinstance(exchange, str):
        await log.unhide_exchange(conn, exchange, hidden_at)
