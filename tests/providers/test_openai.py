"""The OpenAI providers, driven through the real SDK against the loopback fake."""

from collections.abc import AsyncIterator

import pytest

from cortex_mcp.errors import ProviderUnavailable
from cortex_mcp.providers.openai import OpenAIChat, OpenAIEmbedder
from tests.fakes import FakeOpenAI
from tests.fakes.concepts import concept_vector


@pytest.fixture
async def chat(fake_openai: FakeOpenAI) -> AsyncIterator[OpenAIChat]:
    provider = OpenAIChat(api_key="sk-test", base_url=fake_openai.url, timeout_s=5)
    yield provider
    await provider.aclose()


async def test_chat_sends_the_system_and_user_prompt_and_returns_the_reply(chat, fake_openai):
    fake_openai.replies.append("Alice prefers tea.")

    completion = await chat.complete("You extract memories.", "I prefer tea", max_tokens=123)

    assert completion.text == "Alice prefers tea."
    assert completion.provider == "openai"
    (request,) = fake_openai.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer sk-test"
    assert request.body["model"] == "gpt-4o-mini"
    assert request.body["messages"] == [
        {"role": "system", "content": "You extract memories."},
        {"role": "user", "content": "I prefer tea"},
    ]
    assert request.body["max_completion_tokens"] == 123
    assert "max_tokens" not in request.body
    assert "response_format" not in request.body


async def test_json_mode_asks_for_a_json_object(chat, fake_openai):
    fake_openai.replies.append('{"memories": []}')

    completion = await chat.complete("system", "prompt", json_mode=True)

    assert completion.text == '{"memories": []}'
    assert fake_openai.requests[0].body["response_format"] == {"type": "json_object"}


async def test_a_compatible_server_is_sent_max_tokens_and_may_need_no_key(fake_openai):
    provider = OpenAIChat(model="llama3.2", base_url=fake_openai.url, compatible=True)
    try:
        completion = await provider.complete("system", "prompt", max_tokens=50)
    finally:
        await provider.aclose()

    assert completion.provider == "openai-compatible"
    body = fake_openai.requests[0].body
    assert body["model"] == "llama3.2"
    assert body["max_tokens"] == 50
    assert "max_completion_tokens" not in body


async def test_tokens_reported_by_the_server_are_counted(chat, fake_openai):
    fake_openai.replies.append("one two three")

    completion = await chat.complete("a b", "c d e")

    assert (completion.input_tokens, completion.output_tokens) == (5, 3)
    assert (chat.stats.input_tokens, chat.stats.output_tokens) == (5, 3)


async def test_a_server_error_becomes_provider_unavailable(chat, fake_openai):
    fake_openai.status = 500

    with pytest.raises(ProviderUnavailable, match=r"^openai: HTTP 500$"):
        await chat.complete("system", "prompt")


async def test_a_body_that_is_not_json_becomes_provider_unavailable(chat, fake_openai):
    fake_openai.malformed = True

    with pytest.raises(ProviderUnavailable, match="JSONDecodeError"):
        await chat.complete("system", "prompt")


async def test_an_unreachable_server_becomes_provider_unavailable():
    provider = OpenAIChat(api_key="sk-test", base_url="http://127.0.0.1:9/v1", timeout_s=5)
    try:
        with pytest.raises(ProviderUnavailable, match="APIConnectionError"):
            await provider.complete("system", "prompt")
    finally:
        await provider.aclose()


@pytest.fixture
async def embedder(fake_openai: FakeOpenAI) -> AsyncIterator[OpenAIEmbedder]:
    provider = OpenAIEmbedder(api_key="sk-test", base_url=fake_openai.url, batch_size=2)
    yield provider
    await provider.aclose()


async def test_embeddings_come_back_in_order_from_batched_requests(embedder, fake_openai):
    texts = ["my car", "汽车", "coffee", "a dog", "猫"]

    vectors = await embedder.embed(texts, kind="passage")

    for text, vector in zip(texts, vectors, strict=True):
        assert vector == pytest.approx(concept_vector(text, 1536))
    assert [request.body["input"] for request in fake_openai.requests] == [
        ["my car", "汽车"],
        ["coffee", "a dog"],
        ["猫"],
    ]
    assert {request.body["encoding_format"] for request in fake_openai.requests} == {"float"}
    assert embedder.dimension == 1536


async def test_no_texts_means_no_request(embedder, fake_openai):
    assert await embedder.embed([], kind="query") == []
    assert fake_openai.requests == []


async def test_an_unknown_model_teaches_its_dimension_on_the_first_response(fake_openai):
    fake_openai.embedding_dimension = 8
    provider = OpenAIEmbedder(model="nomic-embed-text", base_url=fake_openai.url, compatible=True)
    before = provider.dimension
    try:
        vectors = await provider.embed(["tea"], kind="query")
    finally:
        await provider.aclose()

    assert before is None
    assert provider.dimension == 8
    assert len(vectors[0]) == 8
    assert "dimensions" not in fake_openai.requests[0].body


async def test_configured_dimensions_are_requested(fake_openai):
    provider = OpenAIEmbedder(api_key="sk-test", base_url=fake_openai.url, dimensions=256)
    try:
        (vector,) = await provider.embed(["tea"], kind="passage")
    finally:
        await provider.aclose()

    assert provider.dimension == 256
    assert len(vector) == 256
    assert fake_openai.requests[0].body["dimensions"] == 256


async def test_vectors_of_another_length_are_refused(embedder, fake_openai):
    fake_openai.embedding_dimension = 8  # the model is known to give 1536

    with pytest.raises(ProviderUnavailable, match="8-dimensional vector, expected 1536"):
        await embedder.embed(["tea"], kind="passage")


async def test_empty_texts_are_sent_as_a_space(embedder, fake_openai):
    await embedder.embed(["", "tea"], kind="passage")

    assert fake_openai.requests[0].body["input"] == [" ", "tea"]


async def test_embedding_tokens_and_cost_are_counted(embedder, fake_openai):
    await embedder.embed(["one two", "three"], kind="passage")

    assert embedder.stats.input_tokens == 3
    assert embedder.stats.estimated_cost_usd == pytest.approx(3 * 0.02 / 1_000_000)
