"""What `store.synchronous = FULL` (an fsync on every commit, the default) costs
`cortex_remember`, against NORMAL (sync at WAL checkpoints only).

For each mode: a fresh home seeded with 1,000 memories, then `cortex_remember` calls over
stdio through a real MCP client (`python -m cortex_mcp`), each with new content; p50 and p95
of the round trip. The disk under the temp directory decides the figures: report both.

    python -m bench.durability            # 200 calls per mode
    python -m bench.durability --calls 50

Writes bench/results/durability.json.
"""

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

from bench.corpus import Corpus
from cortex_mcp.clock import utc_now
from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import open_engine

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
SEEDED = 1000


async def seed(home: Path, mode: str) -> None:
    settings = Settings.model_validate(
        {
            "home": home,
            "llm": {"provider": "none"},
            "embedding": {"provider": "none"},
            "store": {"synchronous": mode},
        }
    )
    contents = Corpus(14).memories()
    async with open_engine(settings, environ={}) as engine:
        for _ in range(SEEDED):
            await engine.remember(next(contents)[1])


async def measure(mode: str, calls: int) -> dict[str, Any]:
    home = Path(tempfile.mkdtemp(prefix=f"cortex-sync-{mode.lower()}-"))
    await seed(home, mode)
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("CORTEX_")},
        "CORTEX_HOME": str(home),
        "CORTEX_STORE__SYNCHRONOUS": mode,
        "CORTEX_EMBEDDING__PROVIDER": "none",
        "CORTEX_LLM__PROVIDER": "none",
        "CORTEX_LIFECYCLE__ENABLED": "false",
        "CORTEX_MIRROR__ENABLED": "false",
    }
    server = StdioServerParameters(command=sys.executable, args=["-m", "cortex_mcp"], env=env)
    contents, timings = Corpus(99).memories(), []
    async with Client(server) as client:
        for n in range(calls):
            content = f"{next(contents)[1]} (measured {n})"
            started = time.perf_counter()
            result = await client.call_tool("cortex_remember", {"content": content})
            timings.append((time.perf_counter() - started) * 1000)
            assert not result.is_error, result
    ordered = sorted(timings)
    return {
        "calls": calls,
        "p50_ms": round(statistics.median(ordered), 2),
        "p95_ms": round(ordered[int(len(ordered) * 0.95) - 1], 2),
    }


async def run(calls: int) -> dict[str, Any]:
    modes = {mode: await measure(mode, calls) for mode in ("NORMAL", "FULL")}
    return {
        "seeded_memories": SEEDED,
        "modes": modes,
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}",
        "date": utc_now().strftime("%Y-%m-%d"),
    }


def main() -> None:
    """Measure, print and save."""
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--calls", type=int, default=200)
    result = anyio.run(run, options.parse_args().calls)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "durability.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    sys.stdout.write(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
