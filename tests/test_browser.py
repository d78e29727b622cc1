"""The memory browser over MCP: the ui:// resource, cortex_browse, the app-only tools."""

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import pytest
from mcp import Client
from mcp.client.extension import advertise

from cortex_mcp.browser.app import APP_MIME_TYPE, APP_TOOLS, APP_URI, UI_EXTENSION
from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import open_engine
from cortex_mcp.server import build_server
from cortex_mcp.store.relations import Relation, insert_relation
from tests.conftest import FrozenClock, data_of, inspect_database, read_text, remember, text_of

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]

UNKNOWN_ID = "00000000-0000-4000-8000-000000000000"
APP_TOOL_NAMES = {tool.__name__ for tool in APP_TOOLS}


@pytest.fixture
async def app_client(settings: Settings, clock: FrozenClock) -> AsyncIterator[Client]:
    """A client that renders MCP Apps: it declares the io.modelcontextprotocol/ui extension."""
    ui = advertise(UI_EXTENSION, {"mimeTypes": [APP_MIME_TYPE]})
    async with Client(build_server(settings, clock), extensions=[ui]) as connected:
        yield connected


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    return data_of(await client.call_tool(tool, arguments))


def table_state(settings: Settings) -> list[tuple[Any, ...]]:
    with inspect_database(settings.database_path) as db:
        return db.execute(
            "select id, layer, category, content, importance, deleted_at, superseded_by, metadata"
            " from memories order by seq"
        ).fetchall()


async def test_resources_list_shows_the_app_with_the_mcp_app_mime_type(client: Client) -> None:
    listed = {str(r.uri): r for r in (await client.list_resources()).resources}

    assert listed[APP_URI].mime_type == "text/html;profile=mcp-app"
    html = await read_text(client, APP_URI)
    assert html.lstrip().lower().startswith("<!doctype html>")
    assert "<script" in html
    assert 'src="http' not in html and 'href="http' not in html  # nothing fetched from outside


async def test_cortex_browse_points_at_the_app_and_is_the_one_new_model_visible_tool(
    client: Client,
) -> None:
    tools = {t.name: t for t in (await client.list_tools()).tools}

    assert tools["cortex_browse"].meta is not None
    assert tools["cortex_browse"].meta["ui"]["resourceUri"] == APP_URI
    assert APP_TOOL_NAMES.isdisjoint(tools)  # a plain client's model never sees them


async def test_app_only_tools_are_listed_to_app_hosts_marked_for_the_app_only(
    app_client: Client,
) -> None:
    tools = {t.name: t for t in (await app_client.list_tools()).tools}

    for name in APP_TOOL_NAMES:
        meta = tools[name].meta or {}
        assert meta["ui"]["visibility"] == ["app"], name
        assert meta["ui"]["resourceUri"] == APP_URI
    assert "visibility" not in (tools["cortex_browse"].meta or {})["ui"]


async def test_app_only_tools_stay_callable_by_a_plain_client(client: Client) -> None:
    await remember(client, "The user drinks oolong tea")

    page = await call(client, "cortex_app_memories")

    assert [m["content"] for m in page["memories"]] == ["The user drinks oolong tea"]


async def test_cortex_browse_lists_ids_for_hosts_that_cannot_render_the_app(
    client: Client,
) -> None:
    stored = await remember(client, "The user lives in Lisbon")

    listing = text_of(await client.call_tool("cortex_browse", {}))
    opened = text_of(await client.call_tool("cortex_browse", {"memory_id": stored["id"]}))
    searched = text_of(await client.call_tool("cortex_browse", {"query": "Lisbon"}))

    assert stored["id"] in listing and "Lisbon" in listing
    assert opened.startswith(f"Memory {stored['id']} (core, live)")
    assert stored["id"] in searched


