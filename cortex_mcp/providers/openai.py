"""OpenAI, and any OpenAI-compatible endpoint (Ollama, vLLM, LM Studio): chat and embeddings.

Clients never retry (the cascade moves on instead), always time out, open on first use and close
in `aclose()`. The key and URL are always passed explicitly, so the SDK never reads the
environment on its own. The SDK itself is imported on first use (see `import_off_loop`).
"""

from typing import TYPE_CHECKING

from cortex_mcp.errors import ProviderUnavailable
from cortex_mcp.providers import (
    Completion,
    EmbeddingKind,
    ProviderStats,
    import_off_loop,
    price_for,
)

if TYPE_CHECKING:
    from openai import AsyncOpenAI

OPENAI_BASE_URL = "https://api.openai.com/v1"
# Local servers ignore the key, but the SDK refuses to start without one.
PLACEHOLDER_KEY = "not-needed"
KNOWN_DIMENSIONS = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}


class _Connection:
    """One AsyncOpenAI client, opened on first use."""

    def __init__(self, api_key: str | None, base_url: str | None, timeout_s: float) -> None:
        self._api_key = api_key or PLACEHOLDER_KEY
        self._base_url = base_url or OPENAI_BASE_URL
        self._timeout_s = timeout_s
        self._client: AsyncOpenAI | None = None

    async def client(self) -> "AsyncOpenAI":
        if self._client is None:
            await import_off_loop("openai")
            from openai import AsyncOpenAI

            if self._client is None:  # another caller may have made it during the import
                self._client = AsyncOpenAI(
                    api_key=self._api_key,
                    base_url=self._base_url,
                    timeout=self._timeout_s,
                    max_retries=0,
                )
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            await client.close()


def _reason(name: str, error: Exception) -> str:
    """One line naming what went wrong, without the request or the key."""
    import openai

    if isinstance(error, openai.APIStatusError):
        return f"{name}: HTTP {error.status_code}"
    return f"{name}: {type(error).__name__}"


class OpenAIChat:
    """Chat completions from OpenAI (`compatible=False`) or an OpenAI-compatible server."""

    def __init__(
        self,
        *,
        model: str = "gpt-4o-mini",
        api_key: str | None = None,
        base_url: str | None = None,
        timeout_s: float = 20.0,
        compatible: bool = False,
    ) -> None:
        self.name = "openai-compatible" if compatible else "openai"
        self.model = model
        self.stats = ProviderStats(self.name, model, price_for(model))
        self._compatible = compatible
        self._connection = _Connection(api_key, base_url, timeout_s)

    async def warm(self) -> None:
        """Import the SDK and make the client now, while nothing waits (#25)."""
        await self._connection.client()

    async def complete(
        self, system: str, prompt: str, *, json_mode: bool = False, max_tokens: int = 800
    ) -> Completion:
        """Ask the model once; `json_mode` requests a JSON object response format."""
        client = await self._connection.client()  # imports the SDK on first use
        import openai

        try:
            response = await client.chat.completions.create(
                model=self.model,
                messages=[
                    {"role": "system", "content": system},
                    {"role": "user", "content": prompt},
                ],
                # OpenAI's reasoning models take only max_completion_tokens; many compatible
                # servers know only max_tokens.
                max_tokens=max_tokens if self._compatible else openai.omit,
                max_completion_tokens=openai.omit if self._compatible else max_tokens,
                response_format={"type": "json_object"} if json_mode else openai.omit,
            )
        except (openai.OpenAIError, ValueError) as error:  # ValueError: a body that is not JSON
            raise ProviderUnavailable(_reason(self.name, error)) from error
        if not response.choices or response.choices[0].message.content is None:
            raise ProviderUnavailable(f"{self.name}: empty reply")
        usage = response.usage
        input_tokens = usage.prompt_tokens if usage else 0
        output_tokens = usage.completion_tokens if usage else 0
        self.stats.record_tokens(input_tokens, output_tokens)
        return Completion(
            text=response.choices[0].message.content,
            provider=self.name,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
        )

    async def aclose(self) -> None:
        """Close the HTTP client."""
        await self._connection.aclose()


class OpenAIEmbedder:
    """Embeddings from OpenAI (`compatible=False`) or an OpenAI-compatible server, in batches."""

    def __init__(
        self,
        *,
        model: str = "text-embedding-3-small",
        api_key: str | None = None,
        base_url: str | None = None,
        dimensions: int | None = None,
        batch_size: int = 64,
        timeout_s: float = 10.0,
        compatible: bool = False,
    ) -> None:
        self.name = "openai-compatible" if compatible else "openai"
        self.model = model
        self.dimension: int | None = dimensions or KNOWN_DIMENSIONS.get(model)
        self.stats = ProviderStats(self.name, model, price_for(model))
        self._requested_dimensions = dimensions
        self._batch_size = batch_size
        self._connection = _Connection(api_key, base_url, timeout_s)

    async def embed(self, texts: list[str], *, kind: EmbeddingKind) -> list[list[float]]:
        """One vector per text, in batches; OpenAI models embed queries and passages alike."""
        vectors: list[list[float]] = []
        for start in range(0, len(texts), self._batch_size):
            vectors.extend(await self._embed_batch(texts[start : start + self._batch_size]))
        return vectors

    async def _embed_batch(self, batch: list[str]) -> list[list[float]]:
        client = await self._connection.client()  # imports the SDK on first use
        import openai

        try:
            response = await client.embeddings.create(
                # The API rejects empty strings.
                input=[text or " " for text in batch],
                model=self.model,
                encoding_format="float",
                dimensions=self._requested_dimensions or openai.omit,
            )
        except (openai.OpenAIError, ValueError) as error:  # ValueError: a body that is not JSON
            raise ProviderUnavailable(_reason(self.name, error)) from error
        items = sorted(response.data, key=lambda item: item.index)
        if len(items) != len(batch):
            raise ProviderUnavailable(f"{self.name}: {len(items)} vectors for {len(batch)} texts")
        vectors = [list(item.embedding) for item in items]
        self._check_dimension(vectors)
        if response.usage is not None:
            self.stats.record_tokens(response.usage.prompt_tokens)
        return vectors

    def _check_dimension(self, vectors: list[list[float]]) -> None:
        """Learn the dimension from the first vector; refuse vectors of any other length."""
        for vector in vectors:
            if self.dimension is None:
                self.dimension = len(vector)
            if len(vector) != self.dimension:
                raise ProviderUnavailable(
                    f"{self.name}: {len(vector)}-dimensional vector, expected {self.dimension}"
                )

    async def aclose(self) -> None:
        """Close the HTTP client."""
        await self._connection.aclose()
