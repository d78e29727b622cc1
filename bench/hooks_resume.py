"""The prompt hook right after a big save (a resumed session, or hooks installed mid-session):
a Claude Code transcript of 6,000 user and assistant messages (about 7 MB, the LoCoMo dev
conversations in Claude Code's JSONL with the fields it writes on each line) none of which
went to memory yet. The Stop hook (or PreCompact) runs on it as Claude Code runs it (JSON on
stdin, detached: the host waits only for the parent), and the next UserPromptSubmit of the
same session starts at once. Measured, from process start to exit as the host sees it:

- **save**: the Stop / PreCompact hook (the parent, which returns at once);
- **first prompt**: the UserPromptSubmit that starts while the detached save is sending the
  6,000 messages (it must not wait for them: the plugin's timeout is 5 s);
- **later prompts**: the prompts after it, while the save may still run;
- **import**: how long until the save's child had sent everything, and the messages of the
  session in the conversation log afterwards (all 6,000 must be there).

Against a running `python -m cortex_mcp` (stdio, with its local socket), BM25 only, no key.

    python -m bench.hooks_resume                  # 3 rounds each; bench/results/hooks-resume.json
    python -m bench.hooks_resume --label before   # hooks-resume-before.json
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.hooks import answering, handshake, wait_for
from bench.latency import SERVER_ENV, git, machine, summary
from bench.locomo import DATA
from bench.locomo_data import load_samples
from cortex_mcp.hooks.state import read_state, state_file
from tests.servers import read_only

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
HOOK = Path(sys.executable).parent / "cortex-mcp-hook"
MESSAGES = 6_000
PROMPTS = ("Which city did Caroline move to?", "What does Melanie paint on weekends?")
LATER_PROMPTS = 4
HOST_TIMEOUT_MS = 5_000.0


def transcript_line(role: str, text: str, session: str, number: int) -> str:
    """One line as Claude Code writes it (its fields, so the file has a real one's size)."""
    content: Any = text
    if role == "assistant":  # its thinking block (the reader skips it) is most of its size
        thinking = {"type": "thinking", "thinking": f"The user said: {text} " * 3}
        content = [thinking | {"signature": "Eq" + "x" * 300}, {"type": "text", "text": text}]
    message: dict[str, Any] = {"role": role, "content": content}
    if role == "assistant":
        message |= {
            "id": f"msg_{number:024d}",
            "type": "message",
            "model": "claude-sonnet-4-5-20250929",
            "stop_reason": "end_turn",
            "usage": {
                "input_tokens": 4,
                "cache_creation_input_tokens": 1204,
                "cache_read_input_tokens": 48210,
                "output_tokens": 212,
                "service_tier": "standard",
            },
        }
    entry = {
        "parentUuid": f"{number - 1:08d}-0000-4000-8000-000000000000" if number else None,
        "isSidechain": False,
        "userType": "external",
        "cwd": "/home/dev/work/pelican",
        "sessionId": session,
        "version": "2.0.37",
        "gitBranch": "main",
        "type": role,
        "message": message,
        "uuid": f"{number:08d}-0000-4000-8000-000000000000",
        "timestamp": f"2026-11-{1 + number // 400:02d}T{number % 24:02d}:00:00.000Z",
        **({"requestId": f"req_{number:024d}"} if role == "assistant" else {}),
    }
    return json.dumps(entry, ensure_ascii=False) + "\n"


def resumed_transcript(path: Path, session: str, messages: int) -> int:
    """`messages` LoCoMo turns, alternately the user's and the assistant's; the file's size."""
    turns = [t for sample in load_samples(DATA) for t in sample.turns]
    with path.open("w", encoding="utf-8") as handle:
        for number in range(messages):
            told, turn = divmod(number, len(turns))  # past the dev set: told again, marked
            text = f"{turns[turn].speaker}: {turns[turn].text}"
            text = f"{text} (told again, {told})" if told else text
            role = "user" if number % 2 == 0 else "assistant"
            handle.write(transcript_line(role, text, session, number))
    return path.stat().st_size


def timed_hook(env: dict[str, str], moment: str, payload: dict[str, Any]) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(
        [str(HOOK), "claude-code", moment],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=env,
        check=False,
    )
    elapsed = (time.perf_counter() - started) * 1000
    if done.returncode != 0:
        raise RuntimeError(f"{moment}: {done.returncode} {done.stderr.decode()[:300]}")
    return elapsed, done.stdout.decode()


def logged(home: Path, session: str) -> int:
    db = read_only(home / "cortex.db")
    try:
        sql = "select count(*) from conversation_log where session_id = ?"
        return int(db.execute(sql, (session,)).fetchone()[0])
    finally:
        db.close()


def one_round(env: dict[str, str], home: Path, work: Path, moment: str, n: int) -> dict[str, Any]:
    """One save of a fresh 6,000-message session, then the prompts that follow it."""
    session = f"resumed-{moment}-{n}"
    transcript = work / f"{session}.jsonl"
    size = resumed_transcript(transcript, session, MESSAGES)
    base = {"session_id": session, "transcript_path": str(transcript), "cwd": "/tmp/pelican"}
    event = "Stop" if moment == "stop" else "PreCompact"
    started = time.perf_counter()
    save_ms, _ = timed_hook(env, moment, base | {"hook_event_name": event})
    prompts = []
    for k in range(1 + LATER_PROMPTS):
        text = f"{PROMPTS[k % len(PROMPTS)]} ({k})"  # each a new turn
        elapsed, out = timed_hook(
            env, "prompt", base | {"hook_event_name": "UserPromptSubmit", "prompt": text}
        )
        prompts.append((elapsed, bool(out.strip())))
    state = state_file(home, "claude-code", session)
    wait_for(lambda: (read_state(state) or {}).get("position") == size, "the save", 900)
    import_ms = (time.perf_counter() - started) * 1000
    return {
        "save_ms": save_ms,
        "first_prompt_ms": prompts[0][0],
        "first_prompt_injected": prompts[0][1],
        "later_prompts_ms": [ms for ms, _ in prompts[1:]],
        "import_ms": import_ms,
        "logged": logged(home, session),
        "megabytes": round(size / (1 << 20), 2),
    }


def run(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    home = work / "home"
    base = {k: v for k, v in os.environ.items() if not k.startswith("CORTEX_")}
    env = {**base, "CORTEX_HOME": str(home), **SERVER_ENV}
    server = subprocess.Popen(
        [sys.executable, "-m", "cortex_mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        env=env,
        cwd=ROOT,
    )
    rounds: dict[str, list[dict[str, Any]]] = {"stop": [], "pre-compact": []}
    try:
        handshake(server)
        wait_for(lambda: answering(home), "the server's socket", 120)
        for n in range(args.rounds):
            for moment in rounds:
                rounds[moment].append(one_round(env, home, work, moment, n))
                print(moment, n, rounds[moment][-1], flush=True)
    finally:
        server.stdin.close()  # type: ignore[union-attr]
        server.wait(60)
    results: dict[str, Any] = {}
    for moment, done in rounds.items():
        results[moment] = {
            "save": summary([r["save_ms"] for r in done]),
            "first_prompt": summary([r["first_prompt_ms"] for r in done]),
            "first_prompt_over_host_timeout": sum(
                r["first_prompt_ms"] >= HOST_TIMEOUT_MS for r in done
            ),
            "first_prompt_injected": sum(r["first_prompt_injected"] for r in done),
            "later_prompts": summary([ms for r in done for ms in r["later_prompts_ms"]]),
            "import": summary([r["import_ms"] for r in done]),
            "logged_per_round": [r["logged"] for r in done],
            "megabytes": done[0]["megabytes"],
        }
    return {
        "machine": machine(),
        "label": args.label,
        "commit": git("rev-parse", "--short", "HEAD"),
        "messages": MESSAGES,
        "rounds": args.rounds,
        "results": results,
    }


def main() -> None:
    cli = argparse.ArgumentParser(description=__doc__)
    cli.add_argument("--rounds", type=int, default=3)
    cli.add_argument("--label", default="")
    args = cli.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        report = run(args, Path(folder))
    name = "-".join(["hooks-resume", *([args.label] if args.label else [])])
    out = RESULTS / f"{name}.json"
    out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    for moment, figures in report["results"].items():
        print(moment, {k: figures[k] for k in ("first_prompt", "later_prompts")})


if __name__ == "__main__":
    main()
