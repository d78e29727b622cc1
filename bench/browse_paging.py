"""Paging of the memory browser at 100,000 memories, through the app-only tool.

Seeds N synthetic memories (bench/latency.py's generator: every layer, agent and category, two
years of dates), then walks `cortex_app_memories` page by page through an in-process MCP client,
as the app does: time to the first page, and to page 500, with and without filters.

    python -m bench.browse_paging                 # 100,000 memories, 100 per page
    python -m bench.browse_paging --memories 20000

Writes bench/results/browse_paging.json and the "Memory browser paging" section of
docs/benchmarks.md.
"""

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.extension import advertise
from mcp_types import CallToolResult

from bench.corpus import Corpus
from bench.distinct_facts import write_docs
from bench.latency import SEED, machine, seed
from cortex_mcp.browser.app import APP_MIME_TYPE, UI_EXTENSION
from cortex_mcp.clock import utc_now
from cortex_mcp.config import EmbeddingSettings, LifecycleSettings, Settings
from cortex_mcp.server import build_server

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "browse_paging.json"
BEGIN = "<!-- browse-paging:begin -->"
END = "<!-- browse-paging:end -->"
FIRST_PAGE_RUNS = 20
FILTERS: dict[str, dict[str, Any]] = {
    "none (newest first)": {},
    "layer=core": {"layer": "core"},
    "category=preference, oldest first": {"category": "preference", "sort": "oldest"},
    "by importance": {"sort": "importance"},
    "tag=bench (10% of memories)": {"tag": "bench"},
}


def page_of(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result
    data = result.structured_content
    assert isinstance(data, dict)
    return data


async def walk(client: Client, arguments: dict[str, Any], pages: int) -> dict[str, Any]:
    """First-page latency (median of runs), then the walk to page `pages`: each call timed."""
    firsts = []
    for _ in range(FIRST_PAGE_RUNS):
        started = time.perf_counter()
        page_of(await client.call_tool("cortex_app_memories", arguments))
        firsts.append((time.perf_counter() - started) * 1000)
    cursor = None
    calls = []
    seen = 0
    walk_started = time.perf_counter()
    for _ in range(pages):
        started = time.perf_counter()
        page = page_of(
            await client.call_tool("cortex_app_memories", {**arguments, "cursor": cursor})
        )
        calls.append((time.perf_counter() - started) * 1000)
        seen += len(page["memories"])
        cursor = page["next_cursor"]
        if cursor is None:
            break
    return {
        "first_page_ms_p50": round(statistics.median(firsts), 2),
        "pages_walked": len(calls),
        "memories_seen": seen,
        "last_page_ms": round(calls[-1], 2),
        "page_ms_p50": round(statistics.median(calls), 2),
        "page_ms_max": round(max(calls), 2),
        "walk_s": round(time.perf_counter() - walk_started, 2),
    }


async def measure(n: int, per_page: int, pages: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="cortex-browse-") as tmp:
        home = Path(tmp)
        seeded = await seed(home, n, Corpus(SEED))
        settings = Settings(
            home=home,
            embedding=EmbeddingSettings(provider="none"),
            lifecycle=LifecycleSettings(enabled=False),
        )
        results = {}
        ui = advertise(UI_EXTENSION, {"mimeTypes": [APP_MIME_TYPE]})  # an app host, as a host
        async with Client(build_server(settings), extensions=[ui]) as client:
            for label, filters in FILTERS.items():
                results[label] = await walk(client, {**filters, "limit": per_page}, pages)
    return {
        "generated_at": utc_now().isoformat(timespec="seconds"),
        "memories": n,
        "per_page": per_page,
        "pages": pages,
        "seed": seeded,
        "results": results,
        "machine": machine(),
    }


def section(report: dict[str, Any]) -> str:
    rows = [
        f"| {label} | {r['first_page_ms_p50']} | {r['pages_walked']} | {r['last_page_ms']} "
        f"| {r['page_ms_p50']} | {r['page_ms_max']} |"
        for label, r in report["results"].items()
    ]
    return "\n".join(
        [
            BEGIN,
            "## Memory browser paging (`python -m bench.browse_paging`)",
            "",
            f"{report['memories']:,} memories (every layer, agent and category, two years of "
            f"dates); `cortex_app_memories` with {report['per_page']} per page through an "
            "in-process MCP client, walking with the keyset cursor up to page "
            f"{report['pages']}. Times in ms; a page walked is one tool call.",
            "",
            "| filter | first page (p50) | pages walked | last page | page p50 | page max |",
            "|---|---|---|---|---|---|",
            *rows,
            "",
            f"Machine: {report['machine']}.",
            END,
        ]
    )


def main() -> None:
    """Run the benchmark and write its results."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--per-page", type=int, default=100)
    parser.add_argument("--pages", type=int, default=500)
    args = parser.parse_args()
    report = anyio.run(measure, args.memories, args.per_page, args.pages)
    RESULTS.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    write_docs(section(report), BEGIN, END)
    print(json.dumps(report["results"], indent=2))


if __name__ == "__main__":
    main()
