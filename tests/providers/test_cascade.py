"""The cascades: first configured provider answers, failures fall through, nothing ever raises."""

from collections.abc import AsyncIterator

import anyio
import pytest

from cortex_mcp.errors import ProviderUnavailable
from cortex_mcp.providers import LLM, Completion
from cortex_mcp.providers.anthropic import AnthropicChat
from cortex_mcp.providers.cascade import EmbedderCascade, LLMCascade
from cortex_mcp.providers.openai import OpenAIChat, OpenAIEmbedder
from cortex_mcp.providers.sampling import SamplingLLM
from tests.fakes import FakeAnthropic, FakeOpenAI


@pytest.fixture
async def cascade(
    fake_anthropic: FakeAnthropic, fake_openai: FakeOpenAI
) -> AsyncIterator[LLMCascade]:
    fake_anthropic.replies.append("from claude")
    fake_openai.replies.append("from openai")
    providers: list[LLM] = [
        AnthropicChat(api_key="sk-ant-test", base_url=fake_anthropic.url),
        OpenAIChat(api_key="sk-test", base_url=fake_openai.url),
    ]
    llm = LLMCascade(providers, timeout_s=0.5)
    yield llm
    await llm.aclose()


async def test_the_first_configured_provider_answers(cascade, fake_openai):
    completion = await cascade.complete("system", "prompt")

    assert completion == Completion("from claude", "anthropic", input_tokens=2, output_tokens=2)
    assert fake_openai.requests == []
    claude, openai = cascade.snapshot()["providers"]
    assert (claude["calls"], claude["failures"]) == (1, 0)
    assert openai["calls"] == 0


async def test_a_server_error_falls_through_to_the_next_provider(cascade, fake_anthropic):
    fake_anthropic.status = 500

    completion = await cascade.complete("system", "prompt")

    assert completion is not None
    assert completion.text == "from openai"
    claude, openai = cascade.snapshot()["providers"]
    assert (claude["calls"], claude["failures"], claude["last_error"]) == (
        1,
        1,
        "anthropic: HTTP 500",
    )
    assert (openai["calls"], openai["failures"]) == (1, 0)


async def test_a_slow_provider_is_skipped_after_its_timeout(cascade, fake_anthropic):
    fake_anthropic.latency_s = 60  # released when the test ends

    with anyio.fail_after(5):
        completion = await cascade.complete("system", "prompt")

    assert completion is not None
    assert completion.text == "from openai"
    claude = cascade.snapshot()["providers"][0]
    assert claude["failures"] == 1
    assert claude["last_error"] == "anthropic: no answer in time"


async def test_a_malformed_body_falls_through_to_the_next_provider(cascade, fake_anthropic):
    fake_anthropic.malformed = True

    completion = await cascade.complete("system", "prompt")

    assert completion is not None
    assert completion.provider == "openai"
    assert cascade.snapshot()["providers"][0]["last_error"] == "anthropic: JSONDecodeError"


async def test_when_every_provider_fails_the_answer_is_none(cascade, fake_anthropic, fake_openai):
    fake_anthropic.status = 500
    fake_openai.status = 503

    assert await cascade.complete("system", "prompt") is None
    assert await cascade.complete("system", "prompt") is None

    stats = cascade.snapshot()["providers"]
    assert [(entry["calls"], entry["failures"]) for entry in stats] == [(2, 2), (2, 2)]
    assert stats[1]["last_error"] == "openai: HTTP 503"


async def test_an_empty_cascade_answers_none_and_says_why():
    nothing = LLMCascade(notes=["llm: provider is none"])

    assert not nothing.available
    assert await nothing.complete("system", "prompt") is None
    assert nothing.snapshot() == {"providers": [], "notes": ["llm: provider is none"]}


async def test_a_closed_sampling_session_falls_through():
    async def closed_session(system: str, prompt: str, max_tokens: int) -> str:
        raise anyio.ClosedResourceError

    cascade = LLMCascade([SamplingLLM(closed_session)])

    assert await cascade.complete("system", "prompt") is None
    assert cascade.snapshot()["providers"][0]["last_error"] == "sampling: session closed"


async def test_stats_count_tokens_and_estimate_cost(cascade, fake_anthropic):
    fake_anthropic.status = 500
    fake_openai_reply_tokens = 2  # "from openai"

    await cascade.complete("one two", "three four five")

    openai = cascade.snapshot()["providers"][1]
    assert openai["model"] == "gpt-4o-mini"
    assert (openai["input_tokens"], openai["output_tokens"]) == (5, fake_openai_reply_tokens)
    assert openai["estimated_cost_usd"] == pytest.approx(
        (5 * 0.15 + 2 * 0.60) / 1_000_000, abs=1e-6
    )
    assert "cost_note" not in openai


async def test_a_model_without_a_known_price_costs_nothing_and_says_so(fake_openai):
    provider = OpenAIChat(model="llama3.2", base_url=fake_openai.url, compatible=True)
    cascade = LLMCascade([provider])
    try:
        await cascade.complete("one", "two")
    finally:
        await cascade.aclose()

    (entry,) = cascade.snapshot()["providers"]
    assert entry["input_tokens"] == 2
    assert entry["estimated_cost_usd"] == 0
    assert entry["cost_note"] == "no list price known for llama3.2; cost not estimated"


@pytest.fixture
async def embeddings(fake_openai: FakeOpenAI) -> AsyncIterator[EmbedderCascade]:
    embedder = OpenAIEmbedder(api_key="sk-test", base_url=fake_openai.url, dimensions=16)
    cascade = EmbedderCascade(embedder, timeout_s=0.5, note="embedding: openai")
    yield cascade
    await cascade.aclose()


async def test_the_embedder_cascade_returns_vectors_and_counts_the_call(embeddings):
    vectors = await embeddings.embed(["car", "automobile"], kind="passage")

    assert vectors is not None
    assert vectors[0] == pytest.approx(vectors[1])
    snapshot = embeddings.snapshot()
    assert (snapshot["calls"], snapshot["failures"], snapshot["dimension"]) == (1, 0, 16)


@pytest.mark.parametrize("switch", ["status", "latency_s", "malformed"])
async def test_a_failing_embedder_gives_none(embeddings, fake_openai, switch):
    setattr(fake_openai, switch, {"status": 500, "latency_s": 60, "malformed": True}[switch])

    with anyio.fail_after(5):
        assert await embeddings.embed(["car"], kind="query") is None

    assert embeddings.snapshot()["failures"] == 1


async def test_no_embedder_gives_none_and_says_why():
    nothing = EmbedderCascade(None, note="embedding: provider is none")

    assert not nothing.available
    assert await nothing.embed(["car"], kind="query") is None
    assert nothing.snapshot() == {"provider": None, "note": "embedding: provider is none"}


async def test_a_provider_that_raises_provider_unavailable_is_skipped(fake_openai):
    async def refuses(system: str, prompt: str, max_tokens: int) -> str:
        raise ProviderUnavailable("sampling: client has no sampling capability")

    cascade = LLMCascade(
        [SamplingLLM(refuses), OpenAIChat(api_key="sk-test", base_url=fake_openai.url)]
    )
    try:
        completion = await cascade.complete("system", "prompt")
    finally:
        await cascade.aclose()

    assert completion is not None
    assert completion.provider == "openai"
