"""The hook command as a host runs it, with no server or bad input: it always exits 0, says
one line on stderr, injects nothing, and never writes conversation text anywhere."""

import json
import os
import socket
import stat
import subprocess
from pathlib import Path

import pytest

from cortex_mcp.config import DEFAULT_HOME, HooksSettings, Settings
from cortex_mcp.hooks.paths import FALLBACK_SETTINGS, default_home, socket_path, spool_dir
from cortex_mcp.local_socket import hook_settings, listen_privately
from tests.hooks.hosts import (
    HOOK,
    claude_exchange,
    hook_env,
    injected,
    payload,
    run_hook,
    stderr_lines,
    write_jsonl,
)

SECRET_PHRASE = "the vault combination is 7-7-1-3"


def test_malformed_stdin_exits_0_with_one_line_and_nothing_injected(tmp_path: Path) -> None:
    for raw in (b"{not json", b"[1, 2]", b"\xff\xfe"):
        done = run_hook("claude-code", "prompt", raw, hook_env(tmp_path))

        assert done.returncode == 0
        assert done.stdout == b""
        lines = stderr_lines(done.stderr)
        assert len(lines) == 1 and "stdin" in lines[0], lines


def test_gemini_always_gets_json_on_stdout_even_on_bad_input(tmp_path: Path) -> None:
    done = run_hook("gemini", "prompt", b"nonsense", hook_env(tmp_path))

    assert done.returncode == 0
    assert json.loads(done.stdout) == {}
    assert len(stderr_lines(done.stderr)) == 1


def test_a_broken_transcript_path_exits_0_with_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "gone.jsonl"
    for moment, event in (
        ("stop", "Stop"),
        ("pre-compact", "PreCompact"),
    ):
        stdin = payload(event, "s1", missing, prompt="What did we decide about caching?")

        done = run_hook("claude-code", moment, stdin, hook_env(tmp_path))

        assert done.returncode == 0, moment
        assert done.stdout == b""
        lines = stderr_lines(done.stderr)
        assert len(lines) == 1 and "transcript_path" in lines[0], lines
    assert not spool_dir(tmp_path).exists()


def test_a_dead_socket_exits_0_with_one_line_and_nothing_injected(tmp_path: Path) -> None:
    path = socket_path(tmp_path)
    path.parent.mkdir(parents=True)
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(path))
    stale.close()  # the file stays, nobody listens: a server that was killed
    stdin = payload("UserPromptSubmit", "s1", None, prompt="Which database do we use?")

    done = run_hook("claude-code", "prompt", stdin, hook_env(tmp_path))

    assert done.returncode == 0
    assert injected(done.stdout) == ""
    lines = stderr_lines(done.stderr)
    assert len(lines) == 1 and "no cortex-mcp server" in lines[0], lines


def test_wrong_arguments_exit_0_with_one_line(tmp_path: Path) -> None:
    for argv in (["claude-code"], ["vim", "prompt"], ["cursor", "prompt"]):
        done = subprocess.run(
            [str(HOOK), *argv],
            input=b"{}",
            capture_output=True,
            env=hook_env(tmp_path),
            timeout=60,
            check=False,
        )

        assert done.returncode == 0, argv
        lines = stderr_lines(done.stderr)
        assert len(lines) == 1, (argv, lines)
        assert ("usage" in lines[0]) or ("no prompt hook" in lines[0])


