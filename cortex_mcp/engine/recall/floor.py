"""The relevance floor (#23): recall answers nothing rather than something unrelated.

An answer stands when at least one thing in it is plainly about the query: it holds at least
`floor_coverage` of the query's words (a share: unlike BM25 it does not grow with the store), or
its vector (a memory's or a logged message's) lies within `floor_cosine` of the query's, or it
answers a slot ("what's my name?") or was found by a date the query names. Otherwise every item
of it is only the nearest of unrelated things, and the answer is empty. The same test decides
what the prompt hook injects.
"""

from collections.abc import Sequence

from cortex_mcp.config import SearchSettings
from cortex_mcp.models import LogHit, Memory, SearchHit
from cortex_mcp.search.scoring import coverage, query_stems
from cortex_mcp.search.tokenize import context_of


def cosine_of(hit: SearchHit) -> float | None:
    """The cosine similarity of a hit's vector to the query's (None: no vector found it)."""
    distance = hit.score.vector_distance
    return None if distance is None else 1.0 - distance


def searched_text(memory: Memory) -> str:
    """What full-text search reads of a memory: its content and its context."""
    return f"{memory.content}\n{context_of(memory.metadata)}"


COSINE_FLOORS = {"multilingual-e5-small": 0.81}
"""The vector floor measured per embedding model on LoCoMo (docs/benchmarks.md)."""


def floor_cosine(settings: SearchSettings, model: str | None) -> float:
    """The cosine at which a vector hit counts as relevant: the setting, else the value
    measured for `model`, else -1 (every vector hit counts: an unmeasured model's cosines say
    nothing absolute)."""
    if settings.floor_cosine is not None:
        return settings.floor_cosine
    return next((v for name, v in COSINE_FLOORS.items() if model and name in model), -1.0)


def meaning_only(hits: Sequence[SearchHit], matched: set[str]) -> set[str]:
    """The ids of the memories only a vector found: no word of the query, no date it names
    (not in `matched`)."""
    return {
        hit.memory.id for hit in hits if hit.memory.id not in matched and cosine_of(hit) is not None
    }


def nearest_only(
    hits: Sequence[SearchHit], matched: set[str], settings: SearchSettings, model: str | None
) -> set[str]:
    """The ids of the memories only a vector found whose cosine is under the floor: the
    nearest of unrelated things, not shown beside what the query's own words, a date it names
    or a slot it asks about found. Nothing when none of those found anything: a question
    worded unlike every memory ("any foods I must avoid?" for "I'm allergic to peanuts.",
    cosine 0.8097) has only its vectors, and the whole answer's floor (`stands`) judges it."""
    if not matched:
        return set()
    floor = floor_cosine(settings, model)
    return {
        hit.memory.id
        for hit in hits
        if hit.memory.id not in matched
        and (similar := cosine_of(hit)) is not None
        and similar < floor
    }


def stands(
    terms: Sequence[str],
    hits: Sequence[SearchHit],
    shown: Sequence[Memory],
    said: Sequence[LogHit],
    settings: SearchSettings,
    model: str | None,
    sure: Sequence[Memory] = (),
    dated: bool = False,
) -> bool:
    """True when the answer (`shown` memories and `said` log lines; `hits` gives the memories'
    scores) holds one thing above the floor; `sure` (slot answers) always are, and so are
    memories a date the query names found (`dated`: it names one). `model`: the embedding
    model whose cosines `hits` carry."""
    if not shown and not said:
        return True
    if {m.id for m in sure} & {m.id for m in shown}:
        return True
    stems = query_stems(terms)
    by_id = {hit.memory.id: hit for hit in hits}
    for memory in shown:
        hit = by_id.get(memory.id)
        if dated and hit is not None and hit.score.date_boost > 1:
            return True
        similar = cosine_of(hit) if hit is not None else None
        if similar is not None and similar >= floor_cosine(settings, model):
            return True
        if coverage(stems, searched_text(memory)) >= settings.floor_coverage:
            return True
    cosine_floor = floor_cosine(settings, model)
    return any(
        coverage(stems, line.content) >= settings.floor_coverage
        or (line.cosine is not None and line.cosine >= cosine_floor)
        for line in said
    )
