"""Latency and memory of cortex-mcp as a client sees them, at 1,000 to 100,000 memories.

For each size N: seed N synthetic memories (bench/corpus.py) into a fresh CORTEX_HOME with the
engine in-process, then talk to `python -m cortex_mcp` over stdio through a real MCP client:
cold start (spawn until `initialize` is answered), `cortex_recall` and `cortex_remember`
round trips, and the resident memory of the server process from /proc.

    python -m bench.latency                       # 1,000, 10,000 and 100,000
    python -m bench.latency --sizes 1000,10000    # a subset
    python -m bench.latency --quick               # fewer calls; writes latency-quick.json only
    python -m bench.latency --sizes 10000 --log-messages 100000 --quick --out log-100k
                                                  # beside a conversation log of 100,000 messages
    python -m bench.latency --sizes 10000 --embedding local --quick --out local
                                                  # the local embedder of a plain install
    python -m bench.latency --sizes 10000 --embedding local --vectors --quick --out hybrid
                                                  # hybrid recall: every memory embedded first
    python -m bench.latency --sizes 10000 --log-messages 100000 --embedding local \
        --random-vectors --quick --out logvec    # hybrid beside 100,000 logged messages, every
                                                  # text with a (random) vector of e5's size
    python -m bench.latency --sizes 10000 --embedding local --random-vectors --floor \
        --under-writes 100 --settle 20 --quick --out floor
                                                  # hybrid recall against its floor, timed
                                                  # beside each recall (bench/recall_floor.py),
                                                  # and recalls while remembers run

    python -m bench.latency … --seeded /tmp/homes --tree /tmp/before --out before
                                                  # the stores an earlier run left in its
                                                  # --workdir (same sizes and options), copied
                                                  # instead of seeded; the server runs the code
                                                  # of another checkout: before and after over
                                                  # the same stores in minutes

    python -m bench.latency --sizes 10000,100000 --quick --out postgresql \
        --database-url postgresql://.../postgres   # the store on PostgreSQL (a database per N)

Writes bench/results/latency.json and the "Latency" section of docs/benchmarks.md.
"""

import argparse
import itertools
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from importlib.metadata import version
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp_types import CallToolResult, TextContent, TextResourceContents

from bench.corpus import Corpus
from bench.latency_docs import DOCS, markdown, targets, write_docs
from cortex_mcp.clock import utc_now
from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import open_engine
from cortex_mcp.models import Category, Layer, Memory, new_memory_id
from cortex_mcp.store.memories import insert_memory

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
SEED = 20260101
BATCH = 5000
SERVER_ENV = {
    "CORTEX_EMBEDDING__PROVIDER": "none",  # BM25 only: no model load, no background back-fill
    "CORTEX_LIFECYCLE__ENABLED": "false",  # no scheduled consolidation during the measurements
}
CATEGORIES = [
    (Category.FACT, 30),
    (Category.PREFERENCE, 20),
    (Category.DECISION, 10),
    (Category.PROJECT_STATE, 10),
    (Category.RELATIONSHIP, 8),
    (Category.TODO, 6),
    (Category.IDENTITY, 4),
    (Category.INSIGHT, 4),
    (Category.CORRECTION, 3),
    (Category.SKILL, 3),
    (Category.CONTEXT, 2),
]
LAYERS = [(Layer.CORE, 35), (Layer.WORKING, 45), (Layer.ARCHIVE, 20)]
AGENTS = [("default", 85), (None, 10), ("planner", 3), ("coder", 2)]  # None: shared


def weighted(rng: random.Random, pairs: list[tuple[Any, int]]) -> Any:
    return rng.choices([v for v, _ in pairs], weights=[w for _, w in pairs])[0]


