"""Semantic recall: vectors from the fake OpenAI embeddings, fused with BM25; degradation."""

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp_types import CreateMessageRequestParams, CreateMessageResult, TextContent

from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import open_engine
from cortex_mcp.engine.host import EngineHost
from cortex_mcp.server import build_server
from tests.conftest import FrozenClock, data_of, read_json, recall, remember, text_of
from tests.fakes import FakeOpenAI
from tests.postgres import vector_backend

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]


def vector_settings(home: Path, fake: FakeOpenAI, **embedding: Any) -> Settings:
    return Settings.model_validate(
        {
            "home": home,
            "llm": {"provider": "none"},
            "embedding": {
                "provider": "openai",
                "base_url": fake.url,
                "api_key": "test",
                "dimensions": 64,
                "timeout_s": 5,
                **embedding,
            },
        }
    )


@pytest.fixture
async def vector_host(
    cortex_home: Path, fake_openai: FakeOpenAI, sdks_imported: None, clock: FrozenClock
) -> EngineHost:
    return EngineHost(vector_settings(cortex_home, fake_openai), clock)


@pytest.fixture
async def vector_client(vector_host: EngineHost, clock: FrozenClock) -> AsyncIterator[Client]:
    settings = vector_host.settings
    async with Client(build_server(settings, clock, host=vector_host)) as client:
        yield client


async def embedded(host: EngineHost) -> None:
    """Wait until the background loop has embedded what was just written."""
    with anyio.fail_after(10):
        while (await host.engine.stats())["vectors"]["without_vectors"]:
            await host.engine.runtime.passes.wait_beyond(host.engine.runtime.passes.count)


async def test_a_memory_with_no_word_in_common_is_found_by_vector_search_not_bm25(
    vector_client: Client, vector_host: EngineHost
) -> None:
    car = await remember(vector_client, "Harry drives a blue automobile to work every day")
    await remember(vector_client, "The quarterly report is due next Friday")
    await embedded(vector_host)

    found = await recall(vector_client, "汽车")
    debug = json.loads(
        text_of(await vector_client.call_tool("cortex_search_debug", {"query": "汽车"}))
    )

    assert found["memories"][0]["id"] == car["id"]
    top = debug["candidates"][0]
    assert top["memory"]["id"] == car["id"]
    assert top["score"]["bm25"] is None and top["score"]["vector_distance"] is not None
    assert {b["name"]: b["available"] for b in debug["backends"]} == {
        "fts5-bm25": True,
        vector_backend(): True,
    }


async def test_the_embedder_is_sent_the_whole_question_by_default(
    vector_client: Client, vector_host: EngineHost, fake_openai: FakeOpenAI
) -> None:
    car = await remember(vector_client, "Harry drives a blue automobile to work every day")
    await embedded(vector_host)

    found = await recall(vector_client, "What did Harry use to get to the office?")

    assert fake_openai.embedded[-1] == "What did Harry use to get to the office?"
    assert found["memories"][0]["id"] == car["id"]


async def test_with_drop_function_words_the_embedder_is_sent_the_question_without_them(
    cortex_home: Path, fake_openai: FakeOpenAI, sdks_imported: None, clock: FrozenClock
) -> None:
    settings = vector_settings(cortex_home, fake_openai, drop_function_words=True)
    host = EngineHost(settings, clock)
    async with Client(build_server(settings, clock, host=host)) as client:
        car = await remember(client, "Harry drives a blue automobile to work every day")
        await embedded(host)
        found = await recall(client, "What did Harry use to get to the office?")

    assert fake_openai.embedded[-1] == "Harry use to get to office?"
    assert found["memories"][0]["id"] == car["id"]


