"""Purge erases the bytes: only an explicit request does this, never the lifecycle.

Purge hard-deletes a memory with the stored copies of its exchange, the queue entry, vectors,
cached embeddings, full-text rows and log snapshots (leaving a tombstone), scrubs its text from
other rows, erases the conversation log's messages of the exchange it came from (any of them may
hold the text in other words), a logged exchange named by its id, and every message holding the
text asked for, matched ignoring case like every other table (a preview counts these messages
with the same code), zeroes freed pages and truncates the WAL, then rewrites the Markdown mirror
and scrubs the text from the backups of edited pages. Edits of the mirror's pages not kept yet
are kept before the erase, so no mirror write after it takes a page holding the text for an
edit. The erase is done once the database is: a mirror that cannot be rewritten then (a full
disk) has the pages holding the text removed, and the report says so in `note`; they are
written again at the next start.

A profile that merely mentions the text is rewritten (the text cut out), never erased: it holds
the user's own words beside what was synthesized.
"""

import logging
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.to_thread
from pydantic import BaseModel, Field

from cortex_mcp.engine.lease import Lease, LifecycleBusy, new_owner
from cortex_mcp.engine.mirror.ownership import drop_pages_holding, pages_holding, scrub_backups
from cortex_mcp.engine.mirror.write import write_mirror
from cortex_mcp.engine.runtime import Runtime
from cortex_mcp.errors import CortexError, InvalidInput, MemoryNotFound
from cortex_mcp.models import Category, Memory, is_memory_id
from cortex_mcp.store import conversation as log
from cortex_mcp.store import exchanges
from cortex_mcp.store import memories as rows
from cortex_mcp.store import purge as erase
from cortex_mcp.store import purge_text as finding
from cortex_mcp.store.db import Connection
from cortex_mcp.store.meta import mark_purged

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
    messages: int = Field(default=0, description="Messages of the conversation log erased.")
    backups: int = Field(default=0, description="Backups of edited pages the text was cut out of.")
    note: str | None = Field(default=None, description="What did not stop the erase (one line).")


class PurgePreview(BaseModel):
    """What `purge --matching TEXT` would erase."""

    memories: list[dict[str, Any]] = Field(description="Memories whose content holds the text.")
    rewritten: list[str] = Field(description="Memories the text would be cut out of.")
    queue_entries: int
    log_entries: int
    access_entries: int
    messages: int = Field(default=0, description="Messages of the conversation log to erase.")
    note: str | None = Field(
        default=None, description="How many of those messages do not hold the text."
    )


@dataclass(frozen=True)
class Targets:
    """What one purge erases: memories, logged exchanges, and every message holding a text
    (of one agent, or of all for None)."""

    memory_ids: list[str]
    exchanges: list[str] = field(default_factory=list)
    needle: str | None = None
    agent: str | None = None


async def purge(rt: Runtime, ids: list[str], agent_id: str | None) -> PurgeReport:
    """Erase these memories (visible to the agent; forgotten ones too) or logged exchanges
    (the agent's), and every copy."""
    return await _erase(rt, await _targets_named(rt, ids, agent_id))


async def preview_messages(rt: Runtime, ids: list[str], agent_id: str | None) -> int:
    """How many logged messages `purge` of these ids would erase; changes nothing."""
    targets = await _targets_named(rt, ids, agent_id)
    async with rt.db.read() as conn:
        purged = with_copies(targets.memory_ids, await exchanges.siblings(conn, targets.memory_ids))
        return len(await messages_taken(conn, purged, targets))


async def _targets_named(rt: Runtime, ids: list[str], agent_id: str | None) -> Targets:
    """The memories and logged exchanges these ids name (MemoryNotFound for any other)."""
    for memory_id in ids:
        if not is_memory_id(memory_id):
            raise InvalidInput("memory_id", "must be a memory id (a UUID such as recall returns)")
    agent = rt.agent(agent_id)
    memory_ids, exchange_ids = [], []
    async with rt.db.read() as conn:
        owners = await log.exchange_owners(conn, ids)
        for memory_id in ids:
            if await rows.get_visible_memory(conn, memory_id, agent) is not None:
                memory_ids.append(memory_id)
            elif owners.get(memory_id) == agent:
                exchange_ids.append(memory_id)
            else:
                raise MemoryNotFound(memory_id)
    return Targets(memory_ids, exchange_ids)


async def purge_matching(rt: Runtime, text: str, agent: str | None = None) -> PurgeReport:
    """Erase every memory (any agent, or `agent`'s) whose text contains `text` ignoring case
    and spacing, every logged message holding it, and `text` (in every form found) wherever
    else it is stored."""
    _check_needle(text)
    async with rt.db.read() as conn:
        ids = await _erasable(conn, text, agent)
    pending = await nothing_stored(rt, text, erasing=True)  # before the purge takes it out
    report = await _erase(rt, Targets(ids, [], text, agent))
    if report.purged or report.rewritten or report.messages:
        return report
    return report.model_copy(update={"note": report.note or pending})