def synthetic_memory(rng: random.Random, content: str) -> Memory:
    """A memory as the lifecycle would leave it: some old, some recalled, in every layer."""
    now = utc_now()
    created = now - timedelta(days=rng.uniform(0, 730))
    updated = created + (now - created) * rng.random() ** 3
    accesses = int(rng.expovariate(0.5)) if rng.random() < 0.4 else 0
    layer = weighted(rng, LAYERS)
    return Memory(
        id=new_memory_id(int(created.timestamp() * 1000)),
        agent_id=weighted(rng, AGENTS),
        layer=layer,
        category=weighted(rng, CATEGORIES),
        content=content,
        source=rng.choice(["manual", "extraction", "extraction"]),
        importance=round(min(1.0, max(0.0, rng.gauss(0.55, 0.2))), 2),
        confidence=round(rng.uniform(0.6, 0.95), 2),
        decay_score=round(rng.uniform(0.05, 1.0), 3),
        access_count=accesses,
        last_accessed=updated + (now - updated) * rng.random() if accesses else None,
        created_at=created,
        updated_at=updated,
        expires_at=now + timedelta(days=rng.uniform(1, 30)) if layer == Layer.WORKING else None,
        superseded_by=None,
        deleted_at=None,
        metadata={"tags": ["bench"]} if rng.random() < 0.1 else {},
    )


async def seed(home: Path, n: int, corpus: Corpus, log_messages: int = 0) -> dict[str, Any]:
    """N memories (and `log_messages` messages of the conversation log) in a fresh database,
    in transactions of BATCH rows; time and file size."""
    rng = random.Random(SEED + n)
    contents = corpus.memories()
    languages: dict[str, int] = {}
    started = time.perf_counter()
    settings = Settings.model_validate({"home": home, "database": database_settings()})
    async with open_engine(settings) as engine:
        for start in range(0, n, BATCH):
            async with engine.db.write() as conn:
                for language, content in itertools.islice(contents, min(BATCH, n - start)):
                    languages[language] = languages.get(language, 0) + 1
                    await insert_memory(conn, synthetic_memory(rng, content))
        await seed_log(engine, log_messages, corpus)
        seconds = time.perf_counter() - started
        async with engine.db.outside_transaction() as conn:
            if engine.db.dialect == "sqlite":
                await conn.execute("pragma wal_checkpoint(truncate)")
            else:  # fresh tables have no statistics until autovacuum comes by: plans go wrong
                await conn.execute("analyze")
        size = await engine.db.size_bytes()  # with -wal and -shm on SQLite
    return {
        "seconds": round(seconds, 2),
        "memories_per_s": round(n / seconds),
        "languages": languages,
        "database_bytes": size,
    }


async def embed_all(home: Path, provider: str) -> float:
    """Give every seeded memory a vector of `provider` before measuring, so recall is hybrid
    from the first call; the seconds it took."""
    started = time.perf_counter()
    settings = Settings.model_validate({"home": home, "embedding": {"provider": provider}})
    async with open_engine(settings) as engine:
        while await engine.vectors.backfill():
            pass
        if not await engine.vectors.searchable():
            raise RuntimeError(f"embedding provider {provider!r} did not embed every memory")
    return round(time.perf_counter() - started, 1)


