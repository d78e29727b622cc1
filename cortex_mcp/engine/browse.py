"""The memory browser's use cases: pages, one memory in full, edits, rankings side by side,
the relation graph and the numbers for its charts. Every read is scoped to one agent."""

import base64
import binascii
import json
import re
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from cortex_mcp.clock import to_text
from cortex_mcp.engine.forget import visible
from cortex_mcp.engine.ingest.proposal import check_content
from cortex_mcp.engine.language.redaction import Cleaner
from cortex_mcp.engine.lifecycle import lifecycle_status
from cortex_mcp.engine.lifecycle.profile import manual_part
from cortex_mcp.engine.recall import search_debug
from cortex_mcp.engine.runtime import Runtime
from cortex_mcp.engine.views import unforgotten
from cortex_mcp.errors import InvalidInput
from cortex_mcp.models import Category, Layer, Memory, SearchHit
from cortex_mcp.store import conversation as said
from cortex_mcp.store import lifecycle as cycles
from cortex_mcp.store import memories as rows
from cortex_mcp.store import pages
from cortex_mcp.store import relations as graph_rows
from cortex_mcp.store.logs import log_action

DATE = re.compile(r"^\d{4}-\d{2}-\d{2}(T[0-9:.]+(Z|[+-]\d{2}:\d{2})?)?$")
GRAPH_EDGES = 300
CHART_DAYS = 30


MAX_ROW = 2**63 - 1
"""The largest row number either engine stores (a signed 64-bit integer)."""


