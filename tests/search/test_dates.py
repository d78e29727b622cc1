"""Dates a query names, and the boost they give memories made then."""

from datetime import UTC, date, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from cortex_mcp.config import SearchSettings
from cortex_mcp.search.query import DateSpan, query_dates
from cortex_mcp.search.scoring import date_boost

SETTINGS = SearchSettings()


def days_of(text: str) -> list[tuple[date, date]]:
    return [(span.start, span.end) for span in query_dates(text)]


def test_a_named_day_spans_it_with_a_day_of_slack_either_side() -> None:
    expected = [(date(2022, 2, 24), date(2022, 2, 27))]
    assert days_of("What did Nate make on 25 February, 2022?") == expected
    assert days_of("What did Nate make on February 25th, 2022?") == expected
    assert days_of("the 25th of Feb 2022") == expected
    assert days_of("notes from 2022-02-25") == expected


def test_a_named_month_spans_the_whole_month() -> None:
    assert days_of("What did Maria start in December 2023?") == [
        (date(2023, 12, 1), date(2024, 1, 1))
    ]
    assert days_of("in Sept. 2021") == [(date(2021, 9, 1), date(2021, 10, 1))]


def test_a_bare_year_spans_the_year() -> None:
    assert days_of("How often did she go to the beach in 2023?") == [
        (date(2023, 1, 1), date(2024, 1, 1))
    ]


def test_only_the_most_precise_kind_of_date_counts() -> None:
    assert days_of("on 8 May 2023, not in 2022") == [(date(2023, 5, 7), date(2023, 5, 10))]


def test_text_without_a_date_names_none() -> None:
    assert query_dates("When did Caroline go to the support group?") == []
    assert query_dates("camping in June") == []  # no year: too vague to favour anything
    assert query_dates("I may 2 go") == []


def test_an_impossible_day_falls_back_to_its_month() -> None:
    assert days_of("31 February, 2022") == [(date(2022, 2, 1), date(2022, 3, 1))]


@given(st.text(max_size=200))
@settings(max_examples=400, deadline=None)
def test_any_text_gives_well_formed_spans(text: str) -> None:
    for span in query_dates(text):
        assert span.start < span.end


@given(st.dates(min_value=date(1901, 1, 1), max_value=date(2098, 12, 31)))
@settings(max_examples=200, deadline=None)
def test_a_day_written_out_holds_that_day(day: date) -> None:
    for text in (f"{day:%d %B, %Y}", f"{day:%B %d, %Y}", day.isoformat()):
        assert any(span.holds(day) for span in query_dates(text)), text


def test_a_memory_made_on_a_named_day_gets_the_date_boost() -> None:
    spans = [DateSpan(date(2023, 5, 7), date(2023, 5, 10))]
    made_then = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    made_later = datetime(2023, 6, 8, tzinfo=UTC)

    assert date_boost(made_then, spans, SETTINGS) == 1 + SETTINGS.date_boost
    assert date_boost(made_later, spans, SETTINGS) == 1.0
    assert date_boost(made_then, [], SETTINGS) == 1.0
    assert date_boost(made_then, spans, SearchSettings(date_boost=0)) == 1.0
