"""CPU time of hybrid `cortex_recall`, in process, before and after a change (#23, #28).

Wall times on a shared 2-core machine move 2-3× between runs of the same code; the CPU a recall
costs (every thread of the process: the event loop, SQLite's thread, the embedder and the
matrix products) moves far less. For each round and each code tree: a fresh copy of a seeded
store (a `bench.latency --workdir` left it, vectors and all), one process running that tree's
engine with the local embedder, the vectors read into memory, 10 recalls to warm up, then the
same `--recalls` queries, each timed in wall and CPU, and the same queries embedded alone (the
floor's biggest part, uncached). Each recall's wall time beyond its own query embedding (the
part the recall adds to the floor's biggest term: what overlapping the legs with the embedding
cuts) is reported beside it. The trees are interleaved round by round, and their answers
compared: the memories and log lines returned, in order.

    python -m bench.recall_cpu --store /tmp/homes/n10000 --before /tmp/before --name log100k

Writes bench/results/recall-cpu-<name>.json.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
SEED = 20260101


def percentiles(samples: list[float]) -> dict[str, float]:
    """p50, p95 and mean of durations in ms."""
    ordered = sorted(samples)
    return {
        "p50": round(statistics.median(ordered), 2),
        "p95": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))], 2),
        "mean": round(statistics.fmean(ordered), 2),
    }


async def child(store: Path, recalls: int) -> dict[str, Any]:
    """In the tree on PYTHONPATH: time `recalls` recalls on `store` and the queries' embedding."""
    from bench.corpus import Corpus
    from cortex_mcp.config import Settings
    from cortex_mcp.engine.facade import open_engine

    settings = Settings.model_validate(
        {"home": store, "embedding": {"provider": "local"}, "lifecycle": {"enabled": False}}
    )
    corpus = Corpus(SEED)
    queries = [corpus.query()[1] for _ in range(recalls + 10)]
    async with open_engine(settings) as engine:
        vectors = engine.runtime.vectors
        await vectors.kept.refresh(engine.runtime.db)
        await vectors.said.refresh(engine.runtime.db)
        for query in queries[:10]:
            await engine.recall(query)
        spans: list[float] = []
        embed = vectors.embedder.embed

        async def timed(texts: list[str], *, kind: Any) -> Any:
            started = time.perf_counter()
            try:
                return await embed(texts, kind=kind)
            finally:
                spans.append(time.perf_counter() - started)

        vectors.embedder.embed = timed  # type: ignore[method-assign]
        beyond: list[float] = []
        wall: list[float] = []
        cpu: list[float] = []
        loop_cpu: list[float] = []
        answers: list[Any] = []
        for query in queries[10:]:
            started, used, own = time.perf_counter(), time.process_time(), time.thread_time()
            spans.clear()
            result = await engine.recall(query)
            wall.append((time.perf_counter() - started) * 1000)
            beyond.append(wall[-1] - sum(spans) * 1000)
            cpu.append((time.process_time() - used) * 1000)
            loop_cpu.append((time.thread_time() - own) * 1000)
            answers.append(
                [
                    [m.id for m in result.memories],
                    [[c.exchange_id, c.role, c.content] for c in result.conversation],
                ]
            )
        vectors.embedder.embed = embed  # type: ignore[method-assign]
        embed_wall: list[float] = []
        embed_cpu: list[float] = []
        for query in queries[10:]:
            started, used = time.perf_counter(), time.process_time()
            await vectors.embedder.embed([query], kind="query")
            embed_wall.append((time.perf_counter() - started) * 1000)
            embed_cpu.append((time.process_time() - used) * 1000)
        sizes = {"memories": vectors.kept.size, "messages": vectors.said.size}
        matrix_mb = round((vectors.kept.nbytes + vectors.said.nbytes) / 1e6, 1)
    return {
        "rows": sizes,
        "matrices_mb": matrix_mb,
        "recall_wall_ms": percentiles(wall),
        "recall_cpu_ms": percentiles(cpu),
        "recall_wall_beyond_its_embedding_ms": percentiles(beyond),
        "event_loop_cpu_ms": percentiles(loop_cpu),
        "embedding_wall_ms": percentiles(embed_wall),
        "embedding_cpu_ms": percentiles(embed_cpu),
        "answers": answers,
    }