async def random_vectors(home: Path) -> float:
    """Give every memory and logged message a random unit vector recorded as the local
    model's (embedding 110,000 texts here takes an hour; a nearest-neighbour search costs the
    same whatever the vectors hold, and each query is still embedded by the real model); the
    seconds it took."""
    import numpy as np

    from cortex_mcp.engine.embedding import COMPLETE_KEY
    from cortex_mcp.providers.local import DIMENSION, MODEL
    from cortex_mcp.store import message_vectors, vectors
    from cortex_mcp.store.meta import set_meta

    rng = np.random.default_rng(SEED)
    started = time.perf_counter()
    settings = Settings.model_validate(
        {"home": home, "database": database_settings(), "embedding": {"provider": "none"}}
    )

    def unit(rows: int) -> list[list[float]]:
        drawn = rng.standard_normal((rows, DIMENSION)).astype(np.float32)
        drawn /= np.linalg.norm(drawn, axis=1, keepdims=True)
        return [list(map(float, row)) for row in drawn]

    async with open_engine(settings) as engine:
        async with engine.db.write() as conn:
            await vectors.ensure_vector_table(conn, MODEL, DIMENSION)
            await message_vectors.create_table(conn, DIMENSION)
            await set_meta(conn, COMPLETE_KEY, "1")
        for find, store in (
            (vectors.missing_vectors, vectors.upsert_vectors),
            (message_vectors.missing, message_vectors.upsert),
        ):
            for _ in range(10**4):  # bounded: 10,000 batches
                async with engine.db.write() as conn:
                    todo = await find(conn, BATCH)
                    if not todo:
                        break
                    drawn = unit(len(todo))
                    await store(conn, [(seq, v) for (seq, _), v in zip(todo, drawn, strict=True)])
        async with engine.db.outside_transaction() as conn:
            if engine.db.dialect == "sqlite":
                await conn.execute("pragma wal_checkpoint(truncate)")
    return round(time.perf_counter() - started, 1)


async def store_bytes(home: Path) -> int:
    """The store's size on disk now (with -wal and -shm on SQLite)."""
    settings = Settings.model_validate({"home": home, "database": database_settings()})
    async with open_engine(settings) as engine:
        return int(await engine.db.size_bytes())


async def seed_log(engine: Any, messages: int, corpus: Corpus) -> None:
    """`messages` logged messages of the default agent, in exchanges of two (user, assistant)."""
    if not messages:
        return
    from cortex_mcp.store.conversation import append_message  # absent before #18

    contents = corpus.memories()
    for start in range(0, messages, BATCH):
        async with engine.db.write() as conn:
            for i in range(start, min(start + BATCH, messages)):
                await append_message(
                    conn,
                    agent_id="default",
                    session_id=None,
                    exchange_id=f"bench-{i // 2}",
                    origin="ingest",
                    role="user" if i % 2 == 0 else "assistant",
                    content=next(contents)[1],
                    created_at="2026-01-01T00:00:00.000000Z",
                )


def summary(samples_ms: list[float]) -> dict[str, Any]:
    """Count, mean and percentiles of a list of durations in milliseconds."""
    ordered = sorted(samples_ms)
    cuts = statistics.quantiles(ordered, n=100, method="inclusive") if len(ordered) > 1 else []

    def pct(p: int) -> float:
        return round(cuts[p - 1] if cuts else ordered[0], 3)

    return {
        "count": len(ordered),
        "mean": round(statistics.fmean(ordered), 3),
        "min": round(ordered[0], 3),
        "p50": pct(50),
        "p95": pct(95),
        "p99": pct(99),
        "max": round(ordered[-1], 3),
    }


SERVER_TREE: list[Path] = []
"""The checkout whose code the server runs (--tree); none: the one this bench runs from."""


def server_params(home: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "cortex_mcp"],
        env={"CORTEX_HOME": str(home), **SERVER_ENV},
        cwd=SERVER_TREE[0] if SERVER_TREE else Path.cwd(),  # `-m` imports from there
    )


def server_pid() -> int:
    """The pid of our `python -m cortex_mcp` child, found by scanning /proc."""
    me = os.getpid()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == me and b"cortex_mcp" in cmdline:
            return int(entry.name)
    raise RuntimeError("cortex-mcp server process not found among our children")


def memory_mb(pid: int) -> dict[str, float]:
    """VmRSS (resident now) and VmHWM (peak resident) of a process, in MiB."""
    found: dict[str, float] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            found[key] = round(int(value.split()[0]) / 1024, 1)
    return found


def structured(result: CallToolResult) -> dict[str, Any]:
    """The result as a dict: structured content, else the JSON of its text block."""
    if result.is_error:
        raise RuntimeError(f"tool call failed: {result.content}")
    if isinstance(result.structured_content, dict):
        return result.structured_content
    block = result.content[0]
    assert isinstance(block, TextContent)
    data: dict[str, Any] = json.loads(block.text)
    return data


