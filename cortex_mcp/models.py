"""The nouns of cortex-mcp: layers, categories, memories and the results that cross the wire."""

import hashlib
import os
import uuid
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field

SHARED_SCOPE = "shared"
"""Scope of a memory every agent can see; the default scope, "agent", keeps it to its agent."""


class Layer(StrEnum):
    """Short-term (working), long-term (core) or faded (archive)."""

    WORKING = "working"
    CORE = "core"
    ARCHIVE = "archive"


class Category(StrEnum):
    """What kind of thing a memory says."""

    IDENTITY = "identity"
    PREFERENCE = "preference"
    RULE = "rule"
    DECISION = "decision"
    FACT = "fact"
    INSIGHT = "insight"
    TODO = "todo"
    CORRECTION = "correction"
    SKILL = "skill"
    RELATIONSHIP = "relationship"
    PROJECT_STATE = "project_state"
    CONTEXT = "context"
    SUMMARY = "summary"
    PROFILE = "profile"


def new_memory_id(unix_ms: int, rand: int | None = None) -> str:
    """A UUIDv7: 48 bits of milliseconds, then 74 bits of `rand` (random by default), so ids
    sort by creation time."""
    rand = int.from_bytes(os.urandom(10), "big") if rand is None else rand
    value = (unix_ms & ((1 << 48) - 1)) << 80
    value |= 0x7 << 76  # version 7
    value |= ((rand >> 62) & 0xFFF) << 64  # rand_a, 12 bits
    value |= 0b10 << 62  # RFC 4122 variant
    value |= rand & ((1 << 62) - 1)  # rand_b, 62 bits
    return str(uuid.UUID(int=value))


def derived_id(now: datetime, *parts: str) -> str:
    """A UUIDv7 for a row derived from what it is made of (the lifecycle's rows, imported
    ones), so a preview and the run that follows name it alike."""
    digest = int.from_bytes(hashlib.sha256("\x1f".join(parts).encode()).digest()[:10], "big")
    return new_memory_id(int(now.timestamp() * 1000), digest)


def is_memory_id(text: str) -> bool:
    """True when `text` is a well-formed UUID, the only shape a memory id takes."""
    try:
        uuid.UUID(text)
    except ValueError:
        return False
    return len(text) == 36


