"""`cortex-mcp import PATH --transcripts claude-code|codex`: each session file one flush; a bad
line anywhere is named with its file and line and nothing is written; importing again sends
only what is new."""

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import open_engine
from cortex_mcp.hooks.importer import import_transcripts, said_time
from cortex_mcp.local_socket import hook_settings
from cortex_mcp.server import build_server
from cortex_mcp.store.sqlite import plain_connection
from tests.conftest import FrozenClock, inspect_database, recall, remember
from tests.fakes import FakeOpenAI
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


def test_a_running_session_s_half_written_last_line_waits_for_the_next_import(
    tmp_path: Path,
) -> None:
    """Found trying the product: importing ~/.claude/projects while a session ran refused the
    whole import over that session's last line, not yet finished."""
    running = write_jsonl(tmp_path / "a.jsonl", claude_exchange("We deploy on Fly.io.", "Noted."))
    line = json.dumps(claude_line("user", "Our staging host is stage.example.test."))
    with running.open("a", encoding="utf-8") as handle:
        handle.write(line[:40])
    home = tmp_path / "home"

    done = cortex(home, "import", str(running), "--transcripts", "claude-code")

    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["messages"] == 2 and report["lines_left_for_later"] == 1
    with running.open("a", encoding="utf-8") as handle:
        handle.write(line[40:] + "\n")
    again = json.loads(cortex(home, "import", str(running), "--transcripts", "claude-code").stdout)
    assert again["messages"] == 1 and again["lines_left_for_later"] == 0
    assert logged(home) == 3


@pytest.mark.parametrize(
    ("host", "lines"),
    [
        ("claude-code", claude_exchange("I prefer pnpm.", "Noted.")),
        ("codex", codex_exchange("Our CI runs on Buildkite.", "Noted.")),
    ],
)
def test_a_transcript_imported_as_memories_says_to_add_transcripts(
    tmp_path: Path, host: str, lines: list[dict[str, Any]]
) -> None:
    """Found trying the product: without `--transcripts` every line was reported as a bad row
    of the memory server's graph ('type: must be "entity" or "relation"'), exit 0."""
    folder = tmp_path / "projects"
    folder.mkdir()
    transcript = write_jsonl(folder / "a1.jsonl", lines)
    home = tmp_path / "home"

    done = cortex(home, "import", str(folder))

    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert f"{transcript}: is a {host} session transcript" in done.stderr
    assert f"--transcripts {host}" in done.stderr and "nothing was imported" in done.stderr
    assert not (home / "cortex.db").exists() or logged(home) == 0


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


NOW = datetime(2026, 11, 26, 9, 0, tzinfo=UTC)
"""The day of the import in the tests below; the sessions were on 3 October."""


def quiet_settings(home: Path) -> Settings:
    """No embedder and no LLM: what is dated and found here depends on the import alone."""
    return Settings.model_validate(
        {"home": home, "embedding": {"provider": "none"}, "llm": {"provider": "none"}}
    )


async def import_at(
    settings: Settings, clock: FrozenClock, path: Path, source: str
) -> dict[str, Any]:
    """The real import, in this process, on the test's engine and clock; its report."""
    async with open_engine(settings, clock) as engine:
        report = await import_transcripts(
            engine, settings.home, path, source, hook_settings(settings)
        )
    return dict(json.loads(report))


def dated(line: dict[str, Any], timestamp: str | None) -> dict[str, Any]:
    """A transcript line said at `timestamp` (None: a line without one)."""
    line = {k: v for k, v in line.items() if k != "timestamp"}
    return line | ({"timestamp": timestamp} if timestamp is not None else {})