def run_tree(tree: Path, store: Path, recalls: int) -> dict[str, Any]:
    """One child process over a fresh copy of `store` with `tree`'s code; its report."""
    with tempfile.TemporaryDirectory(prefix="recall-cpu-") as temp:
        copy = Path(temp) / "home"
        shutil.copytree(store, copy)
        out = Path(temp) / "report.json"
        env = {**os.environ, "PYTHONPATH": str(tree)}
        load = os.getloadavg()[0]
        subprocess.run(
            [sys.executable, __file__, "--child", str(copy), str(recalls), str(out)],
            env=env,
            cwd=tree,
            check=True,
        )
        report: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    report["load_1m"] = [round(load, 2), round(os.getloadavg()[0], 2)]
    return report


def agreement(first: list[Any], second: list[Any]) -> int:
    """How many recalls returned the same memories and log lines in the same order."""
    return sum(a == b for a, b in zip(first, second, strict=True))


def main() -> None:
    cli = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    cli.add_argument("--store", type=Path, required=True, help="a seeded CORTEX_HOME (copied)")
    cli.add_argument("--before", type=Path, required=True, help="the checkout to compare with")
    cli.add_argument("--recalls", type=int, default=80)
    cli.add_argument("--rounds", type=int, default=3)
    cli.add_argument("--name", required=True, help="bench/results/recall-cpu-<name>.json")
    args = cli.parse_args()
    trees = {"before": args.before.resolve(), "after": ROOT}
    rounds: list[dict[str, Any]] = []
    for number in range(1, args.rounds + 1):
        got = {label: run_tree(tree, args.store, args.recalls) for label, tree in trees.items()}
        same = agreement(got["before"].pop("answers"), got["after"].pop("answers"))
        rounds.append({"round": number, **got, "same_answers": f"{same} of {args.recalls}"})
        for label, report in got.items():
            print(
                f"round {number} {label}: recall CPU p50 {report['recall_cpu_ms']['p50']} ms,"
                f" wall p50 {report['recall_wall_ms']['p50']} ms (beyond its embedding"
                f" {report['recall_wall_beyond_its_embedding_ms']['p50']} ms), embedding CPU p50"
                f" {report['embedding_cpu_ms']['p50']} ms, load {report['load_1m']}",
                file=sys.stderr,
            )
        print(f"round {number}: same answers {same} of {args.recalls}", file=sys.stderr)

    def median_of(label: str, key: str) -> float:
        return round(float(statistics.median(r[label][key]["p50"] for r in rounds)), 2)

    summary = {
        label: {
            key: median_of(label, key)
            for key in (
                "recall_cpu_ms",
                "recall_wall_ms",
                "recall_wall_beyond_its_embedding_ms",
                "event_loop_cpu_ms",
                "embedding_cpu_ms",
                "embedding_wall_ms",
            )
        }
        for label in trees
    }
    for label in trees:
        summary[label]["recall_cpu_over_embedding_cpu"] = round(
            summary[label]["recall_cpu_ms"] / summary[label]["embedding_cpu_ms"], 2
        )
    report = {
        "benchmark": "recall_cpu",
        "store": str(args.store),
        "before": str(trees["before"]),
        "recalls": args.recalls,
        "summary (median of the rounds' p50)": summary,
        "rounds": rounds,
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"recall-cpu-{args.name}.json"
    out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        import anyio

        measured = anyio.run(child, Path(sys.argv[2]), int(sys.argv[3]))
        Path(sys.argv[4]).write_text(json.dumps(measured), encoding="utf-8")
    else:
        main()
