"""What a hook run costs before it talks to the socket, in instructions (#25 item 3).

Wall and CPU times of a 100 ms process are noise on a shared machine; the number of
instructions it executes is not. This runs `cortex-mcp-hook` under valgrind's callgrind (no
server: a skipped prompt, a prompt and a session start that find no socket, the parent of a
detached Stop) with the cortex_mcp package of each `--code` folder first on the path, with
its bytecode compiled first, and `python -c pass` as the floor.

    python -m bench.hooks_startup --code before=/tmp/before --code after=.

Writes bench/results/hooks-startup.json; needs valgrind.
"""

import argparse
import compileall
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "hooks-startup.json"
HOOK = Path(sys.executable).parent / "cortex-mcp-hook"
CASES = {
    "prompt skipped by the pre-check (ok)": ("prompt", {"prompt": "ok"}),
    "prompt, no server": ("prompt", {"prompt": "which database do we use for staging?"}),
    "stop, the detached parent": ("stop", {}),
    "session start, no server": ("session-start", {}),
}


def instructions(command: list[str], stdin: bytes, env: dict[str, str]) -> int:
    """Instructions the process executed (callgrind's `Collected`)."""
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command],
        input=stdin,
        capture_output=True,
        env=env,
        check=False,
        timeout=600,
    )
    found = re.search(rb"Collected : (\d+)", done.stderr)
    if found is None:
        raise RuntimeError(done.stderr.decode(errors="replace")[-500:])
    return int(found.group(1))


def main() -> None:
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("--code", action="append", default=[], help="label=folder with cortex_mcp/")
    args = cli.parse_args()
    codes = dict(item.split("=", 1) for item in args.code) or {"this checkout": str(ROOT)}
    env = {k: v for k, v in os.environ.items() if not k.startswith("CORTEX_")}
    results: dict[str, dict[str, int]] = {}
    with tempfile.TemporaryDirectory() as home:
        env |= {"CORTEX_HOME": home}
        floor = instructions([sys.executable, "-c", "pass"], b"", env)
        for label, folder in codes.items():
            compileall.compile_dir(Path(folder) / "cortex_mcp" / "hooks", quiet=1)
            compileall.compile_dir(Path(folder) / "cortex_mcp", maxlevels=0, quiet=1)
            code_env = env | {"PYTHONPATH": str(Path(folder).resolve())}
            results[label] = {}
            for case, (moment, extra) in CASES.items():
                stdin = json.dumps({"session_id": "s", "cwd": "/x", **extra}).encode()
                command = [str(HOOK), "claude-code", moment]
                results[label][case] = instructions(command, stdin, code_env)
    report = {"python -c pass": floor, "hook": results}
    RESULTS.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