async def test_pages_walk_every_memory_once_with_keyset_cursors(
    client: Client, clock: FrozenClock
) -> None:
    for n in range(7):
        await remember(client, f"Project milestone number {n} shipped on time")
        clock.advance(minutes=1)

    seen: list[str] = []
    cursor = None
    for _ in range(10):
        page = await call(client, "cortex_app_memories", limit=3, cursor=cursor)
        seen += [m["content"] for m in page["memories"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break

    assert seen == [f"Project milestone number {n} shipped on time" for n in reversed(range(7))]
    oldest = await call(client, "cortex_app_memories", sort="oldest", limit=2)
    assert oldest["memories"][0]["content"].endswith("number 0 shipped on time")


async def test_pages_filter_by_layer_category_tag_scope_date_and_state(
    client: Client, clock: FrozenClock
) -> None:
    kept = await remember(client, "The user prefers dark roast coffee", category="preference")
    await remember(client, "Deploys happen on Fridays", tags=["ops"], scope="shared")
    clock.advance(days=3)
    gone = await remember(client, "The user owns a red bicycle")
    await client.call_tool("cortex_forget", {"memory_id": gone["id"]})

    def contents(page: dict[str, Any]) -> list[str]:
        return [m["content"] for m in page["memories"]]

    assert contents(await call(client, "cortex_app_memories", category="preference")) == [
        "The user prefers dark roast coffee"
    ]
    assert contents(await call(client, "cortex_app_memories", tag="ops")) == [
        "Deploys happen on Fridays"
    ]
    assert contents(await call(client, "cortex_app_memories", scope="shared")) == [
        "Deploys happen on Fridays"
    ]
    assert contents(await call(client, "cortex_app_memories", state="forgotten")) == [
        "The user owns a red bicycle"
    ]
    assert contents(await call(client, "cortex_app_memories", until="2026-01-02")) == [
        "Deploys happen on Fridays",
        "The user prefers dark roast coffee",
    ]
    assert contents(await call(client, "cortex_app_memories", layer="archive")) == []
    assert kept["id"] in {m["id"] for m in (await call(client, "cortex_app_memories"))["memories"]}


async def test_edit_changes_content_category_importance_and_layer_and_search_follows(
    client: Client, settings: Settings
) -> None:
    stored = await remember(client, "The user works at Initech")

    detail = await call(
        client,
        "cortex_app_edit",
        memory_id=stored["id"],
        content="The user works at Globex",
        category="preference",
        importance=0.9,
        layer="working",
    )

    memory = detail["memory"]
    assert (memory["content"], memory["category"], memory["importance"], memory["layer"]) == (
        "The user works at Globex",
        "preference",
        0.9,
        "working",
    )
    assert memory["metadata"]["edits"][0]["before"]["content"] == "The user works at Initech"
    found = await call(client, "cortex_app_search", query="Globex")
    assert [h["id"] for h in found["rankings"]["hybrid"]] == [stored["id"]]
    assert (await call(client, "cortex_app_search", query="Initech"))["rankings"]["hybrid"] == []


async def test_detail_shows_the_supersede_chain_and_restore_undoes_it(client: Client) -> None:
    old = await remember(client, "The user's dentist is Dr. Alvarez")
    new = await remember(client, "The user's dentist is Dr. Chen", supersedes=old["id"])

    detail = await call(client, "cortex_app_memory", memory_id=new["id"])

    assert [c["id"] for c in detail["chain"]] == [old["id"], new["id"]]
    assert [c["is_this"] for c in detail["chain"]] == [False, True]
    assert detail["chain"][0]["state"] == "superseded"
    await client.call_tool("cortex_restore", {"memory_id": old["id"]})
    again = await call(client, "cortex_app_memory", memory_id=old["id"])
    assert again["memory"]["state"] == "live"


async def test_search_shows_bm25_vector_and_hybrid_rankings_side_by_side(client: Client) -> None:
    await remember(client, "The user plays the cello in an orchestra")
    await remember(client, "The user's orchestra rehearses on Tuesdays")

    found = await call(client, "cortex_app_search", query="orchestra cello")

    assert set(found["rankings"]) == {"bm25", "vector", "hybrid"}
    assert found["rankings"]["bm25"][0]["content"] == "The user plays the cello in an orchestra"
    assert len(found["candidates"]) == 2
    assert {"bm25", "text_score", "fused_score", "final_score"} <= set(
        found["candidates"][0]["score"]
    )


async def test_stats_count_what_the_agent_sees(client: Client) -> None:
    await remember(client, "Mine: the user likes chess", agent_id="alpha")
    await remember(client, "Theirs: the user likes go", agent_id="beta")

    stats = await call(client, "cortex_app_stats", agent_id="alpha")

    assert stats["states"] == {"live": 1, "forgotten": 0, "superseded": 0}
    assert stats["layers"]["core"]["total"] == 1
    assert {"p50", "p95", "p99"} <= set(stats["recall_latency_ms"])


async def test_graph_draws_relations_and_their_memories(client: Client, settings: Settings) -> None:
    stored = await remember(client, "Alice manages the Atlas project")
    when = datetime(2026, 1, 1, 9, tzinfo=UTC)
    edge = Relation("r1", "default", "Alice", "manages", "Atlas", 0.9, stored["id"], when, when)
    async with open_engine(settings, environ={}) as engine, engine.db.write() as conn:
        await insert_relation(conn, edge)  # the same driver as the server's (not the stdlib's)

    graph = await call(client, "cortex_app_graph")
    around = await call(client, "cortex_app_graph", entity="Atlas")
    elsewhere = await call(client, "cortex_app_graph", entity="Bob")

    assert graph["nodes"] == ["Alice", "Atlas"]
    assert graph["edges"][0]["predicate"] == "manages"
    assert graph["memories"][stored["id"]]["content"] == "Alice manages the Atlas project"
    assert len(around["edges"]) == 1 and elsewhere["edges"] == []


async def test_an_agent_cannot_read_or_edit_another_agents_memory(client: Client) -> None:
    theirs = await remember(client, "Beta's secret: the launch date", agent_id="beta")

    read = await client.call_tool(
        "cortex_app_memory", {"memory_id": theirs["id"], "agent_id": "alpha"}
    )
    edit = await client.call_tool(
        "cortex_app_edit", {"memory_id": theirs["id"], "content": "x", "agent_id": "alpha"}
    )
    page = await call(client, "cortex_app_memories", agent_id="alpha")

    assert read.is_error and "memory_id: no memory" in text_of(read)
    assert edit.is_error and "memory_id: no memory" in text_of(edit)
    assert page["memories"] == []


BAD_APP_INPUT: list[tuple[str, dict[str, Any], str]] = [
    ("cortex_app_memories", {"layer": "attic"}, "layer"),
    ("cortex_app_memories", {"category": "gossip"}, "category"),
    ("cortex_app_memories", {"scope": "everyone"}, "scope"),
    ("cortex_app_memories", {"state": "zombie"}, "state"),
    ("cortex_app_memories", {"sort": "random"}, "sort"),
    ("cortex_app_memories", {"limit": 0}, "limit"),
    ("cortex_app_memories", {"limit": 201}, "limit"),
    ("cortex_app_memories", {"cursor": "not-a-cursor"}, "cursor: must be the next_cursor"),
    ("cortex_app_memories", {"since": "yesterday"}, "since: must be an ISO date"),
    ("cortex_app_memories", {"until": "2026-13"}, "until: must be an ISO date"),
    ("cortex_app_memories", {"agent_id": "a b"}, "agent_id"),
    ("cortex_app_memory", {"memory_id": "nope"}, "memory_id: must be a memory id"),
    ("cortex_app_memory", {"memory_id": UNKNOWN_ID}, "memory_id: no memory"),
    ("cortex_app_memory", {}, "memory_id"),
    ("cortex_app_edit", {"memory_id": UNKNOWN_ID, "content": "x"}, "memory_id: no memory"),
    ("cortex_app_edit", {"memory_id": "{id}", "content": "   "}, "content: must not be empty"),
    ("cortex_app_edit", {"memory_id": "{id}", "content": "x" * 8001}, "content: 8,001"),
    ("cortex_app_edit", {"memory_id": "{id}", "importance": 2}, "importance"),
    ("cortex_app_edit", {"memory_id": "{id}", "layer": "attic"}, "layer"),
    ("cortex_app_edit", {"memory_id": "{id}", "category": "gossip"}, "category"),
    ("cortex_app_edit", {"memory_id": "{id}", "category": "profile"}, "category: profile is kept"),
    ("cortex_app_search", {"query": ""}, "query"),
    ("cortex_app_search", {"query": "   "}, "query: must not be empty"),
    ("cortex_app_search", {"query": "q" * 2001}, "query: 2,001 characters"),
    ("cortex_app_search", {"query": "q", "layers": ["attic"]}, "layers"),
    ("cortex_app_graph", {"entity": ""}, "entity"),
    ("cortex_app_stats", {"agent_id": "a b"}, "agent_id"),
    ("cortex_app_lifecycle_log", {"limit": 0}, "limit"),
    ("cortex_app_exchanges", {"limit": 0}, "limit"),
    ("cortex_app_lifecycle_changes", {"run_id": 0}, "run_id"),
    ("cortex_app_lifecycle_changes", {"run_id": 1, "limit": 501}, "limit"),
    ("cortex_app_exchanges", {"agent_id": "bad agent!"}, "agent_id"),
    ("cortex_browse", {"memory_id": "nope"}, "memory_id: must be a memory id"),
    ("cortex_browse", {"memory_id": UNKNOWN_ID}, "memory_id: no memory"),
]


async def test_every_app_tool_names_the_field_and_rule_and_changes_nothing(
    client: Client, settings: Settings
) -> None:
    stored = await remember(client, "The user's favourite number is 7")
    before = table_state(settings)
    assert {tool for tool, _, _ in BAD_APP_INPUT} >= APP_TOOL_NAMES | {"cortex_browse"}

    for tool, arguments, expected in BAD_APP_INPUT:
        filled = {k: stored["id"] if v == "{id}" else v for k, v in arguments.items()}
        result = await client.call_tool(tool, filled)
        assert result.is_error, (tool, arguments)
        assert expected in text_of(result), (tool, arguments, text_of(result))

    assert table_state(settings) == before


async def test_editing_a_forgotten_memory_asks_to_restore_it_first(client: Client) -> None:
    stored = await remember(client, "The user's car is blue")
    await client.call_tool("cortex_forget", {"memory_id": stored["id"]})

    result = await client.call_tool(
        "cortex_app_edit", {"memory_id": stored["id"], "content": "The user's car is green"}
    )

    assert result.is_error
    assert text_of(result).endswith("memory_id: is forgotten; restore it before editing")


def test_the_app_offers_exactly_the_categories_and_layers_the_server_knows() -> None:
    import re
    from pathlib import Path

    from cortex_mcp.models import Category, Layer

    source = (Path(__file__).parent.parent / "ui" / "src" / "app.ts").read_text(encoding="utf-8")

    def listed(name: str) -> list[str]:
        found = re.search(rf"const {name} = \[(.*?)\];", source, re.S)
        assert found is not None, name
        return re.findall(r'"([a-z_]+)"', found.group(1))

    assert listed("CATEGORIES") == [c.value for c in Category]
    assert sorted(listed("LAYERS")) == sorted(layer.value for layer in Layer)


def test_every_app_only_tool_is_documented_in_the_readme() -> None:
    from pathlib import Path

    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")

    for name in APP_TOOL_NAMES:
        assert f"`{name}`" in readme, name


async def test_the_profile_is_edited_through_cortex_profile_not_by_hand(client: Client) -> None:
    await client.call_tool("cortex_profile", {"content": "I am a cellist."})
    page = await call(client, "cortex_app_memories", category="profile")
    profile_id = page["memories"][0]["id"]

    result = await client.call_tool("cortex_app_edit", {"memory_id": profile_id, "content": "x"})

    assert result.is_error
    assert text_of(result).endswith(
        "memory_id: is the profile; cortex_profile edits the user's words"
    )


async def test_the_extraction_log_shows_what_was_said_and_what_each_channel_stored(
    client: Client,
) -> None:
    await client.call_tool(
        "cortex_ingest",
        {"user_message": "I live in Lisbon. What's the weather?", "assistant_message": "Sunny."},
    )
    await client.call_tool(
        "cortex_ingest", {"user_message": "Actually I moved to Porto.", "assistant_message": "OK."}
    )

    log = await call(client, "cortex_app_exchanges", limit=5)
    other = await call(client, "cortex_app_exchanges", agent_id="beta")

    newest, older = log["exchanges"]
    assert [m["role"] for m in older["messages"]] == ["user", "assistant"]
    assert older["messages"][0]["content"] == "I live in Lisbon. What's the weather?"
    (moved,) = newest["memories"]
    assert (moved["channel"], moved["state"]) == ("fast", "live")
    assert moved["supersedes"]["rule"] == "slot home: new value"
    assert [m["state"] for m in older["memories"]] == ["superseded"]
    assert other["exchanges"] == []


async def test_a_lifecycle_run_shows_each_memory_before_and_after(
    client: Client, settings: Settings
) -> None:
    kept = await remember(client, "The user keeps bees on the roof")
    await call(client, "cortex_app_edit", memory_id=kept["id"], layer="working")
    async with open_engine(settings, environ={}) as engine, engine.db.write() as conn:
        await conn.execute(  # a month-old working memory: the run archives or promotes it
            "update memories set created_at = '2025-11-01T09:00:00.000000Z',"
            " expires_at = '2025-11-03T09:00:00.000000Z' where id = ?",
            (kept["id"],),
        )
    await call(client, "cortex_lifecycle", action="run")
    (run,) = (await call(client, "cortex_app_lifecycle_log", limit=1))["runs"]

    mine = await call(client, "cortex_app_lifecycle_changes", run_id=run["id"])
    theirs = await call(client, "cortex_app_lifecycle_changes", run_id=run["id"], agent_id="beta")
    bad = await client.call_tool("cortex_app_lifecycle_changes", {"run_id": 0})

    (change,) = [c for c in mine["changes"] if c["before"] and c["before"][0]["id"] == kept["id"]]
    assert change["before"][0]["layer"] == "working"
    assert change["after"][0]["layer"] in ("core", "archive")
    assert theirs["changes"] == []
    assert bad.is_error and text_of(bad).startswith("run_id:")
