"""The seeds' working memory (#26): the scratchpad per agent and project, projects on memories
and log messages, and the one budget core memory is shown in; on both engines."""

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp_types import TextContent

from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import open_engine
from cortex_mcp.models import new_memory_id
from cortex_mcp.search.budget import estimate_tokens
from cortex_mcp.server import build_server
from tests.conftest import FrozenClock, data_of, inspect_database, read_text, recall, remember
from tests.hooks.hosts import (
    claude_exchange,
    hook_env,
    injected,
    payload,
    run_hook_async,
    write_jsonl,
)
from tests.hooks.test_story import running_server
from tests.secret_samples import SAMPLES
from tests.servers import query_one, stdio_server

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]
STARTUP_TIMEOUT_S = 60
BILLING_PAD = "Focus: invoice export to CSV. Open: rounding of VAT. Next: retry failed webhooks."
GARDEN_PAD = "Focus: watering schedule for the tomatoes. Next: buy a moisture sensor."


def core_export(count: int, clock: FrozenClock) -> dict[str, Any]:
    """An export file (cortex-mcp's JSON) of `count` core memories; every hundredth is more
    important than the rest."""
    when = clock().isoformat().replace("+00:00", "Z")
    memories: list[dict[str, Any]] = [
        {
            "id": new_memory_id(int(clock().timestamp() * 1000) + number),
            "agent_id": "default",
            "layer": "core",
            "category": "fact",
            "content": f"Service {number} of team {number % 37} deploys from branch r{number}",
            "source": "manual",
            "importance": 0.95 if number % 100 == 7 else 0.5,
            "confidence": 0.9,
            "decay_score": 1.0,
            "access_count": 0,
            "last_accessed": None,
            "expires_at": None,
            "superseded_by": None,
            "deleted_at": None,
            "created_at": when,
            "updated_at": when,
            "metadata": {},
        }
        for number in range(count)
    ]
    return {"format": "cortex-mcp", "version": 1, "memories": memories, "relations": []}


async def scratchpad(client: Client, **arguments: Any) -> dict[str, Any]:
    return data_of(await client.call_tool("cortex_scratchpad", arguments))


async def prompt_text(client: Client, **arguments: str) -> str:
    result = await client.get_prompt("cortex_context", arguments or None)
    content = result.messages[0].content
    assert isinstance(content, TextContent)
    return content.text


async def test_two_projects_over_stdio_keep_their_scratchpads_and_decisions_apart(
    cortex_home: Path,
) -> None:
    with anyio.fail_after(3 * STARTUP_TIMEOUT_S):
        async with Client(stdio_server(cortex_home)) as first:  # session 1: project billing
            await remember(first, "My name is Ada Lovelace", category="identity")
            await remember(
                first,
                "We decided to store invoices in PostgreSQL",
                category="decision",
                project="billing",
            )
            await scratchpad(first, action="replace", text=BILLING_PAD, project="billing")
        async with Client(stdio_server(cortex_home)) as second:  # session 2: project garden
            await remember(
                second,
                "We decided to store the planting calendar in SQLite",
                category="decision",
                project="garden",
            )
            await scratchpad(second, action="replace", text=GARDEN_PAD, project="garden")
            said = [
                {"role": "user", "content": "Where should the seed database live? Maybe SQLite"},
                {"role": "assistant", "content": "SQLite in a single file suits the seeds."},
            ]
            flushed = await second.call_tool(
                "cortex_flush", {"messages": said, "session_id": "g1", "project": "garden"}
            )
            assert not flushed.is_error
            garden = await recall(second, "", project="garden")
        async with Client(stdio_server(cortex_home)) as third:  # session 3: back to billing
            digest = await recall(third, "", project="billing")
            asked = await recall(
                third, "which database did we decide to store things in", project="billing"
            )
            unscoped = await recall(third, "which database did we decide to store things in")

    assert digest["context"].startswith("Scratchpad (billing;")
    assert BILLING_PAD in digest["context"]
    assert GARDEN_PAD not in digest["context"]
    shown = [m["content"] for m in digest["memories"]]
    assert "We decided to store invoices in PostgreSQL" in shown
    assert "My name is Ada Lovelace" in shown  # identity is global
    assert "We decided to store the planting calendar in SQLite" not in shown
    assert asked["memories"][0]["content"] == "We decided to store invoices in PostgreSQL"
    assert "SQLite" not in asked["context"]
    # no project named: nothing is left out
    assert {"PostgreSQL", "SQLite"} <= {
        w for m in unscoped["memories"] for w in m["content"].split()
    }
    assert GARDEN_PAD in garden["context"] and BILLING_PAD not in garden["context"]
    with inspect_database(cortex_home / "cortex.db") as conn:
        logged = conn.execute("select distinct project from conversation_log").fetchall()
    assert [tuple(row) for row in logged] == [("garden",)]
    assert not any("SQLite" in hit["content"] for hit in asked["conversation"])
    assert any("SQLite" in hit["content"] for hit in unscoped["conversation"]) or any(
        "SQLite" in m["content"] for m in unscoped["memories"]
    )


