"""Episodes (#26 item 1) and the idempotent flush (#26 item 5), through real MCP sessions
(in-process) on real stores, both engines: one episode per session with its goal, outcome, tool
calls (errors kept) and linked memories; found by recall as one line; listed and shown by the
resources; forgotten, restored and purged like any memory; a flush repeated is logged once."""

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import open_engine
from cortex_mcp.server import build_server
from tests.conftest import FrozenClock, data_of, read_json, recall
from tests.fakes import FakeOpenAI
from tests.servers import stdio_server

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]

SESSION = [
    {"role": "user", "content": "hi"},
    {
        "role": "user",
        "content": "The login test fails on CI with a missing fixture; please fix it.",
    },
    {"role": "assistant", "content": "Let me run the test suite first."},
    {"role": "tool", "content": 'Bash {"command": "pytest tests/test_login.py"}'},
    {
        "role": "tool",
        "content": "Bash → E   fixture 'db_session' not found\n1 failed, 3 passed in 0.4s",
    },
    {
        "role": "assistant",
        "content": "The fixture db_session lives in tests/db/conftest.py, which CI does not "
        "load. I will move it to tests/conftest.py.",
    },
    {"role": "tool", "content": 'Edit {"file_path": "tests/conftest.py"}'},
    {"role": "tool", "content": "Edit → The file tests/conftest.py has been updated."},
    {"role": "tool", "content": 'Bash {"command": "pytest tests/test_login.py"}'},
    {"role": "tool", "content": "Bash → 4 passed in 0.3s"},
    {
        "role": "assistant",
        "content": "Fixed: db_session moved to tests/conftest.py and the login tests pass now.",
    },
    {"role": "user", "content": "thanks"},
]


@pytest.fixture
def plain(cortex_home: Path) -> Settings:
    """No LLM, keyword search only."""
    return Settings.model_validate({"home": cortex_home, "embedding": {"provider": "none"}})


@pytest.fixture
async def plain_client(plain: Settings, clock: FrozenClock) -> AsyncIterator[Client]:
    async with Client(build_server(plain, clock)) as connected:
        yield connected


async def flush(client: Client, messages: list[dict[str, str]], **extra: Any) -> dict[str, Any]:
    return data_of(await client.call_tool("cortex_flush", {"messages": messages, **extra}))


async def episode_of(client: Client, episode_id: str) -> dict[str, Any]:
    document = await read_json(client, f"cortex://episodes/{episode_id}")
    assert isinstance(document, dict)
    return document


async def test_a_flushed_session_becomes_one_episode_with_its_goal_outcome_and_tool_chain(
    plain_client: Client,
) -> None:
    result = await flush(plain_client, SESSION, session_id="s-login")
    episode = await episode_of(plain_client, result["summary"]["id"])
    assert episode["goal"] == (
        "The login test fails on CI with a missing fixture; please fix it."
    )  # the first request, not "hi"
    assert "Fixed: db_session moved" in episode["outcome"]  # the last result, not "thanks"
    assert episode["tools"] == ["Bash", "Edit"]
    actions = episode["episode"]["actions"]
    assert [a["tool"] for a in actions] == ["Bash", "Edit", "Bash"]
    failed, edit, passed = actions
    assert failed["success"] is False
    assert "fixture 'db_session' not found" in failed["error"]
    assert failed["params"] == "command=pytest tests/test_login.py"
    assert failed["decision"].startswith("The fixture db_session lives in tests/db/conftest.py")
    assert edit["success"] is True and passed["success"] is True
    assert passed["result"] == "4 passed in 0.3s"
    assert episode["errors"] == 1
    assert episode["session_id"] == "s-login"
    assert "\n" not in episode["line"] and episode["line"].startswith("Episode: The login test")


