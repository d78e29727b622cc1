"""The lifecycle over 10,000 and 100,000 memories without an LLM: time, peak RSS, and how many
candidate pairs the merge phase examines (it must grow about n log n, not n²).

For each size N: seed N synthetic memories (bench/corpus.py sentences; 60% core, 15% working,
25% archive, 5% near-duplicate restatements, ages up to 180 days) into a fresh CORTEX_HOME, then
in a fresh process each: a preview (plan only), a run (plan, apply, mirror) and a second run
(the steady state of a nightly run). Peak RSS is that process's VmHWM. Separately, the
merge candidate generation alone over 1,000 to 100,000 core memories.

    python -m bench.lifecycle                    # N = 10,000 and 100,000
    python -m bench.lifecycle --sizes 1000       # a subset

Writes bench/results/lifecycle.json and the "Lifecycle" section of docs/benchmarks.md.
"""

import argparse
import json
import math
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import anyio

from bench.corpus import Corpus
from bench.latency import machine
from cortex_mcp.clock import to_text, utc_now
from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import open_engine
from cortex_mcp.engine.lifecycle import run_lifecycle
from cortex_mcp.engine.lifecycle.similarity import signature, similar_pairs
from cortex_mcp.models import Category, Layer, Memory, new_memory_id
from cortex_mcp.store.memories import insert_memory

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
DOCS = ROOT / "docs" / "benchmarks.md"
BEGIN, END = "<!-- lifecycle:begin -->", "<!-- lifecycle:end -->"
SEED = 20260102
BATCH = 5000
CATEGORIES = [
    (Category.FACT, 30),
    (Category.PREFERENCE, 15),
    (Category.DECISION, 10),
    (Category.PROJECT_STATE, 10),
    (Category.TODO, 10),
    (Category.CONTEXT, 6),
    (Category.RELATIONSHIP, 6),
    (Category.IDENTITY, 4),
    (Category.INSIGHT, 4),
    (Category.SKILL, 3),
    (Category.CORRECTION, 2),
]
LAYERS = [(Layer.CORE, 60), (Layer.WORKING, 15), (Layer.ARCHIVE, 25)]
QUIET = {"llm": {"provider": "none"}, "embedding": {"provider": "none"}}
NOTES = [
    "- Each memory meets at most |prefix| × 16 earlier candidates (the newest 16 of each",
    "  posting list of its rarest terms), so the pairs examined per memory level off: the",
    "  count grows about n·log n at these sizes and linearly beyond, never n²; an exhaustive",
    "  pairwise pass would examine 5·10⁹ pairs at 100,000.",
    "- The first run works off the backlog of a store that never had one (thousands of",
    "  merges, archive moves and compressions, each logged with before/after snapshots);",
    "  the nightly steady state is the second run.",
    "- Planning holds the live working and core memories in memory, which is what the peak",
    "  RSS measures; the mirror reads one archive month at a time.",
]


def weighted(rng: random.Random, pairs: list[tuple[Any, int]]) -> Any:
    return rng.choices([v for v, _ in pairs], weights=[w for _, w in pairs])[0]


def settings(home: Path) -> Settings:
    return Settings.model_validate({"home": home, **QUIET})


def synthetic(rng: random.Random, content: str, like: Memory | None) -> Memory:
    """A memory in some layer and state; `like`: restate that memory a little differently."""
    now = utc_now()
    if like is not None:
        created = like.created_at + timedelta(hours=rng.uniform(1, 48))
        return like.model_copy(
            update={
                "id": new_memory_id(int(created.timestamp() * 1000)),
                "content": like.content + rng.choice([" again", " indeed", " as noted"]),
                "created_at": created,
                "updated_at": created,
            }
        )
    layer = weighted(rng, LAYERS)
    age = rng.uniform(0, 3) if layer == Layer.WORKING else rng.uniform(0, 180)
    created = now - timedelta(days=age)
    accesses = int(rng.expovariate(0.5)) if rng.random() < 0.3 else 0
    metadata: dict[str, Any] = {"channel": rng.choice(["deep", "deep", "fast"])}
    if layer == Layer.ARCHIVE:
        archived = created + (now - created) * rng.random()
        metadata["archived_at"] = to_text(archived)
    return Memory(
        id=new_memory_id(int(created.timestamp() * 1000)),
        agent_id=rng.choice(["default"] * 9 + [None]),
        layer=layer,
        category=weighted(rng, CATEGORIES),
        content=content,
        source="bench",
        importance=round(min(1.0, max(0.05, rng.gauss(0.55, 0.2))), 2),
        confidence=0.8,
        decay_score=1.0,
        access_count=accesses,
        last_accessed=created + (now - created) * rng.random() if accesses else None,
        created_at=created,
        updated_at=created,
        expires_at=created + timedelta(hours=48) if layer == Layer.WORKING else None,
        superseded_by=None,
        deleted_at=None,
        metadata=metadata,
    )


