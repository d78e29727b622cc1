"""Hook latency (#25): each moment of `cortex-mcp-hook`, measured from process start to exit
as a host sees it, against a running `python -m cortex_mcp` (stdio, with its local socket)
on a store of 10,000 memories and 10,000 logged messages. Every hook runs under `nice -n 19`
on a shared machine, so beside each figure is the floor of the same run: `python -c pass`
(the interpreter alone) and the server's own recall round trip.

    python -m bench.hooks               # 10,000 memories; writes bench/results/hooks.json
    python -m bench.hooks --quick       # fewer runs; hooks-quick.json
    python -m bench.hooks --code /tmp/before --label before
                                        # the cortex_mcp package in /tmp/before (server and
                                        # hooks, through PYTHONPATH); hooks-before.json

Targets: UserPromptSubmit p95 <= 150 ms; Stop and PreCompact p95 <= 100 ms whatever the
transcript size (they fork: the host waits only for the parent).
"""

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

from bench.corpus import Corpus
from bench.latency import SEED, SERVER_ENV, git, seed, summary
from cortex_mcp.hooks.client import Connection, NoServer
from cortex_mcp.hooks.paths import socket_path
from cortex_mcp.hooks.state import read_state, session_state, state_file
from tests.servers import INITIALIZE, INITIALIZED

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
HOOK = Path(sys.executable).parent / "cortex-mcp-hook"
NICE = ["nice", "-n", "19"]
MEMORIES = 10_000
LOG_MESSAGES = 10_000
BIG_TRANSCRIPT_MB = 50
TARGETS = {"prompt": 150.0, "stop": 100.0, "pre-compact": 100.0}


def line(role: str, text: str) -> str:
    content: Any = text if role == "user" else [{"type": "text", "text": text}]
    entry = {"type": role, "sessionId": "b", "message": {"role": role, "content": content}}
    return json.dumps(entry) + "\n"


def exchange(n: int) -> str:
    return line("user", f"Question {n} about the deployment of project {n % 97}?") + line(
        "assistant", f"Answer {n}: it runs on host {n % 13} " + "with details " * 20
    )


TIMEOUTS: list[str] = []
"""Hooks that gave up waiting for the server (they inject nothing and say so)."""


CPU_MS: dict[str, list[float]] = {}
"""CPU time (user + system) of each hook process, by moment: what the hook itself costs,
free of the waiting a loaded machine adds to wall time."""


def timed(command: list[str], stdin: bytes, env: dict[str, str]) -> tuple[float, bytes]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, input=stdin, capture_output=True, env=env, check=False)
    elapsed = (time.perf_counter() - started) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    CPU_MS.setdefault(command[-1], []).append(cpu)
    if done.returncode != 0 or (done.stderr and b"no answer within" not in done.stderr):
        raise RuntimeError(f"{command}: {done.returncode} {done.stderr.decode()[:300]}")
    if done.stderr:
        TIMEOUTS.append(command[-1])
    return elapsed, done.stdout


def hook(env: dict[str, str], moment: str, payload: dict[str, Any]) -> tuple[float, bytes]:
    return timed([*NICE, str(HOOK), "claude-code", moment], json.dumps(payload).encode(), env)


def wait_for(check: Any, what: str, seconds: float = 600) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        time.sleep(0.02)  # noqa: TID251 - a benchmark's driver, no event loop here


def big_transcript(path: Path, megabytes: int) -> int:
    """A Claude Code transcript of about `megabytes`; the number of exchanges in it."""
    n = 0
    with path.open("w", encoding="utf-8") as handle:
        while handle.tell() < megabytes << 20:
            handle.write(exchange(n))
            n += 1
    return n


def saving_moment(
    env: dict[str, str], home: Path, transcript: Path, moment: str, runs: int, per_run: int
) -> list[float]:
    """`moment` after `per_run` new exchanges each time, with the session's position at the
    end of what came before (as after earlier moments); each run waits for the detached
    child to finish before the next."""
    session = f"{moment}-{transcript.stat().st_size}"
    payload = {"session_id": session, "transcript_path": str(transcript), "cwd": "/tmp"}
    state = state_file(home, "claude-code", session)

    def position() -> int:
        return int((read_state(state) or {}).get("position", -1))

    with session_state(home, "claude-code", session) as started:  # a session under way:
        started["transcript"] = str(transcript)  # what came before went to memory already
        started["position"] = transcript.stat().st_size
    times = []
    for run in range(runs):
        with transcript.open("a", encoding="utf-8") as handle:
            handle.writelines(exchange(10**7 + run * per_run + k) for k in range(per_run))
        size = transcript.stat().st_size
        elapsed, _ = hook(env, moment, payload)
        times.append(elapsed)
        wait_for(lambda size=size: position() == size, f"{moment} run {run}")
    return times


def interpreter_floor(env: dict[str, str], runs: int) -> list[float]:
    return [timed([*NICE, sys.executable, "-c", "pass"], b"", env)[0] for _ in range(runs)]


def server_import(env: dict[str, str], runs: int) -> list[float]:
    """What a hook that imported the server would pay before doing anything."""
    code = "import cortex_mcp.server"
    return [timed([*NICE, sys.executable, "-c", code], b"", env)[0] for _ in range(runs)]


def answering(home: Path) -> bool:
    """True once the server accepts on its socket (the file exists a moment before that)."""
    try:
        with Connection(socket_path(home), 30):
            return True
    except NoServer:
        return False


