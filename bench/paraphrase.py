"""Paraphrases (different words, same fact) in zh/en/ja: how many the write path and the
lifecycle merge recognise, with no LLM and no vectors.

Each pair's first statement is remembered, then its paraphrase; counted: paraphrases answered
as a duplicate of their first statement (write time), and pairs left as one live memory after a
lifecycle run (merge). Distinct facts must never merge: `bench/distinct_facts.py` counts that.

    python -m bench.paraphrase

Writes bench/results/paraphrase.json.
"""

import json
import tempfile
from pathlib import Path
from typing import Any

import anyio
from mcp import Client

from bench.distinct_facts import data
from bench.latency import machine
from cortex_mcp.config import Settings
from cortex_mcp.server import build_server

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "paraphrase.json"

PAIRS: dict[str, list[tuple[str, str]]] = {
    "en": [
        ("The user lives in Tokyo.", "Harry is based in Tokyo."),
        ("I prefer dark mode in every editor.", "Dark mode is what I like in all my editors."),
        ("Our staging database is PostgreSQL 16.", "Staging runs on PostgreSQL 16."),
        ("I usually go running before work.", "Most mornings I run before I start working."),
        ("The release freeze starts on Friday.", "Friday is when the release freeze begins."),
        ("I am allergic to peanuts.", "Peanuts give me an allergic reaction."),
        ("My favourite language is Rust.", "Rust is the language I like best."),
        ("The team meets every Monday at 10.", "Every Monday at 10 the team has its meeting."),
        ("I work remotely from Lisbon.", "I'm a remote worker living in Lisbon."),
        ("Please keep answers short.", "I want brief answers."),
    ],
    "zh": [
        ("用户在东京。", "Harry位于东京。"),
        ("我喜欢喝绿茶。", "绿茶是我最爱喝的。"),
        ("我们的测试环境用 PostgreSQL 16。", "测试环境跑在 PostgreSQL 16 上。"),
        ("我每天早上跑步。", "每天早晨我都会去跑步。"),
        ("发布冻结从周五开始。", "周五开始发布冻结。"),
        ("我对花生过敏。", "花生会让我过敏。"),
        ("我最喜欢的语言是 Rust。", "Rust 是我最喜欢的编程语言。"),
        ("团队每周一十点开会。", "每周一十点团队开例会。"),
        ("我在里斯本远程工作。", "我住在里斯本，远程上班。"),
        ("回答请简短一点。", "我希望回答简洁。"),
    ],
    "ja": [
        ("ユーザーは東京にいます。", "Harryは東京在住です。"),
        ("緑茶が好きです。", "一番好きな飲み物は緑茶です。"),
        (
            "ステージングは PostgreSQL 16 です。",
            "ステージング環境は PostgreSQL 16 で動いています。",
        ),
        ("毎朝ジョギングしています。", "朝はいつも走っています。"),
        ("リリース凍結は金曜日からです。", "金曜日にリリース凍結が始まります。"),
        ("ピーナッツアレルギーです。", "ピーナッツを食べるとアレルギーが出ます。"),
        ("一番好きな言語は Rust です。", "Rust が最も好きなプログラミング言語です。"),
        ("チームは毎週月曜10時に集まります。", "毎週月曜の10時にチームミーティングがあります。"),
        ("リスボンからリモートで働いています。", "リスボンに住んでリモート勤務です。"),
        ("回答は短くしてください。", "簡潔に答えてほしいです。"),
    ],
}


async def memory_document(client: Client, memory_id: str) -> dict[str, Any]:
    """cortex://memory/<id> as JSON."""
    contents = (await client.read_resource(f"cortex://memory/{memory_id}")).contents[0]
    return dict(json.loads(getattr(contents, "text", "{}")))


async def measure() -> dict[str, dict[str, int]]:
    """Remember each pair, run the lifecycle, count what was recognised."""
    by_language: dict[str, dict[str, int]] = {}
    with tempfile.TemporaryDirectory() as home:
        settings = Settings.model_validate(
            {"home": home, "embedding": {"provider": "none"}, "llm": {"provider": "none"}}
        )
        async with Client(build_server(settings)) as client:
            firsts: dict[str, list[tuple[str, str]]] = {}
            for language, pairs in PAIRS.items():
                recognised = 0
                firsts[language] = []
                for first, second in pairs:
                    one = data(await client.call_tool("cortex_remember", {"content": first}))
                    two = data(await client.call_tool("cortex_remember", {"content": second}))
                    recognised += two["action"] == "duplicate" and two["id"] == one["id"]
                    firsts[language].append((one["id"], two["id"]))
                by_language[language] = {"pairs": len(pairs), "at_write": recognised}
            await client.call_tool("cortex_lifecycle", {"action": "run"})
            for language, ids in firsts.items():
                merged = 0
                for first_id, second_id in ids:
                    documents = [await memory_document(client, i) for i in (first_id, second_id)]
                    merged += first_id == second_id or any(d["superseded_by"] for d in documents)
                by_language[language]["after_merge"] = merged
    return by_language


def main() -> None:
    results = anyio.run(measure)
    document: dict[str, Any] = {"benchmark": "paraphrase", "machine": machine()}
    document["results"] = results
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(document, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    for language, counts in results.items():
        print(
            f"{language}: {counts['at_write']}/{counts['pairs']} at write, "
            f"{counts['after_merge']}/{counts['pairs']} after the lifecycle merge"
        )


if __name__ == "__main__":
    main()
