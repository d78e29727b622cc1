"""Dates a text mentions, resolved against a reference day, in English, Chinese and Japanese;
across month and year ends; and how a question about time uses them."""

from datetime import UTC, date, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cortex_mcp.config import SearchSettings
from cortex_mcp.search.dates import (
    asks_when,
    fits,
    mentioned_dates,
    query_spans,
    without_relative_dates,
)
from cortex_mcp.search.query import DateSpan
from cortex_mcp.search.scoring import Relevance, date_boost, with_dated

MONDAY = date(2023, 5, 8)  # a Monday, in the middle of a month
D = date


def span(start: date, end: date) -> DateSpan:
    return DateSpan(start, end)


def day(on: date) -> DateSpan:
    return DateSpan(on, on + timedelta(days=1))


CASES: list[tuple[str, date, list[DateSpan]]] = [
    # English
    ("I went to the support group yesterday", MONDAY, [day(D(2023, 5, 7))]),
    ("the day before yesterday", MONDAY, [day(D(2023, 5, 6))]),
    ("today", MONDAY, [day(MONDAY)]),
    ("tomorrow", MONDAY, [day(D(2023, 5, 9))]),
    ("3 days ago", MONDAY, [day(D(2023, 5, 5))]),
    ("two weeks ago", MONDAY, [span(D(2023, 4, 24), D(2023, 5, 1))]),
    ("a month ago", MONDAY, [span(D(2023, 4, 1), D(2023, 5, 1))]),
    ("two years ago", MONDAY, [span(D(2021, 1, 1), D(2022, 1, 1))]),
    ("last week", MONDAY, [span(D(2023, 5, 1), D(2023, 5, 8))]),
    ("this week", MONDAY, [span(MONDAY, D(2023, 5, 15))]),
    ("next week", MONDAY, [span(D(2023, 5, 15), D(2023, 5, 22))]),
    ("last weekend", MONDAY, [span(D(2023, 5, 6), D(2023, 5, 8))]),
    ("this weekend", MONDAY, [span(D(2023, 5, 13), D(2023, 5, 15))]),
    ("last Friday", MONDAY, [day(D(2023, 5, 5))]),
    ("last Monday", MONDAY, [day(D(2023, 5, 1))]),
    ("next Friday", MONDAY, [day(D(2023, 5, 12))]),
    ("in May", MONDAY, [span(D(2023, 5, 1), D(2023, 6, 1))]),
    ("this May", MONDAY, [span(D(2023, 5, 1), D(2023, 6, 1))]),
    ("last May", MONDAY, [span(D(2022, 5, 1), D(2022, 6, 1))]),
    ("last May", D(2023, 8, 1), [span(D(2023, 5, 1), D(2023, 6, 1))]),
    ("next May", MONDAY, [span(D(2024, 5, 1), D(2024, 6, 1))]),
    ("8 May 2023", D(2020, 1, 1), [day(D(2023, 5, 8))]),
    ("May 8, 2023", D(2020, 1, 1), [day(D(2023, 5, 8))]),
    ("2023-05-08", D(2020, 1, 1), [day(D(2023, 5, 8))]),
    ("May 2023", D(2020, 1, 1), [span(D(2023, 5, 1), D(2023, 6, 1))]),
    ("in 2022", MONDAY, [span(D(2022, 1, 1), D(2023, 1, 1))]),
    # English across month and year ends
    ("last month", D(2024, 1, 15), [span(D(2023, 12, 1), D(2024, 1, 1))]),
    ("next month", D(2023, 12, 31), [span(D(2024, 1, 1), D(2024, 2, 1))]),
    ("yesterday", D(2024, 1, 1), [day(D(2023, 12, 31))]),
    ("tomorrow", D(2024, 2, 28), [day(D(2024, 2, 29))]),
    ("last week", D(2024, 1, 3), [span(D(2023, 12, 25), D(2024, 1, 1))]),
    ("last year", D(2024, 1, 1), [span(D(2023, 1, 1), D(2024, 1, 1))]),
    # Chinese
    ("我昨天去了医院", MONDAY, [day(D(2023, 5, 7))]),
    ("前天", MONDAY, [day(D(2023, 5, 6))]),
    ("今天", MONDAY, [day(MONDAY)]),
    ("明天", MONDAY, [day(D(2023, 5, 9))]),
    ("上周", MONDAY, [span(D(2023, 5, 1), MONDAY)]),
    ("上个星期", MONDAY, [span(D(2023, 5, 1), MONDAY)]),
    ("上个月", MONDAY, [span(D(2023, 4, 1), D(2023, 5, 1))]),
    ("去年", MONDAY, [span(D(2022, 1, 1), D(2023, 1, 1))]),
    ("前年", MONDAY, [span(D(2021, 1, 1), D(2022, 1, 1))]),
    ("下周五", MONDAY, [day(D(2023, 5, 19))]),
    ("上周末", MONDAY, [span(D(2023, 5, 6), MONDAY)]),
    ("三天前", MONDAY, [day(D(2023, 5, 5))]),
    ("两个星期前", MONDAY, [span(D(2023, 4, 24), D(2023, 5, 1))]),
    ("五月", D(2023, 8, 1), [span(D(2023, 5, 1), D(2023, 6, 1))]),
    ("去年五月", MONDAY, [span(D(2022, 5, 1), D(2022, 6, 1))]),
    ("2023年5月8日", D(2020, 1, 1), [day(D(2023, 5, 8))]),
    ("5月8号", MONDAY, [day(D(2023, 5, 8))]),
    ("十二月", MONDAY, [span(D(2023, 12, 1), D(2024, 1, 1))]),
    # Chinese across month and year ends: 上周 on a Monday is the whole week before
    ("上周", D(2024, 1, 1), [span(D(2023, 12, 25), D(2024, 1, 1))]),
    ("上个月", D(2024, 1, 31), [span(D(2023, 12, 1), D(2024, 1, 1))]),
    ("昨天", D(2024, 3, 1), [day(D(2024, 2, 29))]),
    ("去年", D(2024, 1, 1), [span(D(2023, 1, 1), D(2024, 1, 1))]),
    # Japanese
    ("昨日、京都に行った", MONDAY, [day(D(2023, 5, 7))]),
    ("一昨日", MONDAY, [day(D(2023, 5, 6))]),
    ("先週", MONDAY, [span(D(2023, 5, 1), MONDAY)]),
    ("先月", MONDAY, [span(D(2023, 4, 1), D(2023, 5, 1))]),
    ("来週の金曜日", MONDAY, [day(D(2023, 5, 19))]),
    ("先週末", MONDAY, [span(D(2023, 5, 6), MONDAY)]),
    ("3日前", MONDAY, [day(D(2023, 5, 5))]),
    ("３日前", MONDAY, [day(D(2023, 5, 5))]),  # full-width digits
    ("3ヶ月前", MONDAY, [span(D(2023, 2, 1), D(2023, 3, 1))]),
    ("5月", D(2023, 8, 1), [span(D(2023, 5, 1), D(2023, 6, 1))]),
    ("2023年5月8日", D(2020, 1, 1), [day(D(2023, 5, 8))]),
    # Japanese across month and year ends
    ("先月", D(2024, 3, 31), [span(D(2024, 2, 1), D(2024, 3, 1))]),
    ("先月", D(2024, 1, 10), [span(D(2023, 12, 1), D(2024, 1, 1))]),
    ("来週", D(2023, 12, 28), [span(D(2024, 1, 1), D(2024, 1, 8))]),
    ("去年", D(2024, 1, 1), [span(D(2023, 1, 1), D(2024, 1, 1))]),
]


