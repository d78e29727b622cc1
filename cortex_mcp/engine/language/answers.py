"""An LLM's JSON answer, read without raising: the one reader every prompt's parser uses.

Local models wrap JSON in fences, add prose around it and leave trailing commas; the first
candidate that parses wins (a fenced block, the outermost object, the outermost list, the
whole text), and an answer with none is None.
"""

import json
import re
from typing import Any

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")


def _json_candidates(text: str) -> list[str]:
    candidates = [m.group(1) for m in _FENCE.finditer(text)]
    for opener, closer in (("{", "}"), ("[", "]")):
        start, end = text.find(opener), text.rfind(closer)
        if start != -1 and end > start:
            candidates.append(text[start : end + 1])
    return [*candidates, text]


def llm_json(text: str | None) -> Any:
    """The JSON value in an LLM's answer, or None when there is none."""
    if text is None:
        return None
    for candidate in _json_candidates(text):
        for attempt in (candidate, _TRAILING_COMMA.sub(r"\1", candidate)):
            try:
                return json.loads(attempt)
            except ValueError:
                continue
    return None


def llm_object(text: str | None) -> dict[str, Any] | None:
    """The JSON object in an LLM's answer, or None when it holds no object."""
    document = llm_json(text)
    return document if isinstance(document, dict) else None