async def test_stats_report_vector_coverage_and_provider_calls(
    vector_client: Client, vector_host: EngineHost
) -> None:
    await remember(vector_client, "A memory about coffee")
    await embedded(vector_host)

    stats = await read_json(vector_client, "cortex://stats")

    assert stats["vectors"]["with_vectors"] == 1 and stats["vectors"]["without_vectors"] == 0
    assert stats["vectors"]["model"] == "text-embedding-3-small"
    assert stats["vectors"]["dimension"] == 64
    assert stats["search"]["mode"] == "hybrid (bm25 + vectors)"
    embedding = stats["providers"]["embedding"]
    assert embedding["calls"] >= 1 and embedding["failures"] == 0
    assert embedding["input_tokens"] > 0 and embedding["estimated_cost_usd"] >= 0


async def test_all_providers_down_recall_answers_bm25_only_and_remember_still_stores(
    cortex_home: Path, fake_openai: FakeOpenAI, sdks_imported: None, clock: FrozenClock
) -> None:
    fake_openai.status = 500
    settings = Settings.model_validate(
        {
            **vector_settings(cortex_home, fake_openai).model_dump(),
            "llm": {"provider": "openai", "base_url": fake_openai.url, "api_key": "test"},
        }
    )
    host = EngineHost(settings, clock)
    async with Client(build_server(settings, clock, host=host)) as client:
        stored = await remember(client, "The deploy key rotates every 90 days")
        found = await recall(client, "deploy key")
        ingested = data_of(
            await client.call_tool(
                "cortex_ingest",
                {"user_message": "I prefer short answers.", "assistant_message": "OK"},
            )
        )
        passes = host.engine.runtime.passes
        with anyio.fail_after(10):  # the deep channel and the back-fill try in the background
            while not (
                (stats := await read_json(client, "cortex://stats"))["providers"]["llm"][
                    "providers"
                ][0]["failures"]
                and stats["providers"]["embedding"]["failures"]
            ):
                await passes.wait_beyond(passes.count)

    assert [m["id"] for m in found["memories"]] == [stored["id"]]
    assert ingested["fast"][0]["category"] == "preference" and ingested["queued"] is True
    assert stats["search"]["mode"] == "bm25 only"
    assert stats["vectors"]["without_vectors"] >= 1
    assert stats["providers"]["embedding"]["failures"] >= 1
    assert stats["providers"]["llm"]["providers"][0]["failures"] >= 1


async def test_memories_written_while_embeddings_were_down_are_back_filled(
    cortex_home: Path, fake_openai: FakeOpenAI, sdks_imported: None, clock: FrozenClock
) -> None:
    settings = vector_settings(cortex_home, fake_openai)
    async with open_engine(settings, clock) as engine:
        fake_openai.status = 500
        await engine.remember("The cat sleeps on the piano")
        down = await engine.stats()
        fake_openai.status = 200

        assert await engine.vectors.backfill() == 1
        await engine.vectors.backfill()
        up = await engine.stats()
        found = await engine.recall("kitten")

    assert down["vectors"]["without_vectors"] == 1
    assert up["vectors"] == {**up["vectors"], "with_vectors": 1, "without_vectors": 0}
    assert found.memories[0].content == "The cat sleeps on the piano"


async def test_a_new_embedding_model_re_embeds_everything_while_search_stays_bm25(
    cortex_home: Path, fake_openai: FakeOpenAI, sdks_imported: None, clock: FrozenClock
) -> None:
    async with open_engine(vector_settings(cortex_home, fake_openai), clock) as engine:
        for text in ["coffee every morning", "tea in the afternoon", "a dog named Rex"]:
            await engine.remember(text)
    new_model = vector_settings(
        cortex_home, fake_openai, model="text-embedding-3-large", dimensions=32
    )
    host = EngineHost(new_model, clock)
    async with Client(build_server(new_model, clock, host=host)) as client:
        with anyio.fail_after(10):
            await host.engine.runtime.passes.wait_beyond(0)
        stats = await read_json(client, "cortex://stats")
        found = await recall(client, "puppy")

    assert stats["vectors"]["model"] == "text-embedding-3-large"
    assert stats["vectors"]["dimension"] == 32
    assert stats["vectors"]["with_vectors"] == 3 and stats["vectors"]["reembedding"] is False
    assert found["memories"][0]["content"] == "a dog named Rex"


