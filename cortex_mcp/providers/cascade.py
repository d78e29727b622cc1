"""Providers tried in order, each within its deadline; when all fail the answer is None.

An empty cascade is how "no LLM" and "no embeddings" are represented: `available` is False and
every call answers None at once, so callers have one code path for "degrade".
"""

import logging
from collections.abc import Sequence
from typing import Any

import anyio

from cortex_mcp.errors import ProviderUnavailable
from cortex_mcp.providers import LLM, Completion, Embedder, EmbeddingKind, ProviderStats

logger = logging.getLogger(__name__)

# How a provider call may end besides with an answer: its own failure, our deadline, or (for
# sampling) a client session that went away mid-request.
PROVIDER_FAILURES = (
    ProviderUnavailable,
    TimeoutError,
    anyio.BrokenResourceError,
    anyio.ClosedResourceError,
    anyio.EndOfStream,
)


class LLMCascade:
    """Chat providers in order of preference; the first that answers in time wins."""

    def __init__(
        self, providers: Sequence[LLM] = (), *, timeout_s: float = 20.0, notes: Sequence[str] = ()
    ) -> None:
        self.providers = tuple(providers)
        self.timeout_s = timeout_s
        self.notes = tuple(notes)

    @property
    def available(self) -> bool:
        """Whether any provider is configured."""
        return bool(self.providers)

    async def warm(self) -> None:
        """Load each provider's SDK and client ahead of its first call (#25: importing openai
        on the first extraction slowed the ingests running beside it); a provider that
        cannot load says so on its first call instead."""
        for provider in self.providers:
            warm = getattr(provider, "warm", None)
            if warm is None:
                continue
            try:
                await warm()
            except Exception as error:  # the call that needs it reports it
                logger.debug("warming %s: %s", provider.name, error)

    async def complete(
        self, system: str, prompt: str, *, json_mode: bool = False, max_tokens: int = 800
    ) -> Completion | None:
        """The first provider's answer, or None when every provider failed or timed out."""
        for provider in self.providers:
            started = anyio.current_time()
            try:
                with anyio.fail_after(self.timeout_s):
                    completion = await provider.complete(
                        system, prompt, json_mode=json_mode, max_tokens=max_tokens
                    )
            except PROVIDER_FAILURES as error:
                _record_failure(provider.stats, started, _reason(provider.name, error))
                continue
            provider.stats.record_success(_elapsed_ms(started))
            return completion
        return None

    def snapshot(self) -> dict[str, Any]:
        """Per-provider stats and why providers are missing, for the stats resource."""
        return {
            "providers": [provider.stats.snapshot() for provider in self.providers],
            "notes": list(self.notes),
        }

    async def aclose(self) -> None:
        """Close every provider's client."""
        for provider in self.providers:
            await provider.aclose()


class EmbedderCascade:
    """The one configured embedder, or none.

    Vectors of different models cannot be compared, so there is no fallback to a second model:
    when the embedder fails the answer is None and the caller back-fills later.
    """

    def __init__(
        self, embedder: Embedder | None, *, timeout_s: float = 10.0, note: str | None = None
    ) -> None:
        self.embedder = embedder
        self.timeout_s = timeout_s
        self.note = note

    @property
    def available(self) -> bool:
        """Whether an embedder is configured."""
        return self.embedder is not None

    async def embed(self, texts: list[str], *, kind: EmbeddingKind) -> list[list[float]] | None:
        """One vector per text, or None when there is no embedder or it failed or timed out."""
        if self.embedder is None:
            return None
        started = anyio.current_time()
        try:
            with anyio.fail_after(self.timeout_s):
                vectors = await self.embedder.embed(texts, kind=kind)
        except PROVIDER_FAILURES as error:
            _record_failure(self.embedder.stats, started, _reason(self.embedder.name, error))
            return None
        self.embedder.stats.record_success(_elapsed_ms(started))
        return vectors

    def snapshot(self) -> dict[str, Any]:
        """The embedder's stats (model and dimension included), or why there is none."""
        if self.embedder is None:
            return {"provider": None, "note": self.note}
        return {
            **self.embedder.stats.snapshot(),
            "dimension": self.embedder.dimension,
            "note": self.note,
        }

    async def aclose(self) -> None:
        """Close the embedder's client or release its model."""
        if self.embedder is not None:
            await self.embedder.aclose()


def _elapsed_ms(started: float) -> float:
    return (anyio.current_time() - started) * 1000


def _reason(name: str, error: BaseException) -> str:
    if isinstance(error, ProviderUnavailable):
        return str(error)
    if isinstance(error, TimeoutError):
        return f"{name}: no answer in time"
    return f"{name}: session closed"


def _record_failure(stats: ProviderStats, started: float, reason: str) -> None:
    stats.record_failure(_elapsed_ms(started), reason)
    logger.warning("provider failed, degrading: %s", reason)