async def test_roots_name_the_current_project_and_rank_its_memories_first(
    settings: Settings, clock: FrozenClock, tmp_path: Path
) -> None:
    from mcp_types import ListRootsResult, Root

    repository = tmp_path / "work" / "billing-service"
    (repository / ".git").mkdir(parents=True)
    (repository / "src" / "api").mkdir(parents=True)

    async def roots(context: Any) -> ListRootsResult:
        return ListRootsResult(
            roots=[Root.model_validate({"uri": (repository / "src" / "api").as_uri()})]
        )

    server = build_server(settings, clock)
    async with Client(server) as elsewhere:
        await remember(
            elsewhere, "The deploy target for the garden app is a Raspberry Pi", project="garden"
        )
    async with Client(server, list_roots_callback=roots, mode="legacy") as client:
        await remember(client, "The deploy target for the service is Fly.io")
        found = await recall(client, "what is the deploy target")
        pad = await scratchpad(client, action="replace", text="Focus: the deploy")

    assert pad["project"] == "billing-service"  # the git root's name, not the sub-folder's
    contents = [m["content"] for m in found["memories"]]
    assert contents[0] == "The deploy target for the service is Fly.io"
    assert (
        "The deploy target for the garden app is a Raspberry Pi" in contents
    )  # ranked, not left out


async def test_scratchpad_over_the_limit_is_one_line_naming_the_field_and_changes_nothing(
    client: Client, settings: Settings
) -> None:
    await scratchpad(client, action="replace", text="Focus: the migration.")
    limit = settings.workspace.scratchpad_chars

    result = await client.call_tool(
        "cortex_scratchpad", {"action": "replace", "text": "x" * (limit + 1)}
    )

    assert result.is_error
    message = result.content[0].text  # type: ignore[union-attr]
    assert message == f"text: {limit + 1:,} characters; the limit is {limit:,}"
    assert (await scratchpad(client))["content"] == "Focus: the migration."


async def test_a_secret_in_the_scratchpad_is_redacted_everywhere_it_is_kept(
    client: Client, cortex_home: Path
) -> None:
    sample = next(s for s in SAMPLES if s.kind == "stripe_key")

    pad = await scratchpad(client, action="replace", text=f"Next: deploy. {sample.text}")

    assert sample.secret not in pad["content"]
    assert sample.secret not in await read_text(client, "cortex://scratchpad")
    with inspect_database(cortex_home / "cortex.db") as conn:
        stored = [row[0] for row in conn.execute("select content from scratchpads").fetchall()]
        logged = [row[0] for row in conn.execute("select details from lifecycle_log").fetchall()]
    assert stored and all(sample.secret not in text for text in stored + logged)


