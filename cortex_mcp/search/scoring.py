"""How a candidate's final score is made: relevance × layer weight × recency × access × date.

Relevance is a fusion of the text score (BM25 normalised over the query's candidates) and the
vector score (cosine similarity min-max normalised over them) where vectors exist; without
vectors it is the text score alone. The date boost lifts memories made on a day (or in a month)
the query names, or mentioning one ("yesterday" resolved when the memory was written). Every
factor is kept in a `ScoreBreakdown` so a ranking can be explained.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from cortex_mcp.config import SearchSettings
from cortex_mcp.models import Layer, ScoreBreakdown
from cortex_mcp.search.dates import fits
from cortex_mcp.search.query import DateSpan
from cortex_mcp.search.stemming import fts_tokens
from cortex_mcp.search.tokenize import index_text, is_cjk, pieces_of


@dataclass(frozen=True)
class Relevance:
    """What the backends said about one candidate before the memory's own factors apply."""

    bm25: float | None = None
    text_score: float = 0.0
    vector_distance: float | None = None
    vector_score: float = 0.0
    fused_score: float = 0.0


def normalise_bm25(raw: dict[str, float]) -> dict[str, float]:
    """FTS5 bm25() (negative, lower is better) mapped to [0, 1], best candidate = 1."""
    if not raw:
        return {}
    best = max(-score for score in raw.values())
    if best <= 0:
        return dict.fromkeys(raw, 1.0)
    return {key: max(0.0, -score) / best for key, score in raw.items()}


def layer_weight(layer: Layer, settings: SearchSettings) -> float:
    """Core memories count most, archived ones least."""
    return {
        Layer.CORE: settings.core_weight,
        Layer.WORKING: settings.working_weight,
        Layer.ARCHIVE: settings.archive_weight,
    }[layer]


def recency_boost(updated_at: datetime, now: datetime, settings: SearchSettings) -> float:
    """Up to 1 + recency_boost for a brand-new memory, falling linearly to 1 over the window."""
    age_days = max(0.0, (now - updated_at).total_seconds() / 86400)
    if age_days >= settings.recency_window_days:
        return 1.0
    remaining = (settings.recency_window_days - age_days) / settings.recency_window_days
    return 1.0 + settings.recency_boost * remaining


def access_boost(access_count: int, settings: SearchSettings) -> float:
    """Each past recall adds a little, up to a cap: memories that keep being useful rise."""
    return 1.0 + settings.access_boost_per_hit * min(access_count, settings.access_boost_cap)


def date_boost(
    created_at: datetime,
    spans: Sequence[DateSpan],
    settings: SearchSettings,
    mentioned: Sequence[DateSpan] = (),
    when: bool = False,
) -> float:
    """1 + date_boost for a memory made on a day the query names ("on 8 May, 2023", "in June
    2024", "last week") or mentioning a date that falls in it ("yesterday", said on a day of
    last week); for a question asking when, with no date, 1 + when_boost for a memory that
    mentions any date; else 1."""
    if spans:
        made = any(span.holds(created_at.date()) for span in spans)
        return 1.0 + settings.date_boost if made or fits_any(mentioned, spans) else 1.0
    return 1.0 + settings.when_boost if when and mentioned else 1.0


def fits_any(mentioned: Sequence[DateSpan], spans: Sequence[DateSpan]) -> bool:
    """True when one of the mentioned spans falls in one of the query's."""
    return any(fits(mention, spans) for mention in mentioned)


def vector_score_of(distance: float) -> float:
    """Cosine distance in [0, 2] mapped to a similarity score in [0, 1]."""
    return max(0.0, min(1.0, 1.0 - distance / 2)) if math.isfinite(distance) else 0.0


def score_candidate(
    relevance: Relevance,
    layer: Layer,
    updated_at: datetime,
    access_count: int,
    now: datetime,
    settings: SearchSettings,
    dated: float = 1.0,
) -> ScoreBreakdown:
    """The full breakdown of one candidate's final score; `dated` is its `date_boost`."""
    factors = _factors(layer, updated_at, access_count, now, settings)
    weight, recency, access = factors
    return ScoreBreakdown(
        bm25=relevance.bm25,
        text_score=relevance.text_score,
        vector_distance=relevance.vector_distance,
        vector_score=relevance.vector_score,
        fused_score=relevance.fused_score,
        date_boost=dated,
        layer_weight=weight,
        recency_boost=recency,
        access_boost=access,
        final_score=_product(relevance, dated, factors),
    )


def final_score(
    relevance: Relevance,
    layer: Layer,
    updated_at: datetime,
    access_count: int,
    now: datetime,
    settings: SearchSettings,
    dated: float = 1.0,
    weights: dict[Layer, float] | None = None,
) -> float:
    """A candidate's final score (the breakdown's too), without building the breakdown (a
    pydantic model): recall sorts every candidate by it; `weights`: each layer's
    `layer_weight`, worked out once for all the candidates."""
    return _product(
        relevance, dated, _factors(layer, updated_at, access_count, now, settings, weights)
    )


