"""cortex_ingest writes its log rows already settled (#25 item 4): the fast channel's memories
are written first in the one write transaction, then each message is inserted with the
memories taken from it and what the deep channel owes. The rows must say what the rows of the
write-then-update path said: links per message, the exchange's links, the state and when it is
due. Real engines (SQLite and PostgreSQL), real stores."""

import json
from pathlib import Path
from typing import Any

import pytest

from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import open_engine
from tests.conftest import FrozenClock, inspect_database
from tests.fakes import FakeOpenAI

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]

USER = "My name is Ines Moreau. I live in Lisbon. We decided to use Kafka for the event bus."
REPLY = "Noted. We decided last week to host the Kafka brokers in Frankfurt."


def rows(settings: Settings) -> list[dict[str, Any]]:
    """The conversation log as stored, oldest first."""
    with inspect_database(settings.database_path) as conn:
        found = conn.execute(
            "select role, exchange_id, created_at, memory_ids, extraction, next_attempt_at,"
            " attempts from conversation_log order by seq"
        ).fetchall()
    names = ("role", "exchange", "created_at", "memory_ids", "extraction", "due", "attempts")
    return [dict(zip(names, row, strict=True)) for row in found]


def exchange_links(settings: Settings) -> set[tuple[str, str]]:
    with inspect_database(settings.database_path) as conn:
        return {(row[0], row[1]) for row in conn.execute("select * from exchange_links")}


async def test_without_an_llm_each_message_is_logged_with_its_memories_and_waits(
    cortex_home: Path, clock: FrozenClock
) -> None:
    settings = Settings.model_validate({"home": cortex_home, "embedding": {"provider": "none"}})
    async with open_engine(settings, clock, environ={}) as engine:
        result = await engine.ingest(USER, REPLY, session_id="s1")

    users = sorted(m.id for m in result.fast if m.source == "user")
    replies = sorted(m.id for m in result.fast if m.source == "assistant")
    logged = rows(settings)
    assert len(users) >= 2 and replies, result.fast  # name, city (and the decision) + reply
    assert [r["role"] for r in logged] == ["user", "assistant"]
    assert [json.loads(r["memory_ids"]) for r in logged] == [users, replies]
    assert {r["extraction"] for r in logged} == {"waiting"}
    assert {r["due"] for r in logged} == {None} and {r["attempts"] for r in logged} == {0}
    exchange = logged[0]["exchange"]
    assert exchange_links(settings) == {(exchange, m.id) for m in result.fast}


async def test_with_an_llm_the_exchange_is_owed_and_due_at_once(
    llm_settings: Settings, clock: FrozenClock, fake_openai: FakeOpenAI
) -> None:
    async with open_engine(llm_settings, clock, environ={}) as engine:
        result = await engine.ingest(USER, REPLY, tool_calls=[{"name": "ls", "arguments": {}}])

    logged = rows(llm_settings)
    assert result.queued and fake_openai.requests == []  # owed, not asked during the call
    assert [r["role"] for r in logged] == ["user", "assistant", "tool"]
    assert json.loads(logged[2]["memory_ids"]) == []  # a tool call states no fast fact
    assert {r["extraction"] for r in logged} == {"pending"}
    assert {r["due"] for r in logged} == {logged[0]["created_at"]}
    assert {r["attempts"] for r in logged} == {0}


async def test_small_talk_is_logged_with_nothing_owed_and_nothing_linked(
    llm_settings: Settings, clock: FrozenClock
) -> None:
    async with open_engine(llm_settings, clock, environ={}) as engine:
        result = await engine.ingest("thanks!", "You're welcome.")

    logged = rows(llm_settings)
    assert result.fast == [] and result.skipped == "small talk"
    assert [(r["extraction"], r["due"], json.loads(r["memory_ids"])) for r in logged] == [
        ("none", None, []),
        ("none", None, []),
    ]
    assert exchange_links(llm_settings) == set()


async def test_statements_of_one_exchange_are_each_checked_against_the_other(
    cortex_home: Path, clock: FrozenClock
) -> None:
    """Decided together in one read, written one after the other: the write's re-check sees
    the first and keeps one memory for a fact said twice in one message (the same words twice
    are proposed once: `fast.fast_statements`)."""
    settings = Settings.model_validate({"home": cortex_home, "embedding": {"provider": "none"}})
    said = "I live in Porto. Remember: I live in PORTO."  # two statements, one fact
    async with open_engine(settings, clock, environ={}) as engine:
        result = await engine.ingest(said, "Noted.")

    with inspect_database(settings.database_path) as conn:
        live = conn.execute(
            "select content from memories where deleted_at is null and superseded_by is null"
        ).fetchall()
    assert [m.action for m in result.fast] == ["created", "duplicate"], result.fast
    assert len(live) == 1
