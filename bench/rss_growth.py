"""Issue #28 item 6: the serving process's RSS against the count of writes and recalls, on a
pre-seeded store (the issue's finding: 97 MB idle -> 639 MB after the store and recall phases
at 100,000 memories; target <= 200 MB at 100,000 after 100,000 writes and recalls).

    python -m bench.rss --store /tmp/cortex-bench-rss-100k seed --memories 100000 --log-messages 0
    python -m bench.rss_growth --store /tmp/cortex-bench-rss-100k --ops 100000 --every 2000 \
        --minutes 60 --baseline DIR --name 100k

One MCP stdio session per code tree (this checkout "after", `--baseline` "before": a tree
holding another commit's cortex_mcp/), run side by side on fresh copies of the seeded store
(one machine state for both), local embedder, no lifecycle: after the start has settled,
`--ops` rounds of one `cortex_remember` (a new memory) and one `cortex_recall`, with VmRSS,
VmHWM, anonymous and file-backed memory (/proc/<pid>/smaps_rollup) read every `--every`
rounds, beside the round trips of that stretch. `--minutes` bounds the run: the report says
how many rounds ran. `--trace DIR` has the "after" server write, at every reading, its RssAnon
before and after a `malloc_trim` and (unless `--frames 0`) tracemalloc's largest allocation
sites (slow: for finding, not for figures).
Writes bench/results/rss-growth-<name>.json.
"""

import argparse
import json
import os
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

from bench.corpus import Corpus
from bench.latency import SEED, git, summary
from bench.rss import RESULTS, ROOT, SERVER_ENV, call_ms, load_avg
from bench.speed import children_with

TRACE_PRELUDE = """
import ctypes, os, runpy, signal, sys, tracemalloc
from pathlib import Path
frames = int(os.environ["BENCH_TRACE_FRAMES"])
if frames:
    tracemalloc.start(frames)
readings = [0]
def anon():
    for line in Path("/proc/self/status").read_text(encoding="utf-8").splitlines():
        if line.startswith("RssAnon:"):
            return round(int(line.split()[1]) / 1024, 1)
def dump(*_):
    readings[0] += 1
    before = anon()
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    lines = [f"RssAnon {before} MiB, after malloc_trim {anon()} MiB\\n"]
    if frames:
        stats = tracemalloc.take_snapshot().statistics("lineno")
        lines.append(f"traced {sum(s.size for s in stats) / 2**20:.1f} MiB\\n")
        lines += [f"{s}\\n" for s in stats[:40]]
    out = os.path.join(os.environ["BENCH_TRACE_DIR"], f"trace-{readings[0]:03d}.txt")
    with open(out, "w", encoding="utf-8") as f:
        f.writelines(lines)
signal.signal(signal.SIGUSR1, dump)
sys.argv = ["cortex_mcp"]
runpy.run_module("cortex_mcp", run_name="__main__", alter_sys=True)
"""


def reading(pid: int) -> dict[str, float]:
    """VmRSS, VmHWM, anonymous / file-backed resident memory, the proportional share (Pss:
    pages mapped by several processes, such as the model's, divided among them) and the
    private memory (resident in this process alone), in MiB."""
    found: dict[str, float] = {}
    for line in Path(f"/proc/{pid}/status").read_text(encoding="utf-8").splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM", "RssAnon", "RssFile", "RssShmem"):
            found[key] = round(int(value.split()[0]) / 1024, 1)
    rollup: dict[str, int] = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text(encoding="utf-8").splitlines()[1:]:
        key, _, value = line.partition(":")
        if value.strip().endswith("kB"):
            rollup[key] = int(value.split()[0])
    found["Pss"] = round(rollup.get("Pss", 0) / 1024, 1)
    found["Private"] = round((rollup["Private_Clean"] + rollup["Private_Dirty"]) / 1024, 1)
    return found


def new_child(marker: bytes, taken: set[int]) -> int:
    """A child of this process whose command line holds `marker`, not among `taken`."""
    for pid in children_with(marker):
        if pid not in taken:
            taken.add(pid)
            return pid
    raise RuntimeError("the cortex-mcp server process was not found among our children")


def params(home: Path, code: Path, env: dict[str, str], trace: Path | None, frames: int) -> Any:
    """`python -m cortex_mcp` over stdio from `code`; with `trace`, each reading also writes
    RssAnon before and after a `malloc_trim` (freed memory the heap kept, against memory in
    use) and, with `frames`, tracemalloc's largest sites."""
    environ = {"CORTEX_HOME": str(home), **SERVER_ENV, **env}
    if trace is None:
        args = ["-m", "cortex_mcp"]
    else:
        trace.mkdir(parents=True, exist_ok=True)
        environ |= {"BENCH_TRACE_DIR": str(trace), "BENCH_TRACE_FRAMES": str(frames)}
        args = ["-c", TRACE_PRELUDE]
    return StdioServerParameters(command=sys.executable, args=args, env=environ, cwd=code)


