"""The numbers behind cortex://stats: memory counts, storage, search backends, providers."""

import statistics
from typing import Any

from cortex_mcp.engine.runtime import Runtime
from cortex_mcp.store import conversation, message_vectors, vectors
from cortex_mcp.store import memories as rows


async def engine_stats(rt: Runtime) -> dict[str, Any]:
    """Counts per layer and category, states, database size, backends and latencies."""
    async with rt.db.read() as conn:
        per_layer = await rows.count_by_layer_and_category(conn)
        states = await rows.count_states(conn)
        coverage = await vectors.coverage(conn)
        model, dimension = await vectors.recorded_model(conn)
        said = await conversation.log_counts(conn)
        said_coverage = await message_vectors.coverage(conn)
    searchable = await rt.vectors.searchable()
    layers: dict[str, dict[str, int]] = {}
    for layer, category, count in per_layer:
        layers.setdefault(layer, {})[category] = count
    return {
        "memories": states,
        "layers": {
            layer: {"total": sum(c.values()), "categories": c} for layer, c in layers.items()
        },
        "database": {
            "engine": rt.db.dialect,
            "path": rt.db.location,
            "size_bytes": await rt.db.size_bytes(),
            "driver": rt.db.driver_name,
        },
        "search": {
            "fulltext": FULLTEXT[rt.db.dialect],
            "sqlite_vec": "loaded" if rt.db.has_vectors else "unavailable",
            "sqlite_vec_note": rt.db.note,
            "mode": "hybrid (bm25 + vectors)" if searchable else "bm25 only",
            "why": None
            if searchable
            else rt.vectors.embedder.note
            if rt.vectors.embedder.embedder is None
            else "vectors are not searchable yet (being embedded, or sqlite-vec is missing)",
            "fusion": rt.settings.search.fusion,
        },
        "vectors": {
            **coverage,
            "model": model,
            "dimension": dimension,
            "configured_model": rt.vectors.model,
            "reembedding": rt.vectors.configured and not searchable,
            "waiting": coverage["without_vectors"] if rt.vectors.configured else 0,
            "messages_with_vectors": said_coverage["with_vectors"],
            "messages_waiting": said_coverage["without_vectors"] if rt.vectors.configured else 0,
        },
        "providers": {
            "llm": rt.llm.snapshot(),
            "embedding": rt.vectors.embedder.snapshot(),
        },
        "conversation_log": {
            "messages": said["messages"],
            "exchanges": said["exchanges"],
            "hidden_messages": said["hidden_messages"],
            "retention_days": rt.settings.sieve.conversation_retention_days or "keep",
        },
        "extraction_queue": {
            "pending": said["pending_exchanges"],
            "waiting_for_an_llm": said["waiting_exchanges"],
            "extracted": said["extracted_exchanges"],
            "deep_channel": "in the background, from the log: cortex_ingest never waits for it",
            "lag_ms": latency_summary(list(rt.extraction_lag_ms)),
            "drained_by": "configured LLM provider"
            if rt.llm.answers_in_background
            else "nothing: no LLM provider, so nothing is queued",
        },
        "recall_latency_ms": latency_summary(list(rt.recall_latencies_ms)),
    }


FULLTEXT = {
    "sqlite": "fts5 bm25 (CJK bigrams, porter unicode61)",
    "postgresql": "bm25 over term tables (CJK bigrams, porter unicode61, as fts5)",
}


def latency_summary(samples_ms: list[float]) -> dict[str, float | int | None]:
    """p50 and p95 of recall latencies since start, in milliseconds."""
    if not samples_ms:
        return {"count": 0, "p50": None, "p95": None}
    ordered = sorted(samples_ms)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {
        "count": len(ordered),
        "p50": round(statistics.median(ordered), 3),
        "p95": round(p95, 3),
    }
