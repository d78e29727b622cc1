"""The fast channel on a labelled set of everyday messages (#18): names and introductions,
explicit requests to remember, pets and family, language and answer-style preferences,
"switched from X to Y", decisions; and negatives (questions, quotations, reported speech,
hypotheticals, small talk) that must store nothing."""

import json
from pathlib import Path
from typing import Any

import pytest

from cortex_mcp.engine.ingest.fast import assistant_decisions, fast_statements

SET = json.loads(
    (Path(__file__).parents[1] / "data" / "fast_channel.json").read_text(encoding="utf-8")
)


def fired(item: dict[str, Any]) -> bool:
    return bool(fast_statements(item["text"]))


def test_the_set_is_large_mixed_and_at_least_two_fifths_negative() -> None:
    assert len(SET) >= 200
    assert sum(1 for item in SET if not item["keep"]) / len(SET) >= 0.4
    assert {item["language"] for item in SET} == {"zh", "en", "ja"}
    negative_kinds = {item["kind"] for item in SET if not item["keep"]}
    assert {"question", "quote", "hypothetical", "smalltalk"} <= negative_kinds


def test_precision_and_recall_on_the_labelled_set_stay_above_their_floors() -> None:
    true_positive = sum(1 for item in SET if item["keep"] and fired(item))
    false_positive = [item["text"] for item in SET if not item["keep"] and fired(item)]
    missed = [item["text"] for item in SET if item["keep"] and not fired(item)]

    precision = true_positive / (true_positive + len(false_positive))
    recall = true_positive / (true_positive + len(missed))

    # Measured when written (236 messages, 99 negatives): precision 1.00, recall 0.99 (one
    # miss: "My daughter Emma just started school."). The set was written beside the
    # patterns, so these are optimistic; the floors are the issue's.
    assert precision >= 0.95, false_positive
    assert recall >= 0.85, missed


@pytest.mark.parametrize(
    ("user", "assistant", "kept"),
    [
        ("Can you recap?", "We decided to use Redis for caching, with a 5 minute TTL.", True),
        ("Sounds good, let's do that.", "Great, we'll go with PostgreSQL 16.", True),
        ("好的，就这么定了。", "那我们就用阿里云的上海节点。", True),
        ("いいですね、それでお願いします。", "では東京リージョンで行きます。", True),
        ("Hmm, not sure.", "Let's go with PostgreSQL 16.", False),  # nobody agreed
        ("What do you think?", "I'd suggest we go with PostgreSQL.", False),
        ("Sounds good.", "If we decided to use Redis, we could cache sessions.", False),
        ("你觉得呢？", "我建议就用阿里云。", False),
    ],
)
def test_the_assistant_is_read_for_decisions_only_when_agreed_or_already_made(
    user: str, assistant: str, kept: bool
) -> None:
    found = assistant_decisions(user, assistant)

    assert bool(found) is kept, found
    assert all(p.source == "assistant" and p.category == "decision" for p in found)
