"""#28 item 8: `cortex_recall` and `cortex_remember` on SQLite and on PostgreSQL at each size,
as ratios to floors measured in the same run, call by call interleaved.

For each size N the same synthetic store (bench/latency.py's corpus and seed) is built once on
each engine; then three stdio servers run side by side (a no-op MCP tool, cortex on the SQLite
file, cortex on the PostgreSQL database) and each query goes to all three in turn, so the
machine's load weighs on every row alike. The floors: the no-op tool's round trip (the
transport), and the raw full-text top-10 of each engine (FTS5's `match ... order by rank limit
10` on SQLite; on PostgreSQL the same bm25 over the term tables, `store/terms.py`, limit 10),
each queried from this process beside the calls; with them PostgreSQL's `select 1`, the round
trip to the server process every statement pays there. BM25 only (no embedder), as #28 item 7.

    python -m bench.engines latency --sizes 1000,10000            # a local pgserver of its own
    python -m bench.engines latency --sizes 1000,10000 --database-url postgresql://.../postgres

Writes bench/results/engines-latency.json.
"""

import itertools
import os
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

from bench.corpus import Corpus
from bench.latency import SEED, SERVER_ENV, fresh_database, git, seed, summary
from bench.speed import BASE_ENV, load, new_contents, noop, tool_ms
from cortex_mcp.search.query import match_expression
from cortex_mcp.search.stemming import match_terms
from cortex_mcp.store.sqlite import plain_connection
from cortex_mcp.store.terms import MEMORY_BM25

ROOT = Path(__file__).resolve().parent.parent
NAME = "engines-latency"
RAW_PG = (
    MEMORY_BM25.replace(":terms", "%(terms)s").replace(":context_weight", "1.0")  # noqa: S608
    + " select seq from scored order by bm25 limit 10"
)


def server(home: Path, url: str | None) -> StdioServerParameters:
    """`python -m cortex_mcp` on this checkout, on the SQLite file in `home` or at `url`."""
    env = {"CORTEX_HOME": str(home), **BASE_ENV}
    if url:
        env["CORTEX_DATABASE_URL"] = url
    return StdioServerParameters(
        command=sys.executable, args=["-m", "cortex_mcp"], env=env, cwd=ROOT
    )


async def seeded(n: int, workdir: Path, admin_url: str) -> dict[str, tuple[Path, str | None]]:
    """The store of `n` memories on each engine: engine → (home, database URL or None)."""
    stores: dict[str, tuple[Path, str | None]] = {}
    for engine in ("sqlite", "postgresql"):
        home = workdir / f"{engine}-{n}"
        url = fresh_database(admin_url, n) if engine == "postgresql" else None
        SERVER_ENV.pop("CORTEX_DATABASE_URL", None)
        if url:
            SERVER_ENV["CORTEX_DATABASE_URL"] = url  # bench.latency.seed reads it there
        try:
            await seed(home, n, Corpus(SEED))
        finally:
            SERVER_ENV.pop("CORTEX_DATABASE_URL", None)
        stores[engine] = (home, url)
    return stores


class RawFloor:
    """The raw full-text top-10 of each engine, timed from this process."""

    def __init__(self, home: Path, url: str) -> None:
        import psycopg

        uri = f"file:{home / 'cortex.db'}?mode=ro"
        self.lite = plain_connection(uri, uri=True)  # read from outside
        self.pg = psycopg.connect(url, autocommit=True)

    def sqlite_ms(self, match: str) -> float:
        started = time.perf_counter()
        self.lite.execute(
            "select rowid from memories_fts where memories_fts match ? order by rank limit 10",
            (match,),
        ).fetchall()
        return (time.perf_counter() - started) * 1000

    def postgresql_ms(self, match: str) -> float:
        terms = match_terms(match)
        started = time.perf_counter()
        self.pg.execute(RAW_PG, {"terms": terms}).fetchall()
        return (time.perf_counter() - started) * 1000

    def postgresql_round_trip_ms(self) -> float:
        """`select 1`: one statement's round trip to the server process, the part of every
        statement SQLite (in-process) does not pay."""
        started = time.perf_counter()
        self.pg.execute("select 1").fetchall()
        return (time.perf_counter() - started) * 1000

    def close(self) -> None:
        self.lite.close()
        self.pg.close()