async def cold_starts(home: Path, runs: int, corpus: Corpus) -> dict[str, Any]:
    """Spawn → `initialize` answered, and the first recall of a fresh process, `runs` times."""
    init_ms: list[float] = []
    first_recall_ms: list[float] = []
    for _ in range(runs):
        started = time.perf_counter()
        async with Client(server_params(home), mode="legacy") as client:
            init_ms.append((time.perf_counter() - started) * 1000)
            query = corpus.query()[1]
            started = time.perf_counter()
            structured(await client.call_tool("cortex_recall", {"query": query}))
            first_recall_ms.append((time.perf_counter() - started) * 1000)
    return {"initialize": summary(init_ms), "first_recall": summary(first_recall_ms)}


async def timed_calls(
    client: Client, tool: str, arguments: list[dict[str, Any]]
) -> tuple[list[float], list[dict[str, Any]]]:
    durations: list[float] = []
    results: list[dict[str, Any]] = []
    for args in arguments:
        started = time.perf_counter()
        result = await client.call_tool(tool, args)
        durations.append((time.perf_counter() - started) * 1000)
        results.append(structured(result))
    return durations, results


async def recalls_while_writing(
    client: Client, queries: list[str], contents: list[str]
) -> tuple[list[float], int]:
    """Recalls timed while another task writes with `cortex_remember` one after the other (each
    write wakes the back-fill, which embeds it, and updates the Markdown mirror); the recall
    durations and how many writes ran meanwhile."""
    written = 0
    done = anyio.Event()

    async def write() -> None:
        nonlocal written
        for content in contents:
            if done.is_set():
                return
            structured(await client.call_tool("cortex_remember", {"content": content}))
            written += 1

    async with anyio.create_task_group() as group:
        group.start_soon(write)
        durations, _ = await timed_calls(client, "cortex_recall", [{"query": q} for q in queries])
        done.set()
    return durations, written


async def recalls_beside_floor(
    client: Client, home: Path, queries: list[tuple[str, str]], floor: bool
) -> tuple[list[float], list[dict[str, Any]], dict[str, Any] | None]:
    """The timed recalls (each after the floor's components for the same query, with
    `floor`), their results and the floor's report (None without `floor`)."""
    arguments = [{"query": q} for _, q in queries]
    if not floor:
        durations, found = await timed_calls(client, "cortex_recall", arguments)
        return durations, found, None
    from bench.recall_floor import floor_probe

    durations, found = [], []
    async with floor_probe(home) as probe:
        for args in arguments:
            await probe.sample(args["query"])
            took, result = await timed_calls(client, "cortex_recall", [args])
            durations += took
            found += result
        return durations, found, probe.report(summary(durations)["p50"])


