"""The four contract tools and cortex_restore, through a real in-process MCP client."""

from pathlib import Path

import pytest
from mcp import Client

from cortex_mcp.config import Settings
from tests.conftest import FrozenClock, inspect_database, recall, remember, text_of

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]

UNKNOWN_ID = "01900000-0000-7000-8000-000000000000"


def row_count(settings: Settings) -> int:
    with inspect_database(settings.database_path) as conn:
        return int(conn.execute("select count(*) from memories").fetchone()[0])


async def test_remember_writes_a_core_memory_that_recall_returns(client: Client) -> None:
    stored = await remember(client, "User prefers dark mode in every editor", category="preference")

    found = await recall(client, "which editor theme does the user like? dark")

    assert stored["action"] == "created"
    assert stored["layer"] == "core"
    assert [m["id"] for m in found["memories"]] == [stored["id"]]
    assert "dark mode" in found["context"]


async def test_recall_text_content_is_the_ready_to_inject_context_block(client: Client) -> None:
    await remember(client, "The staging database runs PostgreSQL 16")

    result = await client.call_tool("cortex_recall", {"query": "staging database"})

    assert text_of(result).startswith("Relevant memories")
    assert "PostgreSQL 16" in text_of(result)


async def test_remember_the_same_content_twice_returns_the_existing_memory(
    client: Client, settings: Settings
) -> None:
    first = await remember(client, "Harry lives in Tokyo", importance=0.6)

    again = await remember(client, "  harry lives in TOKYO ", importance=0.9)

    assert again["action"] == "duplicate"
    assert again["id"] == first["id"]
    assert again["importance"] == 0.9
    assert row_count(settings) == 1


async def test_a_near_duplicate_restatement_reinforces_instead_of_adding(
    client: Client, settings: Settings
) -> None:
    first = await remember(client, "The deploy pipeline runs on GitHub Actions with a nightly job")

    again = await remember(client, "The deploy pipeline runs on GitHub Actions with a nightly job!")

    assert again == {**again, "action": "duplicate", "id": first["id"]}
    assert row_count(settings) == 1


async def test_a_changed_number_is_never_swallowed_as_a_duplicate(
    client: Client, settings: Settings
) -> None:
    await remember(client, "The budget for the Shinagawa apartment purchase is 50M yen total")

    changed = await remember(
        client, "The budget for the Shinagawa apartment purchase is 30M yen total"
    )

    assert changed["action"] == "created"
    assert row_count(settings) == 2


async def test_supersedes_replaces_a_wrong_memory_and_keeps_the_chain(client: Client) -> None:
    old = await remember(client, "用户预算5000万日元")

    new = await remember(client, "用户未确认具体预算", category="correction", supersedes=old["id"])
    found = await recall(client, "预算")

    assert new["action"] == "superseded"
    assert new["superseded_id"] == old["id"]
    assert [m["id"] for m in found["memories"]] == [new["id"]]


async def test_recall_bumps_access_counts(client: Client) -> None:
    stored = await remember(client, "Favourite editor is Neovim")

    await recall(client, "editor")
    await recall(client, "Neovim")
    debug = await client.call_tool("cortex_search_debug", {"query": "Neovim"})

    assert '"access_count": 2' in text_of(debug)
    assert stored["id"] in text_of(debug)


async def test_recall_stays_within_max_tokens(client: Client) -> None:
    for topic in ["kayaking", "sailing", "climbing", "running", "cycling", "rowing"]:
        await remember(client, f"The user enjoys {topic} on weekends near the coast " * 8)

    found = await recall(client, "weekends coast", max_tokens=120)

    assert found["tokens_used"] <= 120
    assert 1 <= len(found["memories"]) < 6


async def test_recall_respects_max_results_and_layers(client: Client) -> None:
    for n in range(5):
        await remember(client, f"Project {'abcde'[n]} uses the Rust programming language")

    found = await recall(client, "Rust", max_results=2)
    none_in_working = await recall(client, "Rust", layers=["working"])

    assert len(found["memories"]) == 2
    assert none_in_working["memories"] == []


async def test_recall_filters_by_category(client: Client) -> None:
    await remember(client, "Coffee with oat milk every morning", category="preference")
    await remember(client, "Coffee machine is a Breville Barista", category="fact")

    found = await recall(client, "coffee", categories=["preference"])

    assert [m["category"] for m in found["memories"]] == ["preference"]


