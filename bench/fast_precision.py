"""Precision of the fast channel on real dialogue: its writes over the LoCoMo dev turns judged
against the labelled set (#23).

Every turn of the dev conversations goes through key-less `cortex_ingest` (bench/fast_writes.py
says how); every fast-channel write is looked up in tests/data/fast_channel_labels.jsonl
(bench/fast_labels.py). Reported: precision over the judged writes (and counting unjudged ones
as wrong, so a changed channel cannot look better by writing texts nobody judged), recall on
the missed-facts subset and on every lasting fact of the set, and core writes per 100 turns.

    python -m bench.fast_precision                  # writes bench/results/fast_precision.json
    python -m bench.fast_precision --samples conv-26 --quick

Also writes the "Fast channel precision" section of docs/benchmarks.md (not with --quick).
"""

import argparse
import json
import sys
import tempfile
import textwrap
from collections import Counter
from pathlib import Path
from typing import Any

import anyio

from bench.distinct_facts import write_docs
from bench.fast_labels import LABELS, Label, judge, load_labels
from bench.fast_writes import FastWrite, fast_writes
from bench.locomo import DATA, ROOT, git, machine
from bench.locomo_data import load_samples
from cortex_mcp.clock import utc_now

RESULTS = ROOT / "bench" / "results" / "fast_precision.json"
BEGIN, END = "<!-- fast-precision:begin -->", "<!-- fast-precision:end -->"
CORE_WRITES = ("created", "superseded")


def ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def score(writes: list[FastWrite], labels: list[Label], turns: int) -> dict[str, Any]:
    """Precision, recall and the write rate of these writes against the labelled set."""
    unique = list({w.key(): w for w in writes}.values())
    judged = [(w, judge(labels, w.sample_id, w.dia_id, w.content)) for w in unique]
    known = [(w, label) for w, label in judged if label is not None]
    right = [w for w, label in known if label.lasting_fact]
    wrong = [(w, label) for w, label in known if not label.lasting_fact]
    unjudged = [w for w, label in judged if label is None]
    conversations = {w.sample_id for w in writes} | {label.conversation for label in labels}
    positives = [
        label for label in labels if label.lasting_fact and label.conversation in conversations
    ]
    found = [
        label
        for label in positives
        if any(label.covers(w.sample_id, w.dia_id, w.content) for w in unique)
    ]
    missed = [label for label in positives if label.kind == "missed_fact"]
    by_category: dict[str, dict[str, Any]] = {}
    for category, count in Counter(w.category for w, _ in known).most_common():
        good = sum(1 for w, label in known if w.category == category and label.lasting_fact)
        by_category[category] = {"judged": count, "lasting": good, "precision": ratio(good, count)}
    core = [w for w in writes if w.layer == "core" and w.action in CORE_WRITES]
    return {
        "turns": turns,
        "writes (with duplicates)": len(writes),
        "distinct writes": len(unique),
        "judged": len(known),
        "unjudged": len(unjudged),
        "precision (judged)": ratio(len(right), len(known)),
        "precision (unjudged counted wrong)": ratio(len(right), len(unique)),
        "recall on the missed-facts subset": ratio(
            sum(1 for label in found if label.kind == "missed_fact"), len(missed)
        ),
        "recall on every lasting fact of the set": ratio(len(found), len(positives)),
        "lasting facts in the set": len(positives),
        "core writes per 100 turns": round(100 * len(core) / turns, 2) if turns else 0.0,
        "fast-channel writes per 100 turns": round(100 * len(writes) / turns, 2) if turns else 0.0,
        "by category": by_category,
        "wrong writes (examples)": [
            {"turn": f"{w.sample_id} {w.dia_id}", "text": w.content, "why": label.reason}
            for w, label in wrong[:12]
        ],
        "unjudged writes": [
            {"turn": f"{w.sample_id} {w.dia_id}", "text": w.content, "category": w.category}
            for w in unjudged[:50]
        ],
    }


