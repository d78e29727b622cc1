"""What one long message costs `cortex_ingest`, key-less, against a floor of the same length.

A message may be up to 32,000 characters. Before round twenty, one sentence of repeated
statements cost time in the square of its length ("I have a dog named Rex, " said 600 times:
6.4 s in `find_slots` alone), and a message of 2,000 such lines made 2,000 writes (5 s). Each
kind below is a 31,000-character message of one repeated unit, sent through an in-process MCP
session with no LLM and no embedder; the floor is a message of the same length that states
nothing (LoCoMo-like small talk), in the same run and process. CPU seconds (`process_time`,
every thread) are read beside wall seconds: the machine is shared.

    python -m bench.long_messages                        # this checkout
    python -m bench.long_messages --baseline /tmp/before # and a tree to compare, after it
    python -m bench.long_messages --baseline /tmp/before --docs  # and the table in the docs

Writes bench/results/long-messages.json (or `--out`): per tree and kind, the median of
`--repeats` calls, and its ratio to the floor.
"""

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "long-messages.json"
LENGTH = 31_000
FLOOR = "floor"
UNITS = {
    FLOOR: "Haha, that sounds like a lot of fun, tell me more about the trip! ",
    "pets in one sentence": "I have a dog named Rex, ",
    "pets joined by and": "We have a cat named Tom and ",
    "a relation's home": "my wife Anna lives in Paris and ",
    "name and home": "My name is Dana, I live in Berlin, ",
    "no clause breaks": "I wish I have a dog named Rex ",
    "zh statements": "我住在北京，我叫小明，",
    "ja statements": "私は田中で、東京に住んでいます、",
    "children listed": "I have two kids, Maya and Leo, ",
    "passwords": "my password for the db is hunter2 and ",
    "one line said again": "I work at Acme\n",
    "a pasted email": "Reply to this email: Hi! I'm Bob. ",
    "zh, no punctuation": "我的女儿叫玛雅我住在北京我的儿子叫小明",
    "ja, no punctuation": "名前は田中です東京に住んでいます",
    "a bracket left open": "(my son is Leo ",
    "log lines": "2024-05-01T12:00:00Z WARN [svc] I live in /var/lib/app0, retrying\n",
    "a run of spaces": "I live in Paris" + " " * 200,
    "one long capitalised word": "A",
}


def message(unit: str) -> str:
    """`unit` repeated to `LENGTH` characters."""
    return (unit * (LENGTH // len(unit) + 1))[:LENGTH]


async def measure(repeats: int) -> dict[str, Any]:
    """Each kind's median wall and CPU seconds over `repeats` ingests (run in a child)."""
    from mcp import Client

    import cortex_mcp
    from cortex_mcp.config import Settings
    from cortex_mcp.server import build_server

    figures: dict[str, Any] = {"package": str(Path(cortex_mcp.__file__).parent)}
    with tempfile.TemporaryDirectory() as home:
        settings = Settings.model_validate({"home": Path(home), "embedding": {"provider": "none"}})
        async with Client(build_server(settings)) as client:
            first = {"user_message": "hi", "assistant_message": "hi"}
            await client.call_tool("cortex_ingest", first)
            for kind, unit in UNITS.items():
                walls, cpus = [], []
                for _ in range(repeats):
                    wall, cpu = time.perf_counter(), time.process_time()
                    result = await client.call_tool(
                        "cortex_ingest", {"user_message": message(unit), "assistant_message": "OK."}
                    )
                    walls.append(time.perf_counter() - wall)
                    cpus.append(time.process_time() - cpu)
                    if result.is_error:
                        raise SystemExit(f"{kind}: {result.content}")
                figures[kind] = {
                    "wall_s": statistics.median(walls),
                    "cpu_s": statistics.median(cpus),
                }
    return figures


def run_tree(code: Path, repeats: int) -> dict[str, Any]:
    """One tree's figures, measured in a process with its `cortex_mcp` first on the path."""
    with tempfile.TemporaryDirectory() as elsewhere:  # run as a script: `code` alone on the path
        done = subprocess.run(
            [sys.executable, __file__, "--child", "--repeats", str(repeats)],
            cwd=elsewhere,
            env={"PYTHONPATH": str(code), "PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
            check=True,
        )
    figures: dict[str, Any] = json.loads(done.stdout)
    floor = figures[FLOOR]
    return {
        kind: figure | {"cpu_to_floor": round(figure["cpu_s"] / floor["cpu_s"], 2)}
        for kind, figure in figures.items()
        if kind != "package"
    } | {"package": figures["package"]}


DOCS = ROOT / "docs" / "benchmarks.md"
BEGIN, END = "<!-- long-messages:begin -->", "<!-- long-messages:end -->"


def table(document: dict[str, Any]) -> str:
    """Each kind's CPU seconds and ratio to the floor, per tree, as a Markdown table."""
    trees = document["trees"]
    labels = list(trees)
    head = " | ".join(f"{label}: CPU s (× floor)" for label in labels)
    lines = [f"| kind | {head} |", "| --- |" + " --- |" * len(labels)]
    for kind in UNITS:
        cells = [
            f"{trees[label][kind]['cpu_s']:.2f} (×{trees[label][kind]['cpu_to_floor']})"
            for label in labels
        ]
        lines.append(f"| {kind} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def write_docs(document: dict[str, Any]) -> None:
    """The table between the markers of docs/benchmarks.md."""
    text = DOCS.read_text(encoding="utf-8")
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    DOCS.write_text(text[:start] + "\n" + table(document) + "\n" + text[end:], encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", type=Path, help="a tree to measure beside this checkout")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--docs", action="store_true", help="write the table into the docs")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(anyio.run(measure, args.repeats)))
        return
    trees = {"after": ROOT} | ({"before": args.baseline} if args.baseline else {})
    document = {
        "length": LENGTH,
        "repeats": args.repeats,
        "trees": {label: run_tree(code, args.repeats) for label, code in trees.items()},
    }
    args.out.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    if args.docs:
        write_docs(document)
    for label, figures in document["trees"].items():
        print(f"{label}: {figures.pop('package')}")
        for kind, figure in figures.items():
            print(f"{label:6} {kind:22} cpu {figure['cpu_s']:6.2f} s  ×{figure['cpu_to_floor']}")


if __name__ == "__main__":
    main()