async def seed(home: Path, n: int) -> dict[str, Any]:
    """N memories in a fresh database; 5% of them restate an earlier core memory."""
    rng, contents = random.Random(SEED + n), Corpus(SEED + n).memories()
    core: list[Memory] = []
    started = time.perf_counter()
    async with open_engine(settings(home), environ={}) as engine:
        for start in range(0, n, BATCH):
            async with engine.db.write() as conn:
                for _ in range(min(BATCH, n - start)):
                    like = rng.choice(core) if core and rng.random() < 0.05 else None
                    memory = synthetic(rng, next(contents)[1], like)
                    core += [memory] if memory.layer == Layer.CORE and like is None else []
                    await insert_memory(conn, memory)
    return {"seconds": round(time.perf_counter() - started, 1)}


def peak_rss_mb() -> float:
    """This process's peak resident memory: VmHWM (ru_maxrss can carry the parent's over)."""
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


async def measure_in_process(home: Path, mode: str) -> dict[str, Any]:
    """Preview, or run twice, in this process; seconds, report counts and peak RSS."""
    async with open_engine(settings(home), environ={}) as engine:
        out: dict[str, Any] = {"rss_before_mb": peak_rss_mb()}
        for label in ["preview"] if mode == "preview" else ["run", "second_run"]:
            started = time.perf_counter()
            report = await run_lifecycle(engine.runtime, dry_run=mode == "preview")
            out[label] = {
                "seconds": round(time.perf_counter() - started, 2),
                "promoted": len(report.promoted),
                "expired": len(report.expired),
                "merged_groups": len(report.merged),
                "merged_memories": sum(len(m.merged) for m in report.merged),
                "archived": len(report.archived),
                "compressed_months": len(report.compressed),
                "compressed_entries": sum(c.entries for c in report.compressed),
                "profiles": len(report.profiles),
                "decay_scores_updated": report.decay_scores_updated,
                "merge_pairs_examined": report.merge_pairs_examined,
                "mirror_pages": len(report.mirror),
            }
    out["peak_rss_mb"] = peak_rss_mb()
    return out


def in_fresh_process(home: Path, mode: str) -> dict[str, Any]:
    command = [sys.executable, "-m", "bench.lifecycle", "--measure", mode, "--home", str(home)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True)
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def pair_growth(sizes: list[int]) -> list[dict[str, Any]]:
    """Candidate pairs the merge examines over N core memories, against n log n and n²."""
    rows = []
    contents = Corpus(SEED).memories()
    texts = [next(contents)[1] for _ in range(max(sizes))]
    for n in sizes:
        sets = [signature(t) for t in texts[:n]]
        started = time.perf_counter()
        search = similar_pairs(sets, [None] * n, 0.7)
        rows.append(
            {
                "n": n,
                "pairs_examined": search.examined,
                "pairs_found": len(search.pairs),
                "per_n": round(search.examined / n, 2),
                "per_n_log2_n": round(search.examined / (n * math.log2(n)), 3),
                "share_of_all_pairs": search.examined / (n * (n - 1) / 2),
                "seconds": round(time.perf_counter() - started, 2),
            }
        )
    return rows


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def measure(n: int, workdir: Path) -> dict[str, Any]:
    home = workdir / f"home-{n}"
    log(f"seeding {n:,} memories")
    seeded = anyio.run(seed, home, n)
    log("preview")
    preview = in_fresh_process(home, "preview")
    log("run")
    run = in_fresh_process(home, "run")
    return {"n": n, "seed": seeded, "preview": preview, "run": run}


def counts(key: str, extra: str | None = None) -> Callable[[dict[str, Any]], str]:
    """A table cell: a count of the first run, and another in brackets."""

    def cell(result: dict[str, Any]) -> str:
        run = result["run"]["run"]
        return f"{run[key]:,}" + (f" ({run[extra]:,})" if extra else "")

    return cell


