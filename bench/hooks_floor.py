"""The relevance floor of the UserPromptSubmit hook, picked on real dialogue (LoCoMo).

Every turn of one LoCoMo conversation is stored as a memory (as bench/locomo.py does); then
every question of that conversation, and coding-agent prompts that have nothing to do with
it, go to cortex_recall as the hook sends them. For each candidate floor: the share of
recalled memories above it that hold the answer (precision), the share of questions that
get at least one such memory (answered), and the share of off-topic prompts that would get
anything injected. The floor kept is the one with the best F1 of precision and answered
among those that inject into at most 20% of off-topic prompts.

    python -m bench.hooks_floor                 # local embedder (a plain install): hybrid
    python -m bench.hooks_floor --provider none # BM25 only
"""

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

import anyio
from mcp import Client

from bench.locomo import (
    DATA,
    bench_settings,
    store_sample,
    structured,
    vectors_ready,
)
from bench.locomo_data import Sample, load_samples
from cortex_mcp.engine.host import EngineHost
from cortex_mcp.hooks.moments import content_words
from cortex_mcp.server import build_server

ROOT = Path(__file__).resolve().parent.parent
LOCOMO = next(
    (p for p in (DATA, ROOT.parent.parent / "shared" / "bench" / DATA.name) if p.exists()), DATA
)
"""The shared LoCoMo file, beside the checkout (or beside a worktree's parent folder)."""
RESULTS = ROOT / "bench" / "results" / "hooks_floor.json"
OFF_TOPIC = [
    "Rename the variable tmp to buffer in parser.rs",
    "Fix the failing test in tests/test_api.py",
    "Add type hints to the functions in utils.py",
    "Why does cargo build fail with a linker error?",
    "Write a Dockerfile for this Flask app",
    "Refactor this function to use a dict instead of the if chain",
    "What does the -x flag of pytest do?",
    "Bump the version to 2.3.1 and update the changelog",
    "Run the linter and fix what it reports",
    "Explain this regex: ^[a-z0-9_-]{3,16}$",
    "Add an index on users.email in the migration",
    "Make the CLI print a progress bar while downloading",
    "Convert this callback code to async/await",
    "Why is the CI job timing out on the integration tests?",
    "Split the 800-line module into smaller files",
    "Add retries with exponential backoff to the HTTP client",
    "Set up pre-commit with ruff and mypy",
    "The build is broken after the merge, can you look?",
    "Write a unit test for the date parser edge cases",
    "Change the log level to debug for the worker",
    "Implement pagination for the /orders endpoint",
    "Remove the unused imports across the project",
    "Profile the slow SQL query in the report page",
    "Generate TypeScript types from the OpenAPI spec",
    "Add a GitHub Actions workflow that runs on pull requests",
    "Translate the error messages into German",
    "Why does the frontend show a blank page in Safari?",
    "Cache the results of the expensive API call for five minutes",
    "Make the table sortable by each column",
    "Move the secrets from the config file into environment variables",
]
FLOORS = [round(0.05 * i, 2) for i in range(25)]
MAX_OFF_TOPIC = 0.2
SHARED = [0, 1, 2]


Hit = tuple[float, bool, int]  # score, holds the answer, content words shared with the prompt


async def recall_scores(
    home: Path, sample: Sample, owners: dict[str, list[str]], provider: str
) -> tuple[list[list[Hit]], list[list[Hit]]]:
    """Per question and per off-topic prompt: each recalled memory as a Hit."""
    settings = bench_settings(home, provider)
    host = EngineHost(settings)
    questions: list[list[Hit]] = []
    off: list[list[Hit]] = []
    async with host.use() as engine:
        if provider != "none":
            await vectors_ready(engine)
        async with Client(build_server(settings, host=host)) as client:
            for question in sample.questions:
                found = structured(
                    await client.call_tool(
                        "cortex_recall",
                        {"query": question.text, "max_results": 8, "max_tokens": 600},
                    )
                )
                evidence = set(question.evidence)
                asked = content_words(question.text)
                questions.append(
                    [
                        (
                            float(m["score"]),
                            bool(evidence & set(owners.get(m["id"], []))),
                            len(asked & content_words(m["content"])),
                        )
                        for m in found["memories"]
                    ]
                )
            for prompt in OFF_TOPIC:
                found = structured(
                    await client.call_tool(
                        "cortex_recall", {"query": prompt, "max_results": 8, "max_tokens": 600}
                    )
                )
                asked = content_words(prompt)
                off.append(
                    [
                        (float(m["score"]), False, len(asked & content_words(m["content"])))
                        for m in found["memories"]
                    ]
                )
    return questions, off


def table(questions: list[list[Hit]], off: list[list[Hit]]) -> list[dict[str, Any]]:
    """Each (floor, shared words) rule: precision, answered, off-topic injections, F1."""
    rows = []
    for shared in SHARED:
        for floor in FLOORS:

            def passes(hit: Hit, floor: float = floor, shared: int = shared) -> bool:
                return hit[0] >= floor and hit[2] >= shared

            kept = [hit for hits in questions for hit in hits if passes(hit)]
            precision = sum(hit[1] for hit in kept) / len(kept) if kept else 0.0
            answered = sum(any(h[1] and passes(h) for h in hits) for hits in questions)
            answered_share = answered / len(questions)
            injected = sum(any(passes(h) for h in hits) for hits in off) / len(off)
            total = precision + answered_share
            rows.append(
                {
                    "floor": floor,
                    "shared_words": shared,
                    "precision": round(precision, 3),
                    "answered": round(answered_share, 3),
                    "off_topic_injected": round(injected, 3),
                    "f1": round(2 * precision * answered_share / total if total else 0.0, 3),
                }
            )
    return rows


async def main() -> None:
    cli = argparse.ArgumentParser(description=__doc__)
    cli.add_argument("--provider", default="local", choices=["local", "none"])
    cli.add_argument("--sample", default="conv-26")
    args = cli.parse_args()
    sample = load_samples(LOCOMO, {args.sample})[0]
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder)
        owners = await store_sample(home, sample, "plain")
        questions, off = await recall_scores(home, sample, owners, args.provider)
    rows = table(questions, off)
    allowed = [r for r in rows if r["off_topic_injected"] <= MAX_OFF_TOPIC] or rows
    best = max(allowed, key=lambda r: (r["f1"], -r["floor"], -r["shared_words"]))
    result = {
        "sample": args.sample,
        "provider": args.provider,
        "questions": len(questions),
        "off_topic_prompts": len(off),
        "chosen": best,
        "floors": rows,
    }
    previous = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    previous[args.provider] = result
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(previous, indent=2) + "\n")
    for row in rows:
        if row["off_topic_injected"] <= MAX_OFF_TOPIC or row["floor"] in (0.5, 1.0):
            print(row)
    print("chosen", best)


if __name__ == "__main__":
    anyio.run(main)
