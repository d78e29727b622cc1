"""One rule for "this text names that value", shared by the correction that replaces a memory
(`ingest.replaced`) and the log lines recall hides once corrected (`recall.corrected`)."""

import pytest

from cortex_mcp.engine.language.naming import names


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
