"""Forget and purge reach the conversation log through MCP: by the exchange id recall shows, and
by text ("forget my locker number": a preview with a confirm token, then the forget), matching
every table ignoring case, with the log's messages counted (issue #27, item 3)."""

import json
from typing import Any

import pytest
from mcp import Client

from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import open_engine
from tests.conftest import FrozenClock, data_of, inspect_database, recall, remember, text_of

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]

SAID = "btw my Locker Number is 5521, keep it safe"


async def said_once(client: Client) -> str:
    """Log one message holding the locker number through a flush; its exchange id."""
    flushed = await client.call_tool(
        "cortex_flush", {"messages": [{"role": "user", "content": SAID}]}
    )
    assert not flushed.is_error
    found = await recall(client, "locker number")
    assert [h["content"] for h in found["conversation"]] == [SAID]
    return str(found["conversation"][0]["exchange_id"])


async def forget(client: Client, **arguments: Any) -> dict[str, Any]:
    return data_of(await client.call_tool("cortex_forget", arguments))


def logged(settings: Settings) -> list[str]:
    with inspect_database(settings.database_path) as db:
        return [row[0] for row in db.execute("select content from conversation_log").fetchall()]


async def test_an_exchange_from_recall_is_forgotten_restored_and_purged_by_its_id(
    client: Client, settings: Settings
) -> None:
    exchange = await said_once(client)

    forgotten = await forget(client, memory_id=exchange)
    hidden = await recall(client, "locker number")
    restored = data_of(await client.call_tool("cortex_restore", {"memory_id": exchange}))
    back = await recall(client, "locker number")
    purged = await forget(client, memory_id=exchange, purge=True)
    gone = await recall(client, "locker number")
    again = await client.call_tool("cortex_restore", {"memory_id": exchange})

    assert forgotten["messages"] == 1 and hidden["conversation"] == []
    assert restored["messages"] == 1 and back["conversation"][0]["content"] == SAID
    assert purged["messages"] == 1 and gone["conversation"] == []
    assert again.is_error and "no memory with id" in text_of(again)
    assert not any("5521" in text for text in logged(settings))


async def test_forget_my_locker_number_previews_then_forgets_what_the_preview_showed(
    client: Client, settings: Settings
) -> None:
    await said_once(client)
    kept = await remember(client, "Sam's locker number is 5521")
    await remember(client, "Sam lives in Oslo")

    preview = await forget(client, matching="LOCKER number", purge=True)
    unchanged = await recall(client, "locker number")
    wrong = await client.call_tool(
        "cortex_forget", {"matching": "locker number", "confirm": preview["confirm"]}
    )  # a soft forget is another request than the purge previewed
    done = await forget(client, matching="LOCKER number", purge=True, confirm=preview["confirm"])
    after = await recall(client, "locker number 5521")
    oslo = await recall(client, "Oslo")

    assert preview["done"] is False and preview["messages"] == 1
    assert [m["id"] for m in preview["memories"]] == [kept["id"]]
    assert unchanged["memories"][0]["id"] == kept["id"] and unchanged["conversation"]
    assert wrong.is_error and text_of(wrong).startswith("confirm: ")
    assert done["done"] is True and done["messages"] == 1
    assert "5521" not in json.dumps(after)
    assert [m["content"] for m in oslo["memories"]] == ["Sam lives in Oslo"]
    assert not any("5521" in text for text in logged(settings))


async def test_a_soft_forget_by_text_hides_memories_and_messages_and_touches_no_other_agent(
    client: Client,
) -> None:
    await said_once(client)
    own = await remember(client, "Sam's locker number is 5521")
    other = await remember(client, "Kim's locker number is 7788", agent_id="kim")

    preview = await forget(client, matching="locker number")
    done = await forget(client, matching="locker number", confirm=preview["confirm"])
    mine = await recall(client, "locker number")
    kims = await recall(client, "locker number", agent_id="kim")
    restored = data_of(await client.call_tool("cortex_restore", {"memory_id": own["id"]}))

    assert done["memory_count"] == 1 and done["messages"] == 1
    assert mine["memories"] == [] and mine["conversation"] == []
    assert [m["id"] for m in kims["memories"]] == [other["id"]]
    assert restored["deleted"] is False


async def test_purge_matching_finds_the_log_ignoring_case_and_rewrites_the_profile(
    client: Client, settings: Settings, clock: FrozenClock
) -> None:
    """The CLI's `purge --matching "locker number"` missed "Locker Number" in the log and erased
    the user's profile instead."""
    await said_once(client)
    profile = await client.call_tool(
        "cortex_profile", {"content": "Sam, a nurse in Oslo; my locker number is private"}
    )
    assert not profile.is_error
    async with open_engine(settings, clock, {}) as engine:
        preview = await engine.preview_purge("locker number")
        report = await engine.purge_matching("locker number")
    kept = await recall(client, "")

    assert preview.messages == 1 and preview.memories == []
    assert len(preview.rewritten) == 1  # the profile: rewritten, not erased
    assert report.messages == 1 and report.purged == []
    assert not any("locker number" in text.lower() for text in logged(settings))
    assert "Sam, a nurse in Oslo" in kept["context"] and "locker number" not in kept["context"]


async def test_a_forget_by_text_reports_what_its_preview_said_and_every_message_comes_back(
    client: Client, settings: Settings
) -> None:
    """Found trying the product: a preview counted 2 messages holding "Munich" and the forget
    reported 1 (the other had gone with the memory taken from it), and a message hidden by the
    text alone (no memory came from it) could not be restored: no id was given for it."""
    ingested = await client.call_tool(
        "cortex_ingest",
        {
            "user_message": "I live in Munich.",
            "assistant_message": "Munich has great beer gardens, try the Augustiner Keller.",
        },
    )
    assert not ingested.is_error

    preview = await forget(client, matching="Munich")
    done = await forget(client, matching="Munich", confirm=preview["confirm"])
    hidden = await recall(client, "beer gardens in Munich")
    with inspect_database(settings.database_path) as db:
        (now_hidden,) = db.execute(
            "select count(*) from conversation_log where deleted_at is not null"
        ).fetchone()
    nothing_left = await forget(client, matching="Munich")  # hidden ones are not counted again
    for memory in done["memories"]:
        await client.call_tool("cortex_restore", {"memory_id": memory["id"]})
    for exchange in done["exchanges"]:
        await client.call_tool("cortex_restore", {"memory_id": exchange})
    back = await recall(client, "beer gardens in Munich")

    assert preview["messages"] == now_hidden == 2 and len(done["exchanges"]) == 1
    assert nothing_left["messages"] == 0 and nothing_left["memory_count"] == 0
    assert hidden["memories"] == [] and hidden["conversation"] == []
    assert any("beer gardens" in h["content"] for h in back["conversation"]), back["context"]