def socket_recall(home: Path, queries: list[str]) -> list[float]:
    """The server's recall over the socket, without a process start (same queries)."""
    times = []
    for query in queries:
        started = time.perf_counter()
        with Connection(socket_path(home), 30) as server:
            server.call_tool("cortex_recall", {"query": query, "max_results": 8, "max_tokens": 600})
        times.append((time.perf_counter() - started) * 1000)
    return times


def handshake(server: "subprocess.Popen[bytes]") -> None:
    """What the host's MCP client sends first over stdio: `initialize`, then `initialized`."""
    assert server.stdin is not None
    for message in (INITIALIZE, INITIALIZED):
        server.stdin.write(json.dumps(message).encode() + b"\n")
    server.stdin.flush()


def run(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    home = work / "home"
    load_at_start = os.getloadavg()
    corpus = Corpus(SEED)
    seeded = anyio.run(seed, home, MEMORIES, corpus, LOG_MESSAGES)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "cortex_mcp")], check=True)
    base = {k: v for k, v in os.environ.items() if not k.startswith("CORTEX_")}
    env = {**base, "CORTEX_HOME": str(home), **SERVER_ENV}
    if args.code is not None:  # its cortex_mcp package wins over this checkout's
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(args.code)], check=True)
        env["PYTHONPATH"] = str(args.code)
    server = subprocess.Popen(
        [sys.executable, "-m", "cortex_mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        env=env,
        cwd=args.code or ROOT,  # `-m` puts the working folder first on the path
    )
    try:
        handshake(server)  # the stdio server opens its engine and socket after it (#28 item 5)
        wait_for(lambda: answering(home), "the server's socket", 120)
        prompts = [corpus.query()[1] for _ in range(args.prompts)]
        socket_recall(home, prompts[:3])  # warm: the engine is open, caches are filled
        results: dict[str, Any] = {}
        results["floor_python_pass"] = summary(interpreter_floor(env, args.floor))
        results["server_recall_over_socket"] = summary(socket_recall(home, prompts))
        prompt_ms, injected = [], 0
        for n, text in enumerate(prompts):
            elapsed, out = hook(env, "prompt", {"session_id": f"p{n % 5}", "prompt": text})
            prompt_ms.append(elapsed)
            injected += bool(out.strip())
        results["prompt"] = summary(prompt_ms) | {
            "injected_share": round(injected / len(prompts), 2)
        }
        skipped = [
            hook(env, "prompt", {"session_id": "k", "prompt": "ok"}) for _ in range(args.floor)
        ]
        CPU_MS["prompt (skipped by the pre-check)"] = CPU_MS["prompt"][-args.floor :]
        del CPU_MS["prompt"][-args.floor :]
        results["prompt_skipped_by_precheck"] = summary([ms for ms, _ in skipped])
        results["session_start"] = summary(
            [
                hook(env, "session-start", {"session_id": f"s{n}", "cwd": "/tmp/pelican"})[0]
                for n in range(args.floor)
            ]
        )
        small = work / "small.jsonl"
        small.write_text(exchange(0), encoding="utf-8")
        big = work / "big.jsonl"
        exchanges = big_transcript(big, args.big_mb)
        for name, transcript in (("small", small), ("big", big)):
            results[f"stop_{name}"] = summary(
                saving_moment(env, home, transcript, "stop", args.saves, 1)
            )
            results[f"pre_compact_{name}"] = summary(
                saving_moment(env, home, transcript, "pre-compact", args.saves, 10)
            )
        results["big_transcript"] = {"megabytes": args.big_mb, "exchanges": exchanges}
        results["server_import_for_comparison"] = summary(server_import(env, 3))
        results["hooks_that_timed_out"] = {m: TIMEOUTS.count(m) for m in set(TIMEOUTS)}
        results["cpu_ms_per_process"] = {name: summary(ms) for name, ms in CPU_MS.items()}
    finally:
        server.stdin.close()  # type: ignore[union-attr]
        server.wait(60)
    return {
        "load_average_at_start": load_at_start,
        "machine": {
            "platform": platform.platform(),
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "load_average": os.getloadavg(),
        },
        "label": args.label,
        "commit": git("rev-parse", "--short", "HEAD"),
        "memories": MEMORIES,
        "log_messages": LOG_MESSAGES,
        "seeding": seeded,
        "results": results,
        "targets_ms_p95": TARGETS,
    }


def main() -> None:
    cli = argparse.ArgumentParser(description=__doc__)
    cli.add_argument("--quick", action="store_true")
    cli.add_argument("--code", type=Path, default=None, help="folder holding cortex_mcp/")
    cli.add_argument("--label", default="")
    args = cli.parse_args()
    args.prompts, args.floor, args.saves, args.big_mb = (
        (30, 10, 8, 10) if args.quick else (100, 20, 20, BIG_TRANSCRIPT_MB)
    )
    with tempfile.TemporaryDirectory() as folder:
        report = run(args, Path(folder))
    name = "-".join(
        ["hooks", *(["quick"] if args.quick else []), *([args.label] if args.label else [])]
    )
    out = RESULTS / f"{name}.json"
    out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    for name, figures in report["results"].items():
        print(
            name,
            {k: figures.get(k) for k in ("p50", "p95", "count", "injected_share") if k in figures},
        )


if __name__ == "__main__":
    main()
