"""bench.ingest_cpu's A/B helpers (#25 item 4): the exchanges it times and how two trees'
rounds are pooled and compared."""

import pytest

from bench.ingest_cpu import compared, exchanges_of, pooled, with_ratio
from bench.latency import summary
from bench.locomo import DATA


def run(ingest: list[float], floor: list[float]) -> dict[str, object]:
    """A worker's answer as `worker` gives it: the samples and their summaries."""
    return {
        "samples": {"ingest": ingest, "floor": floor},
        "ingest_cpu": summary(ingest),
        "floor_cpu": summary(floor),
    }


def test_the_dialogue_exchanges_are_the_dev_conversations_turns_with_their_sessions() -> None:
    if not DATA.exists():  # the dev set lives beside the checkout, not in it
        pytest.skip(f"the LoCoMo dev set is not at {DATA}")
    synthetic = exchanges_of("synthetic", 3)
    locomo = exchanges_of("locomo", 4)

    assert len(synthetic) == 3 and all(session is None for *_, session in synthetic)
    assert len(locomo) == 4
    assert all(session and user and reply for user, reply, session in locomo)
    assert exchanges_of("locomo", 4) == locomo  # the same exchanges every run


def test_rounds_are_pooled_per_tree_and_compared_after_over_before() -> None:
    before = [run([4.0] * 19 + [20.0], [2.0] * 5), run([4.0] * 19 + [20.0], [2.0] * 5)]
    after = [run([4.0] * 19 + [10.0], [2.0] * 5), run([4.0] * 19 + [10.0], [2.0] * 5)]
    table = {
        "before no_llm": pooled(before),
        "after no_llm": pooled(after),
        "before llm": pooled(before),
        "after llm": pooled(after),
    }

    ratios = compared(table, "before", "after")

    assert table["before no_llm"]["ingest_cpu"]["count"] == 40
    assert ratios["no_llm p50"] == 1.0 and ratios["llm p50"] == 1.0
    assert ratios["no_llm p99"] < 1.0 and ratios["no_llm p95/floor"] < 1.0
    assert "samples" not in with_ratio(before[0])
    assert with_ratio(before[0])["ratio_p95_to_floor_p50"] == round(
        summary([4.0] * 19 + [20.0])["p95"] / 2.0, 2
    )