class Session:
    """One server's run: its readings along the rounds."""

    def __init__(self, label: str, code: Path, home: Path, env: dict[str, str]) -> None:
        self.label, self.code, self.home, self.env = label, code, home, env
        self.readings: list[dict[str, Any]] = []
        self.rounds = 0

    def read(self, pid: int, stage: str, writes: list[float], recalls: list[float]) -> None:
        found: dict[str, Any] = {"stage": stage, "rounds": self.rounds, **reading(pid)}
        if writes:
            found["remember_p50_ms"] = summary(writes)["p50"]
            found["recall_p50_ms"] = summary(recalls)["p50"]
        self.readings.append(found)
        print(self.label, found, file=sys.stderr, flush=True)


async def run_session(
    session: Session,
    args: argparse.Namespace,
    taken: set[int],
    started: anyio.Event,
    trace: Path | None,
) -> None:
    """Start, settle, then rounds of one remember and one recall until `args.ops` rounds or
    the time limit."""
    corpus = Corpus(SEED + 7)
    contents = (f"{c} (growth {i})" for i, (_, c) in enumerate(corpus.memories()))
    queries = Corpus(SEED + 8)
    async with Client(
        params(session.home, session.code, session.env, trace, args.frames), mode="legacy"
    ) as cl:
        pid = new_child(b"cortex_mcp", taken)
        started.set()
        session.read(pid, "after_initialize", [], [])
        await call_ms(cl, "cortex_recall", {"query": "warm up"})
        session.read(pid, "after_first_recall", [], [])
        await anyio.sleep(args.settle)
        session.read(pid, "settled", [], [])
        deadline = time.monotonic() + args.minutes * 60
        writes: list[float] = []
        recalls: list[float] = []
        for _ in range(args.ops):
            writes.append(await call_ms(cl, "cortex_remember", {"content": next(contents)}))
            recalls.append(await call_ms(cl, "cortex_recall", {"query": queries.query()[1]}))
            session.rounds += 1
            if session.rounds % args.every == 0:
                if trace is not None:
                    os.kill(pid, signal.SIGUSR1)
                session.read(pid, "rounds", writes, recalls)
                writes, recalls = [], []
                if time.monotonic() > deadline:
                    break
        if writes:
            session.read(pid, "rounds", writes, recalls)
        await anyio.sleep(args.settle)
        session.read(pid, "idle_after", [], [])


def fresh_home(store: Path, into: Path, label: str) -> Path:
    home = into / label
    home.mkdir(parents=True)
    shutil.copy2(store / "cortex.db", home / "cortex.db")
    return home


def env_pairs(pairs: list[str]) -> dict[str, str]:
    return dict(pair.split("=", 1) for pair in pairs)


async def main_async(args: argparse.Namespace) -> None:
    report: dict[str, Any] = {
        "command": "rss_growth",
        "commit": git("rev-parse", "--short", "HEAD"),
        "baseline": str(args.baseline) if args.baseline else None,
        "store": str(args.store),
        "store_bytes": (args.store / "cortex.db").stat().st_size,
        "ops_asked": args.ops,
        "every": args.every,
        "minutes": args.minutes,
        "env_after": env_pairs(args.env),
        "cpus": os.cpu_count(),
        "load_before": load_avg(),
    }
    with tempfile.TemporaryDirectory(prefix="cortex-rss-growth-") as tmp:
        sessions = [Session("after", ROOT, fresh_home(args.store, Path(tmp), "after"), {})]
        sessions[0].env = env_pairs(args.env)
        if args.baseline:
            before = fresh_home(args.store, Path(tmp), "before")
            sessions.append(Session("before", args.baseline.resolve(), before, {}))
        taken: set[int] = set()
        async with anyio.create_task_group() as group:
            for session in sessions:  # one at a time until its pid is known
                started = anyio.Event()
                trace = args.trace if session.label == "after" else None
                group.start_soon(run_session, session, args, taken, started, trace)
                await started.wait()
    for session in sessions:
        report[session.label] = {"rounds": session.rounds, "readings": session.readings}
    report["load_after"] = load_avg()
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"rss-growth-{args.name}.json"
    path.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    for session in sessions:
        last = session.readings[-1]
        peak = max(r["VmHWM"] for r in session.readings)
        print(f"{session.label}: {session.rounds} rounds, RSS {last['VmRSS']} MB, peak {peak} MB")


def parse_args() -> argparse.Namespace:
    cli = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    cli.add_argument("--store", type=Path, required=True, help="a store seeded by bench.rss")
    cli.add_argument("--baseline", type=Path, help="a tree with the 'before' cortex_mcp/")
    cli.add_argument("--ops", type=int, default=100_000, help="rounds of remember + recall")
    cli.add_argument("--every", type=int, default=1000, help="rounds between readings")
    cli.add_argument("--minutes", type=float, default=60.0, help="stop after this long")
    cli.add_argument("--settle", type=float, default=20.0, help="seconds idle before/after")
    cli.add_argument("--env", action="append", default=[], help="KEY=VALUE for 'after'")
    cli.add_argument("--trace", type=Path, help="heap probes of 'after' are written here")
    cli.add_argument("--frames", type=int, default=1, help="tracemalloc frames (0: off)")
    cli.add_argument("--name", default="run", help="bench/results/rss-growth-<name>.json")
    return cli.parse_args()


def main() -> None:
    anyio.run(main_async, parse_args())


if __name__ == "__main__":
    main()
