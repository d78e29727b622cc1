"""A coding agent's session transcript given to the memory import by mistake: it is JSONL
like the MCP memory server's graph, and without `--transcripts` every line of it was reported
as a bad row ("type: must be \"entity\" or \"relation\"") with no word on what to do."""

import json

CLAUDE_CODE_TYPES = frozenset(["user", "assistant", "summary", "system", "file-history-snapshot"])
CODEX_TYPES = frozenset(["session_meta", "response_item", "event_msg", "turn_context"])


def transcript_host(head: str) -> str | None:
    """The agent whose session transcript begins with `head` ("claude-code" or "codex"), or
    None for anything else (the first line decides)."""
    first = next((line for line in head.splitlines() if line.strip()), "")
    try:
        entry = json.loads(first)
    except ValueError:
        return None
    if not isinstance(entry, dict):
        return None
    if entry.get("type") in CODEX_TYPES:
        return "codex"
    if "sessionId" in entry or entry.get("type") in CLAUDE_CODE_TYPES:
        return "claude-code"
    return None
