"""Dates in the conversation log: a message made on a day a question names, or mentioning
one, is lifted as a memory is (`search.scoring.date_boost`), its mentions read from its text."""

from collections.abc import Callable

from cortex_mcp.config import SearchSettings
from cortex_mcp.engine.recall.question import Question
from cortex_mcp.search.dates import mentioned_dates
from cortex_mcp.search.scoring import date_boost
from cortex_mcp.store.conversation import LoggedMessage


def dated_log(
    question: Question, settings: SearchSettings
) -> Callable[[LoggedMessage], float] | None:
    """The date boost of a log message for this question, as a memory gets it (made on a day
    it names, or mentioning one; a date at all for a question asking when); None when the
    question names no day and does not ask when."""
    if not question.spans and not question.asks_when:
        return None

    def boost(message: LoggedMessage) -> float:
        mentioned = mentioned_dates(message.content, message.created_at)
        return date_boost(
            message.created_at, question.spans, settings, mentioned, question.asks_when
        )

    return boost
