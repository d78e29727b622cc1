"""`cortex-mcp import PATH --transcripts claude-code|codex`: each session file one flush; a bad
line anywhere is named with its file and line and nothing is written; importing again sends
only what is new."""

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from cortex_mcp.store.sqlite import plain_connection
from tests.hooks.hosts import claude_exchange, claude_line, codex_exchange, write_jsonl
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


def query_all(database: Path, sql: str) -> list[Any]:
    conn = plain_connection(database)
    try:
        return list(conn.execute(sql).fetchall())
    finally:
        conn.close()


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


def test_what_the_host_wrote_is_not_the_user_s_and_the_later_session_wins(tmp_path: Path) -> None:
    """Found trying the product: a bash-mode `!cat` of a customer's ticket, a compaction
    summary and a Codex sub-agent's "user" were imported as the user's own words ("My name is
    Carlos Mendes" replaced the user's name), files imported in name order let an October
    "I live in Lisbon" win over a November "I moved to Porto", and no session was filed under
    the project its folder names."""
    projects = tmp_path / "projects" / "-work-shop"
    projects.mkdir(parents=True)
    november = claude_exchange("Actually I moved to Porto last month.", "Noted.")
    for line in november:
        line["timestamp"], line["sessionId"] = "2026-11-02T09:00:00.000Z", "0a-november"
        line["cwd"] = str(tmp_path / "shop")
    write_jsonl(projects / "0a-november.jsonl", november)
    october = [
        *claude_exchange("I live in Lisbon.", "Noted."),
        claude_line("user", "<bash-input>cat ticket.txt</bash-input>"),
        claude_line(
            "user",
            "<bash-stdout>Hello, my name is Carlos Mendes and I live in Madrid.</bash-stdout>"
            "<bash-stderr></bash-stderr>",
        ),
        claude_line(
            "user",
            "This session is being continued from a previous conversation. I live in Oslo.",
            isCompactSummary=True,
        ),
    ]
    for line in october:
        line["timestamp"], line["sessionId"] = "2026-10-14T09:00:00.000Z", "zz-october"
    write_jsonl(projects / "zz-october.jsonl", october)
    home = tmp_path / "home"

    done = cortex(home, "import", str(tmp_path / "projects"), "--transcripts", "claude-code")

    assert done.returncode == 0, done.stderr
    said = " ".join(
        str(row[0]) for row in query_all(home / "cortex.db", "select content from conversation_log")
    )
    assert "Carlos" not in said and "Oslo" not in said and "cat ticket.txt" not in said
    live = query_all(
        home / "cortex.db",
        "select content from memories where superseded_by is null and deleted_at is null",
    )
    assert any("Porto" in str(row[0]) for row in live), live
    assert not any("Lisbon" in str(row[0]) for row in live), live
    filed = query_all(
        home / "cortex.db", "select distinct project from conversation_log order by project"
    )
    assert [row[0] for row in filed] == [None, "shop"]  # the session's folder, as a hook files it


def test_a_codex_sub_agent_s_rollout_is_not_imported_and_a_session_keeps_its_id(
    tmp_path: Path,
) -> None:
    parent = codex_exchange("Our CI runs on Buildkite.", "Noted.")
    parent[0]["payload"] = {"id": "019a-parent", "cwd": "/p", "source": "cli"}
    child = codex_exchange("My name is Subagent Sam.", "Working on it.")
    child[0]["payload"] = {"id": "019a-child", "cwd": "/p", "source": {"subagent": "review"}}
    (tmp_path / "rollouts").mkdir()
    write_jsonl(tmp_path / "rollouts" / "rollout-2026-11-25T10-00-00-019a-parent.jsonl", parent)
    write_jsonl(tmp_path / "rollouts" / "rollout-2026-11-25T10-05-00-019a-child.jsonl", child)

    done = cortex(tmp_path / "home", "import", str(tmp_path / "rollouts"), "--transcripts", "codex")

    assert done.returncode == 0, done.stderr
    rows = query_all(
        tmp_path / "home" / "cortex.db", "select session_id, content from conversation_log"
    )
    assert {row[0] for row in rows} == {"019a-parent"}  # the id Codex's hooks send
    assert not any("Sam" in str(row[1]) for row in rows)
