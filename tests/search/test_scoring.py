"""Score factors: pure functions of the memory, the query's candidates and the time."""

from datetime import UTC, datetime, timedelta

from cortex_mcp.config import SearchSettings
from cortex_mcp.models import Layer
from cortex_mcp.search.scoring import (
    Relevance,
    access_boost,
    layer_weight,
    normalise_bm25,
    recency_boost,
    score_candidate,
)

NOW = datetime(2026, 1, 10, tzinfo=UTC)
SETTINGS = SearchSettings()


def test_bm25_is_normalised_so_the_best_candidate_scores_one() -> None:
    assert normalise_bm25({"a": -4.0, "b": -1.0}) == {"a": 1.0, "b": 0.25}
    assert normalise_bm25({}) == {}


def test_layer_weights_follow_the_spec() -> None:
    assert [layer_weight(layer, SETTINGS) for layer in Layer] == [0.8, 1.0, 0.5]


def test_recency_boost_falls_linearly_to_one_over_the_window() -> None:
    assert recency_boost(NOW, NOW, SETTINGS) == 1.1
    assert round(recency_boost(NOW - timedelta(days=3.5), NOW, SETTINGS), 6) == 1.05
    assert recency_boost(NOW - timedelta(days=30), NOW, SETTINGS) == 1.0


def test_access_boost_is_capped() -> None:
    assert access_boost(0, SETTINGS) == 1.0
    assert access_boost(4, SETTINGS) == 1.2
    assert access_boost(500, SETTINGS) == access_boost(10, SETTINGS) == 1.5


def test_final_score_is_the_product_of_every_factor() -> None:
    breakdown = score_candidate(
        Relevance(bm25=-2.0, text_score=0.5, fused_score=0.5),
        Layer.ARCHIVE,
        NOW - timedelta(days=100),
        2,
        NOW,
        SETTINGS,
    )

    assert breakdown.final_score == 0.5 * 0.5 * 1.0 * 1.1
