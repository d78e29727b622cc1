"""Restatements in other words, merged in the background right after they are embedded.

Embedding a text costs the local model 15–25 ms, more than a write may take (#25), so no write
waits for it: the background pass embeds new memories, then this pass looks at each memory that
arrived since the last one. A new memory whose nearest older live memory of the same scope is a
paraphrase (cosine ≥ `PARAPHRASE_SIMILARITY` and the same-fact guard passes: same subject,
names, numbers, negation) is merged into that older one: the older is reinforced (confidence
raised, one more mention toward promotion, lifted to core when the restatement was core), the
newer is superseded by it with the reason, and the log keeps both. Nothing is deleted.
"""

import logging

from cortex_mcp.engine.ingest.duplicates import (
    NEIGHBOURS,
    hold_other_slots,
    never_paraphrased,
    paraphrase_among,
)
from cortex_mcp.engine.runtime import Runtime
from cortex_mcp.models import Layer, Memory
from cortex_mcp.store import arrivals, vectors
from cortex_mcp.store import memories as rows
from cortex_mcp.store.logs import log_action
from cortex_mcp.store.meta import get_meta, set_meta

logger = logging.getLogger(__name__)

CHECKED_KEY = "paraphrase.checked_seq"
"""The `seq` up to which arrivals were looked at."""
BATCH = 64
"""Arrivals read at a time."""
PASS_LIMIT = 1024
"""Arrivals looked at per pass at most (a burst is caught up over the next passes)."""


async def merge_restatements(rt: Runtime) -> int:
    """Look at the memories that arrived since the last pass (those already embedded); merge
    each paraphrase into the older memory it restates. How many were merged."""
    index = rt.vectors
    if index.model is None or not await index.searchable():
        return 0
    merged = looked = 0
    while looked < PASS_LIMIT:
        batch = await _next_batch(rt, index.model)
        if batch is None:
            break
        start, arrived = batch
        seen = start
        for seq, memory, vector in arrived:
            if vector is None and _candidate(memory):
                break  # not embedded yet: the next pass starts here
            seen = seq
            if vector is not None and _candidate(memory):
                merged += await _merge_if_restated(rt, seq, memory, vector)
        async with rt.db.write() as conn:
            await set_meta(conn, CHECKED_KEY, str(seen))
        looked += len(arrived)
        if seen == start or len(arrived) < BATCH or seen != arrived[-1][0]:
            break
    if merged:
        rt.mirror.mark_dirty()
        logger.debug("merged %d restatements into older memories", merged)
    return merged


async def _next_batch(
    rt: Runtime, model: str
) -> tuple[int, list[tuple[int, Memory, list[float] | None]]] | None:
    """(the watermark, the next arrivals with their cached vectors); None when none arrived.
    On the first pass over a store the older memories are left to the lifecycle merge."""
    async with rt.db.read() as conn:
        checked = await get_meta(conn, CHECKED_KEY)
        last = await arrivals.last_seq(conn)
        start = max(0, last - BATCH) if checked is None else int(checked)
        arrived = await arrivals.arrived_after(conn, start, BATCH)
        hashes = [vectors.content_hash(m.content) for _, m in arrived]
        cached = await vectors.cached_vectors(conn, hashes, model)
    if not arrived:
        return None
    found = [(seq, m, cached.get(h)) for (seq, m), h in zip(arrived, hashes, strict=True)]
    return start, found


def _candidate(memory: Memory) -> bool:
    live = memory.deleted_at is None and memory.superseded_by is None
    return live and not never_paraphrased(memory) and memory.layer != Layer.ARCHIVE


async def _merge_if_restated(rt: Runtime, seq: int, memory: Memory, vector: list[float]) -> int:
    layers = [Layer.CORE, Layer.WORKING, Layer.ARCHIVE]
    async with rt.db.read() as conn:
        found = await vectors.vector_candidates(
            conn, vector, memory.agent_id or "", layers, None, NEIGHBOURS + 1
        )
        by_id = await rows.memories_by_id(conn, [c.id for _, c in found])
        before = await arrivals.arrived_before(conn, list(by_id), seq)
    older = [  # stored before it (by arrival: a clock may give two memories one instant)
        (1.0 - distance, by_id[c.id])
        for distance, c in found
        if c.id in before
        and by_id[c.id].agent_id == memory.agent_id
        and not hold_other_slots(memory, by_id[c.id])
    ]
    hit = paraphrase_among(memory.content, older)
    if hit is None:
        return 0
    target, rule = hit
    now = rt.clock()
    async with rt.db.write() as conn:
        current = await rows.memories_by_id(conn, [target.id, memory.id])
        if (
            any(m.deleted_at is not None or m.superseded_by is not None for m in current.values())
            or len(current) < 2
        ):
            return 0  # changed meanwhile: left as it is
        lift = memory.layer == Layer.CORE
        kept = await rows.reinforce_memory(
            conn, current[target.id], memory.importance, [], now, lift=lift
        )
        await rows.mark_superseded(conn, memory.id, kept.id, now, f"merge: {rule}")
        await log_action(
            conn,
            "merge",
            [memory.id, kept.id],
            {"by": rule, "into": kept.id, "before": memory.content, "after": kept.content},
            now,
        )
    return 1
