"""Issue #28, items 2, 3, 5, 6 and 7: the figures that must not grow with the store or with
other writers, each as a ratio to a floor measured in the same run.

Stores are seeded once (bench/latency.py's synthetic corpus) under `--stores` and copied for
each measurement, so a 100,000-memory store is built one time only.

    python -m bench.speed seed --sizes 1000,10000,100000
    python -m bench.speed writers --processes 4 --writes 500      # item 3: writers at once
    python -m bench.speed stall --n 100000                        # item 2: recall while the
                                                                  # mirror is rewritten
    python -m bench.speed growth --sizes 1000,10000,100000        # item 7 (and RSS, item 6)
    python -m bench.speed recall --baseline DIR                   # item 7: BM25 recall ÷ floor,
                                                                  # servers side by side, CPU
    python -m bench.speed lifecycle --n 100000                    # item 3: writes during a run
    python -m bench.speed start --runs 15 --baseline DIR          # item 5: initialize

Each writes bench/results/speed-<command>-<label>.json (`--label before` / `after`).
"""

import argparse
import contextlib
import itertools
import json
import os
import platform
import random
import shutil
import sqlite3
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, cast

import anyio
from mcp import Client, StdioServerParameters

from bench.corpus import Corpus
from bench.latency import SEED, git, memory_mb, seed, summary
from cortex_mcp.store.sqlite import plain_connection

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
STORES = Path(tempfile.gettempdir()) / "s-speed-stores"
NOOP_SERVER = """
from mcp.server.mcpserver import MCPServer
server = MCPServer("noop")
@server.tool()
def noop(query: str = "") -> dict[str, str]:
    return {"query": query}
server.run()
"""
BASE_ENV = {
    "CORTEX_EMBEDDING__PROVIDER": "none",  # BM25 only: the vector leg is helper s-vec's
    "CORTEX_LIFECYCLE__ENABLED": "false",  # no scheduled run unless the command starts one
}


def load() -> dict[str, float]:
    """The machine's load averages now (the machine is shared: read ratios, not figures)."""
    one, five, fifteen = os.getloadavg()
    return {"1m": round(one, 2), "5m": round(five, 2), "15m": round(fifteen, 2)}


def store_of(n: int) -> Path:
    return STORES / str(n)


def fresh_home(n: int, into: Path) -> Path:
    """A copy of the seeded store of `n` memories (database only: the mirror is rebuilt)."""
    home = into / f"home-{n}"
    home.mkdir(parents=True)
    shutil.copy2(store_of(n) / "cortex.db", home / "cortex.db")
    return home


CODE = {"after": ROOT}
"""The code each server runs, by label: this checkout, and `--baseline` (a tree holding another
commit's cortex_mcp/, e.g. `git archive 8bff364 cortex_mcp | tar -x -C DIR`) as "before"."""


def cortex(home: Path, code: str = "after", **env: str) -> StdioServerParameters:
    """`python -m cortex_mcp` over stdio, run from `CODE[code]` (its cortex_mcp/ comes first)."""
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "cortex_mcp"],
        env={"CORTEX_HOME": str(home), **BASE_ENV, **env},
        cwd=CODE[code],
    )


def noop() -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-c", NOOP_SERVER], cwd=ROOT)


def children_with(marker: bytes) -> list[int]:
    """The children of this process whose command line holds `marker`, oldest pid first."""
    me, found = os.getpid(), []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text(encoding="utf-8")
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == me and marker in cmdline:
            found.append(int(entry.name))
    return sorted(found)


def child_pid(marker: bytes) -> int:
    """The newest child of this process whose command line holds `marker`."""
    return max(children_with(marker))


async def timed(call: Callable[[], Awaitable[Any]]) -> float:
    started = time.perf_counter()
    await call()
    return (time.perf_counter() - started) * 1000


async def tool_ms(client: Client, tool: str, arguments: dict[str, Any]) -> float:
    """One tool call's round trip in milliseconds."""
    started = time.perf_counter()
    result = await client.call_tool(tool, arguments)
    if result.is_error:
        raise RuntimeError(f"{tool} failed: {result.content}")
    return (time.perf_counter() - started) * 1000


