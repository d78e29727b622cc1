"""SQLite against PostgreSQL (#17, #23, #28): the "Two engines" section of docs/benchmarks.md,
from the results the LoCoMo and latency benchmarks wrote for each engine.

    python -m bench.engines all        # the whole PostgreSQL side in one go (below), then docs
    python -m bench.engines            # only the section, from the results files

`all` starts a PostgreSQL 16 + pgvector of its own (the `pgserver` wheel, in a temporary
folder; `--database-url postgresql://.../postgres` uses a running one instead) and runs:

    python -m bench.locomo --path remember,ingest,flush --database-url URL --no-docs
                                       # → bench/results/locomo-paths-postgresql.json (#23)
    python -m bench.engines latency --sizes 1000,10000 --database-url URL
                                       # → bench/results/engines-latency.json (#28 item 8)

The SQLite side of the paths table is bench/results/locomo-paths.json
(`python -m bench.locomo --path all`). The older figures of #17:

    python -m bench.locomo --no-ablation --only "bm25,bm25 + context,hybrid,hybrid + context" \\
        --no-docs --results bench/results/locomo-engines-sqlite.json
    python -m bench.locomo ... --database-url postgresql://.../postgres \\
        --results bench/results/locomo-engines-postgresql.json
    python -m bench.latency --sizes 10000,100000 --quick --out engines-sqlite
    python -m bench.latency --sizes 10000,100000 --quick --out engines-postgresql \\
        --database-url postgresql://.../postgres
    python -m bench.latency --sizes 1000000 --quick --cold-starts 1 --out engines-1m-<engine> ...
"""

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
DOCS = ROOT / "docs" / "benchmarks.md"
BEGIN, END = "<!-- engines:begin -->", "<!-- engines:end -->"
ENGINES = ("sqlite", "postgresql")


