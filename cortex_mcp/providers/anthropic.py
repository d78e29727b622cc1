"""Anthropic's Messages API.

The client never retries (the cascade moves on instead), always times out, opens on first use and
closes in `aclose()`. The key and URL are passed explicitly, so the SDK does not look for
credentials in the environment or in profile files. The SDK itself is imported on first use (see
`import_off_loop`).
"""

from typing import TYPE_CHECKING

from cortex_mcp.errors import ProviderUnavailable
from cortex_mcp.providers import (
    JSON_ONLY_INSTRUCTION,
    Completion,
    ProviderStats,
    import_off_loop,
    price_for,
    strip_json_fences,
)

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic

ANTHROPIC_BASE_URL = "https://api.anthropic.com"
# A proxy reached through ANTHROPIC_BASE_URL may need no key, but the SDK wants one.
PLACEHOLDER_KEY = "not-needed"


class AnthropicChat:
    """Claude through `messages.create`; JSON mode is an instruction plus fence stripping."""

    name = "anthropic"

    def __init__(
        self,
        *,
        model: str = "claude-haiku-4-5",
        api_key: str | None = None,
        base_url: str | None = None,
        timeout_s: float = 20.0,
    ) -> None:
        self.model = model
        self.stats = ProviderStats(self.name, model, price_for(model))
        self._api_key = api_key or PLACEHOLDER_KEY
        self._base_url = base_url or ANTHROPIC_BASE_URL
        self._timeout_s = timeout_s
        self._client: AsyncAnthropic | None = None

    async def _connect(self) -> "AsyncAnthropic":
        if self._client is None:
            await import_off_loop("anthropic")
            from anthropic import AsyncAnthropic

            self._client = AsyncAnthropic(
                api_key=self._api_key,
                base_url=self._base_url,
                timeout=self._timeout_s,
                max_retries=0,
            )
        return self._client

    async def warm(self) -> None:
        """Import the SDK and make the client now, while nothing waits (#25)."""
        await self._connect()

    async def complete(
        self, system: str, prompt: str, *, json_mode: bool = False, max_tokens: int = 800
    ) -> Completion:
        """Ask Claude once; with `json_mode` the reply is asked for, and cleaned to, bare JSON."""
        if json_mode:
            system = f"{system}\n\n{JSON_ONLY_INSTRUCTION}"
        client = await self._connect()  # imports the SDK on first use
        import anthropic

        try:
            message = await client.messages.create(
                model=self.model,
                max_tokens=max_tokens,
                system=system,
                messages=[{"role": "user", "content": prompt}],
            )
        except (anthropic.AnthropicError, ValueError) as error:  # ValueError: a body not JSON
            raise ProviderUnavailable(_reason(error)) from error
        text = "".join(block.text for block in message.content if block.type == "text")
        if not text.strip():
            raise ProviderUnavailable(f"{self.name}: empty reply")
        self.stats.record_tokens(message.usage.input_tokens, message.usage.output_tokens)
        return Completion(
            text=strip_json_fences(text) if json_mode else text,
            provider=self.name,
            input_tokens=message.usage.input_tokens,
            output_tokens=message.usage.output_tokens,
        )

    async def aclose(self) -> None:
        """Close the HTTP client."""
        if self._client is not None:
            client, self._client = self._client, None
            await client.close()


def _reason(error: Exception) -> str:
    """One line naming what went wrong, without the request or the key."""
    import anthropic

    if isinstance(error, anthropic.APIStatusError):
        return f"anthropic: HTTP {error.status_code}"
    return f"anthropic: {type(error).__name__}"