def test_without_a_server_saving_moments_spool_a_pointer_never_the_text(tmp_path: Path) -> None:
    transcript = write_jsonl(
        tmp_path / "s1.jsonl", claude_exchange(f"Remember: {SECRET_PHRASE}", "I will.")
    )
    home = tmp_path / "home"
    for moment, event in (("stop", "Stop"), ("pre-compact", "PreCompact")):
        done = run_hook("claude-code", moment, payload(event, "s1", transcript), hook_env(home))
        assert done.returncode == 0 and done.stderr == b"", done.stderr

    records = sorted(spool_dir(home).glob("*.json"))
    assert [json.loads(r.read_text(encoding="utf-8"))["moment"] for r in records] == [
        "stop",
        "pre-compact",
    ]
    # every folder the hook made, not only the last (found trying the product: 0755 above it)
    for folder in (home, home / "hooks", spool_dir(home)):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    for record in records:
        assert stat.S_IMODE(record.stat().st_mode) == 0o600
    for written in home.rglob("*"):
        if written.is_file():
            assert "vault" not in written.read_text(encoding="utf-8", errors="replace"), written


def test_without_a_server_session_start_reads_memory_md_within_the_budget(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    facts = "\n".join(f"- fact number {n} about the pelican project" for n in range(500))
    (home / "MEMORY.md").write_text(f"# Memory\n\n{facts}\n", encoding="utf-8")
    stdin = payload("SessionStart", "s1", None, source="startup")

    done = run_hook("claude-code", "session-start", stdin, hook_env(home))

    context = injected(done.stdout)
    assert done.returncode == 0
    assert "fact number 0 about the pelican project" in context
    assert "fact number 499" not in context
    assert len(context) // 4 <= FALLBACK_SETTINGS["session_start_tokens"]


def test_the_fallback_settings_are_the_configured_defaults() -> None:
    defaults = hook_settings(Settings())

    assert defaults == FALLBACK_SETTINGS
    assert HooksSettings().model_dump(exclude={"socket"}).items() <= defaults.items()
    if not os.environ.get("CORTEX_HOME"):
        assert default_home() == DEFAULT_HOME


async def test_the_socket_appears_already_private_and_listening(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found by a CI run: a hook test saw the socket between the bind and the chmod (0755). It
    is made private under a name of its own and renamed into place."""
    path = tmp_path / "cortex.sock"
    seen: list[tuple[bool, int]] = []
    rename = os.rename

    def spy(staged: Path, final: Path) -> None:
        seen.append((final.exists(), stat.S_IMODE(os.stat(staged).st_mode)))
        rename(staged, final)

    monkeypatch.setattr(os, "rename", spy)
    listener = await listen_privately(path)
    async with listener:
        with socket.socket(socket.AF_UNIX) as client:
            client.connect(str(path))

    assert seen == [(False, 0o600)]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert os.listdir(tmp_path) == ["cortex.sock"]


def test_without_a_server_the_mirror_s_front_matter_is_not_injected(tmp_path: Path) -> None:
    # found trying the product: the fallback injected "---\ngenerator: cortex-mcp\nupdated_at…"
    home = tmp_path / "home"
    home.mkdir()
    front = "---\ngenerator: cortex-mcp\nupdated_at: 2026-11-27T01:00:00Z\n---\n"
    (home / "MEMORY.md").write_text(f"{front}\n# Memory\n\n- We deploy on Fly.io.\n", "utf-8")

    done = run_hook(
        "claude-code", "session-start", payload("SessionStart", "s1", None), hook_env(home)
    )

    context = injected(done.stdout)
    assert "We deploy on Fly.io." in context
    assert "generator" not in context and "updated_at" not in context


@pytest.mark.parametrize(
    ("fields", "named"),
    [({"session_id": None}, "session_id"), ({"transcript_path": 123}, "transcript_path")],
)
def test_a_saving_moment_it_cannot_file_says_so_in_one_line(
    tmp_path: Path, fields: dict[str, object], named: str
) -> None:
    # found trying the product: exit 0, nothing saved and nothing said
    transcript = write_jsonl(tmp_path / "s1.jsonl", claude_exchange("We ship Thursdays.", "OK."))
    stdin = payload("Stop", "s1", transcript) | fields

    done = run_hook("claude-code", "stop", stdin, hook_env(tmp_path))

    lines = stderr_lines(done.stderr)
    assert done.returncode == 0 and len(lines) == 1 and named in lines[0], lines
