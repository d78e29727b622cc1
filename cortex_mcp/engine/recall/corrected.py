"""Conversation-log lines a shown memory has corrected since: "Actually the staging port is 8443,
not 8080" makes an older "staging runs on port 8080" stale, and recall leaves that line out
rather than show the old value beside the new one (found trying the product: the prompt hook
injected both). A replaced value is a number or a name after "not", "no longer", "instead of",
"rather than" or "不是", or after "from" in "from X to Y"; a line is left out when it was said
before the memory (or at the same instant: one flush logs its messages at once) and names that
value."""

import re
from collections.abc import Sequence
from datetime import datetime

from cortex_mcp.engine.language.naming import named_in, names
from cortex_mcp.models import LogHit, Memory

_VALUE = r"(?:[\w.:/-]*\d[\w.:/-]*|[A-Z][\w.+#-]*(?: [A-Z][\w.+#-]*)?)"
_REPLACED = re.compile(
    rf"\b(?:not|no longer|instead of|rather than|isn't|is not)\s+(?:the |on |in |at |port )?"
    rf"(?P<old>{_VALUE})|\bfrom (?P<from>{_VALUE}) to\b"
)


def replaced_values(memories: Sequence[Memory]) -> dict[str, datetime]:
    """Each value a memory says is replaced (case-folded), with when the newest such memory
    was written."""
    found: dict[str, datetime] = {}
    for memory in memories:
        said = [(m["old"] or m["from"]) for m in _REPLACED.finditer(memory.content)]
        named = named_in(memory.content)  # and as the write path reads it ("…，不是MySQL")
        for value in [*said, *(named.values if named else ())]:
            value = value.rstrip(".,:;").casefold()
            if value and (value not in found or found[value] < memory.created_at):
                found[value] = memory.created_at
    return found


def not_corrected(said: list[LogHit], memories: Sequence[Memory]) -> list[LogHit]:
    """`said` without the lines said before a shown memory replaced a value they name."""
    replaced = replaced_values(memories)
    if not replaced:
        return said
    return [line for line in said if not _stale(line, replaced)]


def _stale(line: LogHit, replaced: dict[str, datetime]) -> bool:
    return any(
        line.created_at <= when and names(line.content, value) for value, when in replaced.items()
    )