NOTHING_MATCHED = (
    "no memory or logged message holds this text (matched ignoring case and spacing):"
    " nothing to forget"
)
"""The note of a forget or purge by text that found nothing."""


async def nothing_stored(rt: Runtime, text: str, erasing: bool) -> str:
    """The note of a forget or purge by `text` that found nothing stored: it says so, or names
    the mirror's pages whose hand edit, not kept yet, holds the text (it would become a memory
    when kept; a purge takes those lines out first)."""
    pages = await anyio.to_thread.run_sync(pages_holding, rt.settings.home, [text])
    if not pages:
        return NOTHING_MATCHED
    held = f"no memory or logged message holds this text yet, but a hand edit of {', '.join(pages)}"
    if erasing:
        return f"{held} does: the purge takes those lines out of it"
    return f"{held} does, and becomes memory when kept: purge to take those lines out"


async def _erasable(conn: Connection, text: str, agent: str | None) -> list[str]:
    """The memories holding `text` that a purge erases: all but profiles (rewritten)."""
    ids, _ = await finding.matching_memories(conn, text, agent)
    found = await rows.memories_by_id(conn, ids)
    return [i for i in ids if i in found and found[i].category != Category.PROFILE]


async def preview_matching(rt: Runtime, text: str, agent: str | None = None) -> PurgePreview:
    """What `purge_matching` would erase; changes nothing."""
    _check_needle(text)
    async with rt.db.read() as conn:
        ids = await _erasable(conn, text, agent)
        every, mentioning = await finding.matching_memories(conn, text, agent)
        found = await rows.memories_by_id(conn, ids)
        places = await finding.places_with(conn, await needle_forms(conn, text, agent))
        taken, holding = await messages_matching(conn, text, agent)
    mentioning += [i for i in every if i not in ids]
    pending = "" if ids or taken or mentioning else await nothing_stored(rt, text, erasing=True)
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
    return PurgePreview(
        memories=listed,
        rewritten=mentioning,
        messages=len(taken),
        note=pending or messages_note(taken, holding),
        **places,
    )


async def messages_matching(
    conn: Connection, text: str, agent: str | None
) -> tuple[list[int], list[int]]:
    """The logged messages a purge by `text` erases, and those of them holding the text."""
    ids = await _erasable(conn, text, agent)
    purged = with_copies(ids, await exchanges.siblings(conn, ids))
    taken = await messages_taken(conn, purged, Targets(ids, [], text, agent))
    holding = set(await finding.matching_messages(conn, text, agent))
    return taken, [seq for seq in taken if seq in holding]


def messages_note(taken: list[int], holding: list[int]) -> str | None:
    """A preview's word on the messages erased without holding the text (none: None)."""
    others = len(taken) - len(holding)
    if not others:
        return None
    return (
        f"{others} of the {len(taken)} messages do not hold the text: they are of the exchange"
        " a memory holding it came from, erased with it"
    )


async def needle_forms(conn: Connection, needle: str | None, agent: str | None) -> list[str]:
    """The needle of a purge by text and each form the store holds it in (its spacing and
    case there: a newline where the page shows a space); none without a needle."""
    if needle is None:
        return []
    return list(dict.fromkeys([needle, *await finding.stored_forms(conn, needle, agent)]))


def _check_needle(text: str) -> None:
    if len(text.strip()) < 3:
        raise InvalidInput("matching", "needs at least 3 characters")


async def _erase(rt: Runtime, targets: Targets) -> PurgeReport:
    """Erase under the lifecycle lease, so no run planned on the old rows (a profile made from
    a purged memory) writes the text back."""
    lease = await _take_lease(rt)
    try:
        return await _erase_holding(rt, targets)
    finally:
        await lease.release()


def with_copies(memory_ids: list[str], siblings: list[Memory]) -> list[str]:
    """These memories and, of their exchanges' other memories (`siblings`), the stored copies
    of the exchange: the memories a purge of them erases."""
    copies = [m.id for m in siblings if exchanges.is_copy(m)]
    return list(dict.fromkeys(memory_ids + copies))


async def messages_taken(conn: Connection, memory_ids: list[str], targets: Targets) -> list[int]:
    """The conversation log's part of a purge of these memories (copies included): the
    messages of the exchanges they came from, the messages they were extracted from, the
    exchanges named, and every message holding the needle (ignoring case and spacing). The
    preview counts this list and the erase erases it, so the two cannot differ."""
    named = list(targets.exchanges)
    for memory in (await rows.memories_by_id(conn, memory_ids)).values():
        exchange = memory.metadata.get("exchange_id")
        if isinstance(exchange, str):
            named.append(exchange)
    seqs = await log.exchange_seqs(conn, list(dict.fromkeys(named)))
    seqs += await log.said_by(conn, memory_ids)
    if targets.needle:
        seqs += await finding.matching_messages(conn, targets.needle, targets.agent)
    return sorted(set(seqs))


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


