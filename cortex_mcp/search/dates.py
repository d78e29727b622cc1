"""Dates a text mentions, resolved against a reference time into absolute day spans.

"Yesterday", "last week", "two months ago", "next Friday", "in May", "8 May 2023"; 昨天, 上周,
下周五, 三天前, 去年五月, 2023年5月8日; 昨日, 一昨日, 先週, 先月, 来週の金曜日, 3日前. A memory's
mentions are resolved against the time it was made (the text stays as written); a query's
against now. Pure and cheap: it runs on every write (bench/dates.py measures it).

A small grammar per language, not `dateparser`: its `search_dates` took 125-150 ms a text with
language detection (1.2 ms with the language given) and read "to" and "so" as dates.

Conventions: a week runs Monday to Sunday; "last Friday" is the latest Friday before the
reference day, "next Friday" the first after it, while 上周五 / 先週の金曜日 is the Friday of
the previous calendar week; "last May" is the latest May before the reference month; "in May"
is May of the reference year. Spans are half-open: [start, end).
"""

import re
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from datetime import date, datetime, timedelta

from cortex_mcp.search.query import DAY_SLACK, MONTH_NAMES, DateSpan, query_dates

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_NUMBER_WORDS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "a couple of": 2,
    "couple of": 2,
    "three": 3,
    "a few": 3,
    "few": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
}
_CJK_DIGITS = {"〇": 0, "零": 0, "一": 1, "二": 2, "两": 2, "兩": 2, "三": 3, "四": 4, "五": 5}
_CJK_DIGITS |= {"六": 6, "七": 7, "八": 8, "九": 9, "几": 3, "幾": 3}
_CJK_NUMBER = r"[0-9〇零一二两兩三四五六七八九十几幾]{1,3}"
_CJK_MONTH_NUMBER = r"[0-9〇零一二两兩三四五六七八九十]{1,3}"  # not 几: 几月 asks which month
_MONTH_BY_NAME = {name: i for i, name in enumerate(MONTH_NAMES, start=1)}
_MONTH_BY_NAME |= {name[:3]: i for name, i in list(_MONTH_BY_NAME.items())} | {"sept": 9}
_EN_MONTH = "(" + "|".join(sorted(_MONTH_BY_NAME, key=len, reverse=True)) + r")\.?"
_EN_WEEKDAY = "(" + "|".join(WEEKDAYS) + ")"
_EN_NUMBER = r"(\d{1,3}|" + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True)) + ")"
_CJK_WEEKDAY = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_JA_WEEKDAY = {"月": 0, "火": 1, "水": 2, "木": 3, "金": 4, "土": 5, "日": 6}
_WEEKDAY_OF = _CJK_WEEKDAY | _JA_WEEKDAY  # 日 is Sunday in both


def cjk_number(text: str) -> int:
    """A number written in digits or Chinese numerals up to 99 ("3", "十二", "二十", "两")."""
    if text.isdigit():
        return int(text)
    if "十" in text:
        tens, _, units = text.partition("十")
        return (_CJK_DIGITS.get(tens, 1) if tens else 1) * 10 + (
            _CJK_DIGITS.get(units, 0) if units else 0
        )
    value = 0
    for char in text:
        value = value * 10 + _CJK_DIGITS.get(char, 0)
    return value


def day_span(day: date, days: int = 1) -> DateSpan:
    """`days` days from `day`."""
    return DateSpan(day, day + timedelta(days=days))


def week_span(day: date, weeks: int = 0) -> DateSpan:
    """The Monday-to-Sunday week holding `day`, moved by `weeks`."""
    monday = day - timedelta(days=day.weekday()) + timedelta(weeks=weeks)
    return day_span(monday, 7)


