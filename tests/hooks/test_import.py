"""`cortex-mcp import PATH --transcripts claude-code|codex`: each session file one flush; a bad
line anywhere is named with its file and line and nothing is written; importing again sends
only what is new."""

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.hooks.hosts import claude_exchange, codex_exchange, write_jsonl
from tests.servers import query_one

CORTEX = Path(sys.executable).parent / "cortex-mcp"


def cortex(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CORTEX_")}
    env |= {
        "CORTEX_HOME": str(home),
        "CORTEX_EMBEDDING__PROVIDER": "none",
        "CORTEX_LLM__PROVIDER": "none",
    }
    return subprocess.run(
        [str(CORTEX), *args],
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=False,
    )


def logged(home: Path) -> int:
    return int(query_one(home / "cortex.db", "select count(*) from conversation_log"))


def test_claude_code_sessions_import_once_each_and_again_only_what_is_new(tmp_path: Path) -> None:
    projects = tmp_path / "projects" / "-work-pelican"
    projects.mkdir(parents=True)
    write_jsonl(
        projects / "a1.jsonl",
        claude_exchange("I prefer pnpm over npm for JavaScript projects.", "Noted."),
    )
    write_jsonl(
        projects / "b2.jsonl",
        claude_exchange("Run the tests", "Green.", ("Bash", {"command": "pytest"}, "ok")),
    )
    home = tmp_path / "home"

    done = cortex(home, "import", str(tmp_path / "projects"), "--transcripts", "claude-code")

    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["files"] == 2 and report["sessions"] == 2 and report["messages"] == 6
    assert logged(home) == 6
    again = cortex(home, "import", str(tmp_path / "projects"), "--transcripts", "claude-code")
    assert json.loads(again.stdout)["messages"] == 0 and logged(home) == 6
    write_jsonl(
        projects / "a1.jsonl", claude_exchange("We deploy on Fly.io.", "Noted."), append=True
    )
    more = cortex(home, "import", str(projects / "a1.jsonl"), "--transcripts", "claude-code")
    assert json.loads(more.stdout)["messages"] == 2 and logged(home) == 8
    recalled = cortex(home, "export", "--format", "markdown")
    assert "pnpm" in recalled.stdout


def test_codex_rollouts_import(tmp_path: Path) -> None:
    rollout = write_jsonl(
        tmp_path / "rollout-2026-11-25.jsonl", codex_exchange("Our CI runs on Buildkite.", "Noted.")
    )

    done = cortex(tmp_path / "home", "import", str(rollout), "--transcripts", "codex")

    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["messages"] == 2


def test_a_bad_line_is_named_with_its_file_and_line_and_nothing_is_written(tmp_path: Path) -> None:
    folder = tmp_path / "projects"
    folder.mkdir()
    write_jsonl(folder / "a.jsonl", claude_exchange("Keep me", "ok"))
    bad = folder / "b.jsonl"
    write_jsonl(bad, claude_exchange("one", "two"))
    with bad.open("a", encoding="utf-8") as handle:
        handle.write('{"type": "user", "message": "not an object"}\n')
    home = tmp_path / "home"

    done = cortex(home, "import", str(folder), "--transcripts", "claude-code")

    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert f"{bad}:3:" in done.stderr and "nothing was imported" in done.stderr
    assert logged(home) == 0