def encode_cursor(cursor: pages.Cursor | None) -> str | None:
    """A page cursor as an opaque URL-safe string."""
    if cursor is None:
        return None
    raw = json.dumps([cursor.key, cursor.seq]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(text: str | None, sort: str = "newest") -> pages.Cursor | None:
    """The cursor a page in `sort` order returned, or InvalidInput("cursor", …) for anything
    else (a crafted one: a key of the wrong kind for the sort, a row number out of range)."""
    if not text:
        return None
    wrong = InvalidInput("cursor", "must be the next_cursor a page returned")
    try:
        key, seq = json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
    except (ValueError, TypeError, binascii.Error) as err:
        raise wrong from err
    if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq <= MAX_ROW:
        raise wrong
    by_importance = sort == "importance"
    if by_importance and (isinstance(key, bool) or not isinstance(key, int | float)):
        raise wrong
    if by_importance and not 0 <= float(key) <= 1:
        raise wrong
    if not by_importance and not (isinstance(key, str) and DATE.match(key)):
        raise wrong
    return pages.Cursor(key, seq)


def check_date(field: str, value: str | None) -> str | None:
    """An ISO date (YYYY-MM-DD) or date-time, as given; InvalidInput otherwise."""
    if value is not None and not DATE.match(value):
        raise InvalidInput(field, "must be an ISO date such as 2026-03-01")
    return value


def row_of(memory: Memory) -> dict[str, Any]:
    """A memory as one table row of the browser."""
    return {
        "id": memory.id,
        "layer": memory.layer.value,
        "category": memory.category.value,
        "content": memory.content,
        "importance": memory.importance,
        "agent_id": memory.agent_id,
        "tags": memory.metadata.get("tags", []),
        "created_at": to_text(memory.created_at),
        "updated_at": to_text(memory.updated_at),
        "access_count": memory.access_count,
        "state": state_of(memory),
    }


def state_of(memory: Memory) -> str:
    """live, forgotten or superseded."""
    if memory.deleted_at is not None:
        return "forgotten"
    return "superseded" if memory.superseded_by else "live"


async def memory_page(
    rt: Runtime,
    where: pages.PageFilter,
    *,
    sort: str,
    cursor: str | None,
    limit: int,
) -> dict[str, Any]:
    """One page of memories and the cursor of the next."""
    check_date("since", where.since)
    check_date("until", where.until)
    after = decode_cursor(cursor, sort)
    async with rt.db.read() as conn:
        found, following = await pages.page_of_memories(conn, where, sort, after, limit)
    return {"memories": [row_of(m) for m in found], "next_cursor": encode_cursor(following)}


async def memory_detail(rt: Runtime, memory_id: str, agent_id: str) -> dict[str, Any]:
    """A memory with its metadata, its supersede chain and the relations drawn from it."""
    await rt.access.flush_before_read()
    async with rt.db.read() as conn:
        memory = await visible(conn, memory_id, agent_id)
        chain = await rows.supersede_chain(conn, memory.id)
        related = await graph_rows.relations_of(conn, agent_id)
    return {
        "memory": {**row_of(memory), **memory.model_dump(mode="json"), "state": state_of(memory)},
        "chain": [
            {
                **row_of(m),
                "is_this": m.id == memory.id,
                "superseded_because": m.metadata.get("superseded_because"),
            }
            for m in chain
        ],
        "relations": [r.to_json() for r in related if r.source_memory_id == memory.id],
    }


@dataclass(frozen=True)
class Edit:
    """A hand edit of a memory: the fields to change (None: unchanged)."""

    content: str | None
    category: Category | None
    importance: float | None
    layer: Layer | None


async def edit_memory(
    rt: Runtime, clean: Cleaner, memory_id: str, agent_id: str, edit: Edit
) -> dict[str, Any]:
    """Correct a memory by hand: content (redacted), category, importance, layer. Everything
    is checked before anything is written; the old values are kept in metadata.edits."""
    content, category, importance, layer = edit.content, edit.category, edit.importance, edit.layer
    if content is not None:
        content = clean(check_content(content, rt.settings.memory))
    if category == Category.PROFILE:
        raise InvalidInput("category", "profile is kept by the lifecycle; choose another")
    now = rt.clock()
    async with rt.db.write() as conn:
        memory = await visible(conn, memory_id, agent_id)
        if state_of(memory) != "live":
            raise InvalidInput("memory_id", f"is {state_of(memory)}; restore it before editing")
        if memory.category == Category.PROFILE:
            raise InvalidInput("memory_id", "is the profile; cortex_profile edits the user's words")
        before = {
            "content": memory.content,
            "category": memory.category.value,
            "importance": memory.importance,
            "layer": memory.layer.value,
        }
        record = {"at": to_text(now), "before": before}
        await pages.update_fields(
            conn,
            memory,
            category=category or memory.category,
            importance=memory.importance if importance is None else importance,
            layer=layer or memory.layer,
            now=now,
            edit=record,
        )
        if content is not None and content != memory.content:
            await pages.replace_content(conn, memory, content, now)
        await log_action(conn, "edit", [memory.id], {"before": before}, now)
    return await memory_detail(rt, memory.id, agent_id)


def rankings(candidates: list[SearchHit]) -> dict[str, list[dict[str, Any]]]:
    """The same candidates ranked three ways: full text alone, vectors alone, and fused."""

    def entry(hit: SearchHit, score: float) -> dict[str, Any]:
        return {"id": hit.memory.id, "content": hit.memory.content, "score": round(score, 4)}

    bm25 = sorted(
        (h for h in candidates if h.score.bm25 is not None), key=lambda h: -h.score.text_score
    )
    vector = sorted(
        (h for h in candidates if h.score.vector_distance is not None),
        key=lambda h: -h.score.vector_score,
    )
    return {
        "bm25": [entry(h, h.score.text_score) for h in bm25],
        "vector": [entry(h, h.score.vector_score) for h in vector],
        "hybrid": [entry(h, h.score.final_score) for h in candidates],
    }


async def compare_search(
    rt: Runtime, query: str, agent_id: str, layers: list[Layer] | None
) -> dict[str, Any]:
    """cortex_search_debug's breakdown plus the BM25, vector and hybrid rankings side by side."""
    if not query.strip():
        raise InvalidInput("query", "must not be empty")
    debug = await search_debug(rt, query, agent_id, layers)
    document = debug.model_dump(mode="json")
    document["rankings"] = rankings(debug.candidates)
    return document


async def relation_graph(
    rt: Runtime, agent_id: str, entity: str | None, limit: int = GRAPH_EDGES
) -> dict[str, Any]:
    """Entities and relations an agent sees (those touching `entity` when given), with the
    memories each relation came from."""
    async with rt.db.read() as conn:
        edges = await unforgotten(conn, await graph_rows.relations_of(conn, agent_id))
        if entity is not None:
            edges = [e for e in edges if entity in (e.subject, e.object)]
        edges = edges[:limit]
        sources = [e.source_memory_id for e in edges if e.source_memory_id]
        found = await rows.memories_by_id(conn, sources)
    memories = {
        memory_id: row_of(m)
        for memory_id, m in found.items()
        if m.agent_id in (agent_id, None) and m.deleted_at is None
    }
    nodes = sorted({e.subject for e in edges} | {e.object for e in edges})
    return {
        "nodes": nodes,
        "edges": [e.to_json() for e in edges],
        "memories": memories,
    }


def percentile(ordered: list[float], share: float) -> float | None:
    """The value at `share` (0..1) of sorted samples, by nearest rank."""
    if not ordered:
        return None
    return round(ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))], 3)


