"""Time, injected: the only place cortex-mcp asks the system for the current time."""

from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    """The current time in UTC; pass this (or a test clock) wherever a `Clock` is wanted."""
    return datetime.now(UTC)


def to_text(moment: datetime) -> str:
    """The one text form of a timestamp in the database: ISO-8601 UTC, sortable as text."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def from_text(text: str) -> datetime:
    """Parse a timestamp written by `to_text` (or any ISO-8601 text) as an aware UTC datetime."""
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
