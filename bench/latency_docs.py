"""The "Latency" section of docs/benchmarks.md, and the SPEC quality bars, from a latency run."""

from pathlib import Path
from typing import Any

DOCS = Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"
BEGIN, END = "<!-- latency:begin -->", "<!-- latency:end -->"


def targets(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The quality bars of the spec, each met, not met, or not measured at this run's sizes."""
    by_n = {run["n"]: run for run in runs}

    def bar(
        name: str, n: int | None, value: float | None, limit: float, unit: str
    ) -> dict[str, Any]:
        met = None if value is None else value < limit
        return {"target": name, "n": n, "value": value, "limit": limit, "unit": unit, "met": met}

    def at(n: int, *path: str) -> float | None:
        node: Any = by_n.get(n)
        for key in path:
            node = None if node is None else node[key]
        return None if node is None else float(node)

    cold = [run["cold_start_ms"]["initialize"]["p50"] for run in runs]
    return [
        bar("recall p50 < 10 ms at 10,000", 10_000, at(10_000, "recall", "p50"), 10, "ms"),
        bar("recall p50 < 50 ms at 100,000", 100_000, at(100_000, "recall", "p50"), 50, "ms"),
        bar("cold start < 1 s (median, worst N)", None, max(cold) if cold else None, 1000, "ms"),
        bar(
            "RSS < 150 MB at 10,000 (peak)",
            10_000,
            at(10_000, "rss_mb", "after_remembers", "VmHWM"),
            150,
            "MiB",
        ),
    ]


def measured(target: dict[str, Any]) -> str:
    value = target["value"]
    return "—" if value is None else f"{value:.1f} {target['unit']}"


def load_range(runs: list[dict[str, Any]]) -> str:
    loads = [v for run in runs for v in run["load_avg_1m"].values()]
    return f"{min(loads):.1f}–{max(loads):.1f}"


def markdown(report: dict[str, Any]) -> str:
    m, runs = report["machine"], report["runs"]
    rows = [
        ("cold start: spawn → `initialize` answered, p50", "cold_start_ms.initialize.p50", "ms"),
        ("first recall of a fresh process, p50", "cold_start_ms.first_recall.p50", "ms"),
        ("`cortex_recall` p50", "recall.p50", "ms"),
        ("`cortex_recall` p95", "recall.p95", "ms"),
        ("`cortex_recall` p50 inside the engine", "recall_engine.p50", "ms"),
        ("`cortex_remember` p50", "remember.p50", "ms"),
        ("`cortex_remember` p95", "remember.p95", "ms"),
        ("server RSS after the workload", "rss_mb.after_remembers.VmRSS", "MiB"),
        ("server peak RSS (VmHWM)", "rss_mb.after_remembers.VmHWM", "MiB"),
        ("database file (after checkpoint)", "seed.database_bytes", "MB"),
        ("seeding, in-process", "seed.memories_per_s", "memories/s"),
    ]

    def cell(run: dict[str, Any], path: str, unit: str) -> str:
        value: Any = run
        for key in path.split("."):
            value = value[key]
        if unit == "MB":
            return f"{value / 1e6:.1f}"
        return f"{value:,.0f}" if unit == "memories/s" or value >= 100 else f"{value:.1f}"

    head = "| metric | unit | " + " | ".join(f"N = {r['n']:,}" for r in runs) + " |"
    lines = [head, "|---|---|" + "---:|" * len(runs)]
    for label, path, unit in rows:
        values = " | ".join(cell(r, path, unit) for r in runs)
        lines.append(f"| {label} | {unit} | {values} |")
    verdict = {True: "**met**", False: "**not met**", None: "not measured"}
    bars = [f"| {t['target']} | {measured(t)} | {verdict[t['met']]} |" for t in report["targets"]]
    s = report["settings"]
    return "\n".join(
        [
            BEGIN,
            "## Latency (bench/latency.py)",
            "",
            "Seeds N synthetic memories (English, Chinese and some Japanese sentences from word",
            "lists with a long-tailed vocabulary; varied layers, ages, importance and agents)",
            "straight into a fresh `CORTEX_HOME`, then measures `python -m cortex_mcp` through a",
            "real MCP client session over stdio. Latencies are client-side round trips",
            "(JSON-RPC over pipes included) unless marked as inside the engine; RSS is read from",
            "`/proc/<pid>/status` of the server process. The server runs BM25-only",
            "(`CORTEX_EMBEDDING__PROVIDER=none`, lifecycle off), so no embedding model is loaded",
            "and no background back-fill competes with the requests.",
            "",
            "```",
            "python -m bench.latency                      # N = 1,000, 10,000 and 100,000",
            "python -m bench.latency --sizes 1000,10000   # a subset",
            "python -m bench.latency --quick              # fewer calls; latency-quick.json only",
            "```",
            "",
            f"Run of {report['generated_at'][:10]} at commit `{m['git_commit']}`"
            f"{' (with uncommitted changes)' if m['git_dirty'] else ''}: {m['cpu']},"
            f" {m['cpus']} CPUs (shared), {m['memory_gb']} GB, {m['platform']}, Python"
            f" {m['python']}, SQLite {m['sqlite']} via {m['sqlite_driver']}, mcp {m['mcp']}."
            f" {s['cold_starts']} cold starts, {s['recalls']} recalls and {s['remembers']}"
            f" remembers per N; raw figures in `bench/results/latency.json`. The machine was"
            f" shared: 1-minute load average {load_range(runs)} during the runs.",
            "",
            *lines,
            "",
            "| target (SPEC quality bars) | measured | verdict |",
            "|---|---:|---|",
            *bars,
            END,
        ]
    )


def write_docs(section: str) -> None:
    text = DOCS.read_text() if DOCS.exists() else "# Benchmarks\n\n"
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        text = head + section + rest.split(END, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    DOCS.write_text(text, encoding="utf-8")