async def measure(n: int, workdir: Path, admin_url: str, calls: int) -> dict[str, Any]:
    """One size: seed both engines, then every call interleaved across the three servers."""
    started = time.perf_counter()
    stores = await seeded(n, workdir, admin_url)
    seconds = round(time.perf_counter() - started, 1)
    corpus = Corpus(SEED + 1)
    queries = [q for _, q in (corpus.query() for _ in range(calls * 2))]
    queries = [q for q in queries if match_expression(q)][:calls]
    contents = new_contents(calls, f"engines-{n}")
    floor = RawFloor(stores["sqlite"][0], str(stores["postgresql"][1]))
    timings: dict[str, list[float]] = {}

    def add(key: str, ms: float) -> None:
        timings.setdefault(key, []).append(ms)

    try:
        async with AsyncExitStack() as stack:
            clients = {"noop": await stack.enter_async_context(Client(noop(), mode="legacy"))}
            for engine, (home, url) in stores.items():
                clients[engine] = await stack.enter_async_context(
                    Client(server(home, url), mode="legacy")
                )
            for query in itertools.islice(itertools.cycle(queries), 10):  # warm up
                for engine in stores:
                    await clients[engine].call_tool("cortex_recall", {"query": query})
            for query in queries:
                match = match_expression(query)
                assert match is not None
                add("noop", await tool_ms(clients["noop"], "noop", {"query": query}))
                add("raw sqlite", floor.sqlite_ms(match))
                add("raw postgresql", floor.postgresql_ms(match))
                add("select 1 postgresql", floor.postgresql_round_trip_ms())
                for engine in stores:
                    add(
                        f"recall {engine}",
                        await tool_ms(clients[engine], "cortex_recall", {"query": query}),
                    )
            for content in contents:
                add("noop write", await tool_ms(clients["noop"], "noop", {"query": content}))
                for engine in stores:
                    add(
                        f"remember {engine}",
                        await tool_ms(
                            clients[engine], "cortex_remember", {"content": f"{content} {engine}"}
                        ),
                    )
    finally:
        floor.close()
    return figures(n, seconds, {key: summary(values) for key, values in timings.items()})


def figures(n: int, seed_s: float, timed: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The timings of one size with the ratios read from them."""
    noop_p50 = timed["noop"]["p50"]
    run: dict[str, Any] = {"n": n, "seed_seconds_both": seed_s, "timings_ms": timed}
    run["measured_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    run["engine commit"] = git("log", "-1", "--format=%h", "--", "cortex_mcp")
    for engine in ("sqlite", "postgresql"):
        recall, remember = timed[f"recall {engine}"]["p50"], timed[f"remember {engine}"]["p50"]
        run[engine] = {
            "recall_p50_ms": recall,
            "remember_p50_ms": remember,
            "recall_floor_ms": round(noop_p50 + timed[f"raw {engine}"]["p50"], 3),
            "recall_to_floor": round(recall / (noop_p50 + timed[f"raw {engine}"]["p50"]), 2),
            "remember_to_noop": round(remember / timed["noop write"]["p50"], 2),
        }
    run["postgresql_to_sqlite"] = {
        "recall_p50": round(timed["recall postgresql"]["p50"] / timed["recall sqlite"]["p50"], 2),
        "remember_p50": round(
            timed["remember postgresql"]["p50"] / timed["remember sqlite"]["p50"], 2
        ),
    }
    run["load"] = load()
    return run


async def run(sizes: list[int], admin_url: str, calls: int) -> dict[str, Any]:
    """Every size; the report."""
    report: dict[str, Any] = {"benchmark": NAME, "calls_per_size": calls, "load_before": load()}
    report["cpus"] = os.cpu_count()
    report["runs"] = []
    with tempfile.TemporaryDirectory(prefix="cortex-engines-") as temp:
        for n in sizes:
            report["runs"].append(await measure(n, Path(temp), admin_url, calls))
    return report
