"""Zero-config choice of providers from the settings and the ecosystem's standard variables.

A provider is used only when it is configured: ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL,
OPENAI_API_KEY / OPENAI_BASE_URL (an OpenAI-compatible server is reached by its base URL alone),
overridden by the cortex settings. Sampling comes last and only when the edge can offer it. The
environment is passed in, because only `config.py` reads `os.environ`; nothing here touches the
network (clients open on first use).
"""

from collections.abc import Mapping

from pydantic import SecretStr

from cortex_mcp.config import EmbeddingSettings, LLMSettings
from cortex_mcp.providers import LLM, Embedder
from cortex_mcp.providers.anthropic import AnthropicChat
from cortex_mcp.providers.cascade import EmbedderCascade, LLMCascade
from cortex_mcp.providers.local import LocalEmbedder, local_embeddings_available
from cortex_mcp.providers.openai import OPENAI_BASE_URL, OpenAIChat, OpenAIEmbedder
from cortex_mcp.providers.sampling import Sample, SamplingLLM


def _credentials(
    key: SecretStr | None, url: str | None, environ: Mapping[str, str], prefix: str
) -> tuple[str | None, str | None]:
    """The key and base URL: the cortex setting if given, else `<PREFIX>_API_KEY` / `_BASE_URL`."""
    api_key = key.get_secret_value() if key else environ.get(f"{prefix}_API_KEY")
    base_url = url or environ.get(f"{prefix}_BASE_URL")
    return api_key or None, base_url or None


def _is_compatible(base_url: str | None) -> bool:
    return base_url is not None and base_url.rstrip("/") != OPENAI_BASE_URL


def build_llm(
    settings: LLMSettings, environ: Mapping[str, str], sample: Sample | None = None
) -> LLMCascade:
    """The chat cascade the settings and environment ask for; empty (with notes) if none."""
    auto = settings.provider == "auto"
    names = list(dict.fromkeys(settings.order)) if auto else [settings.provider]
    providers: list[LLM] = []
    notes: list[str] = []
    for name in names:
        chosen = _llm_provider(name, settings, environ, sample, auto=auto)
        if isinstance(chosen, str):
            notes.append(chosen)
        else:
            providers.append(chosen)
    return LLMCascade(providers, timeout_s=settings.timeout_s, notes=notes)


def _llm_provider(
    name: str,
    settings: LLMSettings,
    environ: Mapping[str, str],
    sample: Sample | None,
    *,
    auto: bool,
) -> LLM | str:
    """The provider called `name`, or a note saying why it is not used."""
    if name == "none":
        return "llm: provider is none"
    if name == "sampling":
        return SamplingLLM(sample) if sample else "sampling: the client offers no sampling"
    if name == "anthropic":
        # With `auto`, llm.api_key / llm.base_url belong to OpenAI, not Anthropic.
        key, url = _credentials(
            None if auto else settings.api_key,
            None if auto else settings.base_url,
            environ,
            "ANTHROPIC",
        )
        if not key and not url:
            return "anthropic: no ANTHROPIC_API_KEY or ANTHROPIC_BASE_URL"
        return AnthropicChat(
            model=settings.anthropic_model, api_key=key, base_url=url, timeout_s=settings.timeout_s
        )
    key, url = _credentials(settings.api_key, settings.base_url, environ, "OPENAI")
    if name == "openai-compatible" and not url:
        return "openai-compatible: no llm.base_url or OPENAI_BASE_URL"
    if not key and not url:
        return "openai: no OPENAI_API_KEY or OPENAI_BASE_URL"
    compatible = name == "openai-compatible" or (auto and _is_compatible(url))
    return OpenAIChat(
        model=settings.openai_model,
        api_key=key,
        base_url=url,
        timeout_s=settings.timeout_s,
        compatible=compatible,
    )


def choose_embedder(
    settings: EmbeddingSettings, environ: Mapping[str, str]
) -> tuple[Embedder | None, str]:
    """The embedder the settings and environment ask for (or None), and one line saying why."""
    if settings.provider == "none":
        return None, "embedding: provider is none; keyword search only"
    if settings.provider == "local":
        return LocalEmbedder(num_threads=settings.local_threads), "embedding: local, as configured"
    key, url = _credentials(settings.api_key, settings.base_url, environ, "OPENAI")
    if settings.provider == "openai-compatible" and not url:
        return None, "embedding: openai-compatible needs embedding.base_url or OPENAI_BASE_URL"
    if key or url:
        compatible = settings.provider == "openai-compatible" or (
            settings.provider == "auto" and _is_compatible(url)
        )
        embedder = OpenAIEmbedder(
            model=settings.model,
            api_key=key,
            base_url=url,
            dimensions=settings.dimensions,
            batch_size=settings.batch_size,
            timeout_s=settings.timeout_s,
            compatible=compatible,
        )
        return embedder, f"embedding: {embedder.name} {settings.model}"
    if settings.provider == "openai":
        return None, "embedding: openai needs OPENAI_API_KEY or OPENAI_BASE_URL"
    if local_embeddings_available():
        return (
            LocalEmbedder(num_threads=settings.local_threads),
            "embedding: local, since no OpenAI key or base URL is set",
        )
    return None, "embedding: no OpenAI key or base URL and no local model; keyword search only"


def build_embedder(settings: EmbeddingSettings, environ: Mapping[str, str]) -> Embedder | None:
    """The embedder the settings and environment ask for, or None (keyword search only)."""
    return choose_embedder(settings, environ)[0]


def build_embedder_cascade(
    settings: EmbeddingSettings, environ: Mapping[str, str]
) -> EmbedderCascade:
    """`build_embedder` wrapped with its timeout and the reason for the choice, for stats."""
    embedder, note = choose_embedder(settings, environ)
    return EmbedderCascade(embedder, timeout_s=settings.timeout_s, note=note)