def load(name: str) -> dict[str, Any] | None:
    path = RESULTS / f"{name}.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def quality_table() -> list[str]:
    runs = {engine: load(f"locomo-engines-{engine}") for engine in ENGINES}
    if not all(runs.values()):
        return ["LoCoMo: not measured yet on both engines."]
    sqlite, postgresql = runs["sqlite"], runs["postgresql"]
    assert sqlite is not None and postgresql is not None
    lines = [
        "| configuration | recall@10 SQLite | recall@10 PostgreSQL | difference | MRR SQLite |"
        " MRR PostgreSQL | recall p50 ms SQLite | recall p50 ms PostgreSQL |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, lite in sqlite["configurations"].items():
        pg = postgresql["configurations"][name]
        a, b = lite["metrics"]["headline (1-4)"], pg["metrics"]["headline (1-4)"]
        la, lb = lite["latency_ms"]["client round trip"], pg["latency_ms"]["client round trip"]
        lines.append(
            f"| {name} | {a['recall@10']:.3f} | {b['recall@10']:.3f}"
            f" | {b['recall@10'] - a['recall@10']:+.3f} | {a['mrr']:.3f} | {b['mrr']:.3f}"
            f" | {la.get('p50', 0):.1f} | {lb.get('p50', 0):.1f} |"
        )
    return lines


def latency_table() -> list[str]:
    runs = {engine: load(f"latency-engines-{engine}") for engine in ENGINES}
    if not all(runs.values()):
        return ["Latency at 10,000 and 100,000 memories: not measured yet on both engines."]
    lines = [
        "| memories | engine | recall p50 ms | recall p95 ms | remember p50 ms |"
        " remember p95 ms | seeded per s | store MB |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for engine in ENGINES:
        report = runs[engine]
        assert report is not None
        million = load(f"latency-engines-1m-{engine}")  # run on its own: it takes a while
        for run in report["runs"] + (million["runs"] if million else []):
            recall, remember, seeded = run["recall"], run["remember"], run["seed"]
            lines.append(
                f"| {run['n']:,} | {engine} | {recall['p50']:.1f} | {recall['p95']:.1f}"
                f" | {remember['p50']:.1f} | {remember['p95']:.1f}"
                f" | {seeded['memories_per_s']:,} | {seeded['database_bytes'] / 1e6:.0f} |"
            )
    return lines


def million_note() -> list[str]:
    """Whether the 1,000,000-memory rows are there, and how they were run."""
    if all(load(f"latency-engines-1m-{engine}") for engine in ENGINES):
        return [
            "The 1,000,000 rows come from runs of their own (`--sizes 1000000 --quick",
            "--cold-starts 1 --out engines-1m-<engine>`).",
            "",
        ]
    return ["1,000,000 memories: not measured on both engines.", ""]


def section() -> str:
    parts = [
        BEGIN,
        "## Two engines: SQLite and PostgreSQL + pgvector (#17)",
        "",
        "Retrieval quality on LoCoMo's dev conversations (`bench/locomo.py`, categories 1–4), the",
        "same questions through a real MCP session on each engine; on PostgreSQL each",
        "conversation is a database of its own on a local PostgreSQL 16 with pgvector 0.6",
        "(the `pgserver` wheel, over a Unix socket). Full text on PostgreSQL is FTS5's bm25",
        "computed in SQL over term tables of the same terms, so the BM25 rows must be equal;",
        "vectors used an HNSW index asked for all k neighbours (`hnsw.ef_search`), which on",
        "stores this size returns what sqlite-vec's exact search does (this table is of #17,",
        "before the in-memory matrix; since #23 both engines search the matrix, below).",
        "",
        *quality_table(),
        "",
        "Latency through a real MCP session over stdio (`bench/latency.py --quick`: 60 recalls and",
        "40 remembers per size, BM25 only, memories seeded below the MCP layer), on this shared",
        "2-core machine while other work ran: compare the engines within a row, not across runs.",
        "",
        *latency_table(),
        "",
        *million_note(),
        "### Recall per path on both engines (#23)",
        "",
        'The paths of "Recall per path" above (by hand, through `cortex_ingest`, through',
        "`cortex_flush`; hybrid, no API key) with every store on PostgreSQL: one database per",
        "conversation and path, the conversation log's full text in term tables, its vectors",
        "and the memories' in pgvector (SQLite: FTS5 and sqlite-vec). On both engines the",
        "server searches an int8 copy of the stored vectors in memory (engine/vector_matrix.py,",
        "#28; on PostgreSQL since #23, read from pgvector in seq ranges of one snapshot); the",
        "store's own index (sqlite-vec's exact scan, pgvector's HNSW) answers only while the",
        "copy is not in step with the store or where numpy is missing.",
        "`python -m bench.engines all` (or `paths`) measures the PostgreSQL side.",
        "",
        *paths_table(),
        "",
        *cause_table(),
        "### Latency against the floors of the same run (#28 item 8)",
        "",
        "`bench/engines_latency.py`: the same synthetic store (bench/latency.py's corpus) on each",
        "engine, three stdio servers side by side (a no-op MCP tool, cortex on SQLite, cortex on",
        "PostgreSQL) and each call sent to all three in turn, so the machine's load weighs on",
        "every row alike; BM25 only. Floor of a recall: the no-op tool's round trip plus the",
        "engine's raw full-text top-10 (FTS5 on SQLite; the same bm25 over the term tables on",
        "PostgreSQL), timed beside the calls; a remember is read against the no-op round trip.",
        "",
        *speed_table(),
        "",
        *speed_note(),
        "Not measured: a PostgreSQL server on another machine (every figure here is over a",
        "local socket), and throughput with many server processes (the tests check correctness",
        "with three).",
        END,
    ]
    return "\n".join(parts)


def paths_table() -> list[str]:
    """#23: recall@10 per path on each engine (locomo-paths.json against its PostgreSQL twin)."""
    lite, pg = load("locomo-paths"), load("locomo-paths-postgresql")
    if not lite or not pg:
        return ["Recall per path: not measured yet on both engines."]
    lines = [
        "| path | recall@10 SQLite | recall@10 PostgreSQL | difference | recall@5 SQLite"
        " | recall@5 PostgreSQL | MRR SQLite | MRR PostgreSQL | floor: empty answers"
        " (SQLite / PostgreSQL) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for path, row in pg["paths"].items():
        if path not in lite["paths"]:
            continue
        a = lite["paths"][path]["metrics"]["headline (1-4)"]
        b = row["metrics"]["headline (1-4)"]
        floors = [lite["paths"][path], row]
        empty = " / ".join(f"{r['floor: share returning nothing']:.3f}" for r in floors)
        lines.append(
            f"| {path} | {a['recall@10']:.3f} | {b['recall@10']:.3f}"
            f" | {b['recall@10'] - a['recall@10']:+.3f} | {a['recall@5']:.3f}"
            f" | {b['recall@5']:.3f} | {a['mrr']:.3f} | {b['mrr']:.3f} | {empty} |"
        )
    same = all(
        lite["paths"][path]["metrics"]["headline (1-4)"]["recall@10"]
        == row["metrics"]["headline (1-4)"]["recall@10"]
        for path, row in pg["paths"].items()
        if path in lite["paths"]
    )
    lines += [
        "",
        (
            "Both engines give the same recall@10 on every path measured."
            if same
            else "Where the two differ, near-tied items change places around the tenth (not"
            " traced question by question; the bm25 sums are the same formula added in"
            " another order)."
        )
        + " Recall latency is not compared here (the two files come from runs under different"
        " load); see below.",
    ]
    if "remember" not in pg["paths"]:
        lines += [
            "",
            "The by-hand path was not run on PostgreSQL in this run; the #17 table above"
            " (`hybrid + context`, the same store at an older commit) has both engines equal.",
        ]
    lines += [
        "",
        f"SQLite: `bench/results/locomo-paths.json` ({lite['generated_at']}, code at"
        f" {lite.get('engine commit', '?')}); PostgreSQL:"
        f" `bench/results/locomo-paths-postgresql.json` ({pg['generated_at']}, code at"
        f" {pg.get('engine commit', '?')}).",
    ]
    return lines


def cause_table() -> list[str]:
    """#23: one path on single conversations, each engine with the vector matrix off and on
    (`python -m bench.engines_cause`, bench/results/engines-cause.json)."""
    report = load("engines-cause")
    if not report:
        return []
    lines = [
        f"Why the engines differed (`python -m bench.engines_cause`, the {report['path']} path"
        " on single conversations): with the matrix off SQLite searches sqlite-vec (exact,"
        " float32) and PostgreSQL pgvector's HNSW; with it on, both search the int8 copy.",
        "",
        "| conversation | matrix | recall@10 SQLite | recall@10 PostgreSQL | recall@5 SQLite"
        " | recall@5 PostgreSQL | MRR SQLite | MRR PostgreSQL |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for run in report["runs"]:
        a, b = run["sqlite"], run["postgresql"]
        lines.append(
            f"| {run['sample']} | {run['matrix']} | {a['recall@10']:.3f} | {b['recall@10']:.3f}"
            f" | {a['recall@5']:.3f} | {b['recall@5']:.3f} | {a['mrr']:.3f} | {b['mrr']:.3f} |"
        )
    note = f" ({report['note']})" if report.get("note") else ""
    return [
        *lines,
        "",
        "Off, the engines agree: pgvector's HNSW (asked for all k) finds what sqlite-vec's exact"
        " search finds, so the int8 copy SQLite alone searched was the difference. On, with"
        " every vector search answered by the copy, every figure is equal" + note + ".",
        "",
    ]


def speed_table() -> list[str]:
    """#28 item 8: recall and remember on both engines against the floors of the same run."""
    report = load("engines-latency")
    if not report:
        return ["Latency against the floors: not measured yet on both engines."]
    lines = [
        "| memories | engine | recall p50 ms | floor ms | recall ÷ floor | remember p50 ms"
        " | remember ÷ no-op | PostgreSQL ÷ SQLite (recall / remember) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for run in report["runs"]:
        ratio = run["postgresql_to_sqlite"]
        for engine in ENGINES:
            row = run[engine]
            both = f"{ratio['recall_p50']:.2f}× / {ratio['remember_p50']:.2f}×"
            lines.append(
                f"| {run['n']:,} | {engine} | {row['recall_p50_ms']:.1f}"
                f" | {row['recall_floor_ms']:.1f} | {row['recall_to_floor']:.2f}×"
                f" | {row['remember_p50_ms']:.1f} | {row['remember_to_noop']:.2f}×"
                f" | {both if engine == 'postgresql' else ''} |"
            )
    return lines


def speed_note() -> list[str]:
    """Where PostgreSQL's extra time goes, with its `select 1` round trips when measured."""
    report = load("engines-latency")
    if not report:
        return []
    trips = [
        f"{run['timings_ms']['select 1 postgresql']['p50']:.1f} ms at {run['n']:,}"
        for run in report["runs"]
        if "select 1 postgresql" in run["timings_ms"]
    ]
    measured = f" (`select 1` p50 in this run: {', '.join(trips)})" if trips else ""
    return [
        "On PostgreSQL every statement is a round trip to another process"
        + measured
        + ", and a recall or a remember runs several; on a loaded machine each waits for the"
        " server process to be scheduled. SQLite runs inside the server's own process."
        " Load average (1 min) after each size: "
        + ", ".join(f"{run['load']['1m']} at {run['n']:,}" for run in report["runs"])
        + f" ({report.get('cpus', 2)} cores shared with other work): read the ratios."
        + " Each size is a run of its own: "
        + ", ".join(
            f"{run['n']:,} at {run.get('measured_at', 'an earlier round')}"
            + (f" (code {run['engine commit']})" if run.get("engine commit") else "")
            for run in report["runs"]
        )
        + "."
        + (
            ""
            if any(run["n"] >= 100_000 for run in report["runs"])
            else " 100,000 is not in this table (`python -m bench.engines latency --sizes"
            " 100000` adds it; seeding PostgreSQL takes most of that run); the per-engine"
            " table above has 100,000 from `bench/latency.py --quick`."
        ),
        *growth_note(report["runs"]),
        "",
        *statements_note(),
    ]


def growth_note(runs: list[dict[str, Any]]) -> list[str]:
    """How a remember's p50 grows from the smallest to the largest store, per engine (#28
    item 7: at most 3x)."""
    if len(runs) < 2:
        return []
    small, large = runs[0], runs[-1]
    grown = [
        f"{engine} {large[engine]['remember_p50_ms'] / small[engine]['remember_p50_ms']:.2f}×"
        for engine in ("sqlite", "postgresql")
    ]
    return [
        f" A remember's p50 at {large['n']:,} over its p50 at {small['n']:,} (runs of different"
        f" loads): {', '.join(grown)}. What grows with the store on PostgreSQL's write path"
        " was not profiled."
    ]


def statements_note() -> list[str]:
    """What a call asks of each engine (`python -m bench.engines_statements`)."""
    counted = load("engines-statements")
    if not counted:
        return []

    def trips(engine: str, call: str) -> str:
        row = counted[engine][call]
        transactions = row.get("read transactions", 0) + row.get("write transactions", 0)
        return f"{row['statements']:.1f} statements in {transactions:.2f} transactions"

    return [
        "Per call, counted in-process (`python -m bench.engines_statements`, a store of"
        f" {counted['store']:,} memories, no embedder): a remember runs"
        f" {trips('sqlite', 'remember')} on SQLite and {trips('postgresql', 'remember')} on"
        f" PostgreSQL, a recall {trips('sqlite', 'recall')} and"
        f" {trips('postgresql', 'recall')}. The work is the same; on PostgreSQL each statement"
        " is a round trip and each transaction three more (BEGIN, the write lock or the"
        " snapshot's isolation level, COMMIT), which is why a remember (three transactions)"
        " gains more than a recall, and the raw bm25 over term tables is most of the rest of"
        " a recall's difference.",
        "",
    ]


@contextmanager
def local_postgres() -> Iterator[str]:
    """A PostgreSQL 16 + pgvector of our own (pgserver) in a temporary folder; its admin URL."""
    data_dir = Path(tempfile.mkdtemp(prefix="cortex-engines-pg-"))
    with warnings.catch_warnings():  # platformdirs: no XDG_RUNTIME_DIR on some machines
        warnings.simplefilter("ignore")
        import pgserver

        server = pgserver.get_server(data_dir, cleanup_mode="stop")  # type: ignore[attr-defined]
    try:
        yield str(server.get_uri())
    finally:
        server.cleanup()
        shutil.rmtree(data_dir, ignore_errors=True)


def run_paths(url: str, paths: str, cache: str | None = None) -> None:
    """The LoCoMo paths on PostgreSQL, each in a process of its own at the same time (each
    path's stores are databases of their own; each process a copy of the vector cache), then
    one results file, bench/results/locomo-paths-postgresql.json."""
    names = [name.strip() for name in paths.split(",") if name.strip()]
    with tempfile.TemporaryDirectory(prefix="cortex-engines-paths-") as temp:
        running = []
        for name in names:
            command = [sys.executable, "-m", "bench.locomo", "--path", name, "--no-docs"]
            command += ["--database-url", url, "--results", str(Path(temp) / f"{name}.json")]
            if cache:
                shutil.copyfile(cache, Path(temp) / f"{name}-cache.db")
                command += ["--cache", str(Path(temp) / f"{name}-cache.db")]
            running.append(subprocess.Popen(command, cwd=ROOT))
        codes = [process.wait() for process in running]  # every one waited for
        if any(codes):
            raise SystemExit("a LoCoMo path failed on PostgreSQL")
        reports = [
            json.loads((Path(temp) / f"{n}.json").read_text(encoding="utf-8")) for n in names
        ]
    report = {**reports[0], "paths": {}}
    for part in reports:
        report["paths"].update(part["paths"])
    report["file"] = "bench/results/locomo-paths-postgresql.json"
    target = RESULTS / "locomo-paths-postgresql.json"
    target.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


def run_latency(url: str, sizes: list[int], calls: int) -> None:
    from bench.engines_latency import run

    report = anyio.run(run, sizes, url, calls)
    target = RESULTS / "engines-latency.json"
    report = merged(load("engines-latency"), report)
    target.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


def merged(before: dict[str, Any] | None, report: dict[str, Any]) -> dict[str, Any]:
    """`report` with the runs of other sizes kept from the file before it (a size run on its
    own, such as 100,000, joins the others); each run says when it was measured."""
    kept = [
        r for r in (before or {}).get("runs", []) if r["n"] not in {n["n"] for n in report["runs"]}
    ]
    return {**report, "runs": sorted([*kept, *report["runs"]], key=lambda r: r["n"])}


def parse_args() -> argparse.Namespace:
    cli = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    cli.add_argument(
        "command", nargs="?", default="docs", choices=("docs", "all", "paths", "latency")
    )
    cli.add_argument("--database-url", help="a running PostgreSQL's postgresql://.../postgres")
    cli.add_argument("--paths", default="remember,ingest,flush", help="LoCoMo paths (#23)")
    cli.add_argument("--cache", help="bench.locomo's vector cache (default: its own)")
    cli.add_argument("--sizes", default="1000,10000", help="store sizes of the latency run")
    cli.add_argument("--calls", type=int, default=150, help="recalls and remembers per size")
    return cli.parse_args()


def main() -> None:
    args = parse_args()
    if args.command != "docs":
        with local_postgres() if not args.database_url else _given(args.database_url) as url:
            if args.command in ("all", "paths"):
                run_paths(url, args.paths, args.cache)
            if args.command in ("all", "latency"):
                sizes = [int(size) for size in args.sizes.split(",")]
                run_latency(url, sizes, args.calls)
    write_docs()


@contextmanager
def _given(url: str) -> Iterator[str]:
    yield url


def write_docs() -> None:
    text = DOCS.read_text(encoding="utf-8")
    new = section()
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        text = head + new + rest.split(END, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + new + "\n"
    DOCS.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
