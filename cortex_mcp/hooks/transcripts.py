"""Session transcripts as messages: Claude Code's JSONL, Codex CLI's rollout JSONL, Cursor's
agent transcript JSONL and Gemini CLI's session JSON, each read from a position (a byte offset
in a JSONL file, a message index in a JSON file) so a moment reads only what is new. Each
message keeps the time its host wrote on it, when it wrote one (an import dates it so). Standard
library only."""

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

TAIL_BYTES = 256 << 10
"""How much of a transcript's end a prompt reads for its recent messages."""
SKIPPED_PREFIXES = (
    "<command-",
    "<local-command",
    "<bash-input>",
    "<bash-stdout>",
    "<bash-stderr>",
    "<task-notification",
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md instructions",
    "<system-reminder>",
    "[Request interrupted by user",
)
"""User text the host writes itself: slash-command echoes, Claude Code's bash mode (`!cmd`:
the command and whatever it printed, such as a customer's ticket), background task notices,
Claude Code's "[Request interrupted by user]" after an Esc, Codex's context blocks and the
AGENTS.md it sends as a user message. None of it is the user's own words, and a name or a city
in it must not become the user's."""


class BadTranscript(Exception):
    """A transcript line that is not what its host writes: `file:line: rule`."""


class Message(NamedTuple):
    """One message of a transcript: user or assistant text, a tool call or a tool result."""

    role: str  # user | assistant | tool_call | tool_result
    text: str
    call_id: str = ""
    tool: str = ""
    said_at: str = ""
    """When the host wrote it (its line's `timestamp`, as written; "" when it has none)."""


class Chunk(NamedTuple):
    """The messages after a position, and the position after them."""

    messages: list[Message]
    position: int


def _text_of(content: Any) -> str:
    """The text of a message content: a string, or a list of typed blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [_text_of(b.get("text", b.get("content", ""))) for b in content if _is_text(b)]
        return "\n".join(part for part in parts if part)
    return ""


def _is_text(block: Any) -> bool:
    """A text block: typed (Claude Code, Codex, Cursor) or a Gemini part (`{"text": …}`)."""
    if not isinstance(block, dict):
        return False
    kind = block.get("type")
    return kind in ("text", "input_text", "output_text") or (kind is None and "text" in block)


def written_at(entry: dict[str, Any]) -> str:
    """An entry's `timestamp` as the host wrote it (ISO-8601); "" when it has none (or not as
    text: a message without its time is still the message)."""
    value = entry.get("timestamp")
    return value if isinstance(value, str) else ""


def _stamped(messages: list[Message], entry: dict[str, Any]) -> list[Message]:
    """The messages of one entry, each with the entry's time."""
    when = written_at(entry)
    return [m._replace(said_at=when) for m in messages] if when else messages


def _own_text(text: str) -> bool:
    stripped = text.strip()
    return bool(stripped) and not stripped.startswith(SKIPPED_PREFIXES)


def claude_messages(entry: dict[str, Any]) -> list[Message]:
    """The messages of one Claude Code transcript line (none for summaries, meta lines,
    sidechains, snapshots, the summary a compaction left as a user line and the host's "API
    Error: …" lines)."""
    if entry.get("type") not in ("user", "assistant") or entry.get("isMeta"):
        return []
    if entry.get("isCompactSummary") or entry.get("isApiErrorMessage"):
        return []  # the compaction's summary; the host's notice of a failed request
    if entry.get("isSidechain"):
        return []
    message = entry.get("message")
    if not isinstance(message, dict):
        raise ValueError("`message` must be an object")
    content = message.get("content")
    role = "user" if entry["type"] == "user" else "assistant"
    if isinstance(content, str):
        return [Message(role, content)] if _own_text(content) else []
    found: list[Message] = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and _own_text(str(block.get("text", ""))):
            found.append(Message(role, str(block["text"])))
        elif kind == "tool_use":
            arguments = json.dumps(block.get("input", {}), ensure_ascii=False)
            found.append(
                Message("tool_call", arguments, str(block.get("id", "")), str(block.get("name")))
            )
        elif kind == "tool_result":
            found.append(
                Message(
                    "tool_result", _text_of(block.get("content")), str(block.get("tool_use_id"))
                )
            )
    return found


