"""Why SQLite and PostgreSQL gave different LoCoMo recall@10 (#23): the same conversations
through one path on each engine, with the in-memory vector matrix on and off.

Off, SQLite searches sqlite-vec (exact, float32) and PostgreSQL pgvector's HNSW index; on,
both search the matrix (int8). Equal figures within each row and different ones between the
rows say the vector search was the cause, not full text or the rest of recall.

    python -m bench.engines_cause --samples conv-26,conv-41 --path ingest

A local pgserver of its own (`--database-url` uses a running one); each run is `bench.locomo
--path ... --quick`-like in a process of its own (`--results` to a temporary file). Writes
bench/results/engines-cause.json.
"""

import argparse
import atexit
import collections
import json
import runpy
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.engines import RESULTS, ROOT, _given, local_postgres

NAME = "engines-cause"
HEADLINE = "headline (1-4)"


def inner(matrix: str, locomo_args: list[str]) -> None:
    """In this process: bench.locomo with the matrix on or off."""
    from cortex_mcp.engine import vector_matrix

    vector_matrix.HAS_NUMPY = vector_matrix.HAS_NUMPY and matrix == "on"
    searched = collections.Counter[str]()
    nearest = vector_matrix.VectorMatrix.nearest

    async def counted(self: Any, *args: Any) -> Any:
        found = await nearest(self, *args)
        searched["matrix answered" if found is not None else "not in step: the index answered"] += 1
        return found

    setattr(vector_matrix.VectorMatrix, "nearest", counted)  # noqa: B010 - counted in place
    atexit.register(lambda: print(f"vector searches: {dict(searched)}", file=sys.stderr))
    sys.argv = ["bench.locomo", *locomo_args]
    runpy.run_module("bench.locomo", run_name="__main__", alter_sys=True)


def one(args: argparse.Namespace, url: str | None, matrix: str, sample: str) -> dict[str, Any]:
    """One conversation through the path on one engine: its headline figures."""
    with tempfile.TemporaryDirectory(prefix="cortex-cause-") as temp:
        target = Path(temp) / "paths.json"
        locomo = ["--path", args.path, "--samples", sample, "--no-docs", "--results", str(target)]
        locomo += ["--cache", args.cache] if args.cache else []
        locomo += ["--database-url", url] if url else []
        command = [sys.executable, "-m", "bench.engines_cause", "--inner", matrix, *locomo]
        subprocess.run(command, cwd=ROOT, check=True)
        report = json.loads(target.read_text(encoding="utf-8"))
    metrics = report["paths"][args.path]["metrics"][HEADLINE]
    return {key: metrics[key] for key in ("recall@10", "recall@5", "mrr")}


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--inner":
        inner(sys.argv[2], sys.argv[3:])
        return
    cli = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    cli.add_argument("--samples", default="conv-26,conv-41")
    cli.add_argument("--path", default="ingest")
    cli.add_argument("--cache", help="bench.locomo's vector cache")
    cli.add_argument("--database-url", help="a running PostgreSQL's postgresql://.../postgres")
    args = cli.parse_args()
    rows: list[dict[str, Any]] = []
    with local_postgres() if not args.database_url else _given(args.database_url) as url:
        for sample in args.samples.split(","):
            for matrix in ("off", "on"):
                row: dict[str, Any] = {"sample": sample, "matrix": matrix}
                for engine, at in (("sqlite", None), ("postgresql", url)):
                    row[engine] = one(args, at, matrix, sample)
                    print(json.dumps(row), flush=True)
                rows.append(row)
    report = {"benchmark": NAME, "path": args.path, "runs": rows}
    (RESULTS / f"{NAME}.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
