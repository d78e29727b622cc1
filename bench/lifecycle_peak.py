"""Issue #28 item 6, the lifecycle half: a run's peak RSS over 10,000 and 100,000 memories,
before and after, and proof that the outcome did not change.

Each run is a child process (`open_runtime` + `run_lifecycle` at a fixed "now", the mirror off,
BM25 only) over its own copy of a seeded store (`bench.speed seed`, in /tmp/s-speed-stores);
it reports its peak RSS (`ru_maxrss`), its duration and its whole report. The old code runs from
a tree holding another commit's cortex_mcp/ (`--baseline`), the new from this checkout. The two
resulting stores are then compared row by row: every memory (every column) and every
lifecycle_log entry must be equal, and so must the two reports.

    git archive 74e0127 cortex_mcp | tar -x -C /tmp/s4-life-base
    nice -n 19 python -m bench.lifecycle_peak --baseline /tmp/s4-life-base --sizes 10000,100000

Writes bench/results/lifecycle-peak-<n>.json. Peak memory barely depends on load; durations do,
so they are given as a ratio (after / before, measured in the same run).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from cortex_mcp.store.sqlite import plain_connection

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
STORES = Path(tempfile.gettempdir()) / "s-speed-stores"
NOW = "2026-06-01T03:00:00+00:00"
CHILD = """
import asyncio, json, resource, sys, time
from datetime import datetime
from cortex_mcp.config import Settings
from cortex_mcp.engine.runtime import open_runtime
from cortex_mcp.engine.lifecycle import run_lifecycle

async def main():
    now = datetime.fromisoformat(sys.argv[1])
    async with open_runtime(Settings(), clock=lambda: now, environ={}) as rt:
        started = time.perf_counter()
        report = await run_lifecycle(rt)
        seconds = time.perf_counter() - started
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"peak_kb": peak_kb, "seconds": seconds, "report": report.outcome()}))

asyncio.run(main())
"""
ENV = {
    "CORTEX_EMBEDDING__PROVIDER": "none",
    "CORTEX_LIFECYCLE__ENABLED": "false",
    "CORTEX_MIRROR__ENABLED": "false",
}


def run_once(code: Path, store: Path, home: Path) -> dict[str, Any]:
    """One lifecycle run in a child process from `code`'s cortex_mcp/, over a copy of `store`."""
    home.mkdir(parents=True)
    shutil.copy2(store / "cortex.db", home / "cortex.db")
    env = {"PATH": os.environ.get("PATH", ""), "CORTEX_HOME": str(home), **ENV}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, NOW],
        cwd=code,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"the run from {code} failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def rows(db: Path) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """Every memory (every column, by id) and every lifecycle_log entry (in order)."""
    with plain_connection(f"file:{db}?mode=ro", uri=True) as conn:  # read from outside
        memories = conn.execute("select * from memories order by id").fetchall()
        log = conn.execute(
            "select action, memory_ids, details, executed_at from lifecycle_log order by id"
        ).fetchall()
    return memories, [(a, i, json.loads(d), e) for a, i, d, e in log]


def compare(before: Path, after: Path) -> dict[str, Any]:
    """How the two resulting stores differ (counts of differing rows; 0 and 0 when alike)."""
    old_memories, old_log = rows(before)
    new_memories, new_log = rows(after)
    return {
        "memories": len(new_memories),
        "memories_differing": sum(a != b for a, b in zip(old_memories, new_memories, strict=False))
        + abs(len(old_memories) - len(new_memories)),
        "log_entries": len(new_log),
        "log_entries_differing": sum(a != b for a, b in zip(old_log, new_log, strict=False))
        + abs(len(old_log) - len(new_log)),
    }


def counts(report: dict[str, Any]) -> dict[str, int]:
    """What a run did, by phase."""
    return {
        key: len(value) if isinstance(value, list) else value
        for key, value in report.items()
        if key not in ("mirror",)
    }


def measure(n: int, baseline: Path | None, tmp: Path) -> dict[str, Any]:
    """Before (when a baseline is given) and after at `n` memories."""
    store = STORES / str(n)
    result: dict[str, Any] = {"n": n, "now": NOW}
    codes = {"before": baseline, "after": ROOT} if baseline else {"after": ROOT}
    for label, code in codes.items():
        assert code is not None
        run = run_once(code, store, tmp / f"{n}-{label}")
        result[label] = {
            "peak_rss_mb": round(run["peak_kb"] / 1024, 1),
            "seconds": round(run["seconds"], 1),
            "did": counts(run["report"]),
        }
        result[f"{label}_report"] = run["report"]
    if baseline:
        result["same_report"] = result["before_report"] == result["after_report"]
        result["same_store"] = compare(
            tmp / f"{n}-before" / "cortex.db", tmp / f"{n}-after" / "cortex.db"
        )
        before, after = result["before"], result["after"]
        result["peak_ratio"] = round(after["peak_rss_mb"] / before["peak_rss_mb"], 2)
        result["seconds_ratio"] = round(after["seconds"] / before["seconds"], 2)
    for label in codes:
        del result[f"{label}_report"]
    result["load_after"] = [round(x, 2) for x in os.getloadavg()]
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--baseline", type=Path, help="a tree holding the old cortex_mcp/")
    args = parser.parse_args()
    for n in [int(s) for s in args.sizes.split(",")]:
        with tempfile.TemporaryDirectory(prefix="s4-life-") as tmp:
            result = measure(n, args.baseline, Path(tmp))
        RESULTS.mkdir(exist_ok=True)
        out = RESULTS / f"lifecycle-peak-{n}.json"
        out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
        print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