async def test_recall_shows_the_relevant_episode_as_one_line(plain_client: Client) -> None:
    result = await flush(plain_client, SESSION, session_id="s-login")
    found = await recall(plain_client, "db_session fixture not found")
    hits = [m for m in found["memories"] if m["id"] == result["summary"]["id"]]
    assert hits, found
    line = hits[0]["content"]
    assert "\n" not in line
    assert "1 failed: Bash: E fixture 'db_session' not found" in line
    assert sum(1 for row in found["context"].splitlines() if "Episode:" in row) == 1


async def test_the_same_messages_flushed_twice_are_logged_once_and_make_one_episode(
    plain_client: Client, plain: Settings
) -> None:
    first = await flush(plain_client, SESSION[:6], session_id="s-twice")
    again = await flush(plain_client, SESSION[:6], session_id="s-twice")
    assert first["logged_messages"] == 6
    assert again["logged_messages"] == 0 and again["already_logged"] == 6
    more = await flush(plain_client, SESSION, session_id="s-twice")  # the whole context again
    assert more["logged_messages"] == len(SESSION) - 6
    assert more["summary"]["id"] == first["summary"]["id"]
    assert more["summary"]["action"] == "updated"
    listed = await read_json(plain_client, "cortex://episodes")
    assert listed["total"] == 1
    episode = await episode_of(plain_client, first["summary"]["id"])
    assert episode["episode"]["messages"] == len(SESSION)
    assert "Fixed: db_session moved" in episode["outcome"]
    stats = data_of(await plain_client.call_tool("cortex_recall", {"query": "login test"}))
    said = [hit["content"] for hit in stats.get("conversation", [])]
    assert len(said) == len(set(said))


async def test_a_test_run_repeated_after_other_messages_is_a_message_of_its_own(
    plain_client: Client,
) -> None:
    result = await flush(plain_client, SESSION, session_id="s-repeat")
    assert result["logged_messages"] == len(SESSION)  # the two identical pytest calls: both


async def test_an_empty_flush_closes_a_session_and_without_a_session_is_refused(
    plain_client: Client,
) -> None:
    await plain_client.call_tool(
        "cortex_ingest",
        {
            "user_message": "Please bump the API timeout to 30 seconds in settings.py.",
            "assistant_message": "Done: the timeout is 30 s now and the settings tests pass.",
            "session_id": "s-ingest",
            "tool_calls": [
                {"name": "Edit", "input": {"file_path": "settings.py"}, "result": "updated"},
                {"name": "Bash", "input": {"command": "pytest"}, "result": "Error: 2 failed"},
            ],
        },
    )
    closed = await flush(plain_client, [], session_id="s-ingest", reason="session-end")
    episode = await episode_of(plain_client, closed["summary"]["id"])
    assert episode["goal"].startswith("Please bump the API timeout")
    assert [a["tool"] for a in episode["episode"]["actions"]] == ["Edit", "Bash"]
    assert episode["episode"]["actions"][1]["success"] is False
    refused = await plain_client.call_tool("cortex_flush", {"messages": []})
    assert refused.is_error
    assert "messages" in refused.content[0].text  # type: ignore[union-attr]


async def test_forget_restore_and_purge_cover_an_episode(plain_client: Client) -> None:
    result = await flush(plain_client, SESSION, session_id="s-forget")
    episode_id = result["summary"]["id"]
    await plain_client.call_tool("cortex_forget", {"memory_id": episode_id})
    assert (await read_json(plain_client, "cortex://episodes"))["total"] == 0
    found = await recall(plain_client, "db_session fixture not found")
    assert episode_id not in [m["id"] for m in found["memories"]]
    again = await flush(
        plain_client, [{"role": "user", "content": "one more"}], session_id="s-forget"
    )
    assert again["summary"] is None  # a forgotten episode stays forgotten
    await plain_client.call_tool("cortex_restore", {"memory_id": episode_id})
    assert (await read_json(plain_client, "cortex://episodes"))["total"] == 1
    purged = await plain_client.call_tool("cortex_forget", {"memory_id": episode_id, "purge": True})
    assert not purged.is_error, purged
    assert (await read_json(plain_client, "cortex://episodes"))["total"] == 0
    with pytest.raises(MCPError):
        await episode_of(plain_client, episode_id)


