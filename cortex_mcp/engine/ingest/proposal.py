"""What every write path speaks: a `Proposal` (a memory some channel wants to store) and the
check of the content it carries."""

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from cortex_mcp.config import MemorySettings
from cortex_mcp.engine.language.slots import Slot
from cortex_mcp.engine.language.triples import Triple
from cortex_mcp.errors import InvalidInput
from cortex_mcp.models import Category, Layer


@dataclass(frozen=True)
class Proposal:
    """A memory the sieve (or cortex_remember) wants to store."""

    content: str
    category: Category
    importance: float
    layer: Layer
    source: str
    channel: str
    session_id: str | None = None
    expires_at: datetime | None = None
    confidence: float = 0.8
    extra: dict[str, Any] = field(default_factory=dict)
    slot: Slot | None = None
    correction: bool = False
    relations: tuple[Triple, ...] = ()
    project: str | None = None
    """The project it was said in (None: none known): what a project uses is held per project,
    so "we switched the CI to CircleCI" in one replaces nothing of another's."""


def check_content(content: str, settings: MemorySettings, field: str = "content") -> str:
    """The content, stripped, or InvalidInput naming the field and the rule it breaks."""
    stripped = content.strip()
    if not stripped:
        raise InvalidInput(field, "must not be empty or only whitespace")
    if len(stripped) > settings.max_content_chars:
        raise InvalidInput(
            field, f"{len(stripped):,} characters; the limit is {settings.max_content_chars:,}"
        )
    return stripped
