"""The context a memory is remembered with: searched with it, ranked below its content, never
shown as part of it, and no part of what makes two memories the same."""

import pytest
from mcp import Client

from cortex_mcp.config import Settings
from tests.conftest import FrozenClock, data_of, inspect_database, recall, remember, text_of

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]

ANSWER = "Caroline: Yes, it was so powerful, I felt accepted for the first time"
QUESTION = "Melanie: Did you go to the LGBTQ support group yesterday?"


async def test_a_memory_is_found_by_words_only_its_context_has(client: Client) -> None:
    stored = await remember(client, ANSWER, context=QUESTION)
    await remember(client, "Melanie painted a sunrise over the lake last week")

    found = await recall(client, "When did Caroline go to the LGBTQ support group?")

    assert [m["id"] for m in found["memories"]][:1] == [stored["id"]]
    assert found["memories"][0]["content"] == ANSWER
    assert "support group" not in found["context"]


async def test_words_in_the_content_count_more_than_the_same_words_in_a_context(
    client: Client,
) -> None:
    in_context = await remember(client, "Yes, every Saturday morning", context="Do you go hiking?")
    in_content = await remember(client, "Melanie goes hiking with her kids in the mountains")

    found = await recall(client, "hiking")

    assert [m["id"] for m in found["memories"]] == [in_content["id"], in_context["id"]]


async def test_the_context_is_kept_in_metadata_and_shown_on_the_memory_resource(
    client: Client, settings: Settings
) -> None:
    stored = await remember(client, ANSWER, context=f"  {QUESTION}\n")

    with inspect_database(settings.database_path) as conn:
        metadata = conn.execute(
            "select json_extract(metadata, '$.context') from memories where id = ?",
            (stored["id"],),
        ).fetchone()[0]
    resource = await client.read_resource(f"cortex://memory/{stored['id']}")

    assert metadata == QUESTION
    assert QUESTION in resource.contents[0].text  # type: ignore[union-attr]


async def test_a_shared_context_does_not_make_two_memories_duplicates(client: Client) -> None:
    first = await remember(client, "The staging database is PostgreSQL", context="infra chat")
    second = await remember(client, "Deploys go out on Tuesdays", context="infra chat")

    assert second["action"] == "created" and second["id"] != first["id"]


async def test_a_context_over_the_limit_is_refused_by_name_and_stores_nothing(
    client: Client, settings: Settings
) -> None:
    result = await client.call_tool(
        "cortex_remember",
        {"content": "short fact", "context": "x" * (settings.memory.max_content_chars + 1)},
    )

    assert result.is_error
    assert "context" in text_of(result) and "limit" in text_of(result)
    with inspect_database(settings.database_path) as conn:
        assert conn.execute("select count(*) from memories").fetchone()[0] == 0


async def test_search_debug_shows_the_date_boost_of_a_memory_made_on_the_named_day(
    client: Client, clock: FrozenClock
) -> None:
    await remember(client, "We adopted a puppy called Oscar")  # on 1 January 2026
    clock.advance(days=40)
    await remember(client, "The puppy Oscar learned to sit")

    async def scores(query: str) -> dict[str, dict[str, float]]:
        debug = data_of(await client.call_tool("cortex_search_debug", {"query": query}))
        return {c["memory"]["content"]: c["score"] for c in debug["candidates"]}

    dated = await scores("What did we do with the puppy Oscar on 1 January, 2026?")
    undated = await scores("What did we do with the puppy Oscar?")

    assert dated["We adopted a puppy called Oscar"]["date_boost"] == 2.0
    assert dated["The puppy Oscar learned to sit"]["date_boost"] == 1.0
    assert {s["date_boost"] for s in undated.values()} == {1.0}
