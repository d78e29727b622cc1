"""A purge's preview counts the logged messages the purge then erases (retest17 F2): a purge
takes the whole exchange a memory came from, so the preview counts every message of it, not
only those holding the text, and says how many do not hold it."""

import argparse
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.types import CreateMessageRequestParams, CreateMessageResult, TextContent

from cortex_mcp.cli import purge_command
from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import open_engine
from cortex_mcp.server import build_server
from tests.conftest import FrozenClock, data_of, inspect_database, recall

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]

SAID = [
    "Note [[bike lock qm21 is at home]] ok.",
    "Note [[gym locker qm22 code]] ok.",
    "Unrelated chat about qm23 weather.",
]


async def marked_text(context: Any, params: CreateMessageRequestParams) -> CreateMessageResult:
    """An LLM, through MCP sampling, that extracts the text between [[ and ]] as a fact."""
    asked = "".join(getattr(m.content, "text", "") for m in params.messages)
    found = dict.fromkeys(re.findall(r"\[\[(.+?)\]\]", asked))
    items = [{"content": text, "category": "fact", "importance": 0.5} for text in found]
    reply = json.dumps({"memories": items})
    return CreateMessageResult(
        role="assistant", content=TextContent(type="text", text=reply), model="marks"
    )


@pytest.fixture
def settings(cortex_home: Path) -> Settings:
    return Settings.model_validate(
        {"home": cortex_home, "llm": {"provider": "sampling"}, "embedding": {"provider": "none"}}
    )


@pytest.fixture
async def client(settings: Settings, clock: FrozenClock) -> AsyncIterator[Client]:
    # Sampling needs a back-channel for server-initiated requests: the handshake-era protocol.
    server = build_server(settings, clock)
    async with Client(server, sampling_callback=marked_text, mode="legacy") as connected:
        yield connected


async def flushed_exchange(client: Client) -> None:
    """One flush of three user messages and three replies: two memories, one exchange."""
    messages = []
    for text in SAID:
        messages += [{"role": "user", "content": text}, {"role": "assistant", "content": "Ok."}]
    flushed = data_of(await client.call_tool("cortex_flush", {"messages": messages}))
    assert len(flushed["memories"]) == 2, flushed


def logged(settings: Settings) -> int:
    with inspect_database(settings.database_path) as db:
        (count,) = db.execute("select count(*) from conversation_log").fetchone()
        return int(count)


async def test_forget_matching_with_purge_previews_the_messages_of_the_exchange_it_erases(
    client: Client, settings: Settings
) -> None:
    await flushed_exchange(client)
    before = logged(settings)

    arguments = {"matching": "bike lock qm21 is at home", "purge": True}
    preview = data_of(await client.call_tool("cortex_forget", arguments))
    done = data_of(
        await client.call_tool("cortex_forget", {**arguments, "confirm": preview["confirm"]})
    )

    assert before == 6 and preview["memory_count"] == 1
    assert preview["messages"] == done["messages"] == before - logged(settings) == 6
    assert preview["note"].startswith("5 of the 6 messages do not hold the text")
    assert done["done"] is True


async def test_purge_matching_from_the_command_line_previews_what_it_erases(
    client: Client, settings: Settings, clock: FrozenClock
) -> None:
    await flushed_exchange(client)
    before = logged(settings)

    async with open_engine(settings, clock, {}) as engine:
        preview = await engine.preview_purge("BIKE LOCK qm21 is at home")
        report = await engine.purge_matching("BIKE LOCK qm21 is at home")

    assert len(preview.memories) == 1 and len(report.purged) == 1
    assert preview.messages == report.messages == before - logged(settings) == 6
    assert preview.note is not None and preview.note.startswith("5 of the 6 messages")


async def test_purge_by_id_from_the_command_line_previews_the_messages_it_erases(
    client: Client, settings: Settings, clock: FrozenClock
) -> None:
    await flushed_exchange(client)
    found = (await recall(client, "gym locker qm22"))["memories"][0]
    gym = found["id"]
    before = logged(settings)

    async with open_engine(settings, clock, {}) as engine:
        ask = argparse.Namespace(ids=[gym], matching=None, yes=False, agent_id=None)
        preview = json.loads(await purge_command(engine, ask))
        report = json.loads(
            await purge_command(engine, argparse.Namespace(**{**vars(ask), "yes": True}))
        )

    assert found["content"] == "gym locker qm22 code"
    assert [m["id"] for m in preview["would_purge"]] == [gym]
    assert preview["messages"] == report["messages"] == before - logged(settings) == 6
