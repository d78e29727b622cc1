"""The first recall after a start waits a while for the start's back-fill (#25), but a long
back-fill (after `cortex-mcp import` of past sessions, or a model change) must not make every
recall wait: once one recall has waited its limit, the others answer at once while the
back-fill goes on."""

from pathlib import Path

import anyio
import pytest

from cortex_mcp.config import Settings
from cortex_mcp.engine.host import EngineHost
from tests.fakes import FakeOpenAI

pytestmark = pytest.mark.anyio


def with_embedder(home: Path, fake: FakeOpenAI | None) -> Settings:
    """No LLM; OpenAI embeddings from the fake, or none."""
    embedding = (
        {"provider": "openai", "base_url": fake.url, "api_key": "test", "timeout_s": 60}
        if fake
        else {"provider": "none"}
    )
    return Settings.model_validate(
        {"home": home, "llm": {"provider": "none"}, "embedding": embedding}
    )


async def test_once_a_recall_waited_its_limit_no_later_recall_waits(
    cortex_home: Path, fake_openai: FakeOpenAI
) -> None:
    async with EngineHost(with_embedder(cortex_home, None)).use() as engine:
        await engine.ingest("I started a new job as a financial analyst last week.", "Nice!")
    fake_openai.latency_s = 60  # the start's back-fill hangs on its first batch
    async with EngineHost(with_embedder(cortex_home, fake_openai)).use() as engine:
        vectors = engine.runtime.vectors
        assert await anyio.to_thread.run_sync(fake_openai.wait_for_requests, 1)
        assert vectors.started is not None and not vectors.started.is_set()
        await vectors.caught_up_after_start(limit_s=0.2)  # what the first recall does
        assert vectors.started.is_set()  # so the next recalls do not wait
        assert fake_openai.requests[-1].path.endswith("/embeddings")  # still embedding
        found = await engine.recall("financial analyst job")
        assert "financial analyst" in found.context
        fake_openai.release()