async def test_undo_puts_back_each_earlier_version_in_turn(client: Client) -> None:
    await scratchpad(client, action="replace", text="v1: read the spec", project="api")
    await scratchpad(client, action="replace", text="v2: write the tests", project="api")
    await scratchpad(client, action="replace", text="other project", project="web")

    first = await scratchpad(client, action="undo", project="api")
    second = await scratchpad(client, action="undo", project="api")
    none_left = await client.call_tool("cortex_scratchpad", {"action": "undo", "project": "api"})

    assert first["content"] == "v1: read the spec"
    assert second["content"] == ""
    assert none_left.is_error
    assert none_left.content[0].text.startswith("action: undo")  # type: ignore[union-attr]
    assert (await scratchpad(client, project="web"))["content"] == "other project"
    assert "v2" not in await read_text(client, "cortex://scratchpad/api")


async def test_an_empty_store_says_it_is_empty_and_how_memories_get_in(client: Client) -> None:
    digest = await recall(client, "")
    asked = await recall(client, "what is my name")

    for context in (digest["context"], asked["context"]):
        assert context.startswith("Memory is empty")
        assert "cortex_remember" in context


async def test_a_digest_with_nothing_in_its_scope_says_where_to_look_not_that_memory_is_empty(
    client: Client,
) -> None:
    """Found trying the product: a new folder's session start (its project named, every core
    memory filed under another) read "No stored memory matches this query." though it asked
    none, and a digest of the working layer read "Memory is empty" beside a core memory."""
    await remember(client, "We deploy the alpha API on Fly.io", project="alpha")

    other_project = await recall(client, "", project="beta")
    working = await recall(client, "", layers=["working"])

    for digest in (other_project, working):
        assert digest["memories"] == []
        assert digest["context"].startswith("No core memory to show here"), digest["context"]
        assert "cortex_recall with a query" in digest["context"]


async def test_the_digest_says_how_many_it_left_out(client: Client) -> None:
    for number in range(12):
        await remember(client, f"Server number {number} runs in rack {number + 40}")

    digest = await recall(client, "", max_results=5)

    assert len(digest["memories"]) == 5
    assert digest["context"].rstrip().endswith("7 more: ask cortex_recall with a query.")


async def test_tags_filter_keeps_only_tagged_memories(client: Client) -> None:
    await remember(client, "The staging database is called ledger-stg", tags=["infra"])
    await remember(client, "The staging budget is 300 euros a month", tags=["money"])

    found = await recall(client, "staging", tags=["infra"])

    assert [m["content"] for m in found["memories"]] == [
        "The staging database is called ledger-stg"
    ]


async def test_core_prompt_and_memory_md_show_the_same_core_within_the_budget(
    settings: Settings, clock: FrozenClock, cortex_home: Path
) -> None:
    budget = settings.workspace.core_tokens
    exported = cortex_home.parent / "core.json"
    exported.write_text(json.dumps(core_export(1000, clock)), encoding="utf-8")
    async with open_engine(settings, clock) as engine:  # `cortex-mcp import`: 1,000 core memories
        report = await engine.import_memory(exported)
    assert report.memories_added == 1000, report
    async with Client(build_server(settings, clock)) as client:
        core = await read_text(client, "cortex://core")
        prompt = await prompt_text(client)
    memory_md = (cortex_home / "MEMORY.md").read_text(encoding="utf-8")

    assert memory_md.endswith("---\n" + core)  # the same page, after the mirror's front matter
    assert core in prompt
    assert estimate_tokens(prompt) - estimate_tokens(core) < 200  # the intro and "no profile yet"
    assert estimate_tokens(core) <= budget
    lines = [line for line in core.splitlines() if line.startswith("- ")]
    assert 20 < len(lines) < 1000
    assert f"{1000 - len(lines)} more: ask cortex_recall" in core
    important = [
        line
        for line in lines
        if "deploys from branch r" in line
        and line.endswith(tuple(f"r{n}" for n in range(7, 1000, 100)))
    ]
    assert len(important) == 10  # the most important are all shown


