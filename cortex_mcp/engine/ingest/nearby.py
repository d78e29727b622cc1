"""The memories closest in meaning to a correction, where vectors exist.

A correction with no slot replaces the closest live memory about the same subject. Full text
finds it when they share words; the vectors find it when they do not ("I don't drink coffee any
more" / "每朝コーヒーを飲みます"). The correction is embedded before the write transaction (the
model never runs while the write lock is held); `verdict.settle` then checks the candidates again
inside it.
"""

from typing import TYPE_CHECKING

from cortex_mcp.engine.language.patterns import without_correction_markers
from cortex_mcp.models import Layer, Memory
from cortex_mcp.store import memories as rows
from cortex_mcp.store import vectors

if TYPE_CHECKING:
    from cortex_mcp.engine.embedding import VectorIndex
    from cortex_mcp.store.db import Database

NEARBY = 3


async def nearby_memories(
    db: "Database", index: "VectorIndex", text: str, agent_id: str | None
) -> list[tuple[float, Memory]]:
    """(cosine similarity, memory) of the live memories of exactly this scope nearest to
    `text`, best first; empty when the vectors cannot answer."""
    if not await index.searchable():
        return []
    query = await index.query_vector(without_correction_markers(text))
    if query is None:
        return []
    layers = [Layer.CORE, Layer.WORKING, Layer.ARCHIVE]
    async with db.read() as conn:
        if not await index.searchable(conn):
            return []
        found = await vectors.vector_candidates(
            conn, query, agent_id or "", layers, None, NEARBY * 2
        )
        by_id = await rows.memories_by_id(conn, [candidate.id for _, candidate in found])
    return [
        (1.0 - distance, by_id[candidate.id])
        for distance, candidate in found
        if candidate.id in by_id and by_id[candidate.id].agent_id == agent_id
    ][:NEARBY]
