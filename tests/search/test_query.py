"""The FTS5 query builder: any text is a valid MATCH expression and searches for its words."""

import re
import sqlite3
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cortex_mcp.search.query import (
    MAX_EMBEDDED_CHARS,
    embedded_part,
    embedding_query,
    match_expression,
    quote_term,
)
from cortex_mcp.search.tokenize import index_text, query_terms


@pytest.fixture(scope="module")
def fts_db() -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(":memory:")  # noqa: TID251 - a scratch FTS5 table, not the store
    conn.execute(
        "create virtual table t using fts5(terms,"
        " tokenize = 'porter unicode61 remove_diacritics 2')"
    )
    yield conn
    conn.close()


@given(st.text())
@settings(max_examples=400, deadline=None)
def test_any_text_is_a_valid_match_expression(fts_db: sqlite3.Connection, text: str) -> None:
    expression = match_expression(text)
    if expression is not None:
        fts_db.execute("select rowid from t where t match ?", [expression]).fetchall()


@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=30), st.text(max_size=30))
@settings(max_examples=200, deadline=None)
def test_a_two_character_cjk_word_is_found_inside_any_text(
    fts_db: sqlite3.Connection, before: str, after: str
) -> None:
    fts_db.execute("delete from t")
    fts_db.execute(
        "insert into t (rowid, terms) values (1, ?)", [index_text(before + "利回" + after)]
    )

    expression = match_expression("利回")

    assert expression is not None
    assert fts_db.execute("select rowid from t where t match ?", [expression]).fetchall() == [(1,)]


def test_syntax_characters_are_quoted_as_text() -> None:
    assert match_expression('NEAR("x" y) -z*') == '"near" OR "x" OR "y" OR "z"'
    assert quote_term('say "hi"') == '"say ""hi"""'


def test_chinese_runs_become_bigrams_and_single_characters_stay() -> None:
    assert query_terms("品川区") == ["品川", "川区"]
    assert query_terms("区") == ["区"]
    assert query_terms("Oracle 防火墙") == ["oracle", "防火", "火墙"]


def test_stopwords_are_dropped_unless_nothing_else_is_left() -> None:
    assert query_terms("What did the user decide about the budget?") == ["user", "decide", "budget"]
    assert query_terms("the") == ["the"]


def test_a_lone_cjk_function_character_is_dropped_like_an_english_stopword() -> None:
    # 的 alone was searched in a quarter of a Chinese log (bench/results/latency-s11-*.json)
    assert query_terms("Venqulo 的 Zig") == ["venqulo", "zig"]
    assert query_terms("Tokyo の hotel") == ["tokyo", "hotel"]
    assert query_terms("我的猫") == ["我的", "的猫"]  # inside a run it is part of a bigram
    assert query_terms("的") == ["的"]


def test_text_without_searchable_terms_has_no_expression() -> None:
    assert match_expression("  ?!。、 ") is None
    assert match_expression("") is None


def test_index_text_has_single_characters_and_bigrams_of_cjk_runs() -> None:
    assert index_text("我住品川 in Tokyo") == "我 住 品 川 我住 住品 品川 in tokyo"


@pytest.mark.parametrize(
    ("query", "embedded"),
    [
        ("When did Caroline go to the LGBTQ support group?", "Caroline go to LGBTQ support group?"),
        ("What didn't Melanie like about the trip?", "didn't Melanie like about trip?"),
        ("Where is the 2023 offsite?", "2023 offsite?"),
        ("我的猫叫什么名字", "我的猫叫什么名字"),
        ("用户的 name is what", "用户的 name"),
        ("What is it?", "it?"),
        ("What was?", "What was?"),
        ("What did Melanie do in May?", "Melanie in May?"),
        ("Who is Will?", "Will?"),
        ("Is the US office in IT?", "US office in IT?"),
        ("How are my in-laws?", "my in-laws?"),
    ],
)
def test_the_embedder_sees_the_query_without_english_function_words(
    query: str, embedded: str
) -> None:
    assert embedding_query(query) == embedded


def _latin_words(text: str) -> list[str]:
    return re.findall(r"[A-Za-z'’]+", text)


def _all_but_latin_words(text: str) -> str:
    return re.sub(r"[A-Za-z'’\s]", "", text)


@given(st.text())
def test_embedding_drops_whole_latin_words_and_nothing_else(text: str) -> None:
    embedded = embedding_query(text)

    assert _all_but_latin_words(embedded) == _all_but_latin_words(text)
    remaining = iter(_latin_words(text))
    assert all(word in remaining for word in _latin_words(embedded))  # a subsequence


def test_a_long_query_is_embedded_from_its_first_words_however_they_are_spaced() -> None:
    assert embedded_part("short question?") == "short question?"
    words = embedded_part("word " * 100)
    assert len(words) <= MAX_EMBEDDED_CHARS and words.endswith("word")
    # a long token after one word: cut there, not down to the word alone ("see")
    url = embedded_part("see https://example.com/" + "a" * 400)
    assert url.startswith("see https://example.com/") and len(url) == MAX_EMBEDDED_CHARS