async def test_recall_with_an_empty_query_returns_the_core_digest(client: Client) -> None:
    await remember(
        client, "Harry is a real-estate investor in Tokyo", category="identity", importance=1
    )
    await remember(client, "Prefers low-risk investments", category="preference")

    found = await recall(client, "")

    assert found["context"].startswith("Core memory digest")
    assert "real-estate investor" in found["context"]
    assert len(found["memories"]) == 2


async def test_forget_hides_a_memory_and_restore_brings_it_back(client: Client) -> None:
    stored = await remember(client, "Old home address is Osaka")

    forgotten = await client.call_tool(
        "cortex_forget", {"memory_id": stored["id"], "reason": "moved"}
    )
    after_forget = await recall(client, "Osaka")
    restored = await client.call_tool("cortex_restore", {"memory_id": stored["id"]})
    after_restore = await recall(client, "Osaka")

    assert not forgotten.is_error and not restored.is_error
    assert after_forget["memories"] == []
    assert [m["id"] for m in after_restore["memories"]] == [stored["id"]]


async def test_forget_of_unknown_id_names_the_field_and_changes_nothing(
    client: Client, settings: Settings
) -> None:
    await remember(client, "我住在品川区")

    result = await client.call_tool("cortex_forget", {"memory_id": UNKNOWN_ID})

    assert result.is_error
    assert "memory_id" in text_of(result) and "no memory" in text_of(result)
    assert "品川区" in (await recall(client, "品川"))["context"]
    assert row_count(settings) == 1


async def test_forget_of_a_malformed_id_says_what_an_id_looks_like(client: Client) -> None:
    result = await client.call_tool("cortex_forget", {"memory_id": "../../etc/passwd"})

    assert result.is_error
    assert "memory_id: must be a memory id" in text_of(result)


async def test_forget_twice_and_restore_of_a_live_memory_are_errors(client: Client) -> None:
    stored = await remember(client, "Temporary note about lunch")
    await client.call_tool("cortex_forget", {"memory_id": stored["id"]})

    twice = await client.call_tool("cortex_forget", {"memory_id": stored["id"]})
    await client.call_tool("cortex_restore", {"memory_id": stored["id"]})
    restore_live = await client.call_tool("cortex_restore", {"memory_id": stored["id"]})

    assert twice.is_error and "already forgotten" in text_of(twice)
    assert restore_live.is_error and "neither forgotten nor superseded" in text_of(restore_live)


async def test_bad_arguments_name_the_field_and_the_rule_and_change_nothing(
    client: Client, settings: Settings
) -> None:
    await remember(client, "baseline memory")
    cases = [
        ("cortex_remember", {"content": ""}, "content"),
        ("cortex_remember", {"content": "   "}, "content: must not be empty"),
        (
            "cortex_remember",
            {"content": "x" * 8001},
            "content: 8,001 characters; the limit is 8,000",
        ),
        ("cortex_remember", {"content": "ok", "importance": 1.5}, "importance"),
        ("cortex_remember", {"content": "ok", "importance": -0.1}, "importance"),
        ("cortex_remember", {"content": "ok", "category": "gossip"}, "category"),
        ("cortex_remember", {"content": "ok", "supersedes": "nope"}, "supersedes"),
        ("cortex_remember", {"content": "ok", "supersedes": UNKNOWN_ID}, "supersedes: no memory"),
        ("cortex_remember", {"content": "ok", "agent_id": "a b"}, "agent_id"),
        ("cortex_remember", {"content": "ok", "scope": "everyone"}, "scope"),
        ("cortex_recall", {"query": "q" * 2001}, "query: 2,001 characters; the limit is 2,000"),
        ("cortex_recall", {"query": "q", "max_results": 0}, "max_results"),
        ("cortex_recall", {"query": "q", "max_tokens": 10}, "max_tokens"),
        ("cortex_recall", {"query": "q", "layers": ["attic"]}, "layers"),
        ("cortex_recall", {"query": "q", "categories": ["gossip"]}, "categories"),
        ("cortex_forget", {"memory_id": UNKNOWN_ID}, "memory_id: no memory"),
        ("cortex_forget", {}, "memory_id"),
        ("cortex_restore", {"memory_id": "x" * 65}, "memory_id"),
        ("cortex_search_debug", {"query": "q" * 2001}, "query"),
        (  # a misspelt argument is never ignored (#29)
            "cortex_remember",
            {"content": "My favourite colour is red", "colour": "red"},
            "colour: is not an argument of cortex_remember",
        ),
        ("cortex_recall", {"query": "q", "limit": 3}, "limit: is not an argument of cortex_recall"),
        (  # found trying the product: "yes" was taken for true on a destructive flag
            "cortex_forget",
            {"memory_id": UNKNOWN_ID, "purge": "yes"},
            "purge: must be true or false",
        ),
    ]
    for tool, arguments, expected in cases:
        assert isinstance(arguments, dict)
        result = await client.call_tool(tool, arguments)
        assert result.is_error, (tool, arguments)
        assert expected in text_of(result), (tool, arguments, text_of(result))
    assert row_count(settings) == 1