def _factors(
    layer: Layer,
    updated_at: datetime,
    access_count: int,
    now: datetime,
    settings: SearchSettings,
    weights: dict[Layer, float] | None = None,
) -> tuple[float, float, float]:
    """A candidate's layer weight, recency boost and access boost."""
    weight = weights[layer] if weights is not None else layer_weight(layer, settings)
    return weight, recency_boost(updated_at, now, settings), access_boost(access_count, settings)


def _product(relevance: Relevance, dated: float, factors: tuple[float, float, float]) -> float:
    """The final score: the fused relevance times the date boost and the three factors."""
    weight, recency, access = factors
    return relevance.fused_score * dated * weight * recency * access


def text_only_relevance(bm25: dict[str, float]) -> dict[str, Relevance]:
    """Relevance when full-text search is the only backend that answered."""
    normalised = normalise_bm25(bm25)
    return {
        key: Relevance(bm25=raw, text_score=normalised[key], fused_score=normalised[key])
        for key, raw in bm25.items()
    }


MIN_DISTANCE_SPAN = 0.1
"""The narrowest range of cosine distances min-max normalisation stretches to [0, 1]: among a
few near-equal candidates a tiny difference must not decide everything. (Over e5's hundred
nearest neighbours the range is about 0.06, so this binds mostly on small stores.)"""


def normalise_similarity(distances: dict[str, float]) -> dict[str, float]:
    """Cosine distances min-max normalised over the candidates: the nearest = 1, the farthest
    = 0 (or more, when they all lie within MIN_DISTANCE_SPAN of each other).

    Dividing by the best similarity instead squeezes them all near 1 (an embedding model's
    similarities to anything sit in a narrow band, 0.75-0.9 for e5), so the vector side adds a
    near-constant and decides nothing: on LoCoMo min-max fusion is 0.03 recall@10 better.
    """
    finite = {key: d for key, d in distances.items() if math.isfinite(d)}
    if not finite:
        return dict.fromkeys(distances, 0.0)
    nearest = min(finite.values())
    span = max(max(finite.values()) - nearest, MIN_DISTANCE_SPAN)
    return {
        key: max(0.0, 1.0 - (finite[key] - nearest) / span) if key in finite else 0.0
        for key in distances
    }


def _ranks(scores: dict[str, float]) -> dict[str, int]:
    ordered = sorted(scores, key=lambda key: -scores[key])
    return {key: rank for rank, key in enumerate(ordered, start=1)}


def fuse(
    bm25: dict[str, float], distances: dict[str, float], settings: SearchSettings
) -> dict[str, Relevance]:
    """Text and vector candidates combined: weighted normalised scores, or reciprocal ranks."""
    if not distances:
        return text_only_relevance(bm25)
    text = normalise_bm25(bm25)
    vector = normalise_similarity(distances)
    keys = list(dict.fromkeys([*bm25, *distances]))
    if settings.fusion == "rrf":
        text_rank, vector_rank = _ranks(text), _ranks(vector)
        best = (settings.text_weight + settings.vector_weight) / (settings.rrf_k + 1)
        fused = {
            key: (
                (settings.text_weight / (settings.rrf_k + text_rank[key]) if key in text else 0)
                + (
                    settings.vector_weight / (settings.rrf_k + vector_rank[key])
                    if key in vector
                    else 0
                )
            )
            / best
            for key in keys
        }
    else:
        fused = {
            key: settings.text_weight * text.get(key, 0.0)
            + settings.vector_weight * vector.get(key, 0.0)
            for key in keys
        }
    return {
        key: Relevance(
            bm25=bm25.get(key),
            text_score=text.get(key, 0.0),
            vector_distance=distances.get(key),
            vector_score=vector.get(key, 0.0),
            fused_score=fused[key],
        )
        for key in keys
    }


def with_dated(
    relevance: dict[str, Relevance], dated: Sequence[str], settings: SearchSettings
) -> dict[str, Relevance]:
    """The backends' relevance, with at least `dated_relevance` for each memory found by its
    date (made on, or mentioning, a day the query names)."""
    floor = settings.dated_relevance
    lifted = {
        key: replace(relevance.get(key, Relevance()), fused_score=floor)
        for key in dated
        if key not in relevance or relevance[key].fused_score < floor
    }
    return relevance | lifted


def query_stems(terms: Sequence[str]) -> frozenset[str]:
    """The query's terms as full-text search indexes them (folded, stemmed; CJK bigrams)."""
    return frozenset(stem for term in terms for stem in fts_tokens(index_text(term)))


MIN_LINE_WORDS = 3
"""A log line of fewer words ("Got it.", "Noted!", 好的。) answers no question it shares no word
with; of LoCoMo's 2,760 dev turns 11 are that short, none of them evidence."""


def says_little(text: str) -> bool:
    """True for a text of fewer than `MIN_LINE_WORDS` words (a CJK character counts as one)."""
    return sum(len(p) if is_cjk(p) else 1 for p in pieces_of(text)) < MIN_LINE_WORDS


def coverage(stems: frozenset[str], text: str) -> float:
    """The share of the query's (stemmed) terms a text holds: 0 to 1; 0 for a query with
    none. Unlike BM25 it does not depend on the store's size, so a floor can be set on it."""
    if not stems:
        return 0.0
    return len(stems & frozenset(fts_tokens(index_text(text)))) / len(stems)
