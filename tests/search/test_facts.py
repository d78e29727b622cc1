"""The one definition of "the same fact": restatements are the same, a changed name, place,
item, number or negation never is, in English, Chinese and Japanese."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bench.facts_corpus import distinct_facts, restatements
from cortex_mcp.search.facts import (
    content_tokens,
    names_differ,
    same_statement,
    subjects_differ,
)

SAME = [
    ("I prefer dark mode in my editor", "The user prefers dark mode in the editor."),
    ("I really like tea", "I like tea!"),
    ("I don't like tea", "I do not like tea"),
    ("我很喜欢喝咖啡", "我喜欢喝咖啡。"),
    ("用户喜欢喝咖啡", "我非常喜欢喝咖啡！"),
    ("品川区の1LDK物件の表面利回りは5パーセント", "品川区の1LDK物件の表面利回りも5パーセント。"),
    ("Harry lives in Tokyo", "  harry lives in TOKYO "),
]
DIFFERENT = [
    ("张子涵对花生过敏，聚餐时要注意。", "王子涵对花生过敏，聚餐时要注意。"),
    (
        "Isaac Nelson is allergic to bee stings; carry the medication kit when visiting.",
        "Isaac Baker is allergic to bee stings; carry the medication kit when visiting.",
    ),
    ("Alice Garcia likes hiking", "Carol Garcia likes hiking"),
    ("罗欣怡对青霉素过敏", "胡欣怡对青霉素过敏"),
    ("私は東京に住んでいます", "私は大阪に住んでいます"),
    ("The budget is 50M yen", "The budget is 30M yen"),
    ("I like tea", "I don't like tea"),
    ("I like tea", "My wife likes tea"),
    ("张三喜欢李四", "李四喜欢张三"),
    ("I like tea", "I like tea and coffee"),
]


@pytest.mark.parametrize(("first", "second"), SAME)
def test_restatements_are_the_same_statement(first: str, second: str) -> None:
    assert same_statement(first, second) and same_statement(second, first)


@pytest.mark.parametrize(("first", "second"), DIFFERENT)
def test_a_changed_name_place_item_number_or_negation_is_a_different_fact(
    first: str, second: str
) -> None:
    assert not same_statement(first, second) and not same_statement(second, first)


@pytest.mark.parametrize(
    ("first", "second"),
    DIFFERENT[:6],
)
def test_the_llm_guard_sees_another_person_or_value(first: str, second: str) -> None:
    assert names_differ(first, second)


def test_a_changed_value_of_the_same_subject_is_not_another_subject() -> None:
    assert not subjects_differ("The apartment budget is 50M yen", "The apartment budget is 30M yen")
    assert subjects_differ("Harry lives in Tokyo", "Sally lives in Tokyo")
    assert subjects_differ("田中さんはデータチームのリーダーです", "中村さんがリーダーです")
    assert not subjects_differ(
        "The weekly team sync happens every Tuesday at ten",
        "Weekly team sync happens every Tuesday at ten",
    )


def test_thousands_of_template_facts_are_pairwise_distinct_and_restatements_are_not() -> None:
    facts = distinct_facts(3000, seed=1)
    keys = {(tuple(content_tokens(f.text)), f.text.count("0")) for f in facts}
    assert len({tuple(content_tokens(f.text)) for f in facts}) == len(facts) >= len(keys) - 0
    assert all(same_statement(fact.text, again) for fact, again in restatements(facts, 300))


WORDS = st.sampled_from(
    ["Alice", "Bob", "Tokyo", "Berlin", "tea", "coffee", "likes", "lives", "in", "the", "50", "60"]
)


@given(st.lists(WORDS, min_size=1, max_size=8), st.lists(WORDS, min_size=1, max_size=8))
def test_the_same_statement_is_symmetric_and_needs_the_same_numbers(
    a: list[str], b: list[str]
) -> None:
    first, second = " ".join(a), " ".join(b)
    assert same_statement(first, second) == same_statement(second, first)
    if same_statement(first, second):
        assert {w for w in a if w.isdigit()} == {w for w in b if w.isdigit()}
        assert content_tokens(first) == content_tokens(second)
