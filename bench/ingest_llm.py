"""cortex_ingest with a slow LLM configured (#25 item 4): the call must not wait for it.

Seeds N synthetic memories (bench/corpus.py), starts a loopback fake of the OpenAI wire format
(tests/fakes) that answers every extraction after `--latency-ms`, and times `cortex_ingest`
over stdio against `python -m cortex_mcp` with that LLM configured; the floor is the same
calls in the same run with no LLM (provider `none`: log write and fast channel only). Then it
waits for the deep channel to drain in the background and reports how long that took.

    python -m bench.ingest_llm                          # this checkout
    python -m bench.ingest_llm --code /tmp/before --label before
                                                        # the cortex_mcp package in /tmp/before
    python -m bench.ingest_llm --synchronous FULL       # one durability only (default: both)
    python -m bench.ingest_llm --dialogue locomo        # the dev conversations' exchanges

The exchanges: by default pairs of synthetic facts (every message a statement the fast channel
reads, 6-7 % of them corrections: its hardest mix); with `--dialogue locomo`, consecutive turns
of the LoCoMo dev conversations as the ingest path sends them (bench/locomo_paths.py), taken
evenly across the five conversations: what a client really sends.

Each run times both SQLite durabilities side by side (`store.synchronous`: FULL, an fsync per
commit, the default; NORMAL, fsync at checkpoints: safe against a killed process, not against
power loss), on copies of one seeded store, and the MCP round trip alone (`tools/list`) as
the floor of each session.

Writes bench/results/ingest-llm.json (one entry per label) and the "Ingest with a slow LLM"
section of docs/benchmarks.md.
"""

import argparse
import itertools
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

from bench.corpus import Corpus
from bench.latency import SERVER_ENV, machine, seed, structured, summary
from bench.locomo import DATA
from bench.locomo_data import load_samples
from bench.locomo_paths import session_id, sessions_of
from tests.fakes import FakeOpenAI
from tests.fakes.server import serve

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "ingest-llm.json"
DOCS = ROOT / "docs" / "benchmarks.md"
SECTION = "## Ingest with a slow LLM"
WARM_UP = {"user_message": "We decided to keep the bench data in /tmp.", "assistant_message": "OK."}


def server(
    home: Path, code: Path, llm_url: str | None, synchronous: str = "FULL"
) -> StdioServerParameters:
    """`python -m cortex_mcp` run from `code` (its cortex_mcp package wins), with the fake LLM
    and the store's `synchronous` setting."""
    env = {
        "CORTEX_HOME": str(home),
        **SERVER_ENV,
        "PYTHONPATH": str(code),
        "CORTEX_STORE__SYNCHRONOUS": synchronous,
    }
    if llm_url:
        env |= {
            "CORTEX_LLM__PROVIDER": "openai",
            "CORTEX_LLM__BASE_URL": llm_url,
            "CORTEX_LLM__API_KEY": "bench",
            "CORTEX_LLM__TIMEOUT_S": "60",
        }
    else:
        env["CORTEX_LLM__PROVIDER"] = "none"
    return StdioServerParameters(
        command=sys.executable, args=["-m", "cortex_mcp"], env=env, cwd=code
    )


async def owed(client: Client) -> int:
    """Exchanges the deep channel still owes (from cortex://stats; with no LLM, none: they
    wait for one to be configured)."""
    stats = await client.read_resource("cortex://stats")
    block = stats.contents[0]
    return int(json.loads(getattr(block, "text", "{}"))["extraction_queue"]["pending"])


async def drained(client: Client, drain_s: float) -> int:
    """Wait (bounded) until the deep channel owes nothing; what it still owes."""
    left = await owed(client)
    with anyio.move_on_after(drain_s):
        while left:
            await anyio.sleep(0.25)
            left = await owed(client)
    return left


