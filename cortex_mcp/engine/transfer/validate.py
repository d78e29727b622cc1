"""The rules an imported row must keep: the same ones the tools enforce on their arguments.

A row that breaks one is reported as `file:where: field: rule` and skipped (or, with
`strict`, the whole file is refused); nothing here writes.
"""

import math
import re
from datetime import UTC, datetime
from typing import Any

from pydantic import ValidationError

from cortex_mcp.errors import InvalidInput
from cortex_mcp.models import Memory, is_memory_id

AGENT_ID = re.compile(r"^[A-Za-z0-9_.:@-]{1,64}$")
"""As `AgentId` in tools.py: what an agent id may be."""
EARLIEST = datetime(1900, 1, 1, tzinfo=UTC)
LATEST = datetime(3000, 1, 1, tzinfo=UTC)
MAX_PROBLEMS_SHOWN = 20


def check_date(value: datetime | None, field: str) -> None:
    """A date from a file must lie between 1900 and 3000 (arithmetic on it cannot overflow)."""
    if value is None:
        return
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    if not EARLIEST <= value < LATEST:
        raise InvalidInput(field, "must be a date between 1900 and 2999")


def check_content(content: str, max_chars: int, field: str = "content") -> None:
    """Content as cortex_remember takes it: not blank, within `memory.max_content_chars`."""
    if not content.strip():
        raise InvalidInput(field, "must not be blank")
    if len(content) > max_chars:
        raise InvalidInput(field, f"{len(content):,} characters; the limit is {max_chars:,}")


def check_agent(agent_id: str | None, field: str = "agent_id") -> None:
    """None (shared) or an id as the tools accept it."""
    if agent_id is not None and not AGENT_ID.fullmatch(agent_id):
        raise InvalidInput(field, "must be 1-64 characters of letters, digits and _.:@-")


def check_unit(value: float, field: str) -> None:
    """A finite number in [0, 1]."""
    if not math.isfinite(value) or not 0 <= value <= 1:
        raise InvalidInput(field, "must be a number from 0 to 1")


def exported_memory(document: object, max_chars: int) -> Memory:
    """One memory of a cortex-mcp export, checked as the tools would check it."""
    if not isinstance(document, dict):
        raise InvalidInput("memory", "must be an object")
    try:
        memory = Memory.model_validate(document)
    except ValidationError as err:
        first = err.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "memory"
        raise InvalidInput(field, str(first["msg"]).lower()) from err
    if not is_memory_id(memory.id):
        raise InvalidInput("id", "must be a memory id (a UUID)")
    if memory.superseded_by is not None and not is_memory_id(memory.superseded_by):
        raise InvalidInput("superseded_by", "must be a memory id (a UUID)")
    check_agent(memory.agent_id)
    check_content(memory.content, max_chars)
    check_unit(memory.importance, "importance")
    check_unit(memory.confidence, "confidence")
    if not math.isfinite(memory.decay_score):
        raise InvalidInput("decay_score", "must be a finite number")
    if memory.access_count < 0:
        raise InvalidInput("access_count", "must not be negative")
    for name in ("last_accessed", "created_at", "updated_at", "expires_at", "deleted_at"):
        check_date(getattr(memory, name), name)
    return memory


def relation_fields(document: object) -> dict[str, Any]:
    """A relation document's fields, checked; a dict ready for `Relation(**...)` but dates."""
    if not isinstance(document, dict):
        raise InvalidInput("relation", "must be an object")
    for name in ("id", "subject", "predicate", "object", "created_at", "updated_at"):
        if not isinstance(document.get(name), str) or not document[name].strip():
            raise InvalidInput(name, "must be a non-empty string")
    confidence = document.get("confidence", 0.8)
    if isinstance(confidence, bool) or not isinstance(confidence, int | float):
        raise InvalidInput("confidence", "must be a number from 0 to 1")
    check_unit(float(confidence), "confidence")
    agent = document.get("agent_id")
    if agent is not None and not isinstance(agent, str):
        raise InvalidInput("agent_id", "must be a string or null")
    check_agent(agent)
    return document


class Problems:
    """Bad rows of one import: counted, the first few kept as `file:where: field: rule`."""

    def __init__(self, name: str, strict: bool = False) -> None:
        self.name = name
        self.strict = strict
        self.count = 0
        self.shown: list[str] = []

    def add(self, where: object, error: InvalidInput) -> None:
        """Count a bad row; with `strict`, refuse the file instead."""
        if self.strict:
            raise InvalidInput(self.name, f"refused (strict): {where}: {error}")
        self.count += 1
        if len(self.shown) < MAX_PROBLEMS_SHOWN:
            self.shown.append(f"{self.name}:{where}: {error}")
