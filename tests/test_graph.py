"""The entity graph, alive (#15): relations drawn from slots, the LLM and the agent, closed with
their memory, used by recall, and shown by cortex://relations and cortex://entity/{name}."""

import json
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import open_engine
from cortex_mcp.engine.host import EngineHost
from cortex_mcp.engine.language.redaction import Cleaner
from cortex_mcp.engine.render.pages import render_relations
from cortex_mcp.engine.transfer import import_text
from cortex_mcp.search.entities import entity_key, phrases, searchable_text
from cortex_mcp.server import build_server
from cortex_mcp.store.relations import Relation, relations_of
from cortex_mcp.store.select import open_store
from tests.background import deep_channel_done
from tests.conftest import (
    FrozenClock,
    data_of,
    read_json,
    read_text,
    recall,
    remember,
    text_of,
)
from tests.fakes import FakeOpenAI

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.engines,
    pytest.mark.usefixtures("database_engine"),
]


@pytest.fixture
def plain_settings(cortex_home: Path) -> Settings:
    """No LLM, no vectors: BM25 and the graph only, so what recall finds is deterministic."""
    return Settings.model_validate(
        {"home": cortex_home, "llm": {"provider": "none"}, "embedding": {"provider": "none"}}
    )


@pytest.fixture
async def plain(plain_settings: Settings, clock: FrozenClock) -> AsyncIterator[Client]:
    async with Client(build_server(plain_settings, clock)) as connected:
        yield connected


async def relation_rows(settings: Settings) -> list[Relation]:
    """Every relation in the file, read through the server's own driver (a second connection
    beside the running server's)."""
    db = await open_store(settings)  # the SQLite file, or the test's PostgreSQL database
    try:
        async with db.read() as conn:
            return await relations_of(conn, None)
    finally:
        await db.close()


async def triples(settings: Settings, live: bool = True) -> set[tuple[str, str, str]]:
    return {
        (r.subject, r.predicate, r.object) for r in await relation_rows(settings) if r.live == live
    }


async def ingest(client: Client, user: str, assistant: str = "OK.") -> dict[str, Any]:
    return data_of(
        await client.call_tool(
            "cortex_ingest", {"user_message": user, "assistant_message": assistant}
        )
    )


def test_names_are_normalised_and_the_user_is_one_entity() -> None:
    assert entity_key("  Wang_Wei ") == entity_key("wang  wei") == "wang wei"
    assert entity_key("ＡＣＭＥ　Corp.") == "acme corp"  # full width, ideographic space
    assert {entity_key(n) for n in ("I", "the user", "default_user", "我", "私", "僕")} == {"user"}
    assert entity_key("王伟") == "王伟" and entity_key("田中") == "田中"
    assert searchable_text("Ｗang_Wei  works") == "wang wei works"


async def test_the_fast_channel_stores_each_slot_as_a_relation_of_its_memory(
    plain: Client, plain_settings: Settings
) -> None:
    result = await ingest(plain, "I work at Globex. My cat is called Mochi.")

    stored = {m["content"]: m["id"] for m in result["fast"]}
    rows = {(r.subject, r.predicate, r.object): r for r in await relation_rows(plain_settings)}
    assert set(rows) == {("user", "works at", "Globex"), ("user", "has cat", "Mochi")}
    assert rows["user", "works at", "Globex"].source_memory_id == stored["I work at Globex."]
    assert rows["user", "works at", "Globex"].agent_id == "default"


async def test_a_new_value_closes_the_old_relation_and_forget_restore_purge_follow(
    plain: Client, plain_settings: Settings
) -> None:
    first = (await ingest(plain, "I work at Globex."))["fast"][0]
    second = (await ingest(plain, "I work at Initech now."))["fast"][0]
    assert second["superseded_id"] == first["id"]

    assert await triples(plain_settings) == {("user", "works at", "Initech")}
    assert await triples(plain_settings, live=False) == {("user", "works at", "Globex")}  # kept

    data_of(await plain.call_tool("cortex_forget", {"memory_id": second["id"]}))
    assert await triples(plain_settings) == set()
    data_of(await plain.call_tool("cortex_restore", {"memory_id": second["id"]}))
    assert await triples(plain_settings) == {("user", "works at", "Initech")}
    data_of(await plain.call_tool("cortex_restore", {"memory_id": first["id"]}))
    assert await triples(plain_settings) == {
        ("user", "works at", "Initech"),
        ("user", "works at", "Globex"),
    }

    data_of(await plain.call_tool("cortex_forget", {"memory_id": second["id"], "purge": True}))
    every = {(r.subject, r.object) for r in await relation_rows(plain_settings)}
    assert ("user", "Initech") not in every and ("user", "Globex") in every