async def browser_stats(rt: Runtime, agent_id: str) -> dict[str, Any]:
    """What the statistics view charts: counts per layer and category, states, memories made
    per day, recall latency percentiles, provider use and cost, storage."""
    await rt.access.flush_before_read()
    since = to_text(rt.clock() - timedelta(days=CHART_DAYS))[:10]
    async with rt.db.read() as conn:
        counts = await pages.count_for_agent(conn, agent_id)
        states = await pages.states_for_agent(conn, agent_id)
        per_day = await pages.created_per_day(conn, agent_id, since)
        profile = await rows.live_profile(conn, agent_id)
    layers: dict[str, dict[str, int]] = {}
    for layer, category, count in counts:
        layers.setdefault(layer, {})[category] = count
    latencies = sorted(rt.recall_latencies_ms)
    return {
        "agent_id": agent_id,
        "states": states,
        "layers": {name: {"total": sum(c.values()), "categories": c} for name, c in layers.items()},
        "created_per_day": [{"day": day, "count": n} for day, n in per_day],
        "recall_latency_ms": {
            "count": len(latencies),
            "p50": percentile(latencies, 0.5),
            "p95": percentile(latencies, 0.95),
            "p99": percentile(latencies, 0.99),
        },
        "providers": {
            "llm": rt.llm.snapshot(),
            "embedding": rt.vectors.embedder.snapshot(),
        },
        "storage": {"size_bytes": await rt.db.size_bytes(), "driver": rt.db.driver_name},
        "lifecycle": await lifecycle_status(rt),
        "profile": {
            "content": profile.content if profile else None,
            "own_words": manual_part(profile),
        },
    }


async def extraction_log(rt: Runtime, agent_id: str, limit: int) -> list[dict[str, Any]]:
    """The latest exchanges, newest first: what was said (from the conversation log) and what
    each channel stored from it, with what it superseded (the extraction log view)."""
    async with rt.db.read() as conn:
        messages = await said.recent_exchanges(conn, agent_id, limit)
        ids = list(dict.fromkeys(i for m in messages for i in m.memory_ids))
        found = await rows.memories_by_id(conn, ids)
    exchanges: dict[str, dict[str, Any]] = {}
    for message in messages:
        exchange = exchanges.setdefault(
            message.exchange_id,
            {
                "exchange_id": message.exchange_id,
                "origin": message.origin,
                "session_id": message.session_id,
                "created_at": to_text(message.created_at),
                "messages": [],
                "memories": {},
            },
        )
        exchange["messages"].append({"role": message.role, "content": message.content})
        for memory_id in message.memory_ids:
            memory = found.get(memory_id)
            if memory is not None and memory.agent_id in (agent_id, None):
                exchange["memories"][memory_id] = row_of(memory) | {
                    "channel": memory.metadata.get("channel"),
                    "supersedes": memory.metadata.get("supersedes"),
                }
    return [
        entry | {"memories": list(entry["memories"].values())}
        for entry in reversed(exchanges.values())
    ]


def _snapshots(value: Any, agent_id: str) -> list[dict[str, Any]]:
    """The memory snapshots in a logged change's before/after that the agent may see."""
    items = value if isinstance(value, list) else [value] if isinstance(value, dict) else []
    return [
        {key: item.get(key) for key in ("id", "layer", "category", "content")}
        for item in items
        if isinstance(item, dict) and "content" in item and item.get("agent_id") in (agent_id, None)
    ]


async def lifecycle_changes(
    rt: Runtime, run_id: int, agent_id: str, limit: int
) -> list[dict[str, Any]]:
    """What one lifecycle run changed, change by change, with each memory before and after
    (only the memories the agent may see)."""
    async with rt.db.read() as conn:
        changes = await cycles.run_changes(conn, run_id, limit)
    shown = []
    for change in changes:
        details = change["details"]
        before = _snapshots(details.get("before"), agent_id)
        after = _snapshots(details.get("after"), agent_id)
        if before or after:
            shown.append(
                {
                    "action": change["action"],
                    "executed_at": change["executed_at"],
                    "by": details.get("by"),
                    "before": before,
                    "after": after,
                }
            )
    return shown
