"""The engine's access to a language model: the configured cascade, then the client's sampling.

MCP sampling belongs to one client session, while the engine is shared by every session of the
process; the edge therefore lends the session's `sample` callable for the duration of a tool
call (`lend_sampler`), and the cascade's sampling provider reads it from a context variable.
"""

from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from cortex_mcp.config import LLMSettings
from cortex_mcp.errors import ProviderUnavailable
from cortex_mcp.providers.build import build_llm
from cortex_mcp.providers.cascade import LLMCascade
from cortex_mcp.providers.sampling import Sample

Ask = Callable[[str, str], Awaitable[str | None]]
"""Ask the LLM (system, prompt) for a JSON answer; None when no LLM answered."""

_lent_sampler: ContextVar[Sample | None] = ContextVar("cortex_lent_sampler", default=None)


async def sample_with_lent_session(system: str, prompt: str, max_tokens: int) -> str:
    """Ask the model of the client whose tool call is running, if it lent its sampler."""
    sample = _lent_sampler.get()
    if sample is None:
        raise ProviderUnavailable("sampling: the client offers no sampling")
    return await sample(system, prompt, max_tokens)


@contextmanager
def lend_sampler(sample: Sample | None) -> Iterator[None]:
    """Let the engine ask this client's model while the block runs."""
    token = _lent_sampler.set(sample)
    try:
        yield
    finally:
        _lent_sampler.reset(token)


def unchanged(text: str) -> str:
    """The text as it is."""
    return text


class LanguageModel:
    """Completions for the sieve and the lifecycle; None (never an exception) when none answers."""

    def __init__(self, cascade: LLMCascade, max_tokens: int) -> None:
        self.cascade = cascade
        self.max_tokens = max_tokens
        self.guard: Callable[[str], str] = unchanged
        """The last redaction of every text sent (set by the engine from the settings)."""

    @classmethod
    def from_settings(
        cls, settings: LLMSettings, environ: Mapping[str, str], max_tokens: int
    ) -> "LanguageModel":
        """The cascade the settings and the standard provider variables ask for."""
        return cls(build_llm(settings, environ, sample=sample_with_lent_session), max_tokens)

    @property
    def available(self) -> bool:
        """True when some provider could answer now (a lent sampler counts)."""
        return any(
            provider.name != "sampling" or _lent_sampler.get() is not None
            for provider in self.cascade.providers
        )

    @property
    def answers_in_background(self) -> bool:
        """True when a configured provider (not a client's sampling, which lives only during
        that client's tool call) could answer outside any request: queued work can drain."""
        return any(provider.name != "sampling" for provider in self.cascade.providers)

    async def complete(self, system: str, prompt: str, *, json_mode: bool = True) -> str | None:
        """The first provider's answer, or None when there is none or all failed."""
        if not self.available:
            return None
        completion = await self.cascade.complete(
            self.guard(system), self.guard(prompt), json_mode=json_mode, max_tokens=self.max_tokens
        )
        return completion.text if completion is not None else None

    def decider(self) -> Ask | None:
        """`complete`, when some provider could answer now; else None (the rules decide)."""
        return self.complete if self.available else None

    def snapshot(self) -> dict[str, Any]:
        """Providers in use, their calls, failures, latency, tokens and cost."""
        return self.cascade.snapshot()

    async def aclose(self) -> None:
        """Close the providers' network clients."""
        await self.cascade.aclose()