async def test_the_llm_extraction_brings_relations_validated_and_repaired(
    llm_settings: Settings, fake_openai: FakeOpenAI, clock: FrozenClock
) -> None:
    fake_openai.replies.append(
        json.dumps(
            {
                "memories": [
                    {
                        "content": "Wang Wei leads the payments team at Globex",
                        "category": "relationship",
                        "importance": 0.7,
                        "source": "user",
                        "relations": [
                            {"subject": "Wang Wei", "predicate": "works at", "object": "Globex"},
                            {"from": "Wang Wei", "relationType": "leads", "to": "payments team"},
                            ["Globex", "based in", "Shanghai"],
                            {"subject": "", "predicate": "x", "object": "y"},
                            "not a relation",
                        ],
                    },
                    {
                        "content": "Mochi is Wang Wei's cat",
                        "category": "relationship",
                        "relations": {
                            "subject": "Wang Wei",
                            "predicate": "owns",
                            "object": "Mochi",
                        },
                    },
                ]
            }
        )
    )
    host = EngineHost(llm_settings, clock)
    async with Client(build_server(llm_settings, clock, host=host)) as client:
        await ingest(client, "Wang Wei leads payments at Globex; Mochi is his cat.")
        await deep_channel_done(host)
        found = await recall(client, "Mochi cat", layers=["working"])

    prompt = json.dumps([r.body for r in fake_openai.requests])
    assert '\\"relations\\"' in prompt  # the schema asks for the field
    ids = {m["content"]: m["id"] for m in found["memories"]}
    rows = {(r.subject, r.predicate, r.object): r for r in await relation_rows(llm_settings)}
    assert set(rows) == {
        ("Wang Wei", "works at", "Globex"),
        ("Wang Wei", "leads", "payments team"),
        ("Globex", "based in", "Shanghai"),
        ("Wang Wei", "owns", "Mochi"),
    }
    assert rows["Wang Wei", "owns", "Mochi"].source_memory_id == ids["Mochi is Wang Wei's cat"]


OFFICIAL_GRAPH = "\n".join(
    json.dumps(record)
    for record in [
        {"type": "entity", "name": "Wang_Wei", "entityType": "person",
         "observations": ["Senior engineer", "Speaks Mandarin and English"]},
        {"type": "entity", "name": "Globex", "entityType": "organization",
         "observations": ["Payments company in Shanghai"]},
        {"type": "entity", "name": "Mochi", "entityType": "pet", "observations": ["A grey cat"]},
        {"type": "relation", "from": "Wang_Wei", "to": "Globex", "relationType": "works_at"},
        {"type": "relation", "from": "Wang_Wei", "to": "Mochi", "relationType": "owns"},
    ]
)  # fmt: skip


async def test_an_imported_server_memory_graph_answers_through_recall(
    plain_settings: Settings, clock: FrozenClock
) -> None:
    async with open_engine(plain_settings, clock) as engine:
        report = await import_text(engine.runtime, Cleaner(True), OFFICIAL_GRAPH, "memory.jsonl")
    assert report.relations_added == 2

    async with Client(build_server(plain_settings, clock)) as client:
        work = await recall(client, "where does Wang Wei work")
        owner = await recall(client, "who owns Mochi")
        off = data_of(
            await client.call_tool("cortex_recall", {"query": "who owns Mochi", "max_results": 3})
        )

    assert "Wang Wei —works at→ Globex" in work["context"]
    assert "Wang Wei —owns→ Mochi" in owner["context"]
    assert off["context"].startswith("Known relations")


async def test_two_hop_answer_found_through_the_graph_missed_by_plain_search(
    plain_settings: Settings, clock: FrozenClock
) -> None:
    async def store(client: Client) -> str:
        await remember(
            client,
            "Alice's manager is Bob Stone.",
            relations=[["Alice", "manager", "Bob Stone"]],
        )
        lisbon = await remember(
            client,
            "Bob Stone moved to Lisbon in 2020.",
            relations=[["Bob Stone", "lives in", "Lisbon"]],
        )
        for line in [
            "The city council meeting is on Monday.",
            "Which city has the best coffee is an open question.",
            "Carol lives in a small city near Porto.",
        ]:
            await remember(client, line)
        return str(lisbon["id"])

    question = "Which city does Alice's manager live in?"
    async with Client(build_server(plain_settings, clock)) as client:
        lisbon = await store(client)
        with_graph = await recall(client, question, max_results=3)
    without = plain_settings.model_copy(
        update={"search": plain_settings.search.model_copy(update={"graph_weight": 0.0})}
    )
    async with Client(build_server(without, clock)) as client:
        plain_search = await recall(client, question, max_results=3)

    assert lisbon not in [m["id"] for m in plain_search["memories"]]
    assert lisbon in [m["id"] for m in with_graph["memories"]]


