"""The cortex:// resources through a real in-process MCP client."""

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from tests.conftest import read_json, read_text, recall, remember

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]

UNKNOWN_ID = "01900000-0000-7000-8000-000000000000"


async def test_core_resource_renders_core_memory_grouped_by_category(client: Client) -> None:
    await remember(client, "Harry, Tokyo resident, real-estate investor", category="identity")
    await remember(client, "Prefers simple, low-configuration solutions", category="preference")
    await remember(client, "Chose GitHub Pages + Jekyll for the static site", category="decision")

    markdown = await read_text(client, "cortex://core")

    assert markdown == (
        "# Core memory\n\n"
        "## Who the user is\n\n- Harry, Tokyo resident, real-estate investor\n\n"
        "## Preferences and habits\n\n- Prefers simple, low-configuration solutions\n\n"
        "## Decisions\n\n- Chose GitHub Pages + Jekyll for the static site\n"
    )


async def test_core_resource_leaves_out_forgotten_and_superseded_memories(client: Client) -> None:
    gone = await remember(client, "Works at Acme")
    old = await remember(client, "Budget is 50M yen")
    await remember(client, "Budget is not confirmed yet", supersedes=old["id"])
    await client.call_tool("cortex_forget", {"memory_id": gone["id"]})

    markdown = await read_text(client, "cortex://core")

    assert "Acme" not in markdown and "50M" not in markdown
    assert "Budget is not confirmed yet" in markdown


async def test_core_resource_of_an_empty_store_says_how_to_start(client: Client) -> None:
    assert "No core memories yet" in await read_text(client, "cortex://core")


async def test_a_day_or_a_month_with_nothing_says_so(client: Client) -> None:
    """Retest16: `cortex://working/<day>` of a day with no memory was a heading and nothing."""
    day = await read_text(client, "cortex://working/2026-11-19")
    month = await read_text(client, "cortex://archive/2026-10")

    assert "entries: 0" in day and day.rstrip().endswith("_No working memory of this day._")
    assert month.rstrip().endswith("_Nothing archived in this month._")


async def test_profile_resource_explains_that_no_profile_exists_yet(client: Client) -> None:
    text = await read_text(client, "cortex://profile")

    assert text.startswith("# User profile")
    assert "No profile exists yet" in text


async def test_stats_resource_counts_layers_categories_size_backend_and_latency(
    client: Client,
) -> None:
    await remember(client, "one fact")
    await remember(client, "one preference", category="preference")
    await recall(client, "fact")

    stats = await read_json(client, "cortex://stats")

    assert stats["memories"] == {"total": 2, "live": 2, "forgotten": 0, "superseded": 0}
    assert stats["layers"]["core"] == {"total": 2, "categories": {"fact": 1, "preference": 1}}
    assert stats["database"]["size_bytes"] > 0
    assert stats["search"]["sqlite_vec"] in {"loaded", "unavailable"}
    assert stats["recall_latency_ms"]["count"] == 1
    assert stats["recall_latency_ms"]["p50"] >= 0 and stats["recall_latency_ms"]["p95"] >= 0


async def test_memory_resource_shows_metadata_and_the_supersede_chain(client: Client) -> None:
    first = await remember(client, "用户预算5000万日元", tags=["budget"])
    second = await remember(client, "用户预算4000万日元", supersedes=first["id"])
    third = await remember(client, "用户未确认具体预算", supersedes=second["id"])

    middle = await read_json(client, f"cortex://memory/{second['id']}")

    assert middle["content"] == "用户预算4000万日元"
    assert middle["superseded_by"] == third["id"]
    assert [link["id"] for link in middle["supersede_chain"]] == [
        first["id"],
        second["id"],
        third["id"],
    ]
    assert [link["is_this"] for link in middle["supersede_chain"]] == [False, True, False]
    first_doc = await read_json(client, f"cortex://memory/{first['id']}")
    assert first_doc["metadata"] == {
        "channel": "remember",
        "tags": ["budget"],
        "superseded_because": "explicit: supersedes",
    }


async def test_memory_resource_of_unknown_or_malformed_id_is_not_found(client: Client) -> None:
    for memory_id in [UNKNOWN_ID, "not-an-id"]:
        with pytest.raises(MCPError) as caught:
            await client.read_resource(f"cortex://memory/{memory_id}")
        assert "memory_id" in str(caught.value)


async def test_resources_are_listed(client: Client) -> None:
    listed = {str(r.uri) for r in (await client.list_resources()).resources}
    templates = {
        t.uri_template for t in (await client.list_resource_templates()).resource_templates
    }

    assert listed == {
        "cortex://core",
        "cortex://profile",
        "cortex://stats",
        "cortex://lifecycle/log",
        "ui://cortex/memory-browser",  # the memory browser (#16)
        "cortex://relations",  # the entity graph (#15)
        "cortex://hooks/stats",  # what the host hooks injected (#25)
        "cortex://episodes",  # the latest episodes (#26)
        "cortex://scratchpad",  # the scratchpad of no project (#26)
    }
    assert templates == {
        "cortex://memory/{memory_id}",
        "cortex://working/{date}",
        "cortex://archive/{month}",
        "cortex://entity/{name}",
        "cortex://episodes/page/{page}",
        "cortex://episodes/{episode_id}",
        "cortex://scratchpad/{project}",  # a project's scratchpad (#26)
    }