@pytest.mark.parametrize(("text", "at", "expected"), CASES, ids=[c[0] for c in CASES])
def test_a_date_expression_resolves_against_the_reference_day(
    text: str, at: date, expected: list[DateSpan]
) -> None:
    assert mentioned_dates(text, at) == expected


def test_a_longer_expression_is_not_read_again_as_the_shorter_one_inside_it() -> None:
    assert mentioned_dates("the day before yesterday", MONDAY) == [day(D(2023, 5, 6))]
    assert mentioned_dates("下周五", MONDAY) == [day(D(2023, 5, 19))]  # not also 下周
    assert mentioned_dates("2023年5月8日", MONDAY) == [day(MONDAY)]  # not also May


def test_words_that_look_like_dates_are_not_dates() -> None:
    assert mentioned_dates("You may go to the March for Science", MONDAY) == []
    assert mentioned_dates("几月去的？", MONDAY) == []  # 几月 asks which month
    assert mentioned_dates("I have 2 dogs and 3 cats", MONDAY) == []
    assert mentioned_dates("日本周边游很受欢迎", MONDAY) == []  # 本周 inside 日本周边


def test_several_mentions_are_kept_in_order_each_once() -> None:
    text = "Yesterday I booked the flight for next Friday; yesterday was busy"
    assert mentioned_dates(text, MONDAY) == [day(D(2023, 5, 7)), day(D(2023, 5, 12))]