async def test_memories_of_one_agent_are_invisible_to_another(client: Client) -> None:
    mine = await remember(
        client, "Agent A secret: the launch code word is pelican", agent_id="agent-a"
    )

    seen_by_b = await recall(client, "launch code word pelican", agent_id="agent-b")
    seen_by_default = await recall(client, "launch code word pelican")
    seen_by_a = await recall(client, "launch code word pelican", agent_id="agent-a")
    forget_by_b = await client.call_tool(
        "cortex_forget", {"memory_id": mine["id"], "agent_id": "agent-b"}
    )

    assert seen_by_b["memories"] == [] and seen_by_default["memories"] == []
    assert [m["id"] for m in seen_by_a["memories"]] == [mine["id"]]
    assert forget_by_b.is_error and "no memory" in text_of(forget_by_b)


async def test_shared_memories_are_visible_to_every_agent(client: Client) -> None:
    shared = await remember(
        client, "Team style guide: four-space indents", scope="shared", agent_id="a"
    )

    for agent in ["a", "b", "default"]:
        found = await recall(client, "indents style guide", agent_id=agent)
        assert [m["id"] for m in found["memories"]] == [shared["id"]], agent


async def test_search_debug_shows_terms_backends_and_every_score_factor(
    client: Client, clock: FrozenClock
) -> None:
    await remember(client, "品川区1LDK的实际利回约4.28%", category="fact")
    clock.advance(days=30)
    await remember(client, "利回 calculations should include management fees", category="insight")

    result = await client.call_tool("cortex_search_debug", {"query": "利回 fees"})
    debug = __import__("json").loads(text_of(result))

    assert debug["terms"] == ["利回", "fees"]
    assert debug["backends"][0]["name"] == "fts5-bm25"
    assert [c["rank"] for c in debug["candidates"]] == [1, 2]
    first = debug["candidates"][0]["score"]
    assert set(first) >= {
        "bm25",
        "text_score",
        "vector_score",
        "fused_score",
        "layer_weight",
        "recency_boost",
        "access_boost",
        "final_score",
    }
    assert (
        first["final_score"]
        == first["fused_score"]
        * first["layer_weight"]
        * first["recency_boost"]
        * first["access_boost"]
    )
    assert debug["candidates"][0]["memory"]["content"].startswith("利回 calculations")


async def test_recall_of_fts_syntax_searches_for_the_text(client: Client) -> None:
    await remember(client, 'Error message was: "NEAR(x" unexpected token -- fix with quotes*')

    for query in ['"NEAR(x"', "NEAR(", "a:b", "-x", "*", "(", "AND OR NOT", '"', "x^y"]:
        result = await client.call_tool("cortex_recall", {"query": query})
        assert not result.is_error, query


async def test_tool_list_stays_small_for_the_context_window(client: Client) -> None:
    import json

    tools = (await client.list_tools()).tools
    size = len(json.dumps([t.model_dump(mode="json", exclude_none=True) for t in tools]))

    assert {t.name for t in tools} >= {
        "cortex_recall",
        "cortex_remember",
        "cortex_forget",
        "cortex_search_debug",
        "cortex_restore",
    }
    # titles (#13), `purge` (#12), cortex_browse (#16), category rule (#24), flush said_at (t13),
    # ingest said_at (s14: a spooled Stop is dated when it was said)
    assert size < 11_620


@pytest.mark.sqlite_only
async def test_database_file_lives_under_cortex_home(client: Client, cortex_home: Path) -> None:
    await remember(client, "anything")

    assert (cortex_home / "cortex.db").exists()


async def test_recall_counts_are_written_even_when_the_server_stops_right_after(
    settings: Settings, clock: FrozenClock
) -> None:
    from cortex_mcp.server import build_server

    async with Client(build_server(settings, clock)) as first:
        await remember(first, "The build uses Bazel")
        await recall(first, "Bazel")

    async with Client(build_server(settings, clock)) as second:
        debug = await second.call_tool("cortex_search_debug", {"query": "Bazel"})

    assert '"access_count": 1' in text_of(debug)
    with inspect_database(settings.database_path) as conn:
        assert conn.execute("select count(*) from access_log").fetchone()[0] == 1
