"""What a client sees of the tools: every argument error as one `field: rule` line (also those
the SDK validates: no generated model name, pydantic URL or echo of the input), schemas with the
configured limits, instructions naming only the exposed tools, titles, hints, structured
content, and storage failures as one-line tool errors naming the cause."""

from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from cortex_mcp.config import Settings
from cortex_mcp.engine.host import EngineHost
from cortex_mcp.server import build_server
from cortex_mcp.store.sqlite import SqliteDatabase
from tests.conftest import text_of
from tests.test_tools import row_count

LONG = "x" * 1353
SDK_VALIDATED = [  # (tool, arguments, the exact error line)
    ("cortex_recall", {"max_results": 500}, "max_results: must be less than or equal to 50"),
    ("cortex_recall", {"max_tokens": 10}, "max_tokens: must be greater than or equal to 50"),
    ("cortex_recall", {"layers": ["attic"]}, "layers.0: must be 'working', 'core' or 'archive'"),
    (
        "cortex_remember",
        {"content": "ok", "agent_id": "bad agent!"},
        "agent_id: must match pattern '^[A-Za-z0-9_.:@-]+$'",
    ),
    (
        "cortex_remember",
        {"content": "ok", "importance": 2},
        "importance: must be less than or equal to 1",
    ),
    ("cortex_remember", {"content": ""}, "content: must have at least 1 character"),
    (
        "cortex_remember",
        {"content": "ok", "tags": [LONG]},
        "tags.0: must have at most 64 characters",
    ),
    ("cortex_remember", {"content": "ok", "scope": LONG}, "scope: must be 'agent' or 'shared'"),
    ("cortex_forget", {}, "memory_id: give memory_id or matching (one of them)"),
    ("cortex_forget", {"memory_id": LONG}, "memory_id: must have at most 64 characters"),
    ("cortex_restore", {"memory_id": 5}, "memory_id: must be a valid string"),
    (
        "cortex_flush",
        {"messages": []},
        "messages: must contain at least one message (or name the session_id to close)",
    ),
    (
        "cortex_flush",
        {"messages": [{"role": "bot", "content": "x"}]},
        "messages.0.role: must be 'user', 'assistant', 'system' or 'tool'",
    ),
    ("cortex_lifecycle", {"action": "now"}, "action: must be 'preview' or 'run'"),
    ("cortex_search_debug", {}, "query: required"),
]


@pytest.mark.parametrize(("tool", "arguments", "expected"), SDK_VALIDATED)
async def test_an_argument_the_sdk_rejects_is_one_field_rule_line(
    client: Client, settings: Settings, tool: str, arguments: dict[str, Any], expected: str
) -> None:
    result = await client.call_tool(tool, arguments)
    text = text_of(result)

    assert result.is_error
    assert text.startswith(expected), text
    assert "\n" not in text
    assert "Arguments" not in text and "pydantic" not in text and "Error executing" not in text
    assert LONG not in text and "bad agent!" not in text, "no echo of the input"
    assert row_count(settings) == 0


async def test_category_hobby_is_rejected_naming_the_field_and_the_choices(client: Client) -> None:
    result = await client.call_tool("cortex_remember", {"content": "ok", "category": "hobby"})

    assert result.is_error
    assert text_of(result).startswith("category: must be 'identity', 'preference',")
    assert "hobby" not in text_of(result)


async def test_the_engine_s_own_errors_have_no_sdk_prefix(client: Client) -> None:
    result = await client.call_tool("cortex_recall", {"query": "q" * 2001})

    assert text_of(result) == "query: 2,001 characters; the limit is 2,000"


async def test_schemas_carry_the_configured_limits(client: Client) -> None:
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    remember = tools["cortex_remember"].input_schema["properties"]
    recall = tools["cortex_recall"].input_schema["properties"]

    assert remember["content"]["maxLength"] == 8000
    assert recall["query"]["maxLength"] == 2000
    assert "100000" not in str([tool.input_schema for tool in tools.values()])


async def test_a_raised_content_limit_shows_in_the_schema_and_is_obeyed(cortex_home: Path) -> None:
    settings = Settings.model_validate(
        {"home": cortex_home, "memory": {"max_content_chars": 20_000}}
    )
    async with Client(build_server(settings)) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        stored = await client.call_tool("cortex_remember", {"content": "long " * 2000})
        refused = await client.call_tool("cortex_remember", {"content": "y" * 20_001})

    assert tools["cortex_remember"].input_schema["properties"]["content"]["maxLength"] == 20_000
    assert not stored.is_error, text_of(stored)
    assert text_of(refused) == "content: 20,001 characters; the limit is 20,000"


async def test_instructions_name_only_the_exposed_tools(cortex_home: Path) -> None:
    settings = Settings.model_validate({"home": cortex_home, "tools": "cortex_recall"})
    async with Client(build_server(settings)) as client:
        instructions = client.instructions

    assert instructions and "cortex_recall" in instructions
    for hidden in ("cortex_remember", "cortex_ingest", "cortex_flush", "cortex_forget"):
        assert hidden not in instructions


async def test_every_tool_has_a_title_and_recall_is_read_only_hinted(client: Client) -> None:
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}

    assert all(tool.title for tool in tools.values())
    recall = tools["cortex_recall"].annotations
    assert recall is not None and recall.read_only_hint is True
    remember = tools["cortex_remember"].annotations
    assert remember is not None and remember.read_only_hint is False


async def test_tool_results_carry_structured_content(client: Client) -> None:
    remembered = await client.call_tool("cortex_remember", {"content": "I drink green tea"})
    recalled = await client.call_tool("cortex_recall", {"query": "tea"})
    preview = await client.call_tool("cortex_lifecycle", {})

    assert remembered.structured_content is not None
    assert remembered.structured_content["content"] == "I drink green tea"
    assert recalled.structured_content is not None
    assert preview.structured_content is not None


@pytest.mark.parametrize(
    ("pragma", "cause"),
    [
        ("pragma max_page_count = 1", "database: the disk is full; free some space and retry"),
        ("pragma query_only = 1", "database: the database file is read-only"),
    ],
)
async def test_a_storage_failure_reaches_the_client_as_one_line_naming_the_cause(
    settings: Settings, pragma: str, cause: str
) -> None:
    host = EngineHost(settings)
    async with Client(build_server(settings, host=host)) as client:
        db = host.engine.db
        assert isinstance(db, SqliteDatabase)
        await db.conn.execute(pragma)
        result = await client.call_tool("cortex_remember", {"content": "x " * 3000 + "end"})

    assert result.is_error
    assert text_of(result).startswith(cause), text_of(result)
    assert "\n" not in text_of(result)


async def test_corrupt_pages_reach_the_client_as_one_line_naming_the_cause(
    cortex_home: Path,
) -> None:
    settings = Settings.model_validate(
        {"home": cortex_home, "mirror": {"enabled": False}, "lifecycle": {"enabled": False}}
    )
    async with Client(build_server(settings)) as client:
        for number in range(150):
            filler = "words to fill the page " * 20
            await client.call_tool("cortex_remember", {"content": f"fact {number} {filler}"})
    database = settings.database_path
    size = database.stat().st_size
    with database.open("r+b") as file:  # damage the second half's pages, not the schema's
        for offset in range(size // 2, size - 4096, 4096):
            file.seek(offset + 100)
            file.write(b"\xff" * 3000)

    async with Client(build_server(settings)) as client:
        recalled = await client.call_tool("cortex_recall", {"query": "fact words"})

    assert recalled.is_error
    assert text_of(recalled) == (
        "database: the database file is corrupt; restore it from a backup or an export"
    )