class Memory(BaseModel):
    """One memory, as stored."""

    id: str
    agent_id: str | None = Field(description="Owning agent; null when shared with every agent.")
    layer: Layer
    category: Category
    content: str
    source: str
    importance: float
    confidence: float
    decay_score: float
    access_count: int
    last_accessed: datetime | None
    created_at: datetime
    updated_at: datetime
    expires_at: datetime | None
    superseded_by: str | None
    deleted_at: datetime | None
    metadata: dict[str, Any]

    @classmethod
    def fresh(
        cls,
        *,
        id: str,
        agent_id: str | None,
        layer: Layer,
        category: Category,
        content: str,
        source: str,
        importance: float,
        now: datetime,
        confidence: float = 0.8,
        created_at: datetime | None = None,
        expires_at: datetime | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> "Memory":
        """A memory as first written: never recalled, not superseded, not forgotten."""
        return cls(
            id=id,
            agent_id=agent_id,
            layer=layer,
            category=category,
            content=content,
            source=source,
            importance=importance,
            confidence=confidence,
            decay_score=1.0,
            access_count=0,
            last_accessed=None,
            created_at=created_at or now,
            updated_at=now,
            expires_at=expires_at,
            superseded_by=None,
            deleted_at=None,
            metadata=metadata or {},
        )


class ScoreBreakdown(BaseModel):
    """Every factor of one candidate's score, so a ranking can be explained."""

    bm25: float | None = Field(description="Raw FTS5 bm25(); lower is better. Null: no text match.")
    text_score: float = Field(description="bm25 normalised to [0, 1] over this query's candidates.")
    vector_distance: float | None = None
    vector_score: float = 0.0
    fused_score: float
    date_boost: float = Field(
        default=1.0, description="Above 1 when the memory was made on a day the query names."
    )
    layer_weight: float
    recency_boost: float
    access_boost: float
    final_score: float


@dataclass(frozen=True, slots=True)
class Candidate:
    """What ranking needs of a memory a backend found; the full memory is read only for the
    few that are kept (recall builds a hundred or more candidates per query)."""

    id: str
    layer: Layer
    created_at: datetime
    updated_at: datetime
    access_count: int
    content_key: str


class SearchHit(BaseModel):
    """A memory that matched a query, with its rank and why."""

    rank: int
    memory: Memory
    score: ScoreBreakdown


class RecallItem(BaseModel):
    """A recalled memory as an agent needs it: short, with the id to act on it."""

    id: str
    layer: Layer
    category: Category
    content: str
    importance: float
    score: float
    created_at: datetime
    slot_answer: bool = False
    """True when it answers the slot the query asks about ("what's my name?" → the name):
    ranked first whatever words it shares with the query."""


class LogHit(BaseModel):
    """A message of the conversation log that recall fell back on: verbatim, not a memory."""

    exchange_id: str
    role: str
    content: str
    session_id: str | None
    created_at: datetime
    score: float
    question: bool = False
    """True when the message only asks (every sentence a question): a past question says what
    was asked, not the answer (the prompt hook leaves it out)."""
    cosine: float | None = Field(default=None, exclude=True)
    """Its vector's cosine similarity to the query's, when a vector found it (for the relevance
    floor; not part of the answer)."""


class RecallResult(BaseModel):
    """What cortex_recall returns: a context block ready to inject, the memories in it, and
    (as a last resort) messages of the conversation log that add to them."""

    context: str
    memories: list[RecallItem]
    total_candidates: int
    tokens_used: int
    conversation: list[LogHit] = Field(default_factory=list)


class RememberResult(BaseModel):
    """What cortex_remember did: stored a new memory, or reinforced or superseded one."""

    action: str = Field(description="created | duplicate | superseded")
    id: str
    layer: Layer
    category: Category
    content: str
    importance: float
    superseded_id: str | None = None

    @classmethod
    def of(cls, action: str, memory: Memory, superseded_id: str | None = None) -> "RememberResult":
        """The result for `memory` after `action`."""
        return cls(
            action=action,
            id=memory.id,
            layer=memory.layer,
            category=memory.category,
            content=memory.content,
            importance=memory.importance,
            superseded_id=superseded_id,
        )


class ForgetResult(BaseModel):
    """What cortex_forget or cortex_restore changed."""

    memory_id: str
    deleted: bool
    reason: str | None = None
    derived: list[str] = Field(default_factory=list)
    """Stored copies of the same exchange forgotten, restored or purged with it."""
    messages: int = 0
    """Messages of the conversation log forgotten, restored or erased with it."""
    note: str | None = None
    """Something the caller should know that did not stop the change (one line)."""


class BackendTiming(BaseModel):
    """One search backend's answer to a query."""

    name: str
    available: bool
    candidates: int
    elapsed_ms: float
    note: str | None = None


class SearchDebug(BaseModel):
    """Everything cortex_search_debug shows: tokens, backends and every candidate's score."""

    query: str
    terms: list[str]
    match_expression: str | None
    backends: list[BackendTiming]
    candidates: list[SearchHit]


class StoredMemory(BaseModel):
    """One memory the sieve wrote or touched, with what it did and where it came from."""

    action: str = Field(description="created | duplicate | superseded")
    id: str
    layer: Layer
    category: Category
    content: str
    importance: float
    source: str = Field(description="user | assistant | both")
    channel: str = Field(description="fast | deep | flush | summary | retry")
    superseded_id: str | None = None


class IngestResult(BaseModel):
    """What cortex_ingest stored, per channel."""

    fast: list[StoredMemory]
    deep: list[StoredMemory]
    logged: int = Field(default=0, description="Messages kept verbatim in the conversation log.")
    queued: bool = Field(
        default=False,
        description="The deep channel (LLM) extracts later, in the background, from the log.",
    )
    skipped: str | None = Field(default=None, description="Why the deep channel did not run.")
    redacted: list[str] = Field(default_factory=list, description="Kinds of secrets removed.")
    note: str | None = Field(default=None, description="A request to the calling agent.")


class FlushResult(BaseModel):
    """What cortex_flush did with every message it was given."""

    messages: int
    batches: int
    extracted_messages: int
    queued_messages: int
    logged_messages: int = 0
    already_logged: int = 0  # messages this session had flushed before: logged once (#26)
    memories: list[StoredMemory]
    summary: StoredMemory | None  # the session's episode (#26)
    redacted: list[str] = Field(default_factory=list)