def month_span(year: int, month: int, months: int = 0) -> DateSpan | None:
    """The calendar month, moved by `months`; None outside years 1-9998."""
    index = year * 12 + month - 1 + months
    year, month = divmod(index, 12)
    if not 1 <= year <= 9998:
        return None
    start = date(year, month + 1, 1)
    following = index + 1
    return DateSpan(start, date(following // 12, following % 12 + 1, 1))


def year_span(year: int) -> DateSpan | None:
    """The calendar year; None outside years 1-9998."""
    return DateSpan(date(year, 1, 1), date(year + 1, 1, 1)) if 1 <= year <= 9998 else None


def weekend_span(day: date, weeks: int) -> DateSpan:
    """Saturday and Sunday of the week holding `day`, moved by `weeks`."""
    return day_span(week_span(day, weeks).start + timedelta(days=5), 2)


def exact_day(year: int, month: int, day: int) -> DateSpan | None:
    """One day, or None when there is no such day (31 February)."""
    try:
        return day_span(date(year, month, day)) if 1 <= year <= 9998 else None
    except ValueError:
        return None


def weekday_before(day: date, weekday: int) -> DateSpan:
    """The latest `weekday` strictly before `day`."""
    return day_span(day - timedelta(days=(day.weekday() - weekday - 1) % 7 + 1))


def weekday_after(day: date, weekday: int) -> DateSpan:
    """The first `weekday` strictly after `day`."""
    return day_span(day + timedelta(days=(weekday - day.weekday() - 1) % 7 + 1))


def _ago(day: date, count: int, unit: str) -> DateSpan | None:
    """`count` units before `day`: that day, or the week, month or year it falls in."""
    if unit.startswith(("day", "日", "天")):
        return day_span(day - timedelta(days=count)) if count < 10000 else None
    if unit.startswith(("week", "周", "週", "星期", "个星期", "個星期", "礼拜", "禮拜")):
        return week_span(day, -count)
    if unit.startswith(("month", "月", "个月", "個月", "ヶ月", "ヵ月", "か月", "カ月", "箇月")):
        return month_span(day.year, day.month, -count)
    return year_span(day.year - count)


Resolver = Callable[[re.Match[str], date], DateSpan | None]


def _en_relative_day(m: re.Match[str], day: date) -> DateSpan:
    offsets = {"the day before yesterday": -2, "the day after tomorrow": 2, "yesterday": -1}
    offsets |= {"last night": -1, "tomorrow": 1, "today": 0, "tonight": 0}
    return day_span(day + timedelta(days=offsets[" ".join(m[0].lower().split())]))


def _en_ago(m: re.Match[str], day: date) -> DateSpan | None:
    number = m[1].lower()
    count = int(number) if number.isdigit() else _NUMBER_WORDS[" ".join(number.split())]
    return _ago(day, count, m[2].lower())


def _en_relative_period(m: re.Match[str], day: date) -> DateSpan | None:
    move = {"last": -1, "past": -1, "previous": -1, "this": 0, "next": 1, "coming": 1}
    step, unit = move[m[1].lower()], m[2].lower()
    if unit == "week":
        return week_span(day, step)
    if unit == "weekend":
        return weekend_span(day, step)
    if unit == "month":
        return month_span(day.year, day.month, step)
    return year_span(day.year + step)


def _en_weekday(m: re.Match[str], day: date) -> DateSpan:
    weekday = WEEKDAYS.index(m[2].lower())
    which = m[1].lower()
    if which == "last":
        return weekday_before(day, weekday)
    if which == "next":
        return weekday_after(day, weekday)
    return day_span(week_span(day).start + timedelta(days=weekday))


def _en_named_month(m: re.Match[str], day: date) -> DateSpan | None:
    which, month = m[1].lower(), _MONTH_BY_NAME[m[2].lower()]
    if which == "last":
        return month_span(day.year - (month >= day.month), month)
    if which == "next":
        return month_span(day.year + (month <= day.month), month)
    return month_span(day.year, month)


def _en_day_month(m: re.Match[str], day: date) -> DateSpan | None:
    year = int(m[3]) if m[3] else day.year
    return exact_day(year, _MONTH_BY_NAME[m[2].lower()], int(m[1]))


def _en_month_day(m: re.Match[str], day: date) -> DateSpan | None:
    year = int(m[3]) if m[3] else day.year
    return exact_day(year, _MONTH_BY_NAME[m[1].lower()], int(m[2]))


def _iso_day(m: re.Match[str], day: date) -> DateSpan | None:
    return exact_day(int(m[1]), int(m[2]), int(m[3]))


def _en_month_year(m: re.Match[str], day: date) -> DateSpan | None:
    return month_span(int(m[2]), _MONTH_BY_NAME[m[1].lower()])


def _year(m: re.Match[str], day: date) -> DateSpan | None:
    return year_span(int(m[1]))


def _cjk_relative_day(m: re.Match[str], day: date) -> DateSpan:
    offsets = {"大前天": -3, "前天": -2, "一昨日": -2, "おととい": -2, "昨天": -1, "昨日": -1}
    offsets |= {"昨晚": -1, "昨夜": -1, "昨晩": -1, "今天": 0, "今日": 0, "今晚": 0, "今朝": 0}
    offsets |= {"明天": 1, "明日": 1, "后天": 2, "後天": 2, "明後日": 2, "あさって": 2}
    return day_span(day + timedelta(days=offsets[m[0]]))


_CJK_STEP = {"上": -1, "先": -1, "这": 0, "這": 0, "本": 0, "今": 0, "下": 1, "来": 1, "來": 1}
_CJK_STEP |= {"上个": -1, "上個": -1, "这个": 0, "這個": 0, "下个": 1, "下個": 1}


def _cjk_week(m: re.Match[str], day: date) -> DateSpan:
    """上周 / 这个星期 / 下礼拜 / 先週 / 来週; 上周末 / 先週末; 下周五 / 来週の金曜日 (the Friday of
    next calendar week)."""
    step = _CJK_STEP[m[1]]
    if m[2]:
        return weekend_span(day, step)
    if m[3]:
        return day_span(week_span(day, step).start + timedelta(days=_WEEKDAY_OF[m[3]]))
    return week_span(day, step)


def _cjk_month(m: re.Match[str], day: date) -> DateSpan | None:
    return month_span(day.year, day.month, _CJK_STEP[m[1] or m[2]])


def _cjk_year_word(word: str, day: date) -> int:
    offsets = {"前年": -2, "一昨年": -2, "去年": -1, "昨年": -1, "今年": 0, "本年": 0}
    return day.year + (offsets | {"明年": 1, "来年": 1, "來年": 1, "后年": 2, "後年": 2})[word]


def _cjk_ago(m: re.Match[str], day: date) -> DateSpan | None:
    return _ago(day, cjk_number(m[1]), m[2])


def _cjk_date(m: re.Match[str], day: date) -> DateSpan | None:
    """年 / 月 / 日 dates: 2023年5月8日, 去年五月, 5月8号, 五月, 2023年5月, 去年."""
    year = int(m["year"]) if m["year"] else day.year
    if m["yearword"]:
        year = _cjk_year_word(m["yearword"], day)
    if not m["month"]:
        return year_span(year)
    month = cjk_number(m["month"])
    if not 1 <= month <= 12:
        return None
    if m["day"]:
        return exact_day(year, month, cjk_number(m["day"]))
    return month_span(year, month)


_I = re.IGNORECASE
_ZH_STEP = r"(上个?|上個|这个?|這個?|(?<!日)本|下个?|下個)"  # not 日本周边 (around Japan)
_JA_STEP = r"(先|今|来|來)"
_YEAR_WORD = r"一昨年|前年|去年|昨年|今年|本年|明年|来年|來年|后年|後年"
_CJK_MONTH_DAY = rf"(?P<month>{_CJK_MONTH_NUMBER})月份?(?:(?P<day>{_CJK_NUMBER})[日号號])?"
_GRAMMAR: tuple[tuple[re.Pattern[str], Resolver], ...] = (
    # English, most precise first: a span found is blanked so a shorter one cannot reuse it
    (re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b"), _iso_day),
    (
        re.compile(
            rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_EN_MONTH},?(?:\s+(\d{{4}}))?\b", _I
        ),
        _en_day_month,
    ),
    (
        re.compile(rf"\b{_EN_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+(\d{{4}})\b)?", _I),
        _en_month_day,
    ),
    (re.compile(rf"\b{_EN_MONTH},?\s+(\d{{4}})\b", _I), _en_month_year),
    (
        re.compile(
            r"\bthe\s+day\s+(?:before\s+yesterday|after\s+tomorrow)\b"
            r"|\b(?:yesterday|today|tomorrow|tonight|last\s+night)\b",
            _I,
        ),
        _en_relative_day,
    ),
    (re.compile(rf"\b{_EN_NUMBER}\s+(days?|weeks?|months?|years?)\s+ago\b", _I), _en_ago),
    (re.compile(rf"\b(last|next|this)\s+{_EN_WEEKDAY}\b", _I), _en_weekday),
    (
        re.compile(r"\b(last|past|previous|this|next|coming)\s+(week|weekend|month|year)\b", _I),
        _en_relative_period,
    ),
    (
        re.compile(
            rf"\b(last|next|this|in|during|since|until|early|late|mid)[\s-]+{_EN_MONTH}(?!\s*\d)\b",
            _I,
        ),
        _en_named_month,
    ),
    (re.compile(r"\b(?:in|during|since|until|year)\s+((?:19|20)\d\d)\b", _I), _year),
    # Chinese and Japanese (one script, so one grammar where they agree)
    (
        re.compile(rf"(?:(?P<year>\d{{4}})年|(?P<yearword>{_YEAR_WORD}))(?:{_CJK_MONTH_DAY})?"),
        _cjk_date,
    ),
    (re.compile(rf"(?P<year>)(?P<yearword>){_CJK_MONTH_DAY}"), _cjk_date),
    (
        re.compile(
            rf"({_CJK_NUMBER})\s*(天|日|[个個]?星期|周|週間?|[个個]月|[ヶヵかカ箇]月|年)(?:之?前|以前)"
        ),
        _cjk_ago,
    ),
    (re.compile(rf"{_ZH_STEP}(?:周|週|星期|礼拜|禮拜)(?:(末)|([一二三四五六日天]))?"), _cjk_week),
    (re.compile(rf"{_JA_STEP}週(?:(末)|の?([月火水木金土日])曜日?)?"), _cjk_week),
    (re.compile(rf"(?:{_ZH_STEP}|{_JA_STEP})月"), _cjk_month),
    (
        re.compile(
            "大前天|前天|一昨日|おととい|昨天|昨日|昨晚|昨夜|昨晩|今天|今日|今晚|今朝"
            "|明天|明日|后天|後天|明後日|あさって"
        ),
        _cjk_relative_day,
    ),
)


def _scan(text: str) -> Iterator[tuple[re.Match[str], Resolver]]:
    """Each date expression of the text (NFKC), most precise rule first: a span found is
    blanked, so a shorter expression inside it ("yesterday" in "the day before yesterday")
    is not found again. A language's rules run only when one of its date words is there."""
    rest = unicodedata.normalize("NFKC", text)
    english = _GRAMMAR[:_ENGLISH_RULES] if _EN_TRIGGER.search(rest) else ()
    cjk = _GRAMMAR[_ENGLISH_RULES:] if not rest.isascii() and _CJK_TRIGGER.search(rest) else ()
    for pattern, resolve in (*english, *cjk):
        matches = list(pattern.finditer(rest))
        for match in matches:
            yield match, resolve
        for match in matches:
            rest = rest[: match.start()] + " " * (match.end() - match.start()) + rest[match.end() :]


def mentioned_dates(text: str, at: datetime | date) -> list[DateSpan]:
    """The day spans `text` mentions, resolved against `at` (its day), in order, each once."""
    day = at.date() if isinstance(at, datetime) else at
    found: dict[DateSpan, None] = {}
    for match, resolve in _scan(text):
        span = resolve(match, day)
        if span is not None:
            found[span] = None
    return sorted(found, key=lambda span: (span.start, span.end))


def without_relative_dates(query: str) -> str:
    """The query without its relative date expressions ("what did I do last week" → "what
    did I do "), for the text search: the words "last week" in a memory speak of the week
    before it was made; the days themselves are matched through the date index."""
    text = unicodedata.normalize("NFKC", query)
    for match, resolve in _scan(query):
        if resolve in _RELATIVE:
            text = text[: match.start()] + " " * (match.end() - match.start()) + text[match.end() :]
    return text


_ENGLISH_RULES = 10
_RELATIVE: frozenset[Resolver] = frozenset(
    {
        _en_relative_day,
        _en_ago,
        _en_weekday,
        _en_relative_period,
        _cjk_ago,
        _cjk_week,
        _cjk_month,
        _cjk_relative_day,
    }
)
_EN_TRIGGER = re.compile(
    r"\d|day|tomorrow|tonight|night|ago|week|month|year|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec",
    re.IGNORECASE,
)
_CJK_TRIGGER = re.compile(r"[0-9年月日天周週星期礼禮拜昨今明后後晚夜朝末]|おととい|あさって")


_WHEN = re.compile(
    r"\bwhen\b|\bwhat\s+(?:date|day|time|month|year)\b|\bhow\s+long\s+ago\b"
    r"|\bwhich\s+(?:date|day|month|year|week)\b"
    r"|什么时候|什麼時候|几月|幾月|几号|幾號|哪天|哪一天|何时|何時|哪年|哪一年|什么时间|多久以前"
    r"|いつ|何月|何日|何年|何曜日",
    re.IGNORECASE,
)


def asks_when(query: str) -> bool:
    """True when the query asks for a time ("When did …", 什么时候, 几月, いつ)."""
    return _WHEN.search(query) is not None


def query_spans(query: str, now: datetime) -> list[DateSpan]:
    """The days a query is about: the absolute dates it names (`query_dates`, a day with a day
    of slack either side), else its relative ones resolved against `now` ("last week", 上周,
    先月), a single day again with a day of slack (the store's day is UTC's)."""
    named = query_dates(query)
    if named:
        return named
    return [
        DateSpan(span.start - DAY_SLACK, span.end + DAY_SLACK) if span.days == 1 else span
        for span in mentioned_dates(query, now)
    ]


def fits(mention: DateSpan, spans: Sequence[DateSpan]) -> bool:
    """True when a mentioned span falls in one of the query's spans: it overlaps it and is no
    coarser ("yesterday" fits "last week"; "last year" does not fit "in May")."""
    return any(
        mention.start < span.end and span.start < mention.end and mention.days <= span.days
        for span in spans
    )