async def session(
    home: Path,
    corpus: Corpus,
    recalls: int,
    remembers: int,
    ingests: int = 0,
    settle_s: float = 0.0,
    under_writes: int = 0,
    floor: bool = False,
) -> dict[str, Any]:
    """One long session: warm up (and wait `settle_s` for the background pass that reads the
    vectors into memory), time recalls, recalls while writes run (`under_writes` of them), then
    remembers, then ingests (exchanges with no LLM), reading RSS along the way. `floor`: the
    floor's components timed before each recall (bench/recall_floor.py)."""
    queries = [corpus.query() for _ in range(recalls)]
    rng = random.Random(SEED)
    new = [
        {"content": content, "importance": round(rng.uniform(0.3, 0.95), 2)}
        for _, content in itertools.islice(corpus.memories(), remembers)
    ]
    exchanges = [
        {"user_message": user, "assistant_message": reply}
        for (_, user), (_, reply) in itertools.islice(
            zip(corpus.memories(), corpus.memories(), strict=False), ingests
        )
    ]
    async with Client(server_params(home), mode="legacy") as client:
        pid = server_pid()
        rss = {"after_initialize": memory_mb(pid)}
        first = time.perf_counter()
        structured(await client.call_tool("cortex_recall", {"query": corpus.query()[1]}))
        first_recall_ms = (time.perf_counter() - first) * 1000
        rss["after_first_recall"] = memory_mb(pid)
        await anyio.sleep(settle_s)
        await timed_calls(
            client, "cortex_recall", [{"query": corpus.query()[1]} for _ in range(10)]
        )
        recall_ms, found, floor_report = await recalls_beside_floor(client, home, queries, floor)
        rss["after_recalls"] = memory_mb(pid)
        busy: dict[str, Any] | None = None
        if under_writes:
            writes = [
                f"{c} (written during recalls {i})"
                for i, c in enumerate(
                    c for _, c in itertools.islice(corpus.memories(), under_writes * 4)
                )
            ]
            busy_ms, written = await recalls_while_writing(
                client, [corpus.query()[1] for _ in range(under_writes)], writes
            )
            busy = {"recall": summary(busy_ms), "writes_meanwhile": written}
            busy["p99_to_p50"] = round(busy["recall"]["p99"] / busy["recall"]["p50"], 2)
            rss["after_recalls_while_writing"] = memory_mb(pid)
        remember_ms, stored = await timed_calls(client, "cortex_remember", new)
        rss["after_remembers"] = memory_mb(pid)
        ingest_ms, _ = await timed_calls(client, "cortex_ingest", exchanges)
        stats = await client.read_resource("cortex://stats")
    block = stats.contents[0]
    assert isinstance(block, TextResourceContents)
    by_language: dict[str, list[float]] = {}
    for (language, _), ms in zip(queries, recall_ms, strict=True):
        by_language.setdefault(language, []).append(ms)
    hits = [len(r["memories"]) for r in found]
    actions: dict[str, int] = {}
    for r in stored:
        actions[r["action"]] = actions.get(r["action"], 0) + 1
    return {
        "recall": summary(recall_ms),
        "recall_by_language": {k: summary(v) for k, v in sorted(by_language.items())},
        "recall_engine": json.loads(block.text)["recall_latency_ms"],
        "recall_floor": floor_report,
        "recall_while_writing": busy,
        "recall_hits": {
            "mean": round(statistics.fmean(hits), 2),
            "queries_with_no_hit": hits.count(0),
            "mean_candidates": round(statistics.fmean(r["total_candidates"] for r in found), 1),
        },
        "remember": summary(remember_ms),
        "remember_actions": actions,
        "ingest": summary(ingest_ms) if ingest_ms else None,
        "first_recall_in_session_ms": round(first_recall_ms, 3),
        "rss_mb": rss,
    }


def database_settings() -> dict[str, str]:
    """`database` settings: PostgreSQL when --database-url was given (SERVER_ENV holds it)."""
    url = SERVER_ENV.get("CORTEX_DATABASE_URL")
    return {"url": url} if url else {}


def fresh_database(admin_url: str, n: int) -> str:
    """A new empty database `cortex_bench_<n>` on the server; its URL."""
    import psycopg

    name = f"cortex_bench_{n}"
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f"drop database if exists {name} with (force)")  # a name we made
        conn.execute(f"create database {name}")
    server, mark, query = admin_url.partition("?")
    return f"{server.rsplit('/', 1)[0]}/{name}{mark}{query}"


