"""The memory browser's tools answer crafted input in one `field: rule` line, never a
traceback behind "Error executing tool": a run id past 64 bits, cursors not made by a page
(issue #27, item 9)."""

import base64
import json
from collections.abc import AsyncIterator

import pytest
from mcp import Client
from mcp.client.extension import advertise

from cortex_mcp.browser.app import APP_MIME_TYPE, UI_EXTENSION
from cortex_mcp.config import Settings
from cortex_mcp.server import build_server
from tests.conftest import FrozenClock, data_of, remember, text_of

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]


@pytest.fixture
async def app_client(settings: Settings, clock: FrozenClock) -> AsyncIterator[Client]:
    ui = advertise(UI_EXTENSION, {"mimeTypes": [APP_MIME_TYPE]})
    async with Client(build_server(settings, clock), extensions=[ui]) as connected:
        yield connected


def cursor(key: object, seq: object) -> str:
    return base64.urlsafe_b64encode(json.dumps([key, seq]).encode()).decode().rstrip("=")


@pytest.mark.parametrize("run_id", [2**63, 2**64 + 5, 10**30])
async def test_a_run_id_past_64_bits_is_one_line(app_client: Client, run_id: int) -> None:
    result = await app_client.call_tool("cortex_app_lifecycle_changes", {"run_id": run_id})

    assert result.is_error
    assert text_of(result).startswith("run_id: must be less than or equal to 9223372036854775807")
    assert "\n" not in text_of(result)


CRAFTED = [
    ("newest", cursor("2026-01-01T00:00:00Z", 2**63)),
    ("newest", cursor("2026-01-01T00:00:00Z", -1)),
    ("newest", cursor("2026-01-01T00:00:00Z", True)),
    ("newest", cursor(0.5, 3)),
    ("newest", cursor("'; drop table memories; --", 3)),
    ("importance", cursor("2026-01-01T00:00:00Z", 3)),
    ("importance", cursor(1e308, 3)),
    ("oldest", cursor(["a"], 3)),
    ("oldest", "%%%"),
    ("oldest", base64.urlsafe_b64encode(b"[1, 2, 3]").decode()),
]


@pytest.mark.parametrize(("sort", "crafted"), CRAFTED)
async def test_a_cursor_no_page_returned_is_one_line(
    app_client: Client, sort: str, crafted: str
) -> None:
    await remember(app_client, "Harry lives in Tokyo")
    result = await app_client.call_tool(
        "cortex_app_memories", {"sort": sort, "cursor": crafted, "limit": 1}
    )

    assert result.is_error and text_of(result) == "cursor: must be the next_cursor a page returned"


@pytest.mark.parametrize("sort", ["newest", "oldest", "importance"])
async def test_a_cursor_a_page_returned_still_turns_the_page(app_client: Client, sort: str) -> None:
    for text in ("Harry lives in Tokyo", "Harry has a dog", "Harry answers briefly"):
        await remember(app_client, text)
    first = data_of(await app_client.call_tool("cortex_app_memories", {"sort": sort, "limit": 2}))
    second = data_of(
        await app_client.call_tool(
            "cortex_app_memories", {"sort": sort, "limit": 2, "cursor": first["next_cursor"]}
        )
    )

    assert len(first["memories"]) == 2 and len(second["memories"]) == 1