async def test_episodes_are_paged_latest_first(plain_client: Client, clock: FrozenClock) -> None:
    ids = []
    for number in range(3):
        clock.advance(minutes=5)
        said = [
            {"role": "user", "content": f"Session {number}: rename module m{number}."},
            {"role": "tool", "content": f'Bash {{"command": "git mv m{number}.py n{number}.py"}}'},
        ]
        ids.append((await flush(plain_client, said, session_id=f"s-{number}"))["summary"]["id"])
    first = await read_json(plain_client, "cortex://episodes")
    assert [e["id"] for e in first["episodes"]] == ids[::-1]
    assert first["next_page"] is None
    bad = await read_json_error(plain_client, "cortex://episodes/page/zero")
    assert "page" in bad


async def read_json_error(client: Client, uri: str) -> str:
    with pytest.raises(MCPError) as raised:
        await client.read_resource(uri)
    return str(raised.value)


async def test_with_an_llm_the_goal_and_outcome_are_the_llms(
    llm_settings: Settings, fake_openai: FakeOpenAI, clock: FrozenClock
) -> None:
    fake_openai.replies.extend(
        [
            json.dumps({"memories": []}),
            json.dumps(
                {
                    "goal": "Make the login test pass on CI.",
                    "outcome": "The db_session fixture moved to tests/conftest.py; tests pass.",
                }
            ),
        ]
    )
    async with Client(build_server(llm_settings, clock)) as client:
        result = await flush(client, SESSION, session_id="s-llm")
        episode = await episode_of(client, result["summary"]["id"])
    assert episode["goal"] == "Make the login test pass on CI."
    assert episode["outcome"].startswith("The db_session fixture moved")
    assert episode["episode"]["summary_by"] == "llm"
    assert episode["episode"]["actions"][0]["success"] is False  # the nodes are the log's


async def test_two_processes_flushing_the_same_session_at_once_log_it_once_in_one_episode(
    cortex_home: Path,
) -> None:
    quiet = {"CORTEX_EMBEDDING__PROVIDER": "none", "CORTEX_LLM__PROVIDER": "none"}
    results: list[dict[str, Any]] = []
    async with (
        Client(stdio_server(cortex_home, **quiet)) as one,
        Client(stdio_server(cortex_home, **quiet)) as two,
    ):

        async def flush_from(client: Client) -> None:
            results.append(await flush(client, SESSION, session_id="s-shared"))

        async with anyio.create_task_group() as both:
            both.start_soon(flush_from, one)
            both.start_soon(flush_from, two)
        listed = await read_json(one, "cortex://episodes")
    assert sorted(r["logged_messages"] for r in results) == [0, len(SESSION)]
    assert sum(r["already_logged"] for r in results) == len(SESSION)
    assert listed["total"] == 1
    assert {r["summary"]["id"] for r in results if r["summary"]} == {listed["episodes"][0]["id"]}


async def test_purging_a_text_found_only_in_an_episodes_action_nodes_erases_it_there(
    plain_client: Client, plain: Settings, clock: FrozenClock
) -> None:
    secret = "pelican-internal-host-7731"
    said = [
        {"role": "user", "content": "Deploy the API to staging please."},
        {"role": "tool", "content": f'Bash {{"command": "ssh {secret} deploy"}}'},
        {"role": "tool", "content": "Bash → deployed"},
    ]
    result = await flush(plain_client, said, session_id="s-secret")
    episode_id = result["summary"]["id"]
    assert secret in json.dumps(await episode_of(plain_client, episode_id))
    async with open_engine(plain, clock) as engine:
        await engine.purge_matching(secret)
    after = json.dumps(await episode_of(plain_client, episode_id))
    assert secret not in after and "Deploy the API to staging" in after