def new_contents(count: int, tag: str) -> list[str]:
    """`count` corpus sentences made distinct by a tag no other writer uses."""
    memories = Corpus(SEED).memories()
    return [
        f"{content} ({tag} {i})" for i, (_, content) in enumerate(itertools.islice(memories, count))
    ]


def save(name: str, report: dict[str, Any]) -> None:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"speed-{name}.json"
    path.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=2, ensure_ascii=False))


def base_report(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "label": args.label,
        "commit": git("rev-parse", "--short", "HEAD"),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load_before": load(),
    }


# --- seed -------------------------------------------------------------------------------


async def seed_stores(sizes: list[int]) -> None:
    for n in sizes:
        if (store_of(n) / "cortex.db").exists():
            print(f"{n}: already seeded")
            continue
        store_of(n).mkdir(parents=True, exist_ok=True)
        print(n, await seed(store_of(n), n, Corpus(SEED)))


# --- item 3: writers at once ---------------------------------------------------------------


async def write_many(
    home: Path, contents: list[str], env: dict[str, str], code: str = "after"
) -> list[float]:
    """One server process storing `contents` one call after the other; each round trip."""
    async with Client(cortex(home, code, **env), mode="legacy") as client:
        await client.call_tool("cortex_recall", {"query": "warm up"})
        durations = []
        for content in contents:
            durations.append(await tool_ms(client, "cortex_remember", {"content": content}))
        return durations


def duplicates(home: Path) -> int:
    """Live memories beyond the first with the same content and scope."""
    conn = read_only(home)
    try:
        row = conn.execute(
            "select coalesce(sum(c - 1), 0) from (select count(*) c from memories"
            " where deleted_at is null and superseded_by is null"
            " group by content, coalesce(agent_id, '')) where c > 1"
        ).fetchone()
    finally:
        conn.close()
    return int(row[0])