@pytest.mark.engines
@pytest.mark.usefixtures("database_engine")
async def test_an_imported_claude_code_session_is_dated_when_it_was_said_not_when_imported(
    tmp_path: Path, cortex_home: Path, clock: FrozenClock
) -> None:
    """Found trying the product: every imported message and memory was dated the day of the
    import, so a question about 3 October found nothing said then, and months-old sessions
    ranked as brand new."""
    settings = quiet_settings(cortex_home)
    clock.now = NOW
    projects = tmp_path / "projects" / "-work-pelican"
    projects.mkdir(parents=True)
    october = claude_exchange("I prefer pnpm over npm for JavaScript projects.", "Noted.")
    write_jsonl(
        projects / "october.jsonl",
        [dated(october[0], "2026-10-03T14:00:00.000Z"), dated(october[1], "2026-10-03T14:00:05Z")],
    )
    undated = claude_exchange("We deploy the pelican app on Fly.io.", "Noted.")
    write_jsonl(
        projects / "undated.jsonl", [dated(undated[0], None), dated(undated[1], "not a time")]
    )
    ahead = claude_line("user", "Our staging runs on Render.", timestamp="2099-01-01T00:00:00Z")
    write_jsonl(projects / "ahead.jsonl", [ahead])

    report = await import_at(settings, clock, tmp_path / "projects", "claude-code")

    assert report["messages"] == 5
    async with Client(build_server(settings, clock)) as client:
        found = await recall(client, "What did I say about pnpm on 2026-10-03?")
    pnpm = [m["created_at"][:19] for m in found["memories"] if "pnpm" in m["content"]]
    assert pnpm == ["2026-10-03T14:00:00"], found  # the fast channel's memory, dated as said
    with inspect_database(settings.database_path) as conn:
        said = dict(conn.execute("select content, created_at from conversation_log").fetchall())
        rows = conn.execute(
            "select created_at, updated_at from memories where content like '%pnpm%'"
        ).fetchall()
    assert said["I prefer pnpm over npm for JavaScript projects."].startswith("2026-10-03T14:00:00")
    assert said["We deploy the pelican app on Fly.io."].startswith("2026-11-26T09:00")  # no time
    assert said["Our staging runs on Render."].startswith("2026-11-26T09:00")  # never after now
    assert [(row[0][:10], row[1][:10]) for row in rows] == [("2026-10-03", "2026-10-03")]


@pytest.mark.engines
@pytest.mark.usefixtures("database_engine")
async def test_an_old_session_imported_after_a_newer_fact_is_its_past_not_its_replacement(
    tmp_path: Path, cortex_home: Path, clock: FrozenClock
) -> None:
    """Found reviewing the import's dates: an October "I live in Lisbon" imported after
    November's "I live in Porto" replaced it, and dated the change back to October."""
    settings = quiet_settings(cortex_home)
    clock.now = NOW
    async with Client(build_server(settings, clock)) as client:
        porto = await remember(client, "I live in Porto.")
    projects = tmp_path / "projects" / "-work-pelican"
    projects.mkdir(parents=True)
    october = claude_exchange("I live in Lisbon.", "Noted.")
    write_jsonl(
        projects / "october.jsonl",
        [dated(october[0], "2026-10-03T14:00:00Z"), dated(october[1], "2026-10-03T14:00:05Z")],
    )

    await import_at(settings, clock, tmp_path / "projects", "claude-code")

    async with Client(build_server(settings, clock)) as client:
        found = await recall(client, "Where do I live?")
    assert [m["content"] for m in found["memories"]][:1] == ["I live in Porto."]
    with inspect_database(settings.database_path) as conn:
        rows = conn.execute(
            "select content, superseded_by, updated_at from memories where content like 'I live%'"
            " order by created_at"
        ).fetchall()
    assert [(row[0], row[1], row[2][:10]) for row in rows] == [
        ("I live in Lisbon.", porto["id"], "2026-11-26"),  # replaced when Porto was said
        ("I live in Porto.", None, "2026-11-26"),
    ]


@pytest.mark.engines
@pytest.mark.usefixtures("database_engine")
async def test_an_imported_codex_session_its_episode_included_is_dated_then_and_kept(
    tmp_path: Path, cortex_home: Path, clock: FrozenClock
) -> None:
    """Each rollout line carries its time: the log rows, the session's episode and what the
    lifecycle does with them follow it; an old session may be archived, never deleted."""
    settings = quiet_settings(cortex_home)
    clock.now = NOW
    lines = codex_exchange(
        "Our CI runs on Buildkite.", "Fixed: the pipeline passes.", ("shell", '{"cmd": "ls"}', "ok")
    )
    rollout = write_jsonl(
        tmp_path / "rollout-2026-10-03.jsonl",
        [dated(line, f"2026-10-03T10:00:{n:02d}Z") for n, line in enumerate(lines)],
    )

    report = await import_at(settings, clock, rollout, "codex")

    assert report["messages"] == 4
    with inspect_database(settings.database_path) as conn:
        logged_at = [row[0] for row in conn.execute("select created_at from conversation_log")]
        kept = conn.execute(
            "select created_at, metadata, id from memories where deleted_at is null"
        ).fetchall()
    assert len(logged_at) == 4 and all(when.startswith("2026-10-03T10:00") for when in logged_at)
    episode = [row for row in kept if '"kind": "episode"' in row[1]]
    assert [row[0][:10] for row in episode] == ["2026-10-03"]
    async with open_engine(settings, clock) as engine:
        await engine.run_lifecycle()
    with inspect_database(settings.database_path) as conn:
        after = {row[0] for row in conn.execute("select id from memories where deleted_at is null")}
    assert {row[2] for row in kept} <= after  # archived or not: nothing imported is lost


