"""PostgreSQL going away and coming back (issue #27), before and after.

A local PostgreSQL (the `pgserver` wheel) and a cortex engine on it, through the in-process MCP
client; PostgreSQL is stopped for OUTAGES seconds each, then started again. Reported:

- down: how long `cortex_recall` takes to answer (with its one-line error) while PostgreSQL is
  down (p50 and max of the calls made during the outage);
- recovery: from the moment PostgreSQL accepts connections again to the first successful
  `cortex_recall`, calling every 50 ms.

    nice -n 19 python -m bench.pg_outage                              # this tree
    nice -n 19 python -m bench.pg_outage --code /tmp/before --label before

Writes bench/results/pg_outage.json (merged, run by run).
"""

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
OUTAGES_S = (3.0, 10.0, 20.0)
POLL_S = 0.05


def child() -> dict[str, Any]:
    """Run in a process whose PYTHONPATH picks the cortex_mcp under test."""
    import anyio

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgserver

    data_dir = tempfile.mkdtemp(prefix="cortex-outage-pg-")
    first = pgserver.get_server(Path(data_dir), cleanup_mode="stop")  # type: ignore[attr-defined]
    url = first.get_uri()
    try:
        return dict(anyio.run(outages, data_dir, url))
    finally:
        pgserver.get_server(Path(data_dir), cleanup_mode="stop").cleanup()  # type: ignore[attr-defined]
        shutil.rmtree(data_dir, ignore_errors=True)


async def outages(data_dir: str, url: str) -> dict[str, Any]:
    """The figures of each outage, on the server at `url` whose files are in `data_dir`."""
    import anyio
    import psycopg
    from mcp import Client

    from cortex_mcp.config import Settings
    from cortex_mcp.server import build_server

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgserver

    settings = Settings.model_validate(
        {
            "home": Path(tempfile.mkdtemp(prefix="cortex-outage-")),
            "llm": {"provider": "none"},
            "embedding": {"provider": "none"},
            "lifecycle": {"enabled": False},
            "database": {"url": url},
        }
    )
    runs = []
    async with Client(build_server(settings)) as client:
        await client.call_tool("cortex_remember", {"content": "Kept note"})
        for outage in OUTAGES_S:
            server = pgserver.get_server(Path(data_dir), cleanup_mode="stop")  # type: ignore[attr-defined]
            await anyio.to_thread.run_sync(server.cleanup)
            down: list[float] = []
            ends = time.monotonic() + outage
            while time.monotonic() < ends:
                started = time.perf_counter()
                result = await client.call_tool("cortex_recall", {"query": "kept note"})
                down.append(time.perf_counter() - started)
                assert result.is_error
            server = await anyio.to_thread.run_sync(
                lambda: pgserver.get_server(Path(data_dir), cleanup_mode="stop")  # type: ignore[attr-defined]
            )
            while True:  # up: accepting connections
                try:
                    with psycopg.connect(url, connect_timeout=2):
                        break
                except psycopg.OperationalError:
                    await anyio.sleep(POLL_S)
            back = time.perf_counter()
            tries = 0
            while True:
                tries += 1
                result = await client.call_tool("cortex_recall", {"query": "kept note"})
                if not result.is_error:
                    break
                await anyio.sleep(POLL_S)
            runs.append(
                {
                    "outage_s": outage,
                    "calls_while_down": len(down),
                    "down_call_p50_s": round(statistics.median(down), 2) if down else None,
                    "down_call_max_s": round(max(down), 2) if down else None,
                    "recovery_s": round(time.perf_counter() - back, 2),
                    "calls_until_recovered": tries,
                }
            )
    return {"outages": runs}


def measure(code: Path) -> dict[str, Any]:
    """Run the child on `code`; its figures."""
    done = subprocess.run(
        [sys.executable, "-m", "bench.pg_outage", "--child"],
        env={**os.environ, "PYTHONPATH": f"{code}{os.pathsep}{ROOT}"},
        cwd=tempfile.gettempdir(),  # not ROOT: `-m` puts the working folder first on the path
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(done.stderr[-3000:])
    found = dict(json.loads(done.stdout.strip().splitlines()[-1]))
    return {"code": str(code), **found}


def main() -> None:
    """Measure, print and save."""
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--code", type=Path, default=ROOT, help="the tree holding cortex_mcp")
    options.add_argument("--label", default="after")
    options.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = options.parse_args()
    if args.child:
        import cortex_mcp

        sys.stderr.write(f"measuring {cortex_mcp.__file__}\n")
        sys.stdout.write(json.dumps(child()) + "\n")
        return
    result = measure(args.code.resolve())
    path = RESULTS / "pg_outage.json"
    saved = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {"runs": {}}
    saved["runs"][args.label] = result
    saved["machine"] = (
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    )
    RESULTS.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(saved, indent=2) + "\n", encoding="utf-8")
    sys.stdout.write(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