async def _erase_holding(rt: Runtime, targets: Targets) -> PurgeReport:
    await rt.access.flush()  # recalls of these memories still buffered are erased too
    async with rt.db.read() as conn:
        targeted = await rows.memories_by_id(conn, targets.memory_ids)
        needles = await needle_forms(conn, targets.needle, targets.agent)
    erasing = [m.content for m in targeted.values()] + needles
    await keep_pending_edits(rt, [t for t in erasing if t.strip()])
    now, done = rt.clock(), erase.Erased()
    await erase.secure_delete(rt.db, True)
    try:
        async with rt.db.write() as conn:
            needles += await needle_forms(conn, targets.needle, targets.agent)
            siblings = await exchanges.siblings(conn, targets.memory_ids)
            context_holders = [m for m in siblings if "context" in m.metadata]
            ids = with_copies(targets.memory_ids, siblings)
            said = await log.erase_messages(conn, await messages_taken(conn, ids, targets))
            for holder in context_holders:
                if holder.id not in ids:
                    metadata = {k: v for k, v in holder.metadata.items() if k != "context"}
                    await exchanges.set_metadata(conn, holder.id, metadata)
            texts = await erase.erase_memories(conn, ids, now, done)
            scrubbed = [t for t in texts if len(t) >= SCRUB_MIN_CHARS] + needles
            for text in dict.fromkeys(scrubbed):
                if text.strip():
                    await erase.scrub_text(conn, text, done, targets.agent)
            await erase.tombstone(conn, ids, now)
            await mark_purged(conn)  # a mirror write under way renders again (PostgreSQL)
            await erase.rebuild_text_index(conn)
            await log.optimize_log_index(conn)
        truncated = await erase.rewrite_file(rt.db)
    finally:
        await erase.secure_delete(rt.db, False)
    logger.info(
        "purge: %d memories erased, %d rewritten, %d queue entries, %d log snapshots,"
        " %d logged messages",
        *(len(done.memories), len(done.rewritten), done.queue_entries, done.log_entries, said),
    )
    copies_left = [t for t in texts if t.strip()] + needles
    backups, note = await erase_copies(rt, copies_left)
    return PurgeReport(
        purged=done.memories,
        rewritten=done.rewritten,
        unlinked=done.unlinked,
        queue_entries=done.queue_entries,
        log_entries=done.log_entries,
        access_entries=done.access_entries,
        wal_truncated=truncated,
        messages=said,
        backups=backups,
        note=note,
    )


async def keep_pending_edits(rt: Runtime, texts: list[str]) -> None:
    """Before the erase, keep the edits of the mirror's pages not kept yet, but their lines
    holding one of `texts` (what the purge erases): the pages are then cortex's own, so no
    mirror write after the erase (this process's, another server's) takes them for edits and
    imports the purged line back. A mirror that cannot be written now is written after the
    erase, with the purged lines left out of any edit it keeps."""
    if rt.settings.mirror.enabled:
        try:
            await write_mirror(rt, archive=False, purged=texts)
        except (OSError, CortexError) as error:
            logger.warning("purge: the mirror's edits could not be kept first: %s", error)


async def erase_copies(rt: Runtime, texts: list[str]) -> tuple[int, str | None]:
    """The copies cortex made outside the database: the mirror is rewritten (when it cannot
    be, or it is off now but wrote pages before, its pages holding the text are removed) and
    the text is cut out of the backups of edited pages. (backups rewritten, a note of what
    could not be done: the erase itself is done)"""
    home, notes = rt.settings.home, []
    cause = None
    if rt.settings.mirror.enabled:
        try:
            await write_mirror(rt, purged=texts)
        except (OSError, CortexError) as error:
            cause = str(error).splitlines()[0] if str(error) else type(error).__name__
            cause = f"the Markdown mirror could not be rewritten ({cause})"
    if cause is not None or not rt.settings.mirror.enabled:
        try:
            dropped = await anyio.to_thread.run_sync(drop_pages_holding, home, texts)
            if cause is not None or dropped:
                notes.append(
                    f"{cause or 'the Markdown mirror is off'}: {dropped} page(s)"
                    " holding the text removed"
                )
        except OSError as error:
            notes.append(
                f"{cause or 'the Markdown mirror is off'}; pages holding the text could"
                f" not be removed ({error.strerror or type(error).__name__})"
            )
    try:
        backups = await anyio.to_thread.run_sync(scrub_backups, home, texts)
    except OSError as error:
        backups = 0
        notes.append(f"the backups of edited pages could not be rewritten ({error.strerror})")
    note = f"erased; {'; '.join(notes)}" if notes else None
    if note:
        logger.warning("purge: %s", note)
    return backups, note