async def ingest(client: Client, user: str, assistant: str, session: str) -> dict[str, Any]:
    arguments = {"user_message": user, "assistant_message": assistant, "session_id": session}
    return data_of(await client.call_tool("cortex_ingest", arguments))


async def test_a_flush_after_ingests_with_tool_calls_logs_no_tool_call_twice(
    plain_client: Client, plain: Settings
) -> None:
    """Found driving the hooks: Stop ingests each exchange with its tool calls in one block,
    and PreCompact (or an import of the same transcript) flushed the calls again, one message a
    call, beside it: the log grew from 49 to 65 messages of the same session."""
    arguments = {
        "user_message": "Run the tests please.",
        "assistant_message": "All 12 tests pass.",
        "session_id": "s-tools",
        "tool_calls": [{"name": "Bash", "input": {"command": "pytest -q"}, "result": "12 passed"}],
    }
    data_of(await plain_client.call_tool("cortex_ingest", arguments))
    context = [
        {"role": "user", "content": "Run the tests please."},
        {"role": "tool", "content": 'Bash {"command": "pytest -q"}'},
        {"role": "tool", "content": "Bash → 12 passed"},
        {"role": "assistant", "content": "All 12 tests pass."},
    ]

    result = await flush(plain_client, context, session_id="s-tools")

    assert result["logged_messages"] == 0 and result["already_logged"] == 4
    roles = await table_rows(
        plain, "select role from conversation_log where session_id = 's-tools' order by seq"
    )
    assert roles == [("user",), ("assistant",), ("tool",)]


async def test_a_flush_after_ingests_logs_only_what_ingest_did_not(
    plain_client: Client, plain: Settings
) -> None:
    """Found trying the product as an agent following the tools' own guidance (cortex_ingest
    after each exchange, cortex_flush before compaction): 34 exchanges and one flush of them
    logged 100 messages instead of 68, and the fast channel read every user message twice (a
    decision's confidence rose as if restated)."""
    said = [
        ("ok", "Starting with the schema."),
        ("We'll use PostgreSQL for the orders service.", "Noted: PostgreSQL for orders."),
        ("ok", "Schema done."),
    ]
    for user, assistant in said:
        await ingest(plain_client, user, assistant, "s-agent")
    context = [
        {"role": role, "content": text}
        for user, assistant in said
        for role, text in (("user", user), ("assistant", assistant))
    ]
    later = [{"role": "user", "content": "ok"}, {"role": "assistant", "content": "Deployed."}]
    memories_before = await table_rows(plain, "select * from memories order by id")
    result = await flush(plain_client, context + later, session_id="s-agent")
    assert result["already_logged"] == 6 and result["logged_messages"] == 2
    logged = await table_rows(
        plain,
        "select role, content from conversation_log where session_id = 's-agent' order by seq",
    )
    assert logged == [
        *[(m["role"], m["content"]) for m in context],
        ("user", "ok"),  # the fourth "ok" was never ingested: logged, not taken for the third
        ("assistant", "Deployed."),
    ]
    assert await table_rows(plain, "select * from memories order by id") == memories_before
    # after compaction the user says "ok" again to a new question: a message of its own, though
    # an "ok" was ingested (an ingested exchange is the user's text with the reply after it)
    again = [
        {"role": "assistant", "content": "Shall I delete the branch too?"},
        {"role": "user", "content": "ok"},
        {"role": "assistant", "content": "Deleted."},
    ]
    result = await flush(plain_client, again, session_id="s-agent")
    assert result["logged_messages"] == 3 and result["already_logged"] == 0


async def table_rows(settings: Settings, sql: str) -> list[tuple[Any, ...]]:
    async with open_engine(settings) as engine, engine.runtime.db.read() as conn:
        return [tuple(row) for row in await conn.fetch_all(sql)]
