"""Fusing BM25 and vector candidates: normalisation, weights, reciprocal ranks."""

import math

import pytest

from cortex_mcp.config import SearchSettings
from cortex_mcp.search.scoring import MIN_DISTANCE_SPAN, fuse, normalise_similarity

WEIGHTED = SearchSettings(fusion="weighted", vector_weight=0.4, text_weight=0.6)


def test_similarity_is_min_max_normalised_over_the_candidates() -> None:
    scores = normalise_similarity({"near": 0.10, "middle": 0.20, "far": 0.40})

    assert scores == pytest.approx({"near": 1.0, "middle": 2 / 3, "far": 0.0})


def test_near_equal_candidates_are_not_stretched_apart() -> None:
    scores = normalise_similarity({"a": 0.126, "b": 0.159})

    assert scores["a"] == 1.0
    assert scores["b"] == pytest.approx(1 - 0.033 / MIN_DISTANCE_SPAN)
    assert normalise_similarity({"only": 0.7}) == {"only": 1.0}


def test_a_distance_that_is_not_a_number_scores_zero() -> None:
    scores = normalise_similarity({"a": 0.1, "b": math.nan, "c": math.inf})

    assert scores == {"a": 1.0, "b": 0.0, "c": 0.0}
    assert normalise_similarity({"b": math.nan}) == {"b": 0.0}


def test_weighted_fusion_adds_the_weighted_normalised_scores() -> None:
    fused = fuse({"both": -4.0, "text": -2.0}, {"both": 0.2, "vector": 0.1}, WEIGHTED)

    assert fused["both"].fused_score == pytest.approx(0.6 * 1.0 + 0.4 * 0.0)
    assert fused["text"].fused_score == pytest.approx(0.6 * 0.5)
    assert fused["vector"].fused_score == pytest.approx(0.4 * 1.0)
    assert fused["vector"].bm25 is None and fused["text"].vector_distance is None


def test_without_vectors_relevance_is_the_text_score() -> None:
    fused = fuse({"a": -3.0, "b": -1.0}, {}, WEIGHTED)

    assert {key: r.fused_score for key, r in fused.items()} == {"a": 1.0, "b": pytest.approx(1 / 3)}


def test_reciprocal_rank_fusion_scores_ranks_not_values() -> None:
    rrf = SearchSettings(fusion="rrf", vector_weight=0.5, text_weight=0.5, rrf_k=60)

    fused = fuse({"a": -9.0, "b": -1.0}, {"b": 0.1, "a": 0.5}, rrf)

    assert fused["a"].fused_score == pytest.approx(fused["b"].fused_score)
    assert max(r.fused_score for r in fused.values()) <= 1.0
