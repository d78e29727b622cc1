"""How a correction with no slot finds the memory it replaces, without an LLM: precision and
recall on the labelled set (tests/data/corrections.json) for each term-overlap threshold.

    python -m bench.corrections

Writes bench/results/corrections.json and the "Corrections" section of docs/benchmarks.md; the
default `CORRECTION_OVERLAP` is the threshold with the best recall at the highest precision.
"""

import json
import tempfile
from pathlib import Path
from typing import Any

import anyio

from bench.distinct_facts import write_docs
from cortex_mcp.engine.ingest import verdict as update
from tests.engine.test_corrections import CASES, score_cases

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "corrections.json"
BEGIN, END = "<!-- corrections:begin -->", "<!-- corrections:end -->"
THRESHOLDS = (0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4)
SIMILARITIES = (0.85, 0.88, 0.9, 0.92, 0.95)


async def sweep() -> list[dict[str, Any]]:
    """Precision and recall at each overlap threshold (no vectors), then at each similarity
    threshold with the local embedder and the chosen overlap."""
    rows = []
    chosen = update.CORRECTION_OVERLAP, update.CORRECTION_SIMILARITY
    runs = [("none", t, chosen[1]) for t in THRESHOLDS]
    runs += [("local", chosen[0], s) for s in SIMILARITIES]
    try:
        for embedding, threshold, similarity in runs:
            update.CORRECTION_OVERLAP, update.CORRECTION_SIMILARITY = threshold, similarity
            with tempfile.TemporaryDirectory() as root:
                score = await score_cases(Path(root), CASES, embedding)
            rows.append(
                {
                    "embedding": embedding,
                    "similarity": similarity if embedding != "none" else None,
                    "threshold": threshold,
                    "precision": round(score.precision, 3),
                    "recall": round(score.recall, 3),
                    "supersedes_made": score.made,
                    "right": score.right,
                    "expected": score.expected,
                }
            )
    finally:
        update.CORRECTION_OVERLAP, update.CORRECTION_SIMILARITY = chosen
    return rows


def section(rows: list[dict[str, Any]]) -> str:
    """The docs section."""
    lines = [
        BEGIN,
        "## Corrections (`python -m bench.corrections`)",
        "",
        f"{len(CASES)} labelled cases in zh/en/ja (tests/data/corrections.json): memories, then "
        "one message, and the memory it should replace or none. No LLM. Defaults: term overlap "
        f"{update.CORRECTION_OVERLAP}, and with the local embedder cosine similarity "
        f"{update.CORRECTION_SIMILARITY} (a wrong supersede hides a true memory: precision first).",
        "",
        "| vectors | term overlap ≥ | similarity ≥ | precision | recall | supersedes made |",
        "|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {r['embedding']} | {r['threshold']} | {r['similarity'] or '—'} | {r['precision']} "
        f"| {r['recall']} | {r['supersedes_made']} |"
        for r in rows
    ]
    return "\n".join([*lines, END])


def main() -> None:
    """Run the sweep and write its results."""
    rows = anyio.run(sweep)
    RESULTS.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    write_docs(section(rows), BEGIN, END)
    print(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