def markdown(report: dict[str, Any]) -> str:
    m = report["machine"]
    lines = [
        BEGIN,
        "## Lifecycle (bench/lifecycle.py)",
        "",
        "A full lifecycle run without an LLM over N synthetic memories (60% core, 15% working,",
        "25% archive, 5% near-duplicate restatements, up to 180 days old): promote/expire,",
        "merge, decay, compress, profile and the Markdown mirror. Each measurement runs in a",
        "fresh process; RSS is its peak (VmHWM), against the engine alone at start. The second",
        "run is the nightly steady state after the first has consolidated the backlog.",
        "",
        "```",
        "python -m bench.lifecycle                 # N = 10,000 and 100,000",
        "python -m bench.lifecycle --sizes 1000    # a subset",
        "```",
        "",
        f"Run of {report['generated_at'][:10]} at commit `{m['git_commit']}`"
        f"{' (with uncommitted changes)' if m['git_dirty'] else ''}: {m['cpu']}, {m['cpus']} CPUs,"
        f" Python {m['python']}, SQLite {m['sqlite']} via {m['sqlite_driver']}."
        " Raw figures in `bench/results/lifecycle.json`.",
        "",
        "| metric | " + " | ".join(f"N = {r['n']:,}" for r in report["runs"]) + " |",
        "|---|" + "---:|" * len(report["runs"]),
    ]
    rows: list[tuple[str, Callable[[dict[str, Any]], Any]]] = [
        ("preview (plan only), s", lambda r: r["preview"]["preview"]["seconds"]),
        ("first run, s", lambda r: r["run"]["run"]["seconds"]),
        ("second run (steady state), s", lambda r: r["run"]["second_run"]["seconds"]),
        ("RSS at start (engine open, idle), MiB", lambda r: r["run"]["rss_before_mb"]),
        ("peak RSS of the run process, MiB", lambda r: r["run"]["peak_rss_mb"]),
        ("promoted (expired to archive)", counts("promoted", "expired")),
        ("memories merged (groups)", counts("merged_memories", "merged_groups")),
        ("archived by decay", counts("archived")),
        ("archive entries compressed (months)", counts("compressed_entries", "compressed_months")),
        ("merge candidate pairs examined", counts("merge_pairs_examined")),
    ]
    for label, cell in rows:
        lines.append(f"| {label} | " + " | ".join(str(cell(r)) for r in report["runs"]) + " |")
    lines += [
        "",
        "Merge candidate generation alone (prefix filtering over rare terms, threshold 0.7):",
        "",
        "| core memories n | pairs examined | per n | per n·log₂n | share of all n² / 2 pairs |",
        "|---:|---:|---:|---:|---:|",
    ]
    for g in report["pair_growth"]:
        lines.append(
            f"| {g['n']:,} | {g['pairs_examined']:,} | {g['per_n']} | {g['per_n_log2_n']}"
            f" | {g['share_of_all_pairs']:.2e} |"
        )
    return "\n".join([*lines, "", *NOTES, END])


def write_docs(section: str) -> None:
    text = DOCS.read_text(encoding="utf-8") if DOCS.exists() else "# Benchmarks\n\n"
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        text = head + section + rest.split(END, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    DOCS.write_text(text, encoding="utf-8")


def parse_args() -> argparse.Namespace:
    cli = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    cli.add_argument("--sizes", default="10000,100000", help="comma-separated N values")
    cli.add_argument("--workdir", type=Path, help="where the CORTEX_HOMEs go (default: temp)")
    cli.add_argument("--no-docs", action="store_true", help="leave docs/benchmarks.md alone")
    cli.add_argument("--measure", choices=["preview", "run"], help=argparse.SUPPRESS)
    cli.add_argument("--home", type=Path, help=argparse.SUPPRESS)
    args = cli.parse_args()
    args.sizes = [int(size.replace("_", "")) for size in args.sizes.split(",")]
    return args


def main() -> None:
    args = parse_args()
    if args.measure:
        print(json.dumps(anyio.run(measure_in_process, args.home, args.measure)))
        return
    with tempfile.TemporaryDirectory(prefix="cortex-bench-") as temp:
        runs = [measure(n, args.workdir or Path(temp)) for n in args.sizes]
    log("merge candidate growth")
    report = {
        "benchmark": "lifecycle",
        "generated_at": utc_now().isoformat(timespec="seconds"),
        "machine": machine(),
        "settings": {"sizes": args.sizes, "seed": SEED, "llm": "none", "embedding": "none"},
        "runs": runs,
        "pair_growth": pair_growth([1_000, 10_000, 100_000]),
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "lifecycle.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    if not args.no_docs:
        write_docs(markdown(report))
    print(markdown(report))


if __name__ == "__main__":
    main()
