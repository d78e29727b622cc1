"""The query-vector cache keeps each vector packed (#28 item 6: 1.5 KB a float32 vector, not a
list's 12 KB) and gives back exactly the floats the embedder answered."""

from pathlib import Path

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from cortex_mcp.engine.embedding import packed
from cortex_mcp.engine.host import EngineHost
from tests.conftest import FrozenClock
from tests.fakes import FakeOpenAI
from tests.test_hybrid import vector_settings


def test_a_float32_vector_is_packed_in_four_bytes_a_value() -> None:
    vector = np.random.default_rng(7).standard_normal(384).astype(np.float32).tolist()

    kept = packed(vector)

    assert kept.itemsize == 4
    assert kept.tolist() == vector


@given(st.lists(st.floats(allow_nan=False), max_size=64))
def test_any_vector_comes_back_as_the_same_floats(vector: list[float]) -> None:
    assert packed(vector).tolist() == vector


async def test_a_cached_query_vector_has_the_values_the_embedder_answered(
    cortex_home: Path, fake_openai: FakeOpenAI, sdks_imported: None, clock: FrozenClock
) -> None:
    host = EngineHost(vector_settings(cortex_home, fake_openai), clock)
    async with host.use():
        vectors = host.engine.runtime.vectors
        first = await vectors.query_vector("where does Harry work?")
        again = await vectors.query_vector("where does Harry work?")

    assert fake_openai.embedded.count("where does Harry work?") == 1
    assert first is not None and again == first
    assert all(type(value) is float for value in again)
