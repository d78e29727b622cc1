"""One hook invocation as the host described it, and the tool each moment calls. What the
parent of a detached save runs before it returns to the host, so it imports json-free,
pathlib-free code only: the transcript's path stays a string until a moment reads it (#25:
pathlib and urllib.parse were a tenth of a Stop hook's start)."""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

TOOL_OF = {
    "session-start": "cortex_recall",
    "prompt": "cortex_recall",
    "stop": "cortex_ingest",
    "pre-compact": "cortex_flush",
    "session-end": "cortex_flush",
}
"""The tool each moment calls: a moment whose tool CORTEX_TOOLS hides does nothing."""


TURN_FIELDS = ("turn_id", "timestamp", "generation_id")
"""Stdin fields that tell one prompt from the next, the same text said again: Codex's
`turn_id`, Gemini CLI's `timestamp`, Cursor's `generation_id`. Claude Code's
UserPromptSubmit has none: its transcript's size tells them (`entry.first_run`)."""


def from_cursor(payload: dict[str, Any]) -> bool:
    """True for a Cursor hook's input: Cursor also runs the hooks in Claude Code's settings
    files (its "third-party hooks"), with its own stdin (`cursor_version`, or
    `conversation_id` with `workspace_roots`)."""
    return "cursor_version" in payload or (
        "conversation_id" in payload and "workspace_roots" in payload
    )


def cursor_event_key(payload: dict[str, Any]) -> str | None:
    """What tells one Cursor event from another: its conversation and generation, which every
    hook of the event gets, from Cursor's own file or Claude Code's (whose input may differ
    in other fields); None when Cursor sent no generation."""
    generation = payload.get("generation_id")
    if not isinstance(generation, str) or not generation:
        return None
    return f"cursor-{payload.get('conversation_id')}-{generation}"


class Event:
    """One hook invocation as the host described it on stdin (a plain class: NamedTuple
    would import typing, a fifth of a hook's start-up)."""

    __slots__ = ("cwd", "host", "inline_reply", "moment", "prompt", "session_id", "transcript_path")

    def __init__(
        self,
        host: str,
        moment: str,
        session_id: str,
        transcript: str | os.PathLike[str] | None,
        cwd: str,
        prompt: str,
        inline_reply: str,
    ) -> None:
        self.host = host
        self.moment = moment
        self.session_id = session_id
        self.transcript_path = os.fspath(transcript) if transcript is not None else None
        self.cwd = cwd
        self.prompt = prompt
        self.inline_reply = inline_reply

    @property
    def transcript(self) -> Path | None:
        """The transcript as a Path (pathlib imported only by the moments that read it)."""
        if self.transcript_path is None:
            return None
        from pathlib import Path

        return Path(self.transcript_path)

    def transcript_readable(self) -> bool:
        """No transcript given, or one that names a regular file."""
        return self.transcript_path is None or os.path.isfile(self.transcript_path)

    @classmethod
    def of(cls, host: str, moment: str, payload: dict[str, Any]) -> Event:
        """The event from the host's stdin JSON (fields named as each host names them)."""
        transcript = payload.get("transcript_path")
        session = payload.get("session_id") or payload.get("conversation_id") or ""
        reply = payload.get("prompt_response") or payload.get("last_assistant_message") or ""
        roots = payload.get("workspace_roots")  # Cursor names the project folders, not a cwd
        cwd = payload.get("cwd") or (roots[0] if isinstance(roots, list) and roots else "")
        path: str | os.PathLike[str] | None = (
            transcript if isinstance(transcript, str) and transcript else None
        )
        if path is None and host == "cursor" and moment not in ("session-start", "prompt"):
            from cortex_mcp.hooks import transcripts

            path = transcripts.cursor_transcript(str(cwd), str(payload.get("conversation_id", "")))
        return cls(
            host=host,
            moment=moment,
            session_id=str(session),
            transcript=path,
            cwd=str(cwd),
            prompt=str(payload.get("prompt") or ""),
            inline_reply=str(reply),
        )

    def pointer(self) -> dict[str, Any]:
        """The event without any conversation text (what the spool may keep)."""
        return {
            "host": self.host,
            "moment": self.moment,
            "session_id": self.session_id,
            "transcript_path": self.transcript_path,
            "cwd": self.cwd,
        }
