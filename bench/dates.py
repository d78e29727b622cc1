"""What resolving a memory's dates costs on the write path: microseconds per text.

Every LoCoMo dialog turn of ../shared/bench/locomo_dev.json ("speaker: text", English) and the
synthetic English/Chinese/Japanese memories of bench/corpus.py go through
`search.dates.mentioned_dates` against the turn's session date; the import of the module is
timed in a fresh interpreter.

    python -m bench.dates                 # writes bench/results/dates.json

Only the resolver is timed; the index write rides on the memory's own write transaction.
"""

import argparse
import itertools
import json
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.corpus import Corpus
from bench.latency import machine
from bench.locomo_data import load_samples
from cortex_mcp.clock import utc_now
from cortex_mcp.search.dates import mentioned_dates

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "bench" / "locomo_dev.json"
RESULTS = ROOT / "bench" / "results" / "dates.json"
ROUNDS = 5


def per_text_us(texts: list[tuple[str, datetime]]) -> dict[str, float]:
    """Mean, p50 and p99 microseconds per text (best of ROUNDS for the mean)."""
    means, each = [], []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        for text, at in texts:
            one = time.perf_counter()
            mentioned_dates(text, at)
            each.append(time.perf_counter() - one)
        means.append((time.perf_counter() - started) / len(texts))
    each.sort()
    return {
        "texts": len(texts),
        "mean_us": round(min(means) * 1e6, 1),
        "p50_us": round(statistics.median(each) * 1e6, 1),
        "p99_us": round(each[int(len(each) * 0.99)] * 1e6, 1),
    }


def import_ms() -> float:
    """Milliseconds to import the resolver in a fresh interpreter (its package already
    imported, as the server has it)."""
    code = (
        "import time, cortex_mcp.search.query as q; t = time.perf_counter();"
        " import cortex_mcp.search.dates; print((time.perf_counter() - t) * 1000)"
    )
    runs = [float(subprocess.check_output([sys.executable, "-c", code])) for _ in range(5)]
    return round(statistics.median(runs), 2)


def main() -> None:
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("--data", type=Path, default=DATA)
    cli.add_argument("--results", type=Path, default=RESULTS)
    args = cli.parse_args()
    turns = [
        (f"{turn.speaker}: {turn.text}", turn.said_at)
        for sample in load_samples(args.data)
        for turn in sample.turns
    ]
    now = datetime(2026, 1, 12, 10, tzinfo=UTC)
    corpus = [(text, now) for _, text in itertools.islice(Corpus(seed=7).memories(), 5000)]
    found = sum(bool(mentioned_dates(text, at)) for text, at in turns)
    report: dict[str, Any] = {
        "benchmark": "dates",
        "generated_at": utc_now().isoformat(timespec="seconds"),
        "machine": machine(),
        "import_ms": import_ms(),
        "locomo_turns": per_text_us(turns) | {"with_a_date": found},
        "synthetic_en_zh_ja": per_text_us(corpus),
    }
    args.results.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in report.items() if k != "machine"}, indent=2))


if __name__ == "__main__":
    main()
