"""The two Snowball stemmers load alone (#28 item 6) and stem as snowballstemmer's do."""

import subprocess
import sys

import pytest
import snowballstemmer  # type: ignore[import-untyped]
from hypothesis import given
from hypothesis import strategies as st

from cortex_mcp.search.snowball import snowball

WORDS = ["running", "generously", "relational", "caresses", "ponies", "Lisbon", "naïve", "a"]


@pytest.mark.parametrize("language", ["porter", "english"])
def test_a_stemmer_stems_as_snowballstemmers_own(language: str) -> None:
    ours, theirs = snowball(language), snowballstemmer.stemmer(language)

    assert [ours.stemWord(w) for w in WORDS] == [theirs.stemWord(w) for w in WORDS]


@given(st.text(alphabet=st.characters(categories=["Ll", "Lu"]), max_size=30))
def test_any_word_gets_the_same_stems(word: str) -> None:
    for language in ("porter", "english"):
        assert snowball(language).stemWord(word) == snowballstemmer.stemmer(language).stemWord(word)


def test_searchs_stemmers_load_without_the_other_languages() -> None:
    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, cortex_mcp.search.stemming, cortex_mcp.search.facts;"
            "print(' '.join(m for m in sys.modules if 'stemmer' in m))",
        ],
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=True,
    ).stdout.split()

    assert "snowballstemmer" not in loaded
    assert sorted(name.rsplit(".", 1)[-1] for name in loaded if "." in name) == [
        "among",
        "basestemmer",
        "english_stemmer",
        "porter_stemmer",
    ]


def test_another_layout_of_the_package_falls_back_to_loading_it_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a later snowballstemmer that renamed its modules must not break search
    import importlib

    real = importlib.import_module

    def renamed(name: str, package: str | None = None) -> object:
        if name.endswith("_stemmer") and "snowball" in name:
            raise ModuleNotFoundError(name)
        return real(name, package)

    monkeypatch.setattr(importlib, "import_module", renamed)

    assert snowball("english").stemWord("running") == "run"
