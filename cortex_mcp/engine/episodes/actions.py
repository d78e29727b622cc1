"""Action nodes: the tool calls of a session with their results, read from its logged messages.

Tool calls reach the log in three shapes, all read here: the hooks' flush sends a call as
`Name {json input}` and its result as `Name → result`; cortex_ingest logs an exchange's calls
as one `<tool_calls>` block of `Name input → result` lines (`tool_line`); any other `tool`
message (a client's own) is the result of the call before it, or a node of its own. A result
that reads as a failure keeps its error line: what failed, and what was decided next, is what
the next session needs.
"""

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

PARAM_CHARS = 120
RESULT_CHARS = 160
DECISION_CHARS = 200
MAX_ACTIONS = 40
"""An episode keeps the first and the latest action nodes up to this many."""
KEY_PARAMETERS = (
    "command",
    "cmd",
    "file_path",
    "path",
    "pattern",
    "query",
    "url",
    "name",
    "description",
)
_CALL = re.compile(r"^(?P<name>[\w.:/-]{1,80}) (?P<input>[\[{\"].*)$", re.DOTALL)
_RESULT = re.compile(r"^(?P<name>[\w.:/-]{1,80}) → (?P<result>.*)$", re.DOTALL)
_LINE = re.compile(r"^(?P<name>[\w.:/-]{1,80}) (?P<input>.*?)(?: → (?P<result>.*))?$")
_NO_ERROR = re.compile(r"\b0 (?:failed|failures?|errors?)\b|\bno errors?\b|\b0 errors?\b", re.I)
_ERROR = re.compile(
    r"\b(?:error|errors|exception|traceback|failed|failures?|fatal|denied|refused|timed out"
    r"|not found|no such file|cannot|can't|exit (?:code|status) [1-9]\d*)\b"
    r"|错误|失败|異常|异常|エラー|失敗",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"(?<=[。！？!?])|(?<=[.;:])\s+|\n+")


@dataclass(frozen=True)
class Action:
    """One tool call: which tool, its key parameters, what came back, whether it worked, the
    error it gave, and what was decided after it."""

    tool: str
    params: str
    result: str = ""
    success: bool | None = None
    error: str | None = None
    decision: str | None = None

    def as_json(self) -> dict[str, Any]:
        """The node as stored in the episode."""
        return asdict(self)


def one_line(text: str, limit: int) -> str:
    """`text` on one line, at most `limit` characters (an ellipsis when cut)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def key_parameters(raw: str) -> str:
    """The parameters that say what a call did (a command, a path, a query), else the input."""
    try:
        document = json.loads(raw)
    except ValueError:
        return one_line(raw, PARAM_CHARS)
    if isinstance(document, dict):
        keys = [k for k in KEY_PARAMETERS if isinstance(document.get(k), str | int | float)]
        if keys:
            return one_line(" ".join(f"{k}={document[k]}" for k in keys[:2]), PARAM_CHARS)
        return one_line(json.dumps(document, ensure_ascii=False), PARAM_CHARS)
    return one_line(str(document), PARAM_CHARS)


def error_of(result: str) -> str | None:
    """The line of a result that reports a failure, or None when it reads as a success."""
    for line in result.splitlines() or [result]:
        if _ERROR.search(_NO_ERROR.sub("", line)):
            return one_line(line, RESULT_CHARS)
    return None


def with_result(action: Action, result: str) -> Action:
    """The action with its result, its success and its error."""
    error = error_of(result)
    lines = [line for line in result.splitlines() if line.strip()]
    summary = error or (one_line(lines[-1] if lines else "", RESULT_CHARS))
    return replace(action, result=summary, success=error is None, error=error)


def tool_line(call: Mapping[str, Any]) -> str:
    """One tool call of cortex_ingest's `tool_calls` as `Name input → result` on one line."""
    function = call.get("function")
    name = (
        call.get("name")
        or call.get("tool")
        or (function.get("name") if isinstance(function, Mapping) else None)
    )
    given = call.get("input", call.get("arguments", call.get("args", "")))
    if isinstance(function, Mapping) and not given:
        given = function.get("arguments", "")
    result = call.get("result", call.get("output", call.get("content", "")))
    if not isinstance(given, str):
        given = json.dumps(given, ensure_ascii=False)
    if not isinstance(result, str):
        result = json.dumps(result, ensure_ascii=False)
    if call.get("is_error") or call.get("error"):
        result = f"error: {call.get('error') or ''} {result}".strip()
    if not name:
        return one_line(json.dumps(dict(call), ensure_ascii=False, default=str), 800)
    label = re.sub(r"[^\w.:/-]", "_", str(name))[:80]
    line = f"{label} {one_line(given, 400) or '{}'}"
    return line + (f" → {one_line(result, 400)}" if result.strip() else "")


def actions_of(roles_and_texts: Sequence[tuple[str, str]]) -> list[Action]:
    """The action nodes of a session's messages, in order, each with the decision the
    assistant stated right after it."""
    actions: list[Action] = []
    waiting = False  # the last action has no result yet
    decided = True  # the last action already has its decision (or needs none)
    for role, text in roles_and_texts:
        if role == "assistant":
            if actions and not decided:
                actions[-1] = replace(actions[-1], decision=first_sentence(text))
                decided = True
            continue
        if role != "tool" or not text.strip():
            continue
        for kind, name, value in _tool_parts(text):
            if kind == "call":
                actions.append(Action(name, key_parameters(value)))
                waiting, decided = True, False
            elif kind == "done":
                actions.append(with_result(Action(name, key_parameters(value[0])), value[1]))
                waiting, decided = False, False
            elif waiting and (not name or name == actions[-1].tool):
                actions[-1] = with_result(actions[-1], value)
                waiting = False
            else:
                actions.append(with_result(Action(name or "tool", ""), value))
                decided = False
    return actions


def _tool_parts(text: str) -> list[tuple[str, str, Any]]:
    """(kind, tool name, value) of one logged tool message: a call, a result, or a call done
    (an ingest line, with its input and result)."""
    stripped = text.strip()
    if stripped.startswith("<tool_calls>"):
        found: list[tuple[str, str, Any]] = []
        for line in stripped.splitlines()[1:]:
            if line.strip() in ("", "</tool_calls>"):
                continue
            match = _LINE.match(line.strip())
            if match is None:
                found.append(("result", "", line))
            elif match["result"] is None:
                found.append(("call", match["name"], match["input"]))
            else:
                found.append(("done", match["name"], (match["input"], match["result"])))
        return found
    if match := _RESULT.match(stripped):
        return [("result", match["name"], match["result"])]
    if match := _CALL.match(stripped):
        return [("call", match["name"], match["input"])]
    return [("result", "", stripped)]


def first_sentence(text: str) -> str | None:
    """The first sentence of a message, on one line (None for an empty one)."""
    for sentence in _SENTENCE.split(text):
        if sentence and sentence.strip():
            return one_line(sentence, DECISION_CHARS)
    return None


def kept(actions: list[Action]) -> list[Action]:
    """The nodes an episode keeps: all of them, or the first and the latest when too many."""
    if len(actions) <= MAX_ACTIONS:
        return actions
    half = MAX_ACTIONS // 2
    return actions[:half] + actions[-half:]


def tools_used(actions: list[Action]) -> list[str]:
    """The tools used, each once, in the order first used."""
    return list(dict.fromkeys(a.tool for a in actions))
