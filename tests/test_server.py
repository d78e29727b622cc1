"""The server's surface: instructions at initialize, CORTEX_TOOLS, and the context prompt."""

from pathlib import Path

import pytest
from mcp import Client
from mcp_types import TextContent

from cortex_mcp.config import Settings
from cortex_mcp.errors import InvalidInput
from cortex_mcp.server import build_server
from tests.conftest import remember

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]


async def test_initialize_tells_agents_when_to_use_memory(client: Client) -> None:
    instructions = client.instructions or ""

    for tool in ["cortex_recall", "cortex_ingest", "cortex_flush", "cortex_remember"]:
        assert tool in instructions
    assert "before answering" in instructions.lower()
    assert "compact" in instructions.lower()


async def test_tool_descriptions_say_when_to_call_them(client: Client) -> None:
    descriptions = {t.name: t.description or "" for t in (await client.list_tools()).tools}

    assert descriptions["cortex_recall"].startswith("Call before answering")
    assert descriptions["cortex_ingest"].startswith("Call after each exchange")
    assert descriptions["cortex_flush"].startswith("Call before your context is compacted")


async def test_cortex_tools_limits_the_exposed_tools(cortex_home: Path) -> None:
    settings = Settings.model_validate(
        {"home": cortex_home, "tools": "cortex_recall, cortex_remember"}
    )

    async with Client(build_server(settings)) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        hidden = await client.call_tool("cortex_forget", {"memory_id": "x"})

    assert names == {"cortex_recall", "cortex_remember"}
    assert hidden.is_error


def test_cortex_tools_with_an_unknown_name_is_an_error_naming_the_setting(
    cortex_home: Path,
) -> None:
    with pytest.raises(InvalidInput, match="tools: unknown tool"):
        build_server(Settings.model_validate({"home": cortex_home, "tools": "cortex_recal"}))


def test_cortex_tools_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CORTEX_TOOLS", "cortex_recall,cortex_ingest")

    assert Settings().tools == ["cortex_recall", "cortex_ingest"]


async def test_the_context_prompt_loads_core_memory_and_profile(client: Client) -> None:
    await remember(client, "Harry, real-estate investor in Tokyo", category="identity")

    prompts = {p.name for p in (await client.list_prompts()).prompts}
    result = await client.get_prompt("cortex_context", {})
    text = result.messages[0].content

    assert "cortex_context" in prompts
    assert isinstance(text, TextContent)
    assert "Harry, real-estate investor in Tokyo" in text.text
    assert "# User profile" in text.text