async def collect(data: Path, only: set[str] | None) -> tuple[list[FastWrite], int]:
    """Every fast-channel write over the dev turns, one fresh store per conversation."""
    writes: list[FastWrite] = []
    turns = 0
    with tempfile.TemporaryDirectory(prefix="cortex-fast-") as temp:
        for sample in load_samples(data, only):
            fed = await fast_writes(Path(temp) / sample.sample_id, sample)
            writes += fed.writes
            turns += fed.turns
            sys.stderr.write(f"  {sample.sample_id}: {len(fed.writes)} writes\n")
    return writes, turns


def section(document: dict[str, Any]) -> str:
    r = document["result"]

    def pct(value: float | None) -> str:
        return "–" if value is None else f"{value:.3f}"

    rows = [
        (f"distinct fast-channel writes over {r['turns']:,} turns", str(r["distinct writes"])),
        ("judged / unjudged", f"{r['judged']} / {r['unjudged']}"),
        ("precision (judged writes that are lasting facts)", pct(r["precision (judged)"])),
        ("precision, unjudged counted wrong", pct(r["precision (unjudged counted wrong)"])),
        ("recall on the missed-facts subset", pct(r["recall on the missed-facts subset"])),
        (
            "recall on every lasting fact of the set",
            pct(r["recall on every lasting fact of the set"]),
        ),
        ("core writes per 100 turns", f"{r['core writes per 100 turns']:.2f}"),
    ]
    categories = ", ".join(
        f"{name} {row['lasting']}/{row['judged']}" for name, row in r["by category"].items()
    )
    return "\n".join(
        [
            BEGIN,
            "## Fast channel precision (#23: `python -m bench.fast_precision`)",
            "",
            textwrap.fill(
                "Every turn of the five dev conversations goes once through key-less"
                " `cortex_ingest` as the user's message (the next turn of its session as the"
                " reply), one store per conversation; every fast-channel write is looked up in"
                " the labelled set `tests/data/fast_channel_labels.jsonl` (the rules:"
                f" `fast_channel_labels.md` beside it; {document['labels']['fast_write']} judged"
                f" writes, {document['labels']['missed_fact']} lasting facts the channel missed)."
                " Precision is the share of the channel's distinct writes judged lasting facts;"
                " recall the share of the set's lasting facts the channel writes now.",
                width=96,
            ),
            "",
            "| measure | value |",
            "| --- | --- |",
            *[f"| {name} | {value} |" for name, value in rows],
            "",
            textwrap.fill(
                f"Lasting facts per category of the judged writes: {categories}. The server's"
                f" code at commit {document['engine commit']}, the bench at"
                f" {document['machine']['commit']}, {document['generated_at']}.",
                width=96,
            ),
            END,
        ]
    )


async def main() -> None:
    cli = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    cli.add_argument("--data", type=Path, default=DATA)
    cli.add_argument("--labels", type=Path, default=LABELS)
    cli.add_argument("--samples", help="comma-separated sample ids (default: all)")
    cli.add_argument("--quick", action="store_true", help="print only")
    cli.add_argument("--results", type=Path, default=RESULTS)
    args = cli.parse_args()
    labels = load_labels(args.labels)
    only = set(args.samples.split(",")) if args.samples else None
    writes, turns = await collect(args.data, only)
    result = score(writes, labels, turns)
    summary = {k: v for k, v in result.items() if not isinstance(v, (list, dict))}
    sys.stderr.write(json.dumps(summary, indent=1) + "\n")
    if args.quick:
        return
    document = {
        "benchmark": "fast channel precision",
        "generated_at": utc_now().isoformat(timespec="seconds"),
        "machine": machine(),
        "engine commit": git("log", "-1", "--format=%h", "--", "cortex_mcp"),
        "labels": dict(Counter(label.kind for label in labels)),
        "result": result,
    }
    args.results.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    write_docs(section(document), BEGIN, END)


if __name__ == "__main__":
    anyio.run(main)
