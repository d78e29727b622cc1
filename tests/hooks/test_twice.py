"""One event, our hook started twice: Codex CLI runs every matching hook from every settings
file, so installing at user and project scope ran each moment twice (memory injected twice,
a save spooled twice). Of two copies started together on the same input, one acts."""

import json
import subprocess
from pathlib import Path

import anyio

from cortex_mcp.hooks.paths import spool_dir
from tests.hooks.hosts import (
    claude_exchange,
    codex_exchange,
    hook_env,
    injected,
    payload,
    run_hook_async,
    write_jsonl,
)
from tests.hooks.test_story import running_server

MEMORY = "# Memory\n\n- [preference] The user prefers pnpm over npm for JavaScript projects.\n"


async def both(
    host: str, moment: str, stdin: dict[str, object], env: dict[str, str]
) -> list[subprocess.CompletedProcess[bytes]]:
    """The hook run twice at once, as a host runs the user's and the project's entry."""
    done: list[subprocess.CompletedProcess[bytes]] = []

    async def one() -> None:
        done.append(await run_hook_async(host, moment, stdin, env))

    async with anyio.create_task_group() as group:
        group.start_soon(one)
        group.start_soon(one)
    assert all(run.returncode == 0 for run in done)
    return done


async def test_a_session_start_run_twice_for_one_event_injects_once(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "MEMORY.md").write_text(MEMORY, encoding="utf-8")  # no server: the mirror's start
    env = hook_env(home)
    start = payload("SessionStart", "c1", None, source="startup")

    twice = await both("codex", "session-start", start, env)

    contexts = [injected(run.stdout) for run in twice]
    assert sum("pnpm" in context for context in contexts) == 1, contexts
    assert all(run.stderr == b"" for run in twice)

    later = await both("codex", "session-start", {**start, "source": "clear"}, env)

    assert sum("pnpm" in injected(run.stdout) for run in later) == 1  # a new event acts


async def test_a_stop_run_twice_for_one_event_saves_once(tmp_path: Path) -> None:
    home = tmp_path / "home"
    rollout = write_jsonl(tmp_path / "r.jsonl", codex_exchange("Use pnpm here?", "Yes, pnpm."))
    stop = payload("Stop", "c1", rollout, turn_id="t1", last_assistant_message="Yes, pnpm.")

    await both("codex", "stop", stop, hook_env(home))

    spooled = [json.loads(p.read_text("utf-8")) for p in spool_dir(home).glob("*.json")]
    assert len(spooled) == 1, spooled

    write_jsonl(rollout, codex_exchange("And for the docs site?", "pnpm too."), append=True)
    await both("codex", "stop", stop, hook_env(home))  # the same input, the next exchange

    assert len(list(spool_dir(home).glob("*.json"))) == 2


def test_the_same_input_again_after_the_window_is_a_new_event(tmp_path: Path) -> None:
    from cortex_mcp.hooks.state import REPEAT_WINDOW_S, first_run

    def run(moment: str, fingerprint: str, at: float) -> bool:
        return first_run(tmp_path, "claude-code", "s1", moment, fingerprint, at)

    assert run("prompt", "a", 1000.0)
    assert not run("prompt", "a", 1000.5)  # the copy
    assert not run("prompt", "a", 999.9)  # a copy that read the clock before the first
    assert run("stop", "a", 1000.6)  # another moment is not a copy
    assert run("prompt", "b", 1001.0)  # another prompt is not a copy
    assert run("prompt", "b", 1001.0 + REPEAT_WINDOW_S)  # the same one, said again later


async def test_the_same_prompt_said_again_after_its_reply_gets_its_injection_again(
    tmp_path: Path,
) -> None:
    """Claude Code's UserPromptSubmit input carries no turn id: the same prompt sent again
    within 10 s was taken for a copy of the first and got nothing. Its transcript tells them:
    the first prompt's exchange is in it by then; copies of one event see the same file."""
    home = tmp_path / "home"
    env = hook_env(home)
    said = "The flaky login test fails only on Tuesdays when the cache is cold."
    prompt = "Why does the login test fail on Tuesdays?"
    async with running_server(home):
        one = write_jsonl(tmp_path / "one.jsonl", claude_exchange(said, "I will look."))
        await run_hook_async("claude-code", "stop", payload("Stop", "one", one), env)
        two = write_jsonl(tmp_path / "two.jsonl", claude_exchange("Hello", "Hi."))
        asked = payload("UserPromptSubmit", "two", two, prompt=prompt)

        first = await run_hook_async("claude-code", "prompt", asked, env)
        write_jsonl(two, claude_exchange(prompt, "I don't know yet."), append=True)
        again = await run_hook_async("claude-code", "prompt", asked, env)
        write_jsonl(two, claude_exchange(prompt, "Still looking."), append=True)
        copies = await both("claude-code", "prompt", asked, env)

    assert "cold" in injected(first.stdout), first.stderr
    assert "cold" in injected(again.stdout), again.stderr
    assert sum("cold" in injected(run.stdout) for run in copies) == 1