def test_a_datetime_reference_counts_by_its_day() -> None:
    at = datetime(2023, 5, 8, 23, 30, tzinfo=UTC)
    assert mentioned_dates("yesterday", at) == [day(D(2023, 5, 7))]


@given(st.dates(min_value=date(1900, 1, 2), max_value=date(9990, 12, 31)))
def test_relative_days_weeks_and_months_land_where_they_should(at: date) -> None:
    [yesterday] = mentioned_dates("yesterday", at)
    [last_week] = mentioned_dates("上周", at)
    [last_month] = mentioned_dates("先月", at)
    assert yesterday == day(at - timedelta(days=1))
    assert last_week.days == 7 and last_week.start.weekday() == 0
    assert last_week.holds(at - timedelta(days=7))
    assert last_month.start.day == 1 and last_month.holds(at.replace(day=1) - timedelta(days=1))
    assert last_month.end == at.replace(day=1)


def test_questions_about_time_are_recognised_in_three_languages() -> None:
    for question in (
        "When did Caroline go to the support group?",
        "他什么时候去的？",
        "几月去的",
        "いつ行った？",
    ):
        assert asks_when(question)
    assert not asks_when("Where does Caroline live?")
    assert not asks_when("她住在哪里？")


def test_a_query_resolves_relative_dates_against_now_with_a_day_of_slack() -> None:
    now = datetime(2024, 1, 3, 12, tzinfo=UTC)
    assert query_spans("what did I do last week", now) == [span(D(2023, 12, 25), D(2024, 1, 1))]
    assert query_spans("先月何をした", now) == [span(D(2023, 12, 1), D(2024, 1, 1))]
    assert query_spans("昨天我做了什么", now) == [span(D(2024, 1, 1), D(2024, 1, 4))]
    assert query_spans("on 8 May, 2023", now) == [span(D(2023, 5, 7), D(2023, 5, 10))]


def test_a_mention_fits_a_span_it_overlaps_and_is_no_coarser_than() -> None:
    last_week = [span(D(2023, 5, 1), MONDAY)]
    assert fits(day(D(2023, 5, 7)), last_week)
    assert not fits(day(MONDAY), last_week)
    assert not fits(span(D(2023, 1, 1), D(2024, 1, 1)), last_week)  # "this year" is coarser


def test_the_date_boost_lifts_a_memory_whose_mentioned_date_falls_in_the_query_span() -> None:
    settings = SearchSettings()
    made = datetime(2023, 5, 8, 10, tzinfo=UTC)
    last_week = [span(D(2023, 5, 1), MONDAY)]
    lifted = 1 + settings.date_boost
    assert date_boost(made, last_week, settings, [day(D(2023, 5, 7))]) == lifted
    assert date_boost(made, last_week, settings, [day(D(2023, 5, 9))]) == 1.0
    assert date_boost(made, last_week, settings) == 1.0
    when = SearchSettings(when_boost=0.5)
    assert date_boost(made, [], when, [day(D(2023, 5, 7))], when=True) == 1.5
    assert date_boost(made, [], when, [], when=True) == 1.0


def test_relative_date_words_leave_the_text_query_but_absolute_ones_stay() -> None:
    assert without_relative_dates("what did I do last week").split() == ["what", "did", "I", "do"]
    assert without_relative_dates("上周我做了什么").strip() == "我做了什么"
    assert without_relative_dates("先週何をした").strip() == "何をした"
    kept = "What did she paint in May 2023?"
    assert without_relative_dates(kept) == kept


def test_a_memory_found_by_its_date_alone_gets_the_dated_relevance_and_no_less() -> None:
    settings = SearchSettings(dated_relevance=0.25)
    found = {"weak": Relevance(fused_score=0.1), "strong": Relevance(fused_score=0.9)}
    lifted = with_dated(found, ["weak", "strong", "dated"], settings)
    assert {key: r.fused_score for key, r in lifted.items()} == {
        "weak": 0.25,
        "strong": 0.9,
        "dated": 0.25,
    }