async def test_search_stays_bm25_only_until_the_new_model_has_a_first_vector(
    cortex_home: Path, fake_openai: FakeOpenAI, sdks_imported: None, clock: FrozenClock
) -> None:
    async with open_engine(vector_settings(cortex_home, fake_openai), clock) as engine:
        await engine.remember("a dog named Rex")
    fake_openai.status = 500  # the new model cannot embed yet
    new_model = vector_settings(cortex_home, fake_openai, model="other-model", dimensions=32)
    async with open_engine(new_model, clock) as engine:
        await engine.vectors.backfill()
        debug = await engine.search_debug("puppy")
        stats = await engine.stats()

    vector_search = next(b for b in debug.backends if b.name == vector_backend())
    assert not vector_search.available
    assert stats["search"]["mode"] == "bm25 only" and stats["vectors"]["reembedding"] is True


async def test_vector_search_answers_for_each_memory_as_soon_as_it_has_its_vector(
    cortex_home: Path, fake_openai: FakeOpenAI, sdks_imported: None, clock: FrozenClock
) -> None:
    async with open_engine(vector_settings(cortex_home, fake_openai), clock) as engine:
        await engine.remember("The cat sleeps on the piano")
        await engine.vectors.backfill()
        await engine.recall("kitten")  # the query's vector is kept in the query cache
        fake_openai.status = 500  # the next memory waits for the back-fill
        await engine.remember("The deploy key rotates every 90 days")
        stats = await engine.stats()
        found = await engine.recall("kitten")
        debug = await engine.search_debug("kitten")

    assert stats["search"]["mode"] == "hybrid (bm25 + vectors)"
    assert stats["vectors"]["waiting"] == 1 and stats["vectors"]["with_vectors"] == 1
    assert next(b for b in debug.backends if b.name == vector_backend()).available
    assert found.memories[0].content == "The cat sleeps on the piano"


async def test_a_query_is_not_embedded_while_the_vectors_cannot_answer_it(
    cortex_home: Path, fake_openai: FakeOpenAI, sdks_imported: None, clock: FrozenClock
) -> None:
    async with open_engine(vector_settings(cortex_home, fake_openai), clock) as engine:
        await engine.remember("a dog named Rex")
    new_model = vector_settings(cortex_home, fake_openai, model="other-model", dimensions=32)
    async with open_engine(new_model, clock) as engine:  # no back-fill has run for it yet
        fake_openai.embedded.clear()
        found = await engine.recall("dog")

    assert [m.content for m in found.memories] == ["a dog named Rex"]
    assert fake_openai.embedded == []  # no request whose answer would be thrown away


async def test_mcp_sampling_answers_for_the_sieve_when_the_client_offers_it(
    cortex_home: Path, clock: FrozenClock
) -> None:
    asked: list[str] = []

    async def sampling(context: Any, params: CreateMessageRequestParams) -> CreateMessageResult:
        content = params.messages[0].content
        asked.append(content.text if isinstance(content, TextContent) else "")
        item = {"content": "用户在东京工作", "category": "identity", "importance": 0.9}
        reply = json.dumps({"memories": [item]}, ensure_ascii=False)
        return CreateMessageResult(
            role="assistant", content=TextContent(type="text", text=reply), model="client-model"
        )

    settings = Settings.model_validate(
        {"home": cortex_home, "llm": {"provider": "sampling"}, "embedding": {"provider": "none"}}
    )
    # Sampling needs a back-channel for server-initiated requests: the handshake-era protocol.
    async with Client(
        build_server(settings, clock), sampling_callback=sampling, mode="legacy"
    ) as client:
        result = data_of(
            await client.call_tool(
                "cortex_ingest",
                {
                    "user_message": "我在东京的一家银行上班，负责风控系统",
                    "assistant_message": "了解。",
                },
            )
        )
        stats = await read_json(client, "cortex://stats")

    assert len(asked) == 1 and "我在东京的一家银行上班" in asked[0]
    assert [m["content"] for m in result["deep"]] == ["用户在东京工作"]
    assert stats["providers"]["llm"]["providers"][0]["provider"] == "sampling"
