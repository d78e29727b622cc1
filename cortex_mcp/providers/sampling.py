"""MCP sampling: the connected client's own model, the last resort of the LLM cascade.

This module does not import `mcp`. The edge (`tools.py`) builds the `Sample` callable from the
session and must turn the session's failures (no sampling capability, a rejected or closed
request) into `ProviderUnavailable`.
"""

from collections.abc import Awaitable, Callable

from cortex_mcp.errors import ProviderUnavailable
from cortex_mcp.providers import (
    JSON_ONLY_INSTRUCTION,
    Completion,
    ProviderStats,
    strip_json_fences,
)
from cortex_mcp.providers.stats import FREE

Sample = Callable[[str, str, int], Awaitable[str]]
"""`sample(system, prompt, max_tokens) -> text`; raises `ProviderUnavailable` when it cannot."""


class SamplingLLM:
    """Asks the MCP client to run its model; tokens are the client's business, so they count 0."""

    name = "sampling"
    model = "client"

    def __init__(self, sample: Sample) -> None:
        self.stats = ProviderStats(self.name, self.model, FREE)
        self._sample = sample

    async def complete(
        self, system: str, prompt: str, *, json_mode: bool = False, max_tokens: int = 800
    ) -> Completion:
        """Whatever the client's model answers; with `json_mode`, asked for and cleaned to JSON."""
        if json_mode:
            system = f"{system}\n\n{JSON_ONLY_INSTRUCTION}"
        text = await self._sample(system, prompt, max_tokens)
        if not text.strip():
            raise ProviderUnavailable(f"{self.name}: empty reply")
        return Completion(text=strip_json_fences(text) if json_mode else text, provider=self.name)

    async def aclose(self) -> None:
        """Nothing to close: the session belongs to the edge."""
