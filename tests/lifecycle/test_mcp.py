"""The lifecycle through MCP: the cortex_lifecycle and cortex_profile tools, the resources."""

import json
from datetime import timedelta

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from tests.conftest import FrozenClock, data_of, read_text, remember, text_of

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]


async def test_preview_then_run_through_the_tool(client: Client, clock: FrozenClock):
    await remember(client, "Harry lives in Tokyo", category="identity")
    todo = await remember(client, "Renew the domain", category="todo")
    clock.advance(days=30)

    preview = data_of(await client.call_tool("cortex_lifecycle", {"action": "preview"}))
    run = data_of(await client.call_tool("cortex_lifecycle", {"action": "run"}))

    assert preview["dry_run"] and not run["dry_run"]
    assert preview["archived"] == run["archived"] == {"count": 1, "first": [todo["id"]]}
    log = json.loads(await read_text(client, "cortex://lifecycle/log"))
    assert [entry["status"] for entry in log] == ["ok"]


async def test_a_bad_action_is_refused(client: Client):
    result = await client.call_tool("cortex_lifecycle", {"action": "delete-everything"})
    assert result.is_error and "action" in text_of(result)


async def test_the_profile_tool_writes_what_the_profile_resource_reads(client: Client):
    data_of(await client.call_tool("cortex_profile", {"content": "Call me Harry."}))

    assert "Call me Harry." in await read_text(client, "cortex://profile")


async def test_working_and_archive_resources_by_date(client: Client, clock: FrozenClock):
    await client.call_tool(
        "cortex_ingest", {"user_message": "My name is Harry", "assistant_message": "Hi Harry"}
    )
    clock.advance(days=1)

    page = await read_text(client, f"cortex://working/{(clock.now - timedelta(days=1)):%Y-%m-%d}")
    archive = await read_text(client, "cortex://archive/2025-12")

    assert page.startswith("---\ngenerator: cortex-mcp")
    assert "# Archive 2025-12" in archive
    with pytest.raises(MCPError, match="date"):
        await read_text(client, "cortex://working/yesterday")