@pytest.mark.sqlite_only
async def test_the_hooks_file_what_they_save_under_the_working_folders_project(
    tmp_path: Path,
) -> None:
    home, alpha = tmp_path / "home", tmp_path / "code" / "alpha"
    (alpha / ".git").mkdir(parents=True)
    (alpha / "src").mkdir()
    env = hook_env(home)
    transcript = write_jsonl(
        tmp_path / "one.jsonl",
        claude_exchange(
            "We decided to deploy the alpha API on Fly.io instead of Heroku.",
            "Noted, the alpha API goes to Fly.io.",
        ),
    )
    async with running_server(home) as client:
        await scratchpad(client, action="replace", text="Focus: alpha release", project="alpha")
        await scratchpad(client, action="replace", text="Focus: beta migration", project="beta")
        in_alpha = payload("Stop", "one", transcript, cwd=str(alpha / "src"))
        done = await run_hook_async("claude-code", "stop", in_alpha, env)
        assert done.returncode == 0, done.stderr
        start = payload("SessionStart", "two", None, cwd=str(alpha), source="startup")
        started = await run_hook_async("claude-code", "session-start", start, env)

    database = home / "cortex.db"
    assert query_one(database, "select group_concat(distinct project) from conversation_log") == (
        "alpha"
    )
    filed = "select count(*) from memories where json_extract(metadata, '$.project') = 'alpha'"
    assert int(query_one(database, filed)) >= 1
    context = injected(started.stdout)
    assert "Focus: alpha release" in context and "beta" not in context
    assert "Fly.io" in context


async def test_a_new_folder_s_first_session_starts_with_what_the_user_said_of_themselves(
    tmp_path: Path,
) -> None:
    """Found trying the product as a new user: "I'm allergic to peanuts" and a daughter's
    name, said in one repository's session, were filed under it with the decision said
    beside them, and the next repository's session-start digest left all of them out (and,
    its transcript not written yet, failed before it asked: anthropics/claude-code#41310).
    A person's own slots (a fact, a relationship by category) belong to no project; the other
    repository's decision stays there."""
    home, alpha, beta = tmp_path / "home", tmp_path / "alpha", tmp_path / "beta"
    for folder in (alpha, beta):
        (folder / ".git").mkdir(parents=True)
    env = hook_env(home)
    transcript = write_jsonl(
        tmp_path / "one.jsonl",
        claude_exchange(
            "I'm allergic to peanuts. My daughter is called Sakura."
            " We decided to deploy the alpha API on Fly.io instead of Heroku.",
            "Noted.",
        ),
    )
    unwritten = tmp_path / "projects" / "-beta" / "two.jsonl"
    async with running_server(home):
        done = await run_hook_async(
            "claude-code", "stop", payload("Stop", "one", transcript, cwd=str(alpha)), env
        )
        assert done.returncode == 0, done.stderr
        start = payload("SessionStart", "two", unwritten, cwd=str(beta), source="startup")
        started = await run_hook_async("claude-code", "session-start", start, env)

    assert started.returncode == 0 and started.stderr == b"", started.stderr
    context = injected(started.stdout)
    assert "peanuts" in context and "Sakura" in context, context
    assert "Fly.io" not in context, context


async def previous_release(
    database_engine: str, home: Path, monkeypatch: pytest.MonkeyPatch, request: Any
) -> None:
    """A store at the schema of the release before #26, with a memory and a logged message
    written as that release wrote them; then the current schema on top of it."""
    from cortex_mcp.store import migrations, migrations_pg
    from cortex_mcp.store.db import Database

    db: Database
    if database_engine == "postgresql":
        import psycopg

        from cortex_mcp.store.postgres import open_postgres

        server = request.getfixturevalue("local_postgres")
        with psycopg.connect(server.admin_url, autocommit=True) as conn:
            conn.execute("drop database if exists previous_release")
            conn.execute("create database previous_release")
        url = server.url("previous_release")
        monkeypatch.setenv("CORTEX_DATABASE_URL", url)
        db = await open_postgres(url, 1, 10)
        steps, name = migrations_pg.PG_MIGRATIONS, "PG_MIGRATIONS"
        module: Any = migrations_pg
    else:
        from cortex_mcp.store.sqlite import open_database

        await anyio.Path(home).mkdir(parents=True, exist_ok=True)
        db = await open_database(home / "cortex.db", 1000)
        steps, name, module = migrations.MIGRATIONS, "MIGRATIONS", migrations
    before = [step.__name__ for step in steps].index("scratchpads_and_projects")
    try:
        monkeypatch.setattr(module, name, steps[:before])
        await migrations.migrate(db)
        async with db.write() as conn:
            await conn.execute(
                "insert into memories (id, agent_id, layer, category, content, content_key,"
                " importance, created_at, updated_at) values ('m-old', 'default', 'core',"
                " 'decision', 'We decided to ship on Fridays', 'ship fridays', 0.9,"
                " '2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z')"
            )
            await conn.execute(
                "insert into conversation_log (agent_id, session_id, exchange_id, origin, role,"
                " content, created_at) values ('default', 's1', 'x1', 'ingest', 'user',"
                " 'ship it on friday', '2026-01-01T00:00:00.000000Z')"
            )
        monkeypatch.setattr(module, name, steps)
        await migrations.migrate(db)
    finally:
        await db.close()


