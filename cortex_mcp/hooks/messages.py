"""What the saving moments send: cortex_ingest's and cortex_flush's arguments from a
transcript's messages, each text cut to its limit. Standard library only."""

from __future__ import annotations

from datetime import datetime

from cortex_mcp.hooks.event import Event
from cortex_mcp.project_names import project_of_folder

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time
if TYPE_CHECKING:
    from typing import Any

    from cortex_mcp.hooks.transcripts import Message

FLUSH_BATCH = 200
"""Messages per cortex_flush call (the tool takes up to 5,000; smaller calls fail smaller)."""
MAX_TOOL_CALLS = 50


def cut(text: str, limit: int) -> str:
    """`text` at most `limit` characters, saying how much was cut."""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - 40)] + f" … [{len(text) - limit + 40:,} characters cut]"


def exchange_arguments(
    event: Event, messages: list[Message], settings: dict[str, Any]
) -> dict[str, Any]:
    """cortex_ingest's arguments for one exchange: the user's text, the reply, and the tool
    calls with their results, each cut to its limit."""
    limit = int(settings["max_message_chars"])
    tool_limit = int(settings["tool_result_chars"])
    results = {m.call_id: m.text for m in messages if m.role == "tool_result"}
    calls = [
        {
            "name": m.tool,
            "input": cut(m.text, tool_limit),
            "result": cut(results.get(m.call_id, ""), tool_limit),
        }
        for m in messages
        if m.role == "tool_call"
    ][-MAX_TOOL_CALLS:]
    user = "\n\n".join(m.text for m in messages if m.role == "user")
    reply = "\n\n".join(m.text for m in messages if m.role == "assistant")
    arguments: dict[str, Any] = {
        "user_message": cut(user or event.prompt, limit),
        "assistant_message": cut(reply or event.inline_reply, limit),
    }
    if event.session_id:
        arguments["session_id"] = event.session_id[:128]
    if project := project_of_folder(event.cwd):  # (#26)
        arguments["project"] = project
    if calls:
        arguments["tool_calls"] = calls
    # when the exchange began, as its transcript says: a Stop spooled while no server ran is
    # sent when one starts, and its lines are dated when they were said, not then
    if began := next((moment for m in messages if (moment := said_time(m.said_at))), ""):
        arguments["said_at"] = began
    return arguments


def flush_messages(messages: list[Message], settings: dict[str, Any]) -> list[dict[str, str]]:
    """cortex_flush's messages: texts as they are, each tool call with its result as one
    `tool` message, everything cut to its limit; each with `said_at`, its transcript line's
    time, when the host wrote one (a session flushed days later is dated when it was said,
    as `import --transcripts` dates it)."""
    return [
        flat | {"said_at": moment} if (moment := said_time(when)) else flat
        for flat, when in timed_flush_messages(messages, settings)
    ]


def said_time(timestamp: str) -> str:
    """A transcript line's ISO-8601 timestamp as cortex_flush takes it ("" for none, for text
    that is no time, one without its zone, or one before 1970)."""
    try:
        moment = datetime.fromisoformat(timestamp) if timestamp else None
    except ValueError:
        return ""
    if moment is None or moment.tzinfo is None or moment.year < 1970:
        return ""
    return moment.isoformat()


def timed_flush_messages(
    messages: list[Message], settings: dict[str, Any]
) -> list[tuple[dict[str, str], str]]:
    """`flush_messages`, each with when its host wrote it ("" when it did not say)."""
    limit = int(settings["max_message_chars"])
    tool_limit = int(settings["tool_result_chars"])
    flat: list[tuple[dict[str, str], str]] = []
    names = {m.call_id: m.tool for m in messages if m.role == "tool_call"}
    for m in messages:
        if m.role in ("user", "assistant"):
            flat.append(({"role": m.role, "content": cut(m.text, limit)}, m.said_at))
        elif m.role == "tool_call":
            flat.append(
                ({"role": "tool", "content": f"{m.tool} {cut(m.text, tool_limit)}"}, m.said_at)
            )
        elif m.text.strip():
            name = names.get(m.call_id, "tool")
            content = f"{name} → {cut(m.text, tool_limit)}"
            flat.append(({"role": "tool", "content": content}, m.said_at))
    return flat
