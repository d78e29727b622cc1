"""What each host reads on a hook's stdout. Claude Code and Codex CLI take
`hookSpecificOutput.additionalContext` for SessionStart and UserPromptSubmit; Gemini CLI the
same object for SessionStart and BeforeAgent, and JSON only on stdout; Cursor
`additional_context` for sessionStart, and JSON only on stdout (its beforeSubmitPrompt can
only let a prompt through or block it, so Cursor gets no per-prompt recall). Standard
library only."""

import json

HOSTS = ("claude-code", "codex", "gemini", "cursor")
MOMENTS = ("session-start", "prompt", "stop", "pre-compact", "session-end")
EVENT_NAMES = {  # host -> moment -> the host's own event name
    "claude-code": {
        "session-start": "SessionStart",
        "prompt": "UserPromptSubmit",
        "stop": "Stop",
        "pre-compact": "PreCompact",
        "session-end": "SessionEnd",
    },
    "codex": {
        "session-start": "SessionStart",
        "prompt": "UserPromptSubmit",
        "stop": "Stop",
        "pre-compact": "PreCompact",
    },
    "gemini": {
        "session-start": "SessionStart",
        "prompt": "BeforeAgent",
        "stop": "AfterAgent",
        "pre-compact": "PreCompress",
        "session-end": "SessionEnd",
    },
    "cursor": {
        "session-start": "sessionStart",
        "stop": "stop",
        "pre-compact": "preCompact",
        "session-end": "sessionEnd",
    },
}
"""The moments each host has a hook for, under the host's names (README: Hooks)."""
INJECTING = ("session-start", "prompt")


def render(host: str, moment: str, context: str) -> str:
    """The hook's stdout: the context in the host's format, or what means "nothing"."""
    json_only = host in ("gemini", "cursor")
    if not context or moment not in INJECTING:
        return "{}\n" if json_only else ""
    if host == "cursor":
        return json.dumps({"additional_context": context}, ensure_ascii=False) + "\n"
    output = {
        "hookSpecificOutput": {
            "hookEventName": EVENT_NAMES[host][moment],
            "additionalContext": context,
        }
    }
    return json.dumps(output, ensure_ascii=False) + "\n"