async def test_a_store_of_the_previous_release_gains_scratchpads_and_projects(
    cortex_home: Path,
    database_engine: str,
    clock: FrozenClock,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> None:
    await previous_release(database_engine, cortex_home, monkeypatch, request)

    async with Client(build_server(Settings(home=cortex_home), clock)) as client:
        digest = await recall(client, "", project="billing")
        pad = await scratchpad(client, action="replace", text="Next: the release notes")
        await remember(client, "The billing cron runs at 02:00", project="billing")

    assert "We decided to ship on Fridays" in digest["context"]  # no project: never left out
    assert pad["content"] == "Next: the release notes"
    with inspect_database(cortex_home / "cortex.db") as conn:
        old = conn.execute("select project from conversation_log where exchange_id = 'x1'")
        assert [tuple(row) for row in old.fetchall()] == [(None,)]
        pads = conn.execute("select count(*) from scratchpads").fetchall()
        assert pads[0][0] == 1


async def test_the_browser_filters_memories_by_project(client: Client) -> None:
    await remember(client, "The billing cron runs at 02:00", project="billing")
    await remember(client, "The garden sprinkler runs at 06:00", project="garden")
    await remember(client, "I am a night owl", category="preference")

    page = data_of(await client.call_tool("cortex_app_memories", {"project": "garden"}))

    assert [m["content"] for m in page["memories"]] == ["The garden sprinkler runs at 06:00"]


async def test_a_purge_erases_the_text_from_scratchpads_and_their_versions(
    settings: Settings, clock: FrozenClock, cortex_home: Path
) -> None:
    async with Client(build_server(settings, clock)) as client:
        await scratchpad(client, action="replace", text="Focus: codename Nightingale launch")
        await scratchpad(client, action="replace", text="Next: Nightingale press kit, then QA")

    async with open_engine(settings, clock) as engine:  # `cortex-mcp purge --text`
        await engine.purge_matching("nightingale")

    with inspect_database(cortex_home / "cortex.db") as conn:
        pads = [row[0] for row in conn.execute("select content from scratchpads").fetchall()]
        logged = [row[0] for row in conn.execute("select details from lifecycle_log").fetchall()]
    assert pads == ["Next: [PURGED] press kit, then QA"]
    assert not any("nightingale" in text.lower() for text in logged)


async def test_a_project_files_only_what_its_own_call_wrote(
    client: Client, cortex_home: Path
) -> None:
    await client.call_tool(
        "cortex_ingest", {"user_message": "I moved to Lisbon last spring", "session_id": "s"}
    )
    await remember(client, "The Lisbon office opens at nine", project="relocation")
    await client.call_tool(
        "cortex_ingest",
        {"user_message": "We decided to rent near Alfama", "session_id": "s", "project": "flat"},
    )

    with inspect_database(cortex_home / "cortex.db") as conn:
        rows = conn.execute(
            "select content, project from conversation_log where role = 'user' order by seq"
        ).fetchall()
    assert [tuple(row) for row in rows] == [
        ("I moved to Lisbon last spring", None),
        ("We decided to rent near Alfama", "flat"),
    ]