def test_a_timestamp_is_read_in_utc_and_one_that_is_no_time_is_none() -> None:
    assert said_time("2026-10-03T16:00:00+02:00") == datetime(2026, 10, 3, 14, tzinfo=UTC)
    assert said_time("2026-10-03T14:00:00.250Z") == datetime(2026, 10, 3, 14, 0, 0, 250000, UTC)
    assert said_time("2026-10-03T14:00:00") == datetime(2026, 10, 3, 14, tzinfo=UTC)  # UTC
    for text in ("", "yesterday", "1764064805", "0001-01-01T00:00:00+01:00", "1969-07-20T20:17Z"):
        assert said_time(text) is None, text


@pytest.mark.engines
@pytest.mark.usefixtures("database_engine")
async def test_an_old_session_saying_again_what_memory_holds_leaves_it_as_recent_as_it_was(
    tmp_path: Path, cortex_home: Path, clock: FrozenClock
) -> None:
    """The same statement in an October session imported in November reinforces the memory
    made in November; its last change stays November (back in October, decay would take it
    for two months unused)."""
    settings = quiet_settings(cortex_home)
    clock.now = NOW
    said = "I prefer pnpm over npm for JavaScript projects."
    async with Client(build_server(settings, clock)) as client:
        await client.call_tool("cortex_ingest", {"user_message": said, "assistant_message": "OK"})
    october = [dated(line, "2026-10-03T14:00:00Z") for line in claude_exchange(said, "Noted.")]
    clock.advance(hours=1)

    await import_at(
        settings, clock, write_jsonl(tmp_path / "october.jsonl", october), "claude-code"
    )

    with inspect_database(settings.database_path) as conn:
        rows = conn.execute(
            "select created_at, updated_at, metadata from memories where content like '%pnpm%'"
        ).fetchall()
    assert [(row[0][:16], row[1][:16]) for row in rows] == [
        ("2026-11-26T09:00", "2026-11-26T09:00")
    ]
    assert json.loads(rows[0][2])["mentions"] == 2


@pytest.mark.engines
@pytest.mark.usefixtures("database_engine")
async def test_what_the_llm_takes_from_an_imported_session_is_dated_then_and_expires_from_then(
    tmp_path: Path, llm_settings: Settings, fake_openai: FakeOpenAI, clock: FrozenClock
) -> None:
    clock.now = NOW
    taken = {"content": "The pelican frontend's tests run on Vitest.", "category": "fact"}
    reasoned = taken | {"importance": 0.6, "source": "user", "reasoning": "stated"}
    fake_openai.replies.append(json.dumps({"memories": [reasoned]}))
    october = claude_exchange("The pelican frontend tests run on Vitest now.", "Good to know.")
    lines = [dated(october[0], "2026-10-03T14:00:00Z"), dated(october[1], "2026-10-03T14:00:30Z")]

    await import_at(llm_settings, clock, write_jsonl(tmp_path / "oct.jsonl", lines), "claude-code")

    with inspect_database(llm_settings.database_path) as conn:
        rows = conn.execute(
            "select created_at, expires_at from memories where content = ?", (taken["content"],)
        ).fetchall()
    hours = llm_settings.sieve.working_ttl_hours
    expires = datetime(2026, 10, 3, 14, 0, 30, tzinfo=UTC) + timedelta(hours=hours)
    assert [(row[0][:19], row[1][:19]) for row in rows] == [
        ("2026-10-03T14:00:30", expires.strftime("%Y-%m-%dT%H:%M:%S"))
    ]


def test_half_an_emoji_in_a_transcript_is_imported_as_a_replacement_character(
    tmp_path: Path,
) -> None:
    # found trying the product: "cortex-mcp: unexpected UnicodeEncodeError", exit 1, no file
    lines = claude_exchange(
        "Our invoices are numbered per year.", "Noted.", ("Bash", {}, "seeded \ud83d")
    )
    session = tmp_path / "s.jsonl"
    session.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")

    done = cortex(tmp_path / "home", "import", str(session), "--transcripts", "claude-code")

    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["messages"] == 4
    contents = [
        r[0]
        for r in query_all(tmp_path / "home" / "cortex.db", "select content from conversation_log")
    ]
    assert any("seeded \ufffd" in c for c in contents)
