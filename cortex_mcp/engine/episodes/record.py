"""Write a session's episode: one memory per agent and session, built from everything the
session logged, rewritten (not duplicated) each time the session flushes or ends.

The episode is a working memory of category `context` whose one line is what recall shows;
its parts (goal, outcome, tools, action nodes, linked memories, start and end) are in its
metadata, so search, recall, decay, archive, forget, purge and export cover it like any other
memory. A forgotten episode stays forgotten: later flushes of its session leave it alone.

A session without a single tool call is no episode: a chat has no goal worked towards or tool
chain to keep, and its one line (its first request, its last result) only took a place from the
messages and memories that answer (LoCoMo dev, flush path, BM25: conv-26 recall@10 0.679 with
no episodes, 0.631 with one per chat session).
"""

from dataclasses import dataclass
from datetime import datetime, timedelta

from cortex_mcp.engine.episodes.parts import Parts, Said, parts_of
from cortex_mcp.engine.episodes.told import told_parts
from cortex_mcp.engine.runtime import Runtime
from cortex_mcp.models import Category, Layer, Memory, StoredMemory, new_memory_id
from cortex_mcp.store import episodes as rows
from cortex_mcp.store.memories import get_memory

MAX_MESSAGES = 2000
"""An episode reads at most this many messages of its session (the first ones)."""
IMPORTANCE = 0.5
KIND = "episode"


@dataclass(frozen=True)
class Session:
    """The session an episode is about: its agent, its id (or, for a flush without one, the
    flush's exchange), its project, why it was written, and when what it was written from was
    said (an imported session's last message; None: now)."""

    agent_id: str
    session_id: str | None
    exchange_id: str
    project: str | None
    reason: str
    said_at: datetime | None = None

    @property
    def key(self) -> str:
        """The session's key in the episodes table."""
        return self.session_id or f"exchange:{self.exchange_id}"


async def record_episode(rt: Runtime, session: Session) -> StoredMemory | None:
    """Write or rewrite the session's episode; None when the session ran no tool, or its
    episode was forgotten."""
    async with rt.db.read() as conn:
        if session.session_id:
            logged = await rows.session_messages(
                conn, session.agent_id, session.session_id, MAX_MESSAGES
            )
        else:
            logged = await rows.exchange_messages(conn, session.agent_id, session.exchange_id)
        known = await rows.episode_of(conn, session.agent_id, session.key)
        before = await get_memory(conn, known.memory_id) if known else None
    if not logged or (before is not None and before.deleted_at is not None):
        return None
    said = [Said(m.role, m.content, m.created_at, m.memory_ids) for m in logged]
    parts = parts_of(said)
    if not parts.actions:
        return None  # talk without work: the log and the memories extracted from it say it
    if rt.llm.available:
        parts = await told_parts(rt.llm.complete, said, parts) or parts
    async with rt.db.write() as conn:
        known = await rows.episode_of(conn, session.agent_id, session.key)
        before = await get_memory(conn, known.memory_id) if known else None
        if before is not None and before.deleted_at is not None:
            return None
        memory = _memory(rt, session, parts, before)
        row = rows.EpisodeRow(
            memory.id, session.agent_id, session.key, session.project, *_span(parts)
        )
        if before is None:
            await rows.insert_episode(conn, memory, row)
        else:
            await rows.update_episode(conn, memory, row, memory.expires_at)
    return StoredMemory(
        action="created" if before is None else "updated",
        id=memory.id,
        layer=memory.layer,
        category=memory.category,
        content=memory.content,
        importance=memory.importance,
        source=memory.source,
        channel=KIND,
    )


def _span(parts: Parts) -> tuple[datetime, datetime]:
    return parts.started_at, parts.ended_at


def _memory(rt: Runtime, session: Session, parts: Parts, before: Memory | None) -> Memory:
    """The episode's memory: new, or the one it had with new text and parts, as of when the
    session said it."""
    now = session.said_at or rt.clock()
    metadata = {
        "channel": KIND,
        "kind": KIND,
        "session_id": session.key,
        "reason": session.reason,
        "summary_by": parts.summary_by,
        "context": parts.context(),
        KIND: parts.as_json(),
    }
    if session.project:
        metadata["project"] = session.project
    content = parts.line()[: rt.settings.memory.max_content_chars]
    expires = now + timedelta(hours=rt.settings.sieve.working_ttl_hours)
    if before is not None:
        kept = {k: v for k, v in before.metadata.items() if k not in metadata}
        return before.model_copy(
            update={
                "content": content,
                "metadata": kept | metadata,
                "updated_at": now,
                "expires_at": expires if before.layer == Layer.WORKING else before.expires_at,
            }
        )
    return Memory.fresh(
        id=new_memory_id(int(now.timestamp() * 1000)),
        agent_id=session.agent_id,
        layer=Layer.WORKING,
        category=Category.CONTEXT,
        content=content,
        source="both",
        importance=IMPORTANCE,
        now=now,
        expires_at=expires,
        metadata=metadata,
    )
