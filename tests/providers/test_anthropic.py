"""The Anthropic provider, driven through the real SDK against the loopback fake."""

from collections.abc import AsyncIterator

import pytest

from cortex_mcp.errors import ProviderUnavailable
from cortex_mcp.providers import JSON_ONLY_INSTRUCTION
from cortex_mcp.providers.anthropic import AnthropicChat
from tests.fakes import FakeAnthropic
from tests.fakes.anthropic import sent_key


@pytest.fixture
async def claude(fake_anthropic: FakeAnthropic) -> AsyncIterator[AnthropicChat]:
    provider = AnthropicChat(api_key="sk-ant-test", base_url=fake_anthropic.url, timeout_s=5)
    yield provider
    await provider.aclose()


async def test_messages_carry_the_system_prompt_and_the_user_prompt(claude, fake_anthropic):
    fake_anthropic.replies.append("Noted.")

    completion = await claude.complete("You extract memories.", "I live in Tokyo", max_tokens=99)

    assert completion.text == "Noted."
    assert completion.provider == "anthropic"
    (request,) = fake_anthropic.requests
    assert request.path == "/v1/messages"
    assert sent_key(request) == "sk-ant-test"
    assert request.body["model"] == "claude-haiku-4-5"
    assert request.body["system"] == "You extract memories."
    assert request.body["messages"] == [{"role": "user", "content": "I live in Tokyo"}]
    assert request.body["max_tokens"] == 99


async def test_json_mode_asks_for_bare_json_and_strips_a_fence(claude, fake_anthropic):
    fake_anthropic.replies.append('```json\n{"memories": ["tea"]}\n```')

    completion = await claude.complete("You extract memories.", "I like tea", json_mode=True)

    assert completion.text == '{"memories": ["tea"]}'
    assert fake_anthropic.requests[0].body["system"] == (
        f"You extract memories.\n\n{JSON_ONLY_INSTRUCTION}"
    )


async def test_tokens_and_cost_are_counted_at_list_price(claude, fake_anthropic):
    fake_anthropic.replies.append("one two")

    completion = await claude.complete("a", "b c")

    assert (completion.input_tokens, completion.output_tokens) == (3, 2)
    assert claude.stats.estimated_cost_usd == pytest.approx((3 * 1.00 + 2 * 5.00) / 1_000_000)


@pytest.mark.parametrize("status", [500, 529, 429])
async def test_an_error_status_becomes_provider_unavailable(claude, fake_anthropic, status):
    fake_anthropic.status = status

    with pytest.raises(ProviderUnavailable, match=f"^anthropic: HTTP {status}$"):
        await claude.complete("system", "prompt")


async def test_a_body_that_is_not_json_becomes_provider_unavailable(claude, fake_anthropic):
    fake_anthropic.malformed = True

    with pytest.raises(ProviderUnavailable, match="JSONDecodeError"):
        await claude.complete("system", "prompt")


async def test_an_empty_reply_becomes_provider_unavailable(claude, fake_anthropic):
    fake_anthropic.replies.append("  ")

    with pytest.raises(ProviderUnavailable, match="empty reply"):
        await claude.complete("system", "prompt")
