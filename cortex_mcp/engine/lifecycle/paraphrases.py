"""Paraphrase candidates for the lifecycle merge: core memories close in meaning, from the
vectors the back-fill stored.

Term overlap never pairs "I live in Berlin" with "Berlin is where I live"; the vectors do. Each
run looks up the nearest neighbours of the `PARAPHRASE_SCAN` most recently changed core memories
(the ones a restatement can have arrived among since the last run), by the vector the back-fill
cached for their text: one nearest-neighbour query each, never all pairs. Whether a pair merges
is the merge phase's decision (`merge.paraphrase_merges`, under the same-fact guard).
"""

from dataclasses import dataclass

from cortex_mcp.engine.lifecycle.plan import State
from cortex_mcp.engine.runtime import Runtime
from cortex_mcp.models import Category, Layer
from cortex_mcp.store import vectors

PARAPHRASE_SCAN = 300
"""Most recently changed core memories whose neighbours one run looks at."""
NEIGHBOURS = 4
SKIPPED = frozenset({Category.SUMMARY, Category.PROFILE})


@dataclass(frozen=True)
class Close:
    """Two live core memories of one scope and their cosine similarity."""

    similarity: float
    first: str
    second: str


async def close_in_meaning(rt: Runtime, state: State) -> list[Close]:
    """Pairs of core memories near each other in meaning (each pair once, closest first);
    empty when the vectors cannot answer."""
    index = rt.vectors
    if index.model is None or not await index.searchable():
        return []
    core = [m for m in state.in_layer(Layer.CORE) if m.category not in SKIPPED]
    recent = sorted(core, key=lambda m: (m.updated_at, m.id), reverse=True)[:PARAPHRASE_SCAN]
    found: dict[tuple[str, str], float] = {}
    texts = await state.full([m.id for m in recent])
    async with rt.db.read() as conn:
        hashes = {m.id: vectors.content_hash(texts[m.id].content) for m in recent if m.id in texts}
        cached = await vectors.cached_vectors(conn, list(set(hashes.values())), index.model)
        for memory in recent:
            vector = cached.get(hashes.get(memory.id, ""))
            if vector is None:
                continue
            near = await vectors.vector_candidates(
                conn, vector, memory.agent_id or "", [Layer.CORE], None, NEIGHBOURS
            )
            for distance, candidate in near:
                other = state.items.get(candidate.id)
                if other is None or other.id == memory.id or other.agent_id != memory.agent_id:
                    continue
                key = (min(memory.id, other.id), max(memory.id, other.id))
                found[key] = max(found.get(key, -1.0), 1.0 - distance)
    pairs = [Close(similarity, *key) for key, similarity in found.items()]
    return sorted(pairs, key=lambda c: (-c.similarity, c.first, c.second))