def codex_messages(entry: dict[str, Any]) -> list[Message]:
    """The messages of one Codex CLI rollout line (response items only: the event stream
    repeats them)."""
    if entry.get("type") != "response_item":
        return []
    item = entry.get("payload")
    if not isinstance(item, dict):
        raise ValueError("`payload` must be an object")
    kind = item.get("type")
    if kind == "message" and item.get("role") in ("user", "assistant"):
        text = _text_of(item.get("content"))
        return [Message(str(item["role"]), text)] if _own_text(text) else []
    if kind in ("function_call", "custom_tool_call", "local_shell_call"):
        arguments = item.get("arguments", item.get("input", item.get("action", "")))
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments, ensure_ascii=False)
        return [
            Message("tool_call", arguments, str(item.get("call_id", "")), str(item.get("name")))
        ]
    if kind in ("function_call_output", "custom_tool_call_output"):
        output = item.get("output", "")
        if isinstance(output, dict):
            output = output.get("content", json.dumps(output, ensure_ascii=False))
        return [Message("tool_result", _text_of(output), str(item.get("call_id", "")))]
    return []


def gemini_messages(entry: dict[str, Any]) -> list[Message]:
    """The messages of one Gemini CLI session message (`type` user or gemini)."""
    kind = entry.get("type")
    text = _text_of(entry.get("content", ""))
    if kind == "user":
        return [Message("user", text)] if _own_text(text) else []
    if kind != "gemini":
        return []
    found = [Message("assistant", text)] if text.strip() else []
    for number, call in enumerate(entry.get("toolCalls") or []):
        if not isinstance(call, dict):
            continue
        call_id = str(call.get("id", number))
        found.append(
            Message(
                "tool_call",
                json.dumps(call.get("args", {}), ensure_ascii=False),
                call_id,
                str(call.get("name")),
            )
        )
        found.append(Message("tool_result", _text_of(call.get("resultDisplay", "")), call_id))
    return found


CURSOR_WRAPPING = r"^\s*(<timestamp>.*?</timestamp>\s*)?<user_query>\s*|\s*</user_query>\s*$"


def cursor_messages(entry: dict[str, Any]) -> list[Message]:
    """The messages of one Cursor agent transcript line: `role` and `message.content` blocks
    (text, and tool_use without an id or a result); the user's text comes wrapped in
    <user_query> (after a <timestamp>), which is taken off."""
    role = entry.get("role")
    if role not in ("user", "assistant"):
        return []
    message = entry.get("message")
    if not isinstance(message, dict):
        raise ValueError("`message` must be an object")
    content = message.get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    found: list[Message] = []
    for block in blocks if isinstance(blocks, list) else []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            text = str(block.get("text", ""))
            text = re.sub(CURSOR_WRAPPING, "", text, flags=re.S) if role == "user" else text
            if _own_text(text):
                found.append(Message(str(role), text.strip()))
        elif block.get("type") == "tool_use":
            arguments = json.dumps(block.get("input", {}), ensure_ascii=False)
            found.append(Message("tool_call", arguments, "", str(block.get("name"))))
    return found


def cursor_transcript(workspace: str, conversation: str) -> Path | None:
    """Where Cursor keeps a conversation's transcript when its hook does not say (its CLI
    sends `transcript_path: null`): ~/.cursor/projects/<workspace, each character other
    than a letter or digit a dash>/agent-transcripts/<id>.jsonl, or <id>/<id>.jsonl; None when
    neither is there."""
    if not workspace or not conversation or "/" in conversation or conversation.startswith("."):
        return None
    folder = re.sub(r"[^A-Za-z0-9]", "-", workspace.lstrip("/"))
    base = Path("~/.cursor/projects").expanduser() / folder / "agent-transcripts"
    for candidate in (
        base / f"{conversation}.jsonl",
        base / conversation / f"{conversation}.jsonl",
    ):
        if candidate.is_file():
            return candidate
    return None


class Opening(NamedTuple):
    """What a transcript's first lines say of its session."""

    session_id: str | None
    started: str
    """The first timestamp (ISO-8601 text), or "" when none is found."""
    subagent: bool
    """A Codex rollout of a sub-agent, whose "user" is the agent that started it."""
    cwd: str
    """The folder the session ran in ("" when none is found)."""


def opening(path: Path, lines: int = 50) -> Opening:
    """The session id, start time and kind of a JSONL transcript, from its first `lines`
    lines (Codex's `session_meta`; Claude Code's `sessionId` and `timestamp`)."""
    session_id, started, subagent, cwd = None, "", False, ""
    with path.open("rb") as handle:
        for _, raw in zip(range(lines), handle, strict=False):
            try:
                entry = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(entry, dict):
                continue
            payload = entry.get("payload")
            if entry.get("type") == "session_meta" and isinstance(payload, dict):
                source = payload.get("source")
                subagent = isinstance(source, dict) and "subagent" in source
                session_id = str(payload.get("id") or "") or session_id
                started = started or str(payload.get("timestamp") or "")
                cwd = cwd or str(payload.get("cwd") or "")
            session_id = session_id or (str(entry.get("sessionId") or "") or None)
            started = started or str(entry.get("timestamp") or "")
            cwd = cwd or str(entry.get("cwd") or "")
            if session_id and started and cwd:
                break
    return Opening(session_id, started, subagent, cwd)


