"""CPU time of `cortex_ingest`'s request path at 10,000 memories (#25 item 4): a figure a loaded
machine does not inflate.

Wall times on a shared machine measure the other tenants as much as the code (bench.ingest_llm
saw p95 go from 21 to 190 ms between two runs of the same tree at a load of 20). The CPU time a
call costs does not: each call is timed with `time.process_time()` (every thread of the process,
so SQLite's work in the driver's thread counts), in process, on a copy of one seeded store,
through `Engine.ingest` (redaction, the log write, the fast channel, the follow-up), with no LLM
and with one configured (an OpenAI-wire provider that is never reached: the deep channel runs
in the background, which is not started here, so what is measured is what the caller waits
for). The floor, in the same run and process: small-talk exchanges (the log write alone).

    python -m bench.ingest_cpu                               # this checkout
    python -m bench.ingest_cpu --code /tmp/before --label before
    python -m bench.ingest_cpu --spans        # where the tail's CPU goes, step by step

`--spans` times each step of every call (`bench.ingest_spans`: the decision, the same-statement
search, the writes ...) in one more run with an LLM configured, and keeps the mean of each step
over the slowest 5 % of the calls beside its mean over all (the wrappers add a little CPU, so
that run's totals are not the figures above).

Each tree runs in a process of its own (its `cortex_mcp` package first on the path). Writes
bench/results/ingest-cpu.json (one entry per label).
"""

import argparse
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "ingest-cpu.json"
FLOOR = [("ok", "OK."), ("thanks!", "You're welcome."), ("好的", "好。")]
SEED = 20260101


async def worker(home: Path, ingests: int, llm: bool, spans: bool = False) -> dict[str, Any]:
    """Time `ingests` exchanges and the floor in this process; their summaries (`spans`: and
    each call's steps)."""
    import cortex_mcp
    from bench.corpus import Corpus
    from bench.ingest_spans import Spans
    from bench.latency import summary
    from cortex_mcp.config import Settings
    from cortex_mcp.engine.facade import open_engine
    from cortex_mcp.store.sqlite import SqliteConnection

    llm_settings = (
        {"provider": "openai", "base_url": "http://127.0.0.1:9/v1", "api_key": "bench"}
        if llm
        else {"provider": "none"}
    )
    settings = Settings.model_validate(
        {
            "home": home,
            "embedding": {"provider": "none"},
            "lifecycle": {"enabled": False},
            "llm": llm_settings,
        }
    )
    corpus = Corpus(SEED)
    pairs = itertools.islice(zip(corpus.memories(), corpus.memories(), strict=False), ingests)
    exchanges = [(user, reply) for (_, user), (_, reply) in pairs]
    cpu: list[float] = []
    floor: list[float] = []
    steps = Spans()
    if spans:
        steps.install(SqliteConnection)
    async with open_engine(settings) as engine:
        await engine.ingest("We decided to keep the bench data in /tmp.", "OK.")  # warm
        for at, (user, reply) in enumerate(exchanges):
            steps.begin()
            started = time.process_time()
            result = await engine.ingest(user, reply)
            cpu.append((time.process_time() - started) * 1000)
            steps.end(cpu[-1], user, [m.action for m in result.fast])
            if at % 4 == 0:  # the floor interleaved with the calls it is the floor of
                small = FLOOR[at % len(FLOOR)]
                started = time.process_time()
                await engine.ingest(*small)
                floor.append((time.process_time() - started) * 1000)
        queued = engine.runtime.llm.answers_in_background
    package = str(Path(cortex_mcp.__file__).parent.parent)
    return {
        "ingest_cpu": summary(cpu),
        "floor_cpu": summary(floor),
        "deep_queued": queued,
        "code": package,
    } | ({"spans": steps.report()} if spans else {})


def run_tree(
    code: Path, seeded: Path, work: Path, ingests: int, llm: bool, spans: bool = False
) -> dict[str, Any]:
    """One worker process on a fresh copy of the seeded store, with `code`'s package first."""
    home = work / f"home-{'llm' if llm else 'none'}{'-spans' if spans else ''}"
    shutil.rmtree(home, ignore_errors=True)
    shutil.copytree(seeded, home)
    env = os.environ | {"PYTHONPATH": f"{code}{os.pathsep}{ROOT}"}
    command = [sys.executable, "-m", "bench.ingest_cpu", "--worker", str(home)]
    command += ["--ingests", str(ingests)] + (["--llm"] if llm else [])
    command += ["--spans"] if spans else []
    done = subprocess.run(
        command, cwd=code, env=env, capture_output=True, text=True, encoding="utf-8", check=True
    )
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


async def main() -> None:
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("--size", type=int, default=10_000)
    cli.add_argument("--ingests", type=int, default=200)
    cli.add_argument("--code", type=Path, default=ROOT, help="folder holding cortex_mcp/")
    cli.add_argument("--label", default="after")
    cli.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    cli.add_argument("--llm", action="store_true", help=argparse.SUPPRESS)
    cli.add_argument("--spans", action="store_true", help="also time each step of every call")
    args = cli.parse_args()
    if args.worker is not None:
        print(json.dumps(await worker(args.worker, args.ingests, args.llm, args.spans)))
        return
    from bench.corpus import Corpus
    from bench.ingest_spans import table
    from bench.latency import machine, seed

    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        await seed(work / "seeded", args.size, Corpus(SEED))
        runs = {
            name: run_tree(args.code.resolve(), work / "seeded", work, args.ingests, llm)
            for name, llm in (("no_llm", False), ("llm", True))
        }
        if args.spans:
            spans = run_tree(args.code.resolve(), work / "seeded", work, args.ingests, True, True)
            runs["llm"]["spans"] = spans["spans"]
    for run in runs.values():
        run["ratio_p95_to_floor_p50"] = round(run["ingest_cpu"]["p95"] / run["floor_cpu"]["p50"], 2)
    results = runs | {
        "size": args.size,
        "ingests": args.ingests,
        "load_1min": [round(load_before, 1), round(os.getloadavg()[0], 1)],
        "machine": machine(),
    }
    stored = json.loads(RESULTS.read_text(encoding="utf-8")) if RESULTS.exists() else {}
    stored[args.label] = results
    RESULTS.write_text(json.dumps(stored, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in results.items() if k != "machine"}, indent=2))
    if args.spans:
        print(table(runs["llm"]["spans"]))


if __name__ == "__main__":
    anyio.run(main)