async def timed_session(
    params: StdioServerParameters, exchanges: list[dict[str, str]], drain_s: float, settle_s: float
) -> dict[str, Any]:
    """Warm up (a recall, an ingest whose deep channel drains: the LLM's client is loaded),
    let the start-up work settle (the mirror catching up with 10,000 memories), time every
    ingest, then wait (bounded) for the deep channel to drain."""
    async with Client(params, mode="legacy") as client:
        structured(await client.call_tool("cortex_recall", {"query": "warm up"}))
        structured(await client.call_tool("cortex_ingest", WARM_UP))
        await drained(client, drain_s)
        await anyio.sleep(settle_s)
        round_trips = []
        for _ in range(len(exchanges) // 2 or 1):
            started = time.perf_counter()
            await client.list_tools()
            round_trips.append((time.perf_counter() - started) * 1000)
        durations = []
        for arguments in exchanges:
            started = time.perf_counter()
            structured(await client.call_tool("cortex_ingest", arguments))
            durations.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        left = await drained(client, drain_s)
        drained_s = time.perf_counter() - started
    return {
        "ingest": summary(durations),
        "round_trip": summary(round_trips),
        "owed_after": left,
        "drained_s": round(drained_s, 1),
    }


def synthetic_exchanges(corpus: Corpus, count: int) -> list[dict[str, str]]:
    """`count` exchanges of two synthetic facts each."""
    pairs = itertools.islice(zip(corpus.memories(), corpus.memories(), strict=False), count)
    return [{"user_message": u, "assistant_message": r} for (_, u), (_, r) in pairs]


def dialogue_exchanges(count: int) -> list[dict[str, str]]:
    """`count` exchanges of the dev conversations (two consecutive turns of a session, speaker
    names kept, as `bench.locomo --path ingest` sends them), every n-th of all of them."""
    every = []
    for sample in load_samples(DATA):
        for session in sessions_of(sample):
            name = session_id(sample, session[0].session)
            for start in range(0, len(session) - 1, 2):
                user, assistant = session[start], session[start + 1]
                every.append(
                    {
                        "user_message": user.line,
                        "assistant_message": assistant.line,
                        "session_id": name,
                    }
                )
    step = max(1, len(every) // count)
    return every[::step][:count]


async def main() -> None:
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("--size", type=int, default=10_000)
    cli.add_argument("--ingests", type=int, default=40)
    cli.add_argument("--latency-ms", type=int, default=1000)
    cli.add_argument("--code", type=Path, default=ROOT, help="folder holding cortex_mcp/")
    cli.add_argument("--label", default="after")
    cli.add_argument(
        "--dialogue",
        choices=("synthetic", "locomo"),
        default="synthetic",
        help="the exchanges timed: synthetic facts, or the dev conversations' turns",
    )
    cli.add_argument(
        "--settle-s", type=float, default=10.0, help="quiet time after the warm-up, before timing"
    )
    cli.add_argument(
        "--synchronous", nargs="+", choices=("FULL", "NORMAL"), default=["FULL", "NORMAL"]
    )
    args = cli.parse_args()
    corpus = Corpus(20260101)
    exchanges = (
        dialogue_exchanges(args.ingests)
        if args.dialogue == "locomo"
        else synthetic_exchanges(corpus, args.ingests)
    )
    load_before = os.getloadavg()[0]
    fake = FakeOpenAI()
    fake.default_reply = '{"memories": []}'
    fake.latency_s = args.latency_ms / 1000
    drain_s = args.ingests * args.latency_ms / 1000 * 2 + 30
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as work, serve(fake.app()) as url:
        fake.url = url + "/v1"
        seeded = Path(work) / "seeded"
        await seed(seeded, args.size, corpus)
        for synchronous in args.synchronous:
            runs: dict[str, Any] = {}
            for name, llm in (("no_llm", None), ("slow_llm", fake.url)):
                home = Path(work) / f"{synchronous}-{name}"
                shutil.copytree(seeded, home)
                params = server(home, args.code, llm, synchronous)
                runs[name] = await timed_session(params, exchanges, drain_s, args.settle_s)
            floor, slow = runs["no_llm"]["ingest"], runs["slow_llm"]["ingest"]
            results[synchronous] = runs | {
                "ratio_p50": round(slow["p50"] / floor["p50"], 2),
                "ratio_p95": round(slow["p95"] / floor["p95"], 2),
                "ratio_p99": round(slow["p99"] / floor["p99"], 2),
                "p95_over_round_trip": round(
                    slow["p95"] / runs["slow_llm"]["round_trip"]["p95"], 2
                ),
            }
        results["llm_requests"] = len(fake.requests)
        fake.reset()
    results |= {
        "size": args.size,
        "ingests": args.ingests,
        "dialogue": args.dialogue,
        "llm_latency_ms": args.latency_ms,
        "settle_s": args.settle_s,
        "load_1min": [round(load_before, 1), round(os.getloadavg()[0], 1)],
        "machine": machine(),
    }
    stored = json.loads(RESULTS.read_text(encoding="utf-8")) if RESULTS.exists() else {}
    stored[args.label] = results
    RESULTS.write_text(json.dumps(stored, indent=2) + "\n", encoding="utf-8")
    write_docs(stored)
    print(json.dumps({k: v for k, v in results.items() if k != "machine"}, indent=2))


def dialogue_of(run: dict[str, Any]) -> str:
    """The exchanges a run timed, where they were not the synthetic facts."""
    return "" if run.get("dialogue", "synthetic") == "synthetic" else f" ({run['dialogue']})"


def write_docs(stored: dict[str, Any]) -> None:
    """The section of docs/benchmarks.md, replaced whole."""
    rows = [
        "| code | synchronous | no LLM p50 / p95 / p99 | slow LLM min / p50 / p95 / p99"
        " | ratio p50 / p95 / p99 | round trip p95 | owed after | drained in"
        " | load (1 min) at start / end |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for label, r in stored.items():
        by_sync = {k: r[k] for k in ("FULL", "NORMAL") if k in r} or {"FULL": r}
        for synchronous, s in by_sync.items():
            floor, slow = s["no_llm"]["ingest"], s["slow_llm"]["ingest"]
            trip = s["slow_llm"].get("round_trip", {}).get("p95")
            rows.append(
                f"| {label}{dialogue_of(r)} | {synchronous}"
                f" | {floor['p50']:.1f} / {floor['p95']:.1f} / {floor['p99']:.1f} ms"
                f" | {slow['min']:.1f} / {slow['p50']:.1f} / {slow['p95']:.1f}"
                f" / {slow['p99']:.1f} ms"
                f" | {s['ratio_p50']}× / {s['ratio_p95']}× / {s.get('ratio_p99', '–')}×"
                f" | {'–' if trip is None else f'{trip:.1f} ms'}"
                f" | {s['slow_llm']['owed_after']} | {s['slow_llm']['drained_s']} s"
                f" | {' / '.join('?' if x is None else str(x) for x in r.get('load_1min', [None]))}"
                " |"
            )
    first = next(iter(stored.values()))
    text = "\n".join(
        [
            SECTION,
            "",
            "`python -m bench.ingest_llm` (#25 item 4):"
            f" {'/'.join(str(n) for n in sorted({r['ingests'] for r in stored.values()}))}"
            f" `cortex_ingest` calls a run (`--ingests`) over stdio at {first['size']:,} memories,"
            " with an OpenAI-wire"
            f" fake LLM that answers after {first['llm_latency_ms']} ms, against the same calls"
            " with no LLM (log write and fast channel only) in the same run. `owed after`:"
            " exchanges the deep channel still owed when the wait for it ended; `drained in`:"
            " how long the background took after the last call returned. Before timing, each"
            " server gets a recall and one ingest whose deep channel drains (the LLM's client is"
            " loaded), then `--settle-s` quiet seconds (the mirror's start-up catch-up); the deep"
            " channel extracts in the background while the timed calls run. `synchronous`: the"
            " store's fsync per commit (FULL, the default) or at checkpoints only (NORMAL);"
            " `round trip`: `tools/list` in the same session, the MCP floor under each call"
            " (rows before the durability column existed are FULL, without it). A call that"
            " waits for"
            " the LLM takes at least its latency: see the slow LLM's min. Wall times on a shared"
            " machine (the load is in the JSON's `machine`) are noisy; compare within a row."
            " Rows marked (locomo) timed the dev conversations' exchanges (`--dialogue"
            " locomo`) instead of pairs of synthetic facts.",
            "",
            *rows,
            "",
        ]
    )
    docs = DOCS.read_text(encoding="utf-8")
    start = docs.find(SECTION)
    if start < 0:
        docs = docs.rstrip("\n") + "\n\n" + text
    else:
        end = docs.find("\n## ", start + len(SECTION))
        docs = docs[:start] + text + (docs[end:] if end >= 0 else "")
    DOCS.write_text(docs, encoding="utf-8")


if __name__ == "__main__":
    anyio.run(main)
