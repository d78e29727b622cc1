"""A recall's query, read once: the words, match expressions, dates and slots every ranking step
needs, so no step tokenises the text or resolves its dates again."""

from dataclasses import dataclass
from datetime import datetime

from cortex_mcp.engine.recall.slots import asked_predicates
from cortex_mcp.search.dates import asks_when, query_spans, without_relative_dates
from cortex_mcp.search.entities import phrases, searchable_text
from cortex_mcp.search.query import DateSpan, match_expression
from cortex_mcp.search.tokenize import query_terms


@dataclass(frozen=True)
class Question:
    """What a query asks for, as the ranking steps read it."""

    text: str
    terms: list[str]
    """Its search terms (snippets of long log messages are cut around the first)."""
    match: str | None
    """The full-text expression of its words, relative dates left out (those are matched
    through the date index); None when it has no searchable word."""
    log_match: str | None
    """The full-text expression of all its words, for the conversation log."""
    folded_terms: list[str]
    """The terms of its text folded like entity keys, for scoring relations."""
    phrases: list[str]
    """Every way it could name an entity, as keys."""
    spans: list[DateSpan]
    """The days it is about."""
    asks_when: bool
    """True when it asks for a time ("when did …", 什么时候, いつ)."""
    predicates: list[str]
    """The slots it asks about ("what's my name?" → name)."""


def read_question(text: str, now: datetime) -> Question:
    """The query as every ranking step needs it, its relative dates resolved against `now`."""
    folded = searchable_text(text)
    return Question(
        text=text,
        terms=query_terms(text),
        match=match_expression(without_relative_dates(text)),
        log_match=match_expression(text),
        folded_terms=query_terms(folded),
        phrases=phrases(folded),
        spans=query_spans(text, now),
        asks_when=asks_when(text),
        predicates=asked_predicates(text),
    )