async def test_relations_from_the_agent_are_checked_redacted_and_scoped(
    plain: Client, plain_settings: Settings
) -> None:
    bad = await plain.call_tool(
        "cortex_remember",
        {"content": "Dana runs the lab.", "relations": [["Dana", " ", "the lab"]]},
    )
    assert bad.is_error and "relations[0].predicate: must be a non-empty string" in text_of(bad)
    short = await plain.call_tool(
        "cortex_remember", {"content": "Dana runs the lab.", "relations": [["Dana", "runs"]]}
    )
    assert short.is_error and "relations[0]" in text_of(short)
    assert await relation_rows(plain_settings) == []  # bad input changes nothing
    key = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6"
    await remember(
        plain,
        "Dana runs the lab.",
        relations=[["Dana", "uses key", key]],
    )
    await remember(
        plain,
        "Erin runs the shop.",
        agent_id="other",
        relations=[["Erin", "runs", "the shop"]],
    )

    stored = await relation_rows(plain_settings)
    assert all(key not in r.object for r in stored)
    assert {r.agent_id for r in stored} == {"default", "other"}
    mine = await read_text(plain, "cortex://relations")
    assert "Dana" in mine and "Erin" not in mine and "```mermaid" in mine


async def test_the_entity_resource_shows_current_and_closed_relations_and_memories(
    plain: Client,
) -> None:
    await ingest(plain, "I live in Berlin.")
    await ingest(plain, "I live in Munich now.")

    entity = await read_json(plain, "cortex://entity/I")
    assert entity["entity"] == "user"
    assert [r["line"] for r in entity["relations"]] == ["user —lives in→ Munich"]
    assert [r["line"] for r in entity["closed_relations"]] == ["user —lives in→ Berlin"]
    states = {m["content"]: m["state"] for m in entity["memories"]}
    assert states["I live in Munich now."] == "live"
    assert states["I live in Berlin."] == "superseded"
    with pytest.raises(MCPError, match="name"):
        await read_text(plain, "cortex://entity/Nobody%20Here")


def test_a_querys_phrases_are_the_keys_it_could_name() -> None:
    found = phrases("Where does Alice's manager, Bob Stone, live?")
    assert {"alice", "bob stone", "manager", "bob"} <= set(found)
    assert "alice's" not in found and "user" not in phrases("where do I live")
    assert {"王伟", "王伟在"} <= set(phrases("王伟在哪里工作"))


async def test_the_users_name_is_an_alias_of_the_user(plain: Client) -> None:
    await ingest(plain, "My name is Wang Wei.")
    await ingest(plain, "I work at Globex.")

    entity = await read_json(plain, "cortex://entity/wang_wei")
    assert entity["entity"] == "wang wei" and "user" in entity["aliases"]
    assert "user —works at→ Globex" in [r["line"] for r in entity["relations"]]
    found = await recall(plain, "where does Wang Wei work")
    assert "I work at Globex." in [m["content"] for m in found["memories"]]


async def test_naming_the_user_lifts_the_relations_that_answer_not_everything_they_have(
    plain: Client,
) -> None:
    for message in ("I'm Priya.", "I work at Globex.", "My cat is called Mochi."):
        exchange = {"user_message": message, "assistant_message": "OK."}
        await plain.call_tool("cortex_ingest", exchange)

    found = [m["content"] for m in (await recall(plain, "where does Priya work"))["memories"]]

    assert found[0] == "I work at Globex."  # by the graph: Priya is the user, who works at it
    assert "My cat is called Mochi." not in found  # the user's cat answers nothing here


def test_a_relation_that_ended_is_drawn_dotted_with_its_end_date_and_a_live_one_solid() -> None:
    at = datetime(2026, 1, 5, 9, tzinfo=UTC)
    live = Relation("r1", "default", "Bob", "uses", "Postgres", 0.9, None, at, at)
    ended = replace(live, id="r2", object="MySQL", valid_to=datetime(2026, 1, 4, tzinfo=UTC))

    page = render_relations([live, ended])

    assert "- Bob ──uses──▶ Postgres\n" in page
    assert "- Bob ──uses──▶ MySQL (ended 2026-01-04)\n" in page
    assert '-->|"uses"|' in page and '-.->|"uses (ended 2026-01-04)"|' in page
