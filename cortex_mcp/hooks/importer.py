"""`cortex-mcp import PATH --transcripts claude-code|codex`: past sessions become memory on
day one. Each transcript file is one session, sent to flush in batches (reason "import"), as
PreCompact would have sent it, each message dated when it was said (its line's timestamp; the
day of the import for a line without one, or with one that is no time). Every file is read
before anything is written: one bad line anywhere is named (file and line) and nothing is
imported, except a last line still being written (no newline yet, not JSON yet: a session
running now), which is left for the next import and counted. A file imported before sends only
what was added to it since (the hooks' per-session position)."""

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from cortex_mcp.clock import from_text
from cortex_mcp.errors import InvalidInput
from cortex_mcp.hooks import transcripts
from cortex_mcp.hooks.messages import FLUSH_BATCH, timed_flush_messages
from cortex_mcp.hooks.state import read_state, session_state, state_file
from cortex_mcp.project_names import project_of_folder

SOURCES = ("claude-code", "codex")


class Flushes(Protocol):
    """The one engine method an import needs."""

    async def flush(
        self,
        messages: list[tuple[str, str]],
        *,
        session_id: str | None = None,
        reason: str = "compaction",
        agent_id: str | None = None,
        project: str | None = None,
        said_at: Sequence[datetime | None] = (),
    ) -> Any:
        """Extract from messages and keep them in the conversation log, each dated when it was
        said (None: now)."""


def said_time(timestamp: str) -> datetime | None:
    """When a message was said, in UTC, from its host's ISO-8601 timestamp; None for none, for
    text that is no time, or a time before 1970 (no transcript was written then)."""
    if not timestamp:
        return None
    try:
        moment = from_text(timestamp).astimezone(UTC)
    except (ValueError, OverflowError):
        return None
    return moment if moment.year >= 1970 else None


def transcript_files(path: Path) -> list[Path]:
    """The file, or every *.jsonl under the folder, in name order."""
    if path.is_dir():
        return sorted(p for p in path.rglob("*.jsonl") if p.is_file())
    if path.is_file():
        return [path]
    raise InvalidInput(str(path), "no such file or folder")


def in_time_order(files: list[Path]) -> list[tuple[Path, transcripts.Opening]]:
    """The transcripts oldest session first (by their first timestamp, then name), without
    Codex sub-agents' rollouts: a later session's "I moved to Porto" must come after an earlier
    "I live in Lisbon", whatever the files are called."""
    opened = []
    for file in files:
        try:
            found = transcripts.opening(file)
        except OSError as err:
            raise InvalidInput(str(file), f"cannot be read ({err.strerror})") from err
        if not found.subagent:
            opened.append((file, found))
    return sorted(opened, key=lambda pair: (pair[1].started, str(pair[0])))


async def import_transcripts(
    engine: Flushes,
    data_home: Path,
    path: Path,
    source: str,
    settings: dict[str, Any],
    dry_run: bool = False,
) -> str:
    """Import every transcript under `path`; the JSON report."""
    files = transcript_files(path)
    chunks: list[tuple[Path, transcripts.Opening, transcripts.Chunk]] = []
    for file, opened in in_time_order(files):
        key = f"import:{file.resolve()}"
        known = read_state(state_file(data_home, source, key)) or {}
        start = int(known.get("position", 0))
        try:
            chunk = transcripts.read_since(source, file, start, strict=True)
        except transcripts.BadTranscript as err:
            raise InvalidInput("import", f"{err}; nothing was imported") from err
        except OSError as err:
            raise InvalidInput(str(file), f"cannot be read ({err.strerror})") from err
        chunks.append((file, opened, chunk))
    report: dict[str, Any] = {
        "source": source,
        "files": len(files),
        "sessions": 0,
        "messages": 0,
        "memories": 0,
        "lines_left_for_later": sum(
            chunk.position < file.stat().st_size for file, _, chunk in chunks
        ),
        "dry_run": dry_run,
    }
    for file, opened, chunk in chunks:
        flat = timed_flush_messages(chunk.messages, settings)
        if flat:
            report["sessions"] += 1
            report["messages"] += len(flat)
        if dry_run:
            continue
        session = (opened.session_id or file.stem)[:128]  # the id the hooks use for it
        project = project_of_folder(opened.cwd)
        with session_state(data_home, source, f"import:{file.resolve()}") as state:
            for start in range(0, len(flat), FLUSH_BATCH):
                batch = flat[start : start + FLUSH_BATCH]
                result = await engine.flush(
                    [(m["role"], m["content"]) for m, _ in batch],
                    session_id=session,
                    reason="import",
                    project=project,
                    said_at=[said_time(when) for _, when in batch],
                )
                report["memories"] += len(getattr(result, "memories", []))
            state["position"] = chunk.position
            state["flushed"] += len(flat)
    return json.dumps(report, indent=2)