async def writers_once(args: argparse.Namespace, code: str, tmp: Path) -> dict[str, Any]:
    """One process alone, then `--processes` at once, on a fresh copy of the store."""
    env = {"CORTEX_MIRROR__ENABLED": "false"} if args.no_mirror else {}
    shared = new_contents(args.writes // 10, "shared")  # every process states these too
    home = fresh_home(args.n, tmp / code)
    alone = await write_many(home, new_contents(args.writes, "alone"), env, code)
    before = duplicates(home)
    per_process: list[list[float]] = [[] for _ in range(args.processes)]

    async def one(i: int) -> None:
        mine = new_contents(args.writes - len(shared), f"writer-{i}") + shared
        random.Random(i).shuffle(mine)
        per_process[i] = await write_many(home, mine, env, code)

    started = time.perf_counter()
    async with anyio.create_task_group() as group:
        for i in range(args.processes):
            group.start_soon(one, i)
    seconds = time.perf_counter() - started
    together = summary([ms for durations in per_process for ms in durations])
    return {
        "one_process": summary(alone),
        "together": {
            "processes": args.processes,
            "writes_each": args.writes,
            "seconds": round(seconds, 1),
            **together,
        },
        "ratio_p50_to_one_process": round(together["p50"] / summary(alone)["p50"], 2),
        "duplicates": duplicates(home) - before,
        "load_after": load(),
    }


async def writers(args: argparse.Namespace) -> None:
    """Item 3: `--processes` servers writing at once; with `--baseline`, the baseline's code
    measured the same way, interleaved round by round, so both see the same load."""
    report = base_report(args) | {"n": args.n, "mirror": not args.no_mirror, "rounds": []}
    codes = ["before", "after"] if args.baseline else ["after"]
    with tempfile.TemporaryDirectory(prefix="s-speed-") as tmp:
        for round_ in range(args.rounds):
            for code in codes:
                shutil.rmtree(Path(tmp) / code, ignore_errors=True)
                result = await writers_once(args, code, Path(tmp))
                report["rounds"].append({"round": round_, "code": code, **result})
    for code in codes:
        mine = [r for r in report["rounds"] if r["code"] == code]
        report[code] = {
            "one_process_p50": [r["one_process"]["p50"] for r in mine],
            "together_p50": [r["together"]["p50"] for r in mine],
            "duplicates": sum(r["duplicates"] for r in mine),
        }
    save(f"writers-{args.label}", report)


# --- item 2: recall while the mirror is rewritten -------------------------------------------


async def stall_once(args: argparse.Namespace, code: str, tmp: Path) -> dict[str, Any]:
    """One server: a recall every `interval` s, a remember every `every` recalls; the mirror
    rewrites `debounce` s after each; recall p50 / p99 and the worst."""
    queries = Corpus(SEED)
    env = {"CORTEX_MIRROR__DEBOUNCE_S": str(args.debounce)}
    home = fresh_home(args.n, tmp / code)
    contents = iter(new_contents(args.recalls, "stall"))

    async def recall(client: Client) -> float:
        query = queries.query()[1]
        return await tool_ms(client, "cortex_recall", {"query": query})

    async with Client(cortex(home, code, **env), mode="legacy") as client:
        pid = child_pid(b"cortex_mcp")
        rss = {"after_initialize": memory_mb(pid)}
        first = await recall(client)  # waits for the mirror's catch-up at start, if it blocks
        await anyio.sleep(args.settle)
        rss["after_catch_up"] = memory_mb(pid)
        quiet = [await recall(client) for _ in range(args.recalls // 2)]
        busy, remembers = [], []
        for i in range(args.recalls):
            if i % args.every == 0:
                content = next(contents)
                remembers.append(await tool_ms(client, "cortex_remember", {"content": content}))
            busy.append(await recall(client))
            await anyio.sleep(args.interval)
        rss["after"] = memory_mb(pid)
    pages = len(list((home / "memory" / "working").glob("*.md")))
    return {
        "first_recall_ms": round(first, 1),
        "recall_quiet": summary(quiet),
        "recall_with_writes_and_mirror": summary(busy),
        "p99_to_p50": round(summary(busy)["p99"] / summary(busy)["p50"], 2),
        "remember": summary(remembers),
        "working_pages": pages,
        "rss_mb": rss,
        "load_after": load(),
    }


async def stall(args: argparse.Namespace) -> None:
    """Item 2: recall while writes come and the mirror is rewritten; with `--baseline`, the
    baseline's code first, on its own copy of the store."""
    report = base_report(args) | {"n": args.n, "debounce_s": args.debounce}
    codes = ["before", "after"] if args.baseline else ["after"]
    with tempfile.TemporaryDirectory(prefix="s-speed-") as tmp:
        for code in codes:
            report[code] = await stall_once(args, code, Path(tmp))
            shutil.rmtree(Path(tmp) / code, ignore_errors=True)
    save(f"stall-{args.n}-{args.label}", report)


# --- item 7 (and 6): remember and recall as the store grows, against the floors ---------------


def fts_top10_ms(conn: sqlite3.Connection, query: str) -> float | None:
    """Raw FTS5 top-10 of one query over the store's index (the SQL floor of a BM25 recall);
    None when the query has no searchable word."""
    from cortex_mcp.search.query import match_expression

    match = match_expression(query)
    if match is None:
        return None
    started = time.perf_counter()
    conn.execute(
        "select rowid from memories_fts where memories_fts match ? order by rank limit 10",
        (match,),
    ).fetchall()
    return (time.perf_counter() - started) * 1000


def read_only(home: Path) -> sqlite3.Connection:
    return cast(
        sqlite3.Connection, plain_connection(f"file:{home / 'cortex.db'}?mode=ro", uri=True)
    )


def raw_fts_ms(home: Path, queries: list[str]) -> list[float]:
    """Raw FTS5 top-10 of every query, one connection."""
    conn = read_only(home)
    try:
        timed_ = [fts_top10_ms(conn, query) for query in queries]
    finally:
        conn.close()
    return [ms for ms in timed_ if ms is not None]


async def noop_round_trips(count: int) -> list[float]:
    async with Client(noop(), mode="legacy") as client:
        for _ in range(10):
            await client.call_tool("noop", {"query": "warm up"})
        return [await tool_ms(client, "noop", {"query": "x"}) for _ in range(count)]


async def growth_session(
    home: Path, code: str, queries: list[str], contents: list[str], settle: float
) -> dict[str, Any]:
    """Recalls then remembers through one server, each right after its floor (a no-op MCP
    tool's round trip, and for a recall raw FTS5 top-10 of the same query), so both see the
    same load; RSS along the way."""
    async with (
        Client(cortex(home, code), mode="legacy") as client,
        Client(noop(), mode="legacy") as floor_client,
    ):
        pid = child_pid(b"cortex_mcp")
        rss = {"after_initialize": memory_mb(pid)}
        first = await tool_ms(client, "cortex_recall", {"query": "warm"})
        await anyio.sleep(settle)
        for q in queries[:10]:
            await client.call_tool("cortex_recall", {"query": q})
            await floor_client.call_tool("noop", {"query": q})
        conn = read_only(home)
        recall, recall_floor, per_call = [], [], []
        try:
            for q in queries:
                floor = await tool_ms(floor_client, "noop", {"query": q})
                floor += fts_top10_ms(conn, q) or 0.0
                recall.append(await tool_ms(client, "cortex_recall", {"query": q}))
                recall_floor.append(floor)
                per_call.append(recall[-1] / floor)
        finally:
            conn.close()
        rss["after_recalls"] = memory_mb(pid)
        remember, remember_floor = [], []
        for c in contents:
            remember_floor.append(await tool_ms(floor_client, "noop", {"query": c}))
            remember.append(await tool_ms(client, "cortex_remember", {"content": c}))
        rss["after_remembers"] = memory_mb(pid)
    return {
        "first_recall_ms": round(first, 1),
        "recall": summary(recall),
        "recall_floor_interleaved": summary(recall_floor),
        "recall_to_floor_interleaved": round(
            summary(recall)["p50"] / summary(recall_floor)["p50"], 2
        ),
        "recall_to_floor_per_call_p50": round(summary(per_call)["p50"], 2),
        "remember": summary(remember),
        "remember_noop_interleaved": summary(remember_floor),
        "rss_mb": rss,
    }


async def growth(args: argparse.Namespace) -> None:
    """Item 7: remember and BM25 recall at each size, against the floors of the same run (a
    no-op MCP tool's round trip + raw FTS5 top-10); with `--baseline`, the baseline too."""
    report = base_report(args) | {"runs": []}
    corpus = Corpus(SEED)
    codes = ["before", "after"] if args.baseline else ["after"]
    for n in args.sizes:
        queries = [corpus.query()[1] for _ in range(args.calls)]
        floor_rt = summary(await noop_round_trips(args.calls))
        run: dict[str, Any] = {"n": n, "noop_round_trip": floor_rt}
        with tempfile.TemporaryDirectory(prefix="s-speed-") as tmp:
            for code in codes:
                home = fresh_home(n, Path(tmp) / code)
                fts = summary(raw_fts_ms(home, queries))
                contents = new_contents(args.calls, f"growth-{n}")
                result = await growth_session(home, code, queries, contents, args.settle)
                floor = floor_rt["p50"] + fts["p50"]
                result["raw_fts_top10"] = fts
                result["recall_to_floor"] = round(result["recall"]["p50"] / floor, 2)
                run[code] = result
                shutil.rmtree(Path(tmp) / code, ignore_errors=True)
        run["load"] = load()
        report["runs"].append(run)
    for code in codes:
        smallest = report["runs"][0][code]["remember"]["p50"]
        for run in report["runs"]:
            run[code]["remember_to_smallest"] = round(run[code]["remember"]["p50"] / smallest, 2)
    save(f"growth-{args.label}", report)


# --- item 7: BM25 recall against its floor, servers side by side ---------------------------------


def cpu_ms(pid: int) -> float:
    """CPU time (user + system, every thread) a process has used so far, in milliseconds."""
    fields = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8").rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


async def recall_size(args: argparse.Namespace, n: int, codes: list[str]) -> dict[str, Any]:
    """At `n` memories: every code's server and a no-op server open at once; for each query the
    floor (the no-op's round trip + raw FTS5 top-10 of that query) and then each server's
    recall, the order of the servers turning at every query, so all see the same load; the
    p50 ratios to the floor, and each server's CPU time per call (read from /proc)."""
    corpus = Corpus(SEED)
    queries = [corpus.query()[1] for _ in range(args.calls)]
    with tempfile.TemporaryDirectory(prefix="s-speed-") as tmp:
        homes = {code: fresh_home(n, Path(tmp) / code) for code in codes}
        async with contextlib.AsyncExitStack() as stack:
            clients, pids = {}, {}
            for code in codes:
                params = cortex(homes[code], code)
                clients[code] = await stack.enter_async_context(Client(params, mode="legacy"))
                pids[code] = child_pid(b"cortex_mcp")
            floor_client = await stack.enter_async_context(Client(noop(), mode="legacy"))
            noop_pid = child_pid(b"noop")
            first = {
                c: await tool_ms(clients[c], "cortex_recall", {"query": "warm"}) for c in codes
            }
            await anyio.sleep(args.settle)  # the mirror's catch-up after a start
            for q in queries[:10]:
                await floor_client.call_tool("noop", {"query": q})
                for code in codes:
                    await clients[code].call_tool("cortex_recall", {"query": q})
            conn = read_only(homes[codes[-1]])
            noop_ms, fts_ms, floor_ms = [], [], []
            recall_ms: dict[str, list[float]] = {code: [] for code in codes}
            per_call: dict[str, list[float]] = {code: [] for code in codes}
            cpu_before = {code: cpu_ms(pid) for code, pid in pids.items()} | {
                "noop": cpu_ms(noop_pid)
            }
            try:
                for i, q in enumerate(queries):
                    noop_ms.append(await tool_ms(floor_client, "noop", {"query": q}))
                    fts_ms.append(fts_top10_ms(conn, q) or 0.0)
                    floor_ms.append(noop_ms[-1] + fts_ms[-1])
                    for code in codes[i % len(codes) :] + codes[: i % len(codes)]:
                        took = await tool_ms(clients[code], "cortex_recall", {"query": q})
                        recall_ms[code].append(took)
                        per_call[code].append(took / floor_ms[-1])
            finally:
                conn.close()
            cpu_after = {code: cpu_ms(pid) for code, pid in pids.items()} | {
                "noop": cpu_ms(noop_pid)
            }
    floor = summary(noop_ms)["p50"] + summary(fts_ms)["p50"]
    cpu = {k: round((cpu_after[k] - cpu_before[k]) / len(queries), 3) for k in cpu_before}
    return {
        "n": n,
        "calls": len(queries),
        "noop_round_trip": summary(noop_ms),
        "raw_fts_top10": summary(fts_ms),
        "floor_p50": round(floor, 3),
        "floor_per_call": summary(floor_ms),
        "noop_cpu_ms_per_call": cpu["noop"],
        **{
            code: {
                "first_recall_ms": round(first[code], 1),
                "recall": summary(recall_ms[code]),
                "recall_to_floor": round(summary(recall_ms[code])["p50"] / floor, 2),
                "recall_to_floor_per_call_p50": round(summary(per_call[code])["p50"], 2),
                "server_cpu_ms_per_recall": cpu[code],
                "server_cpu_beyond_noop_ms": round(cpu[code] - cpu["noop"], 3),
            }
            for code in codes
        },
        "load": load(),
    }


async def recall(args: argparse.Namespace) -> None:
    """Item 7: BM25-only recall against its floor at each size; with `--baseline`, the
    baseline's server beside this checkout's, call by call."""
    report = base_report(args) | {"runs": []}
    codes = ["before", "after"] if args.baseline else ["after"]
    for n in args.sizes:
        report["runs"].append(await recall_size(args, n, codes))
        print(json.dumps(report["runs"][-1], indent=2))
    save(f"recall-{args.label}", report)


# --- item 3: writes while a lifecycle runs ---------------------------------------------------


LIFECYCLE_RUN = (
    "import resource, sys\n"
    "from cortex_mcp.cli import main\n"
    "code = main(['lifecycle', 'run'])\n"
    "print('peak_kb', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
    "sys.exit(code)\n"
)
"""`cortex-mcp lifecycle run`, then its own peak RSS (VmHWM) on stderr."""


async def lifecycle_once(args: argparse.Namespace, code: str, tmp: Path) -> dict[str, Any]:
    """Idle writes, then writes while `cortex-mcp lifecycle run` runs in another process."""
    home = fresh_home(args.n, tmp / code)
    contents = iter(new_contents(args.writes * 10, f"lifecycle-{code}"))
    env = {"CORTEX_MIRROR__ENABLED": "false"}
    async with Client(cortex(home, code, **env), mode="legacy") as client:
        failed: list[str] = []

        async def write() -> float:
            """One remember's round trip; a refusal (the store locked past its busy timeout)
            is counted and timed like the others."""
            started = time.perf_counter()
            result = await client.call_tool("cortex_remember", {"content": next(contents)})
            if result.is_error:
                failed.append(str(result.content[0])[:200])
            return (time.perf_counter() - started) * 1000

        await client.call_tool("cortex_recall", {"query": "warm up"})
        idle = [await write() for _ in range(args.writes)]
        run_env = {**os.environ, "CORTEX_HOME": str(home), **BASE_ENV}
        started = time.perf_counter()
        during: list[float] = []
        async with await anyio.open_process(
            [sys.executable, "-c", LIFECYCLE_RUN], env=run_env, cwd=CODE[code]
        ) as run:
            assert run.stderr is not None
            with anyio.fail_after(args.timeout):
                while run.returncode is None and len(during) < args.writes * 9:
                    during.append(await write())
                stderr = (await run.stderr.receive(1_000_000)).decode("utf-8", "replace")
                await run.wait()
        seconds = time.perf_counter() - started
    peak = [line.split()[1] for line in stderr.splitlines() if line.startswith("peak_kb")]
    return {
        "idle": summary(idle),
        "during_lifecycle": summary(during) if during else None,
        "writes_during": len(during),
        "writes_refused": len(failed),
        "refusals": sorted(set(failed))[:3],
        "ratio_p50": round(summary(during)["p50"] / summary(idle)["p50"], 2) if during else None,
        "lifecycle_seconds": round(seconds, 1),
        "lifecycle_peak_rss_mb": round(int(peak[-1]) / 1024, 1) if peak else None,
        "load_after": load(),
    }


async def lifecycle(args: argparse.Namespace) -> None:
    """Item 3 (a run yields to writers) and item 6 (its peak RSS); `--baseline` first."""
    report = base_report(args) | {"n": args.n}
    codes = ["before", "after"] if args.baseline else ["after"]
    with tempfile.TemporaryDirectory(prefix="s-speed-") as tmp:
        for code in codes:
            report[code] = await lifecycle_once(args, code, Path(tmp))
            shutil.rmtree(Path(tmp) / code, ignore_errors=True)
    save(f"lifecycle-{args.n}-{args.label}", report)


# --- item 5: cold start ---------------------------------------------------------------------


async def import_profile(code: str, modules: str = "cortex_mcp.cli") -> dict[str, Any]:
    """`python -X importtime -c "import MODULES"` from `CODE[code]`: the total, the module
    count and the modules that cost most (cumulative microseconds)."""
    done = await anyio.run_process(
        [sys.executable, "-X", "importtime", "-c", f"import {modules}"],
        cwd=CODE[code],
        check=False,
    )
    rows = []
    for line in done.stderr.decode("utf-8").splitlines()[1:]:
        parts = line.split("|")
        if len(parts) == 3:
            rows.append((int(parts[1].strip()), parts[2].rstrip()))
    top_level = sum(us for us, name in rows if not name.startswith("  "))
    rows.sort(reverse=True)
    return {
        "import": modules,
        "total_us": top_level,
        "modules": len(rows),
        "top": [f"{us} {name}" for us, name in rows[:25]],
    }


IMPORT_SETS = {
    "sdk": "mcp.server.mcpserver",
    "cortex_mcp.cli": "cortex_mcp.cli",
    "cortex_mcp.engine.facade": "mcp.server.mcpserver, cortex_mcp.engine.facade",
    "cortex_mcp.cli + the engine (74e0127's start)": "cortex_mcp.cli, cortex_mcp.engine.facade",
}
"""What a start imports before the handshake: the SDK's own floor, the edge (cli, server,
tools, resources, browser app; since #28 item 5 without the engine), and the engine the edge
imported at module top before (and opens after the handshake now)."""


async def import_split(runs: int, code: str) -> dict[str, Any]:
    """Wall time of each import set in a fresh interpreter from `CODE[code]`, interleaved
    `runs` times; p50 ms and the ratio to the SDK's own import."""
    times: dict[str, list[float]] = {name: [] for name in IMPORT_SETS}
    for _ in range(runs):
        for name, modules in IMPORT_SETS.items():
            script = f"import time; t = time.perf_counter(); import {modules}; "
            script += "print((time.perf_counter() - t) * 1000)"
            done = await anyio.run_process([sys.executable, "-c", script], cwd=CODE[code])
            times[name].append(float(done.stdout.decode("utf-8")))
    sdk = summary(times["sdk"])["p50"]
    return {
        name: {"p50_ms": summary(ms)["p50"], "ratio_to_sdk": round(summary(ms)["p50"] / sdk, 2)}
        for name, ms in times.items()
    }


async def start(args: argparse.Namespace) -> None:
    """Item 5: spawn → `initialize` answered, for a no-op MCPServer and cortex, interleaved;
    then, in the same session, until tools/list and a first tool call are answered (the work
    the handshake no longer waits for is still done, right after it)."""
    report = base_report(args)
    codes = ["before", "after"] if args.baseline else ["after"]
    with tempfile.TemporaryDirectory(prefix="s-speed-") as tmp:
        servers = [("noop", noop())]
        for code in codes:
            servers.append((f"cortex {code}", cortex(fresh_home(args.n, Path(tmp) / code), code)))
        times: dict[str, list[float]] = {name: [] for name, _ in servers}
        usable: dict[str, list[float]] = {name: [] for name, _ in servers}
        for run in range(args.runs + 1):  # interleaved: the load hits every one alike
            for name, params in servers:
                started = time.perf_counter()
                async with Client(params, mode="legacy") as client:
                    answered = (time.perf_counter() - started) * 1000
                    await client.list_tools()
                    await client.call_tool("noop" if name == "noop" else "cortex_recall", {})
                    if run:  # the first round only warms the caches (.pyc, page cache)
                        times[name].append(answered)
                        usable[name].append((time.perf_counter() - started) * 1000)

    def ratios(ms: dict[str, list[float]]) -> dict[str, float]:
        floor = summary(ms["noop"])["p50"]
        return {name: round(summary(each)["p50"] / floor, 2) for name, each in ms.items()}

    report |= {
        "n": args.n,
        "initialize": {name: summary(ms) for name, ms in times.items()},
        "ratio_p50_to_noop": ratios(times),
        "first_tool_call": {name: summary(ms) for name, ms in usable.items()},
        "first_tool_call_ratio_p50_to_noop": ratios(usable),
        "importtime": {
            code: {
                "sdk": await import_profile(code, IMPORT_SETS["sdk"]),
                "cli": await import_profile(code),
            }
            for code in codes
        },
        "import_split": {code: await import_split(args.runs, code) for code in codes},
        "load_after": load(),
    }
    save(f"start-{args.label}", report)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "command",
        choices=["seed", "writers", "stall", "growth", "recall", "lifecycle", "start"],
    )
    parser.add_argument("--label", default="after")
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--writes", type=int, default=500)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--recalls", type=int, default=200)
    parser.add_argument("--every", type=int, default=10)
    parser.add_argument("--interval", type=float, default=0.05)
    parser.add_argument("--debounce", type=float, default=0.5)
    parser.add_argument("--settle", type=float, default=5.0)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--no-mirror", action="store_true")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--baseline", type=Path, help="a tree with the baseline's cortex_mcp/")
    args = parser.parse_args()
    args.sizes = [int(s) for s in args.sizes.split(",")]
    if args.baseline:
        CODE["before"] = args.baseline
    commands: dict[str, Callable[[argparse.Namespace], Awaitable[None]]] = {
        "writers": writers,
        "stall": stall,
        "growth": growth,
        "recall": recall,
        "lifecycle": lifecycle,
        "start": start,
    }
    if args.command == "seed":
        anyio.run(seed_stores, args.sizes)
    else:
        anyio.run(commands[args.command], args)


if __name__ == "__main__":
    main()
