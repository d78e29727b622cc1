"""MCP sampling as a provider: a plain async callable, built by the edge from the session."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cortex_mcp.errors import ProviderUnavailable
from cortex_mcp.providers import JSON_ONLY_INSTRUCTION, strip_json_fences
from cortex_mcp.providers.sampling import SamplingLLM


class RecordingSampler:
    """A stand-in for the client's model: answers from a list and records what it was asked."""

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.calls: list[tuple[str, str, int]] = []

    async def __call__(self, system: str, prompt: str, max_tokens: int) -> str:
        self.calls.append((system, prompt, max_tokens))
        return self.answers.pop(0)


async def test_sampling_returns_what_the_client_model_answers():
    sampler = RecordingSampler("The user likes tea.")
    llm = SamplingLLM(sampler)

    completion = await llm.complete("You extract memories.", "I like tea", max_tokens=300)

    assert completion.text == "The user likes tea."
    assert completion.provider == "sampling"
    assert sampler.calls == [("You extract memories.", "I like tea", 300)]
    assert (llm.stats.input_tokens, llm.stats.estimated_cost_usd) == (0, 0)


async def test_sampling_in_json_mode_asks_for_json_and_strips_a_fence():
    sampler = RecordingSampler('```\n{"memories": []}\n```')

    completion = await SamplingLLM(sampler).complete("system", "prompt", json_mode=True)

    assert completion.text == '{"memories": []}'
    assert sampler.calls[0][0] == f"system\n\n{JSON_ONLY_INSTRUCTION}"


async def test_an_empty_sample_is_a_failure():
    with pytest.raises(ProviderUnavailable, match="empty reply"):
        await SamplingLLM(RecordingSampler("")).complete("system", "prompt")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
    max_leaves=10,
)


@given(value=json_values, language=st.sampled_from(["", "json", "JSON"]))
def test_stripping_a_fence_gives_back_the_json(value, language):
    text = json.dumps(value, ensure_ascii=False, indent=2)

    assert json.loads(strip_json_fences(f"```{language}\n{text}\n```\n")) == value
    assert json.loads(strip_json_fences(f"  {text}  ")) == value