async def measure(n: int, workdir: Path, args: argparse.Namespace) -> dict[str, Any]:
    home = workdir / f"n{n}"
    shutil.rmtree(home, ignore_errors=True)
    if args.database_url:
        SERVER_ENV["CORTEX_DATABASE_URL"] = fresh_database(args.database_url, n)
    load_before = os.getloadavg()[0]
    corpus = Corpus(SEED)
    if args.seeded:
        log(f"N={n:,}: copying the store seeded in {args.seeded / home.name}")
        shutil.copytree(args.seeded / home.name, home)
        for _ in corpus.memories():  # the corpus where seeding would have left it
            if len(corpus.seen) >= n + args.log_messages:
                break
        seeded: dict[str, Any] = {"copied_from": str(args.seeded / home.name)}
    else:
        log(f"N={n:,}: seeding")
        seeded = await seed(home, n, corpus, args.log_messages)
        if args.random_vectors:
            seeded["random_vectors_seconds"] = await random_vectors(home)
        elif args.vectors:
            seeded["embedding_seconds"] = await embed_all(home, args.embedding)
    seeded["database_bytes_with_vectors"] = await store_bytes(home)
    log(f"N={n:,}: store of {seeded['database_bytes_with_vectors'] / 1e6:.1f} MB")
    cold = await cold_starts(home, args.cold_starts, corpus)
    log(f"N={n:,}: cold start p50 {cold['initialize']['p50']:.0f} ms")
    measured = await session(
        home,
        corpus,
        args.recalls,
        args.remembers,
        args.ingests,
        args.settle,
        args.under_writes,
        args.floor,
    )
    log(f"N={n:,}: recall p50 {measured['recall']['p50']:.1f} ms")
    if measured["recall_floor"] is not None:
        floor = measured["recall_floor"]
        log(f"N={n:,}: floor {floor['floor_ms']} ms → recall / floor {floor['recall_to_floor']}")
    load = {"before": load_before, "after": os.getloadavg()[0]}  # other work on the machine
    return {
        "n": n,
        "seed": seeded,
        "cold_start_ms": cold,
        **measured,
        "load_avg_1m": load,
    }


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def git(*args: str, cwd: Path = ROOT) -> str:
    """What `git *args` prints in `cwd` (empty when it fails)."""
    done = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, encoding="utf-8", check=False
    )
    return done.stdout.strip()


def host_probe_ms() -> float:
    """The best of three runs of a fixed pure-Python loop (2,000,000 additions), in ms: how fast
    the host let this machine's CPU run at the time (load averages do not show the host's other
    tenants; the same loop took 2.5 times as long within an hour on one machine)."""
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        total = 0
        for step in range(2_000_000):
            total += step
        best = min(best, (time.perf_counter() - started) * 1000)
    return round(best, 1)


def machine() -> dict[str, Any]:
    from cortex_mcp.store.sqlite import pick_driver

    driver = pick_driver()
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        platform.processor(),
    )
    memory_kb = int(Path("/proc/meminfo").read_text().split()[1])
    commit = git("rev-parse", "--short", "HEAD")
    dirty = bool(git("status", "--porcelain", "--untracked-files=no"))
    return {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpu": cpu,
        "cpus": os.cpu_count(),
        "memory_gb": round(memory_kb / 1024**2, 1),
        "sqlite": driver.module.sqlite_version,
        "sqlite_driver": driver.name,
        "sqlite_vec": driver.vectors,
        "mcp": version("mcp"),
        "cortex_mcp": version("cortex-mcp-server"),
        "git_commit": commit or None,
        "git_dirty": dirty,
        "host_probe_ms": host_probe_ms(),
    }


def server_tree() -> dict[str, Any]:
    """The checkout the server ran from and its commit."""
    tree = SERVER_TREE[0] if SERVER_TREE else ROOT
    commit = git("rev-parse", "--short", "HEAD", cwd=tree)
    return {"path": str(tree), "git_commit": commit or None}


