"""What a query asks for: the FTS5 MATCH expression of its terms (every term quoted, so the
user's words are never query syntax), the words worth embedding, and the dates it names."""

import re
from dataclasses import dataclass
from datetime import date, timedelta

from cortex_mcp.search.tokenize import query_terms

MAX_QUERY_TERMS = 64


def quote_term(term: str) -> str:
    """A term as an FTS5 string: double quotes doubled inside, NUL removed."""
    return '"' + term.replace("\x00", "").replace('"', '""') + '"'


def match_expression(text: str) -> str | None:
    """OR of the quoted query terms, or None when the text has no searchable term."""
    terms = query_terms(text)[:MAX_QUERY_TERMS]
    return " OR ".join(quote_term(t) for t in terms) or None


# Words that shape an English question but barely move its vector: question words, articles
# and auxiliaries. Prepositions and pronouns carry relations ("to her", "with him") and stay;
# so do negations and contractions ("didn't"). Dropping those too saved two more tokens a
# question on LoCoMo but cost recall (bench/locomo.py, hybrid + context: 0.727 against 0.731).
_FUNCTION_WORD_LIST = """
a an the is are was were be been being do does did have has had what when where which who whom
whose why how would could should will can may might
"""
_FUNCTION_WORDS = frozenset(_FUNCTION_WORD_LIST.split())
_WORD = re.compile(r"(?<![\w-])[A-Za-z]+(?:['’][A-Za-z]+)*(?![\w-])")
_MEANING = re.compile(r"[^\W_]")  # a letter, digit or ideograph


def embedding_query(text: str) -> str:
    """The query as the embedding model sees it: English function words dropped ("When did
    Caroline go to the support group?" → "Caroline go to support group?"), everything else as
    written, Chinese and Japanese untouched; the text itself when nothing else would be left.

    Only lowercase words and the query's first word are dropped, so "May", "US" or a person
    called Will stay. A local model costs time per token (about 2 ms on one core for
    e5-small): on LoCoMo's questions this cuts the mean from 17.6 tokens to 14.9.
    """

    def keep(word: re.Match[str]) -> str:
        droppable = word[0].islower() or word.start() == first
        return "" if droppable and word[0].lower() in _FUNCTION_WORDS else word[0]

    found = _WORD.search(text)
    first = found.start() if found and not text[: found.start()].strip() else -1
    compact = " ".join(_WORD.sub(keep, text).split())
    return compact if _MEANING.search(compact) else text


MAX_EMBEDDED_CHARS = 320
"""A query's first characters are all its vector is made from (about 80 tokens; the longest
LoCoMo dev question has 131 characters). A model costs time per token: a prompt with a pasted
log (1,800 characters, 600 tokens) took 2.5 s of the local model's CPU, past the prompt hook's
2 s, so nothing was injected; the full-text search still reads every word."""


def embedded_part(text: str) -> str:
    """The query's first `MAX_EMBEDDED_CHARS` characters, cut at a word's end when it is longer."""
    if len(text) <= MAX_EMBEDDED_CHARS:
        return text
    cut = text[:MAX_EMBEDDED_CHARS]
    words = cut.rsplit(maxsplit=1)[0] if " " in cut.strip() else cut
    return words if len(words) * 2 >= len(cut) else cut  # not "see" of "see <a long URL>"


@dataclass(frozen=True)
class DateSpan:
    """The days a query names, from `start` up to (not including) `end`."""

    start: date
    end: date

    def holds(self, day: date) -> bool:
        """True when `day` falls inside the span."""
        return self.start <= day < self.end

    @property
    def days(self) -> int:
        """How many days the span covers."""
        return (self.end - self.start).days


MONTH_NAMES = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
_MONTHS = {
    **{full[:3]: number for number, full in enumerate(MONTH_NAMES, start=1)},
    **{full: number for number, full in enumerate(MONTH_NAMES, start=1)},
    "sept": 9,
}
_MONTH = "(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(\d{4})"
_ISO_DAY = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_DAY_MONTH_YEAR = re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b", re.IGNORECASE)
_MONTH_DAY_YEAR = re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b", re.IGNORECASE)
_MONTH_YEAR = re.compile(rf"\b{_MONTH},?\s+{_YEAR}\b", re.IGNORECASE)
_YEAR_ONLY = re.compile(r"\b((?:19|20)\d\d)\b")
DAY_SLACK = timedelta(days=1)  # the store's UTC day may be the user's day before or after


def _day_span(year: int, month: int, day: int) -> DateSpan | None:
    if not 1 < year < 9999:
        return None
    try:
        named = date(year, month, day)
    except ValueError:  # 31 February
        return None
    return DateSpan(named - DAY_SLACK, named + 2 * DAY_SLACK)


def _month_span(year: int, month: int) -> DateSpan | None:
    if not 1 < year < 9999:
        return None
    return DateSpan(date(year, month, 1), date(year + month // 12, month % 12 + 1, 1))


def query_dates(text: str) -> list[DateSpan]:
    """The days, months or years a query names ("on 8 May, 2023", "in June 2024", "2023-05-08",
    "in 2022"), most precise kind only: a query naming a day is not also about its whole year.
    """
    days = (
        [_day_span(int(m[1]), int(m[2]), int(m[3])) for m in _ISO_DAY.finditer(text)]
        + [
            _day_span(int(m[3]), _MONTHS[m[2].lower()], int(m[1]))
            for m in _DAY_MONTH_YEAR.finditer(text)
        ]
        + [
            _day_span(int(m[3]), _MONTHS[m[1].lower()], int(m[2]))
            for m in _MONTH_DAY_YEAR.finditer(text)
        ]
    )
    if found := [span for span in days if span is not None]:
        return found
    months = [_month_span(int(m[2]), _MONTHS[m[1].lower()]) for m in _MONTH_YEAR.finditer(text)]
    if found := [span for span in months if span is not None]:
        return found
    return [DateSpan(date(int(y), 1, 1), date(int(y) + 1, 1, 1)) for y in _YEAR_ONLY.findall(text)]
