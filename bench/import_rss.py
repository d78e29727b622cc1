"""Peak memory and time of `cortex-mcp import` on a large export (the audit's 139 MB case).

Writes a synthetic cortex-mcp JSON export of about 139 MB (memories of ~1.2 KB), then runs
`python -m cortex_mcp import FILE` into a fresh home and reads the child's peak resident set
(wait4's ru_maxrss) and wall time. With `--before DIR`, the same for the code in DIR (e.g. an
extracted `git archive ff54bbd cortex_mcp`), so a before/after pair is measured on one machine.

    python -m bench.import_rss                           # this tree only
    python -m bench.import_rss --before /tmp/cortex-before

Writes bench/results/import_rss.json.
"""

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from cortex_mcp.clock import utc_now

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
TARGET_BYTES = 139 * 1024 * 1024
WORDS = [
    "memory",
    "agent",
    "user",
    "prefers",
    "decided",
    "project",
    "deadline",
    "tokyo",
    "coffee",
    "review",
    "budget",
]


def write_export(path: Path, target_bytes: int, seed: int = 14) -> int:
    """A cortex-mcp export of about `target_bytes`, written a memory at a time; the count."""
    rng = random.Random(seed)
    start = datetime(2025, 1, 1, tzinfo=UTC)
    count = 0
    with path.open("w", encoding="utf-8") as out:
        out.write('{"format": "cortex-mcp", "version": 1, "exported_at": "2026-01-01T00:00:00Z",')
        out.write(' "memories": [\n')
        while out.tell() < target_bytes:
            when = (start + timedelta(minutes=count)).isoformat().replace("+00:00", "Z")
            memory = {
                "id": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
                "agent_id": "default",
                "layer": "core",
                "category": "fact",
                "content": f"note {count}: " + " ".join(rng.choices(WORDS, k=160)),
                "source": "user",
                "importance": 0.7,
                "confidence": 0.8,
                "decay_score": 1.0,
                "access_count": 0,
                "last_accessed": None,
                "created_at": when,
                "updated_at": when,
                "expires_at": None,
                "superseded_by": None,
                "deleted_at": None,
                "metadata": {},
            }
            out.write(("," if count else "") + json.dumps(memory) + "\n")
            count += 1
        out.write('], "relations": []}\n')
    return count


def measure(code_dir: Path, export: Path) -> dict[str, Any]:
    """Run the import of `export` with the package in `code_dir`; peak RSS and time."""
    home = Path(tempfile.mkdtemp(prefix="cortex-import-rss-"))
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("CORTEX_")},
        "CORTEX_HOME": str(home),
        "CORTEX_EMBEDDING__PROVIDER": "none",
        "CORTEX_LLM__PROVIDER": "none",
        "PYTHONPATH": str(code_dir),
    }
    started = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-m", "cortex_mcp", "import", str(export)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=home,
    )
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - started
    out = child.stdout.read().decode() if child.stdout else ""
    err = child.stderr.read().decode() if child.stderr else ""
    report = json.loads(out) if out.strip().startswith("{") else {"error": err.strip()[-300:]}
    return {
        "exit_status": os.waitstatus_to_exitcode(status),
        "seconds": round(elapsed, 1),
        "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
        "memories_added": report.get("memories_added"),
        "error": report.get("error"),
    }


def main() -> None:
    """Measure, print and save."""
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--before", type=Path, help="a directory holding an older cortex_mcp")
    options.add_argument("--megabytes", type=int, default=139)
    args = options.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        export = Path(folder) / "export.json"
        count = write_export(export, args.megabytes * 1024 * 1024)
        size_mb = round(export.stat().st_size / 1024 / 1024, 1)
        runs = {"after": measure(ROOT, export)}
        if args.before is not None:
            runs["before"] = measure(args.before, export)
    result = {
        "export_mb": size_mb,
        "memories": count,
        "runs": runs,
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}",
        "date": utc_now().strftime("%Y-%m-%d"),
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "import_rss.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    sys.stdout.write(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