def parse_args() -> argparse.Namespace:
    cli = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    cli.add_argument("--sizes", default="1000,10000,100000", help="comma-separated N values")
    cli.add_argument("--quick", action="store_true", help="few calls; skip docs/benchmarks.md")
    cli.add_argument("--recalls", type=int, help="timed recall calls per N (default 300)")
    cli.add_argument("--remembers", type=int, help="timed remember calls per N (default 200)")
    cli.add_argument("--cold-starts", type=int, help="server spawns per N (default 7)")
    cli.add_argument("--workdir", type=Path, help="where the CORTEX_HOMEs go (default: temp)")
    cli.add_argument("--ingests", type=int, help="timed ingest calls per N (default 200)")
    cli.add_argument("--log-messages", type=int, default=0, help="conversation log size")
    cli.add_argument("--embedding", default="none", help="embedding.provider of the server")
    cli.add_argument(
        "--vectors",
        action="store_true",
        help="embed every memory before measuring (hybrid recall from the first call)",
    )
    cli.add_argument(
        "--random-vectors",
        action="store_true",
        help="give every memory and logged message a random vector of the local model's"
        " dimension instead of embedding them (an hour at 110,000 texts; same search cost)",
    )
    cli.add_argument(
        "--floor",
        action="store_true",
        help="measure the hybrid recall's floor at each N in the same run (bench/recall_floor.py)",
    )
    cli.add_argument(
        "--settle", type=float, default=0.0, help="seconds to wait after the first recall"
    )
    cli.add_argument(
        "--under-writes", type=int, default=0, help="recalls timed while remembers run"
    )
    cli.add_argument(
        "--seeded",
        type=Path,
        help="a --workdir an earlier run left (same sizes and options): its stores are copied"
        " instead of seeded",
    )
    cli.add_argument("--tree", type=Path, help="the checkout whose code the server runs")
    cli.add_argument("--out", help="results name (bench/results/latency-<out>.json); no docs")
    cli.add_argument(
        "--database-url", help="a PostgreSQL server's URL (…/postgres): the store goes there"
    )
    args = cli.parse_args()
    args.sizes = [int(size.replace("_", "")) for size in args.sizes.split(",")]
    args.recalls = args.recalls or (60 if args.quick else 300)
    args.remembers = args.remembers or (40 if args.quick else 200)
    args.cold_starts = args.cold_starts or (3 if args.quick else 7)
    args.ingests = args.ingests if args.ingests is not None else (40 if args.quick else 200)
    SERVER_ENV["CORTEX_EMBEDDING__PROVIDER"] = args.embedding
    if args.tree:
        SERVER_TREE.append(args.tree.resolve())
    return args


async def main() -> None:
    args = parse_args()
    probe_before = host_probe_ms()
    log(f"host probe {probe_before} ms (a fixed Python loop; lower is a quieter host)")
    with tempfile.TemporaryDirectory(prefix="cortex-bench-") as temp:
        workdir = args.workdir or Path(temp)
        runs = [await measure(n, workdir, args) for n in args.sizes]
    report: dict[str, Any] = {
        "benchmark": "latency",
        "generated_at": utc_now().isoformat(timespec="seconds"),
        "machine": machine() | {"host_probe_ms_before": probe_before},
        "settings": {
            "sizes": args.sizes,
            "seed": SEED,
            "recalls": args.recalls,
            "remembers": args.remembers,
            "cold_starts": args.cold_starts,
            "quick": args.quick,
            "server_env": SERVER_ENV,
            "log_messages": args.log_messages,
            "ingests": args.ingests,
            "engine": "postgresql" if args.database_url else "sqlite",
            "server_tree": server_tree(),
        },
        "runs": runs,
    }
    report["targets"] = targets(runs)
    RESULTS.mkdir(parents=True, exist_ok=True)
    name = f"latency-{args.out}" if args.out else "latency-quick" if args.quick else "latency"
    out = RESULTS / f"{name}.json"
    out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    log(f"wrote {out.relative_to(ROOT)}")
    if not args.quick and not args.out:
        write_docs(markdown(report))
        log(f"wrote {DOCS.relative_to(ROOT)}")
    for t in report["targets"]:
        log(f"{t['target']}: {t['value']} → {t['met']}")


if __name__ == "__main__":
    anyio.run(main)
