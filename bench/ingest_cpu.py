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
    python -m bench.ingest_cpu --baseline /tmp/before --rounds 3 --out ingest-cpu-s7.json
                                              # A/B: the two trees interleaved, 3 rounds each
    python -m bench.ingest_cpu --dialogue locomo   # the dev conversations' exchanges
    python -m bench.ingest_cpu --dialogue corrections   # statements, each then corrected
    python -m bench.ingest_cpu --baseline /tmp/before --rounds 3 --dialogue both --spans \
        --out ingest-cpu-s7.json                     # both kinds of exchange, one command

`--spans` times each step of every call (`bench.ingest_spans`: the decision, the same-statement
search, the writes ...) in one more run with an LLM configured, and keeps the mean of each step
over the slowest 5 % of the calls (`spans_tenth`: the slowest 10 %) beside its mean over all
(the wrappers add a little CPU, so that run's totals are not the figures above).

Each tree runs in a process of its own (its `cortex_mcp` package first on the path). With
`--baseline`, every round runs both trees on copies of the one seeded store, the first of a
round alternating, and `pooled` holds each tree's calls of all rounds together and the after /
before ratios. Writes bench/results/ingest-cpu.json, or `--out` (one entry per label and round).
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


CORRECTED = ["Redis", "Kafka", "RabbitMQ", "Postgres", "MySQL", "MongoDB", "Cassandra", "Nginx"]


def exchanges_of(dialogue: str, ingests: int) -> list[tuple[str, str, str | None]]:
    """`ingests` exchanges (user, reply, session): pairs of synthetic facts, the LoCoMo dev
    conversations' turns as `bench.ingest_llm --dialogue locomo` sends them, or statements each
    corrected by the next exchange, naming the value it replaces ("Actually service 3 uses
    Nginx3, not Postgres3."), every value new."""
    if dialogue == "corrections":
        said: list[tuple[str, str, str | None]] = []
        for i in range(ingests // 2):
            old = f"{CORRECTED[i % len(CORRECTED)]}{i}"
            new = f"{CORRECTED[(i + 3) % len(CORRECTED)]}{i}"
            said.append((f"The service number {i} keeps its queue in {old}.", "OK.", None))
            said.append((f"Actually service number {i} uses {new}, not {old}.", "Got it.", None))
        return said
    if dialogue == "locomo":
        from bench.ingest_llm import dialogue_exchanges

        return [
            (d["user_message"], d["assistant_message"], d["session_id"])
            for d in dialogue_exchanges(ingests)
        ]
    from bench.corpus import Corpus

    corpus = Corpus(SEED)
    pairs = itertools.islice(zip(corpus.memories(), corpus.memories(), strict=False), ingests)
    return [(user, reply, None) for (_, user), (_, reply) in pairs]


async def worker(
    home: Path, ingests: int, llm: bool, spans: bool = False, dialogue: str = "synthetic"
) -> dict[str, Any]:
    """Time `ingests` exchanges and the floor in this process; their summaries (`spans`: and
    each call's steps)."""
    import cortex_mcp
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
    exchanges = exchanges_of(dialogue, ingests)
    cpu: list[float] = []
    floor: list[float] = []
    steps = Spans()
    if spans:
        steps.install(SqliteConnection)
    async with open_engine(settings) as engine:
        await engine.ingest("We decided to keep the bench data in /tmp.", "OK.")  # warm
        for at, (user, reply, session) in enumerate(exchanges):
            steps.begin()
            started = time.process_time()
            result = await engine.ingest(user, reply, session_id=session)
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
        "samples": {
            "ingest": [round(ms, 3) for ms in cpu],
            "floor": [round(ms, 3) for ms in floor],
        },
        "ingest_cpu": summary(cpu),
        "floor_cpu": summary(floor),
        "deep_queued": queued,
        "code": package,
    } | ({"spans": steps.report(), "spans_tenth": steps.report(0.1)} if spans else {})


def run_tree(
    code: Path,
    seeded: Path,
    work: Path,
    ingests: int,
    llm: bool,
    spans: bool = False,
    dialogue: str = "synthetic",
) -> dict[str, Any]:
    """One worker process on a fresh copy of the seeded store, with `code`'s package first."""
    home = work / f"home-{'llm' if llm else 'none'}{'-spans' if spans else ''}"
    shutil.rmtree(home, ignore_errors=True)
    shutil.copytree(seeded, home)
    env = os.environ | {"PYTHONPATH": f"{code}{os.pathsep}{ROOT}"}
    command = [sys.executable, "-m", "bench.ingest_cpu", "--worker", str(home)]
    command += ["--ingests", str(ingests), "--dialogue", dialogue]
    command += (["--llm"] if llm else []) + (["--spans"] if spans else [])
    done = subprocess.run(
        command, cwd=code, env=env, capture_output=True, text=True, encoding="utf-8", check=True
    )
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


def with_ratio(run: dict[str, Any]) -> dict[str, Any]:
    """`run` with its p95 over its floor's p50, and without its raw samples."""
    ratio = round(run["ingest_cpu"]["p95"] / run["floor_cpu"]["p50"], 2)
    return {k: v for k, v in run.items() if k != "samples"} | {"ratio_p95_to_floor_p50": ratio}


def pooled(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The calls of several runs of one tree as one sample (each round's floor is its own)."""
    from bench.latency import summary

    cpu = [ms for run in runs for ms in run["samples"]["ingest"]]
    floor = [ms for run in runs for ms in run["samples"]["floor"]]
    ratios = [run["ingest_cpu"]["p95"] / run["floor_cpu"]["p50"] for run in runs]
    return {
        "ingest_cpu": summary(cpu),
        "floor_cpu": summary(floor),
        "mean_ratio_p95_to_floor_p50": round(sum(ratios) / len(ratios), 2),
    }


def compared(pooled: dict[str, Any], before: str, after: str) -> dict[str, float]:
    """`after`'s pooled p50, p95 and p99 over `before`'s, and its mean p95-to-floor ratio over
    `before`'s, with and without an LLM."""
    ratios: dict[str, float] = {}
    for name in ("no_llm", "llm"):
        old, new = pooled[f"{before} {name}"], pooled[f"{after} {name}"]
        for cut in ("p50", "p95", "p99"):
            ratios[f"{name} {cut}"] = round(new["ingest_cpu"][cut] / old["ingest_cpu"][cut], 3)
        key = "mean_ratio_p95_to_floor_p50"
        ratios[f"{name} p95/floor"] = round(new[key] / old[key], 3)
    return ratios


async def main() -> None:
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("--size", type=int, default=10_000)
    cli.add_argument("--ingests", type=int, default=200)
    cli.add_argument("--code", type=Path, default=ROOT, help="folder holding cortex_mcp/")
    cli.add_argument("--label", default="after")
    cli.add_argument("--baseline", type=Path, help="a second tree, run interleaved with --code")
    cli.add_argument("--baseline-label", default="before")
    cli.add_argument("--rounds", type=int, default=1, help="interleaved rounds of every tree")
    cli.add_argument(
        "--dialogue", choices=("synthetic", "locomo", "corrections", "both"), default="synthetic"
    )
    cli.add_argument("--out", default=RESULTS.name, help="file name in bench/results/")
    cli.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    cli.add_argument("--llm", action="store_true", help=argparse.SUPPRESS)
    cli.add_argument("--spans", action="store_true", help="also time each step of every call")
    args = cli.parse_args()
    if args.worker is not None:
        result = await worker(args.worker, args.ingests, args.llm, args.spans, args.dialogue)
        print(json.dumps(result))
        return
    from bench.corpus import Corpus
    from bench.ingest_spans import table
    from bench.latency import seed

    trees = {args.label: args.code.resolve()}
    if args.baseline is not None:
        trees = {args.baseline_label: args.baseline.resolve()} | trees
    dialogues = ["synthetic", "locomo"] if args.dialogue == "both" else [args.dialogue]
    stored_path = RESULTS.parent / args.out
    stored = json.loads(stored_path.read_text(encoding="utf-8")) if stored_path.exists() else {}
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        await seed(work / "seeded", args.size, Corpus(SEED))
        for dialogue in dialogues:
            suffix = f"-{dialogue}" if len(dialogues) > 1 else ""
            every = ab_rounds(args, trees, work, dialogue, suffix, stored)
            if args.spans:
                for label, code in trees.items():
                    spans = run_tree(
                        code, work / "seeded", work, args.ingests, True, True, dialogue
                    )
                    stored[f"{label}{suffix}-spans"] = {
                        "spans": spans["spans"],
                        "spans_tenth": spans["spans_tenth"],
                        "dialogue": dialogue,
                    }
                    print(label, dialogue, "\n" + table(spans["spans"]))
            if args.rounds > 1 or args.baseline is not None:
                summary: dict[str, Any] = {
                    f"{label} {name}": pooled(runs) for (label, name), runs in every.items()
                }
                summary |= {"rounds": args.rounds, "dialogue": dialogue}
                if args.baseline is not None:
                    summary["after_over_before"] = compared(
                        summary, args.baseline_label, args.label
                    )
                stored[f"pooled{suffix}"] = summary
                print(json.dumps(summary, indent=2))
    stored_path.write_text(json.dumps(stored, indent=2) + "\n", encoding="utf-8")


def ab_rounds(
    args: argparse.Namespace,
    trees: dict[str, Path],
    work: Path,
    dialogue: str,
    suffix: str,
    stored: dict[str, Any],
) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """`args.rounds` rounds of every tree, without and with an LLM, the first of a round
    alternating; each run's summary into `stored`; every run by (tree, LLM)."""
    from bench.latency import machine

    every: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for round_ in range(1, max(1, args.rounds) + 1):
        order = list(trees.items())
        order = order if round_ % 2 else order[::-1]  # who goes first alternates
        for label, code in order:
            load_before = os.getloadavg()[0]
            runs = {
                name: run_tree(code, work / "seeded", work, args.ingests, llm, False, dialogue)
                for name, llm in (("no_llm", False), ("llm", True))
            }
            for name, run in runs.items():
                every.setdefault((label, name), []).append(run)
            results = {name: with_ratio(run) for name, run in runs.items()} | {
                "size": args.size,
                "ingests": args.ingests,
                "dialogue": dialogue,
                "round": round_,
                "load_1min": [round(load_before, 1), round(os.getloadavg()[0], 1)],
                "machine": machine(),
            }
            key = f"{label}{suffix}" + (f"-r{round_}" if args.rounds > 1 else "")
            stored[key] = results
            print(json.dumps({key: {n: r["ingest_cpu"] for n, r in runs.items()}}))
    return every


if __name__ == "__main__":
    anyio.run(main)
