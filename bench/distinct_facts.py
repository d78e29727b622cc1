"""Distinct facts are never merged away: 10,000 template facts and 1,000 restatements, no LLM.

Every fact goes through `cortex_remember` of a real in-process MCP session, one call each, then
the restatements, then a lifecycle run (as the start-up catch-up would). Counted: facts answered
with another fact's id (a distinct fact refused as a "duplicate"), facts superseded or gone
after the run, restatements recognised at write time, recall of a fact by its own words.

    python -m bench.distinct_facts               # 10,000 facts, 1,000 restatements
    python -m bench.distinct_facts --facts 2000
    python -m bench.distinct_facts --embedding local   # vectors on: the paraphrase merges run
                                                       # (results in distinct_facts-local.json)

Writes bench/results/distinct_facts.json and the "Distinct facts" section of docs/benchmarks.md.
"""

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client

from bench.facts_corpus import distinct_facts, restatements
from bench.latency import machine
from cortex_mcp.config import Settings
from cortex_mcp.server import build_server

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "distinct_facts.json"
DOCS = ROOT / "docs" / "benchmarks.md"
BEGIN, END = "<!-- distinct-facts:begin -->", "<!-- distinct-facts:end -->"
RECALL_SAMPLE = 500


def data(result: Any) -> dict[str, Any]:
    """A tool result's structured content (or its JSON text); an error stops the run."""
    text = "\n".join(getattr(block, "text", "") for block in result.content)
    if result.is_error:
        raise RuntimeError(text)
    return dict(result.structured_content or json.loads(text))


EMBED_WAIT_S = 1800.0
"""How long the background pass may take to embed (and check) every fact."""


async def embedded(client: Client) -> None:
    """Wait until the background pass has embedded every memory, then two more passes (it
    looks at the new arrivals for restatements right after embedding them)."""
    with anyio.fail_after(EMBED_WAIT_S):
        while True:
            stats = json.loads((await client.read_resource("cortex://stats")).contents[0].text)  # type: ignore[union-attr]
            if not stats["vectors"]["without_vectors"]:
                break
            await anyio.sleep(2)
    await anyio.sleep(25)


async def measure(fact_count: int, restated_count: int, embedding: str = "none") -> dict[str, Any]:
    """Store, restate, run the lifecycle, count."""
    facts = distinct_facts(fact_count)
    pairs = restatements(facts, restated_count)
    with tempfile.TemporaryDirectory() as home:
        settings = Settings.model_validate(
            {"home": home, "embedding": {"provider": embedding}, "llm": {"provider": "none"}}
        )
        async with Client(build_server(settings)) as client:
            started = time.perf_counter()
            ids: dict[str, str] = {}
            refused = []
            for fact in facts:
                answer = data(await client.call_tool("cortex_remember", {"content": fact.text}))
                if answer["action"] != "created":
                    refused.append({"fact": fact.text, "answer": answer["content"]})
                ids[fact.text] = answer["id"]
            store_s = time.perf_counter() - started
            recognised = 0
            for fact, again in pairs:
                answer = data(await client.call_tool("cortex_remember", {"content": again}))
                recognised += answer["action"] == "duplicate" and answer["id"] == ids[fact.text]
            if embedding != "none":
                await embedded(client)
            run = data(await client.call_tool("cortex_lifecycle", {"action": "run"}))
            stats = json.loads((await client.read_resource("cortex://stats")).contents[0].text)  # type: ignore[union-attr]
            hits = 0
            sample = facts[:: max(1, len(facts) // RECALL_SAMPLE)][:RECALL_SAMPLE]
            for fact in sample:
                found = data(
                    await client.call_tool("cortex_recall", {"query": fact.text, "max_results": 10})
                )
                hits += any(m["id"] == ids[fact.text] for m in found["memories"])
    return {
        "facts": len(facts),
        "languages": {lang: sum(f.language == lang for f in facts) for lang in ("en", "zh", "ja")},
        "facts_not_created": len(refused),
        "not_created_examples": refused[:5],
        "restatements": len(pairs),
        "restatements_recognised_at_write": recognised,
        "lifecycle_merged": run["merged"]["count"],
        "superseded_after_run": stats["memories"]["superseded"],
        "live_after_run": stats["memories"]["live"],
        "recall_hit_at_10": round(hits / len(sample), 3),
        "store_seconds": round(store_s, 1),
        "embedding": embedding,
    }


def summary(result: dict[str, Any]) -> str:
    """The docs section."""
    return "\n".join(
        [
            BEGIN,
            "## Distinct facts (`python -m bench.distinct_facts`)",
            "",
            f"{result['facts']:,} template facts (en/zh/ja {result['languages']}) that differ "
            "in one name, place, item or number, through `cortex_remember` with no LLM, then "
            f"{result['restatements']:,} restatements, then a lifecycle run. Before #11 "
            "(commit ff54bbd) 74 of 10,000 facts were answered `duplicate` with another fact's "
            "id and the run superseded 1,006.",
            "",
            "| measure | value |",
            "|---|---|",
            f"| facts answered other than `created` | {result['facts_not_created']} |",
            f"| superseded after the lifecycle run | {result['superseded_after_run']} |",
            f"| live after the run | {result['live_after_run']:,} |",
            "| restatements recognised as duplicates at write | "
            f"{result['restatements_recognised_at_write']} / {result['restatements']} |",
            f"| recall hit@10 of a fact by its own words | {result['recall_hit_at_10']} |",
            "",
            f"Machine: {result['machine']}.",
            END,
        ]
    )


def write_docs(section: str, begin: str = BEGIN, end: str = END) -> None:
    """Replace (or append) the section between `begin` and `end` in docs/benchmarks.md."""
    text = DOCS.read_text(encoding="utf-8")
    if begin in text:
        head, rest = text.split(begin, 1)
        text = head + section + rest.split(end, 1)[1]
    else:
        text = text.rstrip() + "\n\n" + section + "\n"
    DOCS.write_text(text, encoding="utf-8")


def main() -> None:
    """Run the benchmark and write its results."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--facts", type=int, default=10_000)
    parser.add_argument("--restatements", type=int, default=1_000)
    parser.add_argument("--embedding", default="none", choices=["none", "local"])
    args = parser.parse_args()
    result = anyio.run(measure, args.facts, args.restatements, args.embedding)
    result["machine"] = machine()
    if args.embedding == "none":
        RESULTS.write_text(json.dumps(result, ensure_ascii=False, indent=2) + "\n", "utf-8")
        write_docs(summary(result))
    else:
        local = RESULTS.with_name(f"distinct_facts-{args.embedding}.json")
        local.write_text(json.dumps(result, ensure_ascii=False, indent=2) + "\n", "utf-8")
    print(json.dumps(result, ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
