"""One rule for "this text names that value", shared by the correction that replaces a memory
(`ingest.replaced`) and the log lines recall hides once corrected (`recall.corrected`)."""

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cortex_mcp.engine.language.naming import PREFIX_CHARS, names


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("The service uses PostgreSQL 14.", "Postgres"),  # a name of 5+ letters begins a word
        ("billing runs on Postgres 14", "PostgreSQL"),  # and a word of 5+ letters begins it
        ("we keep sessions in Mongo", "MongoDB"),
        ("staging runs on port 8080.", "8080"),
        ("We target Python 3.11 for now", "3.11"),
        ("we use mysql for billing", "MySQL"),  # any case
        ("Go 1.21 everywhere", "Go"),
        ("我们的数据库是MySQL", "MySQL"),
        ("我住在上海", "上海"),  # a CJK value anywhere
        ("MySQL数据库", "MySQL"),
    ],
)
def test_a_text_names_the_value(text: str, value: str) -> None:
    assert names(text, value)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("the dev server is on 80801", "8080"),  # a number is a whole number (found: the two
        ("pinned to 3.11.4", "3.11"),  # modules read numbers apart, one let 8080 name 80801)
        ("Google Cloud", "Go"),  # a short name is a whole word
        ("the frontend is JavaScript", "Java"),  # found re-testing: "not Java" replaced it
        ("the frontend is JavaScript", "JavaScript2"),
        ("we use Post for mail", "PostgreSQL"),  # a word under five letters begins nothing
        ("v3.11 is out", "3.11"),
        ("anything", ""),
    ],
)
def test_a_text_does_not_name_the_value(text: str, value: str) -> None:
    assert not names(text, value)


_ALPHABET_LETTER = r"[^\W\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]"


def _as_one_pattern(text: str, value: str) -> bool:
    """The rule as one regular expression, as it was written before the word edges were checked
    apart (its letter class took 12-19 ms to compile for every new value)."""
    if re.search(r"[\u4e00-\u9fff]", value):
        return value in text
    forms, tail = [re.escape(value)], ""
    if len(value) >= PREFIX_CHARS and not value[:1].isdigit():
        tail = rf"{_ALPHABET_LETTER}*"
        shorter = range(len(value) - 1, PREFIX_CHARS - 1, -1) if value.isalpha() else ()
        forms += [re.escape(value[:end]) for end in shorter]
    alternatives = "|".join([f"{forms[0]}{tail}", *forms[1:]])
    edges = rf"(?<!{_ALPHABET_LETTER})(?<!\.)(?:{alternatives})(?!{_ALPHABET_LETTER})"
    return re.search(rf"{edges}(?![.:/-]?\d)", text, re.IGNORECASE) is not None


@settings(max_examples=400, deadline=None)
@given(
    text=st.text(alphabet="aAbBpP01.:/- _é数あ한", max_size=24),
    value=st.text(alphabet="aAbBpP01.-é数", min_size=1, max_size=8),
)
def test_the_word_edges_checked_apart_are_the_one_patterns(text: str, value: str) -> None:
    assert names(text, value) == _as_one_pattern(text, value)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("aaaaa bbbbbb", "aaaab"),  # a beginning found again one letter on
        ("xpostgres postgresql", "Postgres"),
        ("Postgres14 and Postgres 14", "PostgreSQL"),
        ("v8080 and 8080", "8080"),
        ("3.11.4 then 3.11", "3.11"),
    ],
)
def test_a_later_place_is_found_after_one_that_is_no_word(text: str, value: str) -> None:
    assert names(text, value) == _as_one_pattern(text, value)