JSONL_READERS: dict[str, Callable[[dict[str, Any]], list[Message]]] = {
    "claude-code": claude_messages,
    "codex": codex_messages,
    "cursor": cursor_messages,
}


def _parse_lines(
    path: Path, data: bytes, read: Callable[[dict[str, Any]], list[Message]], strict: bool
) -> Iterator[Message]:
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if not raw.strip():
            continue
        try:
            entry = json.loads(raw)
            if not isinstance(entry, dict):
                raise ValueError("a line must be a JSON object")
            yield from _stamped(read(entry), entry)
        except (ValueError, KeyError, AttributeError) as err:
            if strict:
                raise BadTranscript(f"{path}:{number}: {err}") from err


def read_since(host: str, path: Path, position: int, strict: bool = False) -> Chunk:
    """The messages of `path` after `position`, up to its last complete line (a JSONL file
    being written ends mid-line). Lines not understood are skipped, or with `strict` raise
    BadTranscript naming the first one (line numbers count from `position`)."""
    if host == "gemini":
        messages = _gemini_all(path)
        start = position if 0 <= position <= len(messages) else 0
        return Chunk(messages[start:], len(messages))
    read = JSONL_READERS.get(host)
    if read is None:
        return Chunk([], position)
    with path.open("rb") as handle:
        size = handle.seek(0, 2)
        if position > size or position < 0:  # the file was replaced: read it again
            position = 0
        handle.seek(position)
        rest = handle.read()
    end = rest.rfind(b"\n") + 1
    if strict and end < len(rest) and rest[end:].strip() and _is_json(rest[end:]):
        end = len(rest)  # a finished file's last line needs no newline; a half-written one
        # (a session still running) is left for the next read
    messages = list(_parse_lines(path, rest[:end], read, strict))
    return Chunk(messages, position + end)


def _is_json(data: bytes) -> bool:
    try:
        json.loads(data)
    except ValueError:
        return False
    return True


def _jsonl_entries(path: Path, data: bytes, first: ValueError) -> list[Any]:
    """The entries of a JSONL file; a last line still being written is left for later."""
    lines = [line for line in data.splitlines() if line.strip()]
    entries: list[Any] = []
    for number, line in enumerate(lines, start=1):
        try:
            entries.append(json.loads(line))
        except ValueError as err:
            if number == len(lines) and number > 1:
                break  # half written: the next moment reads it whole
            cause = err if number > 1 else first
            raise BadTranscript(f"{path}:{number}: not JSON ({cause})") from err
    return entries


def _gemini_all(path: Path) -> list[Message]:
    """Every message of a Gemini CLI session: one JSON document (`messages`), or the JSONL
    its newer versions write (a line of metadata, then a message a line)."""
    data = path.read_bytes()
    try:
        session = json.loads(data)
    except ValueError as err:
        session = _jsonl_entries(path, data, err)
    if isinstance(session, dict):  # one document, or a JSONL file of its metadata alone
        session = session.get("messages", [session])
    entries = session
    if not isinstance(entries, list):
        raise BadTranscript(f"{path}:1: no `messages` list")
    found: list[Message] = []
    for number, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise BadTranscript(f"{path}: message {number}: must be an object")
        found.extend(_stamped(gemini_messages(entry), entry))
    return found


def recent_texts(host: str, path: Path, count: int) -> list[Message]:
    """The last `count` user and assistant texts, from the end of the file only."""
    if count <= 0 or host not in JSONL_READERS:
        return []
    with path.open("rb") as handle:
        size = handle.seek(0, 2)
        handle.seek(max(0, size - TAIL_BYTES))
        data = handle.read()
    if size > TAIL_BYTES:
        data = data[data.find(b"\n") + 1 :]
    found: list[Message] = []
    for raw in data.split(b"\n"):
        try:
            entry = json.loads(raw)
            if isinstance(entry, dict):
                found.extend(JSONL_READERS[host](entry))
        except (ValueError, KeyError):
            continue  # a tail may start or end mid-line
    return [m for m in found if m.role in ("user", "assistant")][-count:]


def exchanges(messages: list[Message]) -> list[list[Message]]:
    """The messages cut into exchanges, each from a user text to the next one."""
    found: list[list[Message]] = []
    for message in messages:
        if message.role == "user" or not found:
            found.append([])
        found[-1].append(message)
    return found
