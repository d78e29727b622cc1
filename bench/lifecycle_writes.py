"""Issue #28 item 3 kept with item 6's streamed lifecycle: writes during a run over a copy of the
100,000-memory store stay within 3× their idle p50 (the ratio, measured in the same run).

A server (stdio, this checkout or `--baseline`) takes `cortex_remember` calls: first idle, then
while `cortex-mcp lifecycle run` runs in another process over the same store. Borrowed from
`bench.speed lifecycle` (branch s3-start), reduced to this one figure.

    nice -n 19 python -m bench.lifecycle_writes --n 100000 --baseline /tmp/s4-life-base

Writes bench/results/lifecycle-writes-<n>.json.
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
from bench.latency import SEED, summary

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
STORES = Path(tempfile.gettempdir()) / "s-speed-stores"
ENV = {
    "CORTEX_EMBEDDING__PROVIDER": "none",
    "CORTEX_LIFECYCLE__ENABLED": "false",
    "CORTEX_MIRROR__ENABLED": "false",
}
RUN = "import sys\nfrom cortex_mcp.cli import main\nsys.exit(main(['lifecycle', 'run']))\n"


def contents(count: int, tag: str) -> list[str]:
    """`count` corpus sentences made distinct by a tag."""
    memories = Corpus(SEED).memories()
    return [f"{text} ({tag} {i})" for i, (_, text) in enumerate(itertools.islice(memories, count))]


async def writes_during(code: Path, n: int, writes: int, tmp: Path) -> dict[str, Any]:
    """Idle writes, then writes while a lifecycle run works in another process."""
    home = tmp / "home"
    home.mkdir(parents=True)
    shutil.copy2(STORES / str(n) / "cortex.db", home / "cortex.db")
    texts = iter(contents(writes * 20, f"writes-{code.name}"))
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "cortex_mcp"],
        env={"CORTEX_HOME": str(home), **ENV},
        cwd=code,
    )
    async with Client(server, mode="legacy") as client:
        refused: list[str] = []

        async def write() -> float:
            started = time.perf_counter()
            result = await client.call_tool("cortex_remember", {"content": next(texts)})
            if result.is_error:
                refused.append(str(result.content[0])[:200])
            return (time.perf_counter() - started) * 1000

        await client.call_tool("cortex_recall", {"query": "warm up"})
        idle = [await write() for _ in range(writes)]
        env = {**os.environ, "CORTEX_HOME": str(home), **ENV}
        during: list[float] = []
        started = time.perf_counter()
        async with await anyio.open_process([sys.executable, "-c", RUN], env=env, cwd=code) as run:
            with anyio.fail_after(1800):
                while run.returncode is None and len(during) < writes * 19:
                    during.append(await write())
                await run.wait()
        seconds = time.perf_counter() - started
    return {
        "idle": summary(idle),
        "during_run": summary(during) if during else None,
        "ratio_p50": round(summary(during)["p50"] / summary(idle)["p50"], 2) if during else None,
        "writes_refused": len(refused),
        "run_seconds": round(seconds, 1),
        "load_after": [round(x, 2) for x in os.getloadavg()],
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--writes", type=int, default=40)
    parser.add_argument("--baseline", type=Path, help="a tree holding the old cortex_mcp/")
    args = parser.parse_args()
    codes = {"before": args.baseline, "after": ROOT} if args.baseline else {"after": ROOT}
    result: dict[str, Any] = {"n": args.n}
    for label, code in codes.items():
        with tempfile.TemporaryDirectory(prefix="s4-life-w-") as tmp:
            result[label] = await writes_during(code, args.n, args.writes, Path(tmp))
    out = RESULTS / f"lifecycle-writes-{args.n}.json"
    out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    anyio.run(main)
