"""The conversation log's vectors (#23, #28): their size on disk, the memory the in-process
matrix takes, and the nearest-neighbour search over them, sqlite-vec's scan against the numpy
matrix, at 10,000 memories + 100,000 logged messages (every text with a vector of e5's size).

    python -m bench.log_vectors                        # 10,000 memories, 100,000 messages
    python -m bench.log_vectors --memories 1000 --messages 10000 --queries 20   # quick

Every search is timed in the same process, interleaved (sqlite-vec, matrix, sqlite-vec, ...),
so the ratios hold on a shared machine; the vectors are random (bench.latency's
--random-vectors: the search costs the same whatever they hold) and the queries are real
questions embedded by the local model. Writes bench/results/log_vectors.json.
"""

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

from bench.corpus import Corpus
from bench.latency import SEED, machine, random_vectors, seed, store_bytes
from cortex_mcp.clock import utc_now
from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import open_engine
from cortex_mcp.engine.recall.log import LogVector, near_messages
from cortex_mcp.engine.vector_matrix import message_matrix
from cortex_mcp.store import message_vectors
from cortex_mcp.store.vectors import to_blob

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "log_vectors.json"
POOL = 48
"""Messages the log's vector leg asks for (`limit * 4 + 8` at max_results 10)."""


def rss_mb() -> float:
    """This process's resident memory."""
    with open("/proc/self/status", encoding="utf-8") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def p50(samples: list[float]) -> float:
    return round(statistics.median(samples), 3)


async def measure(home: Path, args: argparse.Namespace) -> dict[str, Any]:
    corpus = Corpus(SEED)
    seeded = await seed(home, args.memories, corpus, args.messages)
    without = await store_bytes(home)
    vectors_s = await random_vectors(home)
    with_vectors = await store_bytes(home)
    settings = Settings.model_validate(
        {"home": home, "llm": {"provider": "none"}, "embedding": {"provider": "local"}}
    )
    questions = [corpus.query()[1] for _ in range(args.queries)]
    timings: dict[str, list[float]] = {k: [] for k in ("embed", "sqlite_vec", "matrix")}
    timings |= {"leg_sqlite_vec": [], "leg_matrix": [], "recall": []}
    async with open_engine(settings) as engine:
        matrix = message_matrix()
        before_load = rss_mb()
        started = time.perf_counter()
        await matrix.refresh(engine.db)  # what the background loop does after a start
        load_s = time.perf_counter() - started
        after_load = rss_mb()
        for question in questions:
            started = time.perf_counter()
            vector = await engine.vectors.embedder.embed([question], kind="query")
            timings["embed"].append((time.perf_counter() - started) * 1000)
            assert vector is not None
            query = vector[0]
            async with engine.db.read() as conn:
                started = time.perf_counter()
                await conn.execute(
                    "select rowid, distance from message_vectors where embedding match ? and k = ?",
                    (to_blob(query), POOL * 4),
                )
                timings["sqlite_vec"].append((time.perf_counter() - started) * 1000)
                started = time.perf_counter()
                await matrix.nearest(conn, query, POOL * 4)
                timings["matrix"].append((time.perf_counter() - started) * 1000)
                started = time.perf_counter()
                await near_messages(conn, LogVector(query, 0.6, 0.4), "default", POOL)
                timings["leg_sqlite_vec"].append((time.perf_counter() - started) * 1000)
                started = time.perf_counter()
                await near_messages(conn, LogVector(query, 0.6, 0.4, matrix), "default", POOL)
                timings["leg_matrix"].append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            await engine.recall(question, max_results=10)
            timings["recall"].append((time.perf_counter() - started) * 1000)
        async with engine.db.read() as conn:
            counted = await message_vectors.coverage(conn)
    vector_bytes = with_vectors - without
    share = args.messages / (args.messages + args.memories)
    per_100k = vector_bytes * share * 100_000 / max(1, args.messages)
    return {
        "memories": args.memories,
        "messages": args.messages,
        "message_coverage": counted,
        "seed_seconds": seeded["seconds"],
        "random_vectors_seconds": vectors_s,
        "disk": {
            "store_bytes_without_vectors": without,
            "store_bytes_with_vectors": with_vectors,
            "vector_bytes": vector_bytes,
            "message_vector_bytes_per_100k_messages": round(per_100k),
            "log_bytes_per_100k_messages_without_vectors": round(
                seeded["database_bytes"] * 100_000 / max(1, args.messages + args.memories)
            ),
        },
        "rss_mb": {
            "before_matrix": before_load,
            "after_matrix": after_load,
            "matrix_load_seconds": round(load_s, 2),
            "end": rss_mb(),
        },
        "p50_ms": {name: p50(samples) for name, samples in timings.items()},
        "p95_ms": {
            name: round(sorted(s)[int(len(s) * 0.95) - 1], 3) for name, s in timings.items()
        },
        "load_avg_1m_at_end": os.getloadavg()[0],
    }


def parse_args() -> argparse.Namespace:
    cli = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    cli.add_argument("--memories", type=int, default=10_000)
    cli.add_argument("--messages", type=int, default=100_000)
    cli.add_argument("--queries", type=int, default=60)
    cli.add_argument("--results", type=Path, default=RESULTS)
    return cli.parse_args()


async def main() -> None:
    args = parse_args()
    with tempfile.TemporaryDirectory(prefix="cortex-logvec-") as temp:
        measured = await measure(Path(temp) / "home", args)
    report = {
        "benchmark": "log vectors",
        "generated_at": utc_now().isoformat(timespec="seconds"),
        "machine": machine(),
        "method": __doc__.split("\n\n")[2].replace("\n", " ").strip(),
        **measured,
    }
    args.results.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    anyio.run(main)
