"""SQLite against PostgreSQL (#17): the "Two engines" section of docs/benchmarks.md, from the
results the LoCoMo and latency benchmarks wrote for each engine.

    python -m bench.locomo --no-ablation --only "bm25,bm25 + context,hybrid,hybrid + context" \\
        --no-docs --results bench/results/locomo-engines-sqlite.json
    python -m bench.locomo ... --database-url postgresql://.../postgres \\
        --results bench/results/locomo-engines-postgresql.json
    python -m bench.latency --sizes 10000,100000 --quick --out engines-sqlite
    python -m bench.latency --sizes 10000,100000 --quick --out engines-postgresql \\
        --database-url postgresql://.../postgres
    python -m bench.latency --sizes 1000000 --quick --cold-starts 1 --out engines-1m-<engine> ...
    python -m bench.engines                       # writes the section
"""

import json
from pathlib import Path
from typing import Any

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
        "vectors use an HNSW index asked for all k neighbours (`hnsw.ef_search`), which on",
        "stores this size returns what sqlite-vec's exact search does.",
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
        "Not measured: a PostgreSQL server on another machine (every figure here is over a",
        "local socket), and throughput with many server processes (the tests check correctness",
        "with three).",
        END,
    ]
    return "\n".join(parts)


def main() -> None:
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
