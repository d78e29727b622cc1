"""LLM and embedding providers: the only place cortex-mcp talks to the network.

Each provider turns its SDK's failures into `ProviderUnavailable`; the cascades in `cascade.py` turn
those (and timeouts) into `None`, so provider trouble never reaches a tool caller. Providers count
the tokens they consume in their `stats`; cascades count calls, failures and latency there.
"""

import importlib
import sys
from dataclasses import dataclass
from typing import Literal, Protocol

import anyio.to_thread

from cortex_mcp.providers.stats import PRICES_USD_PER_MILLION, Price, ProviderStats, price_for

__all__ = [
    "JSON_ONLY_INSTRUCTION",
    "LLM",
    "PRICES_USD_PER_MILLION",
    "Completion",
    "Embedder",
    "EmbeddingKind",
    "Price",
    "ProviderStats",
    "import_off_loop",
    "price_for",
    "strip_json_fences",
]

EmbeddingKind = Literal["passage", "query"]

JSON_ONLY_INSTRUCTION = (
    "Answer with one JSON value only: no prose before or after it and no Markdown code fences."
)


@dataclass(frozen=True)
class Completion:
    """One model reply and what it cost in tokens (0 when the provider does not say)."""

    text: str
    provider: str
    input_tokens: int = 0
    output_tokens: int = 0


class LLM(Protocol):
    """A chat model that answers one system + user prompt."""

    @property
    def name(self) -> str:
        """Provider name as shown in stats: `anthropic`, `openai`, `openai-compatible`, ..."""

    @property
    def model(self) -> str:
        """Model identifier sent to the provider."""

    @property
    def stats(self) -> ProviderStats:
        """Calls, failures, latency, tokens and cost of this provider."""

    async def complete(
        self, system: str, prompt: str, *, json_mode: bool = False, max_tokens: int = 800
    ) -> Completion:
        """Answer `prompt`; raise `ProviderUnavailable` on any provider failure."""

    async def aclose(self) -> None:
        """Close network clients; the provider is not used afterwards."""


class Embedder(Protocol):
    """A text embedding model; every vector it returns has the same dimension."""

    @property
    def name(self) -> str:
        """Provider name as shown in stats: `openai`, `openai-compatible`, `local`."""

    @property
    def model(self) -> str:
        """Model identifier; vectors of different models are never mixed."""

    @property
    def dimension(self) -> int | None:
        """Vector length, or None until the first response tells."""

    @property
    def stats(self) -> ProviderStats:
        """Calls, failures, latency, tokens and cost of this provider."""

    async def embed(self, texts: list[str], *, kind: EmbeddingKind) -> list[list[float]]:
        """One vector per text, in order; raise `ProviderUnavailable` on any failure."""

    async def aclose(self) -> None:
        """Close network clients and release models."""


def strip_json_fences(text: str) -> str:
    """The reply without a surrounding Markdown code fence (```json ... ```), trimmed."""
    stripped = text.strip()
    if not stripped.startswith("```"):
        return stripped
    first_newline = stripped.find("\n")
    body = stripped[first_newline + 1 :] if first_newline != -1 else stripped[3:]
    if body.rstrip().endswith("```"):
        body = body.rstrip()[:-3]
    return body.strip()


async def import_off_loop(module: str) -> None:
    """Import an SDK in a worker thread the first time it is needed.

    openai and anthropic take a second or more to import: start-up should not pay for that, and
    the event loop should not stall on it. Later `import` statements of the module are free.
    """
    if module not in sys.modules:
        await anyio.to_thread.run_sync(importlib.import_module, module)
