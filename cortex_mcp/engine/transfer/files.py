"""Which files an import reads, and in which format: by name first (`*.md`, a daily log
`YYYY-MM-DD.md`, `.json`, `.jsonl`), then by the head of the text. A file that is not what
import reads (`/etc/passwd`, a script, a LICENSE), a Markdown file with no heading or list
item that cortex-mcp did not write, and a coding agent's transcript are refused with one line
before anything is written."""

from pathlib import Path

import anyio
import anyio.to_thread

from cortex_mcp.engine.render.pages import is_generated
from cortex_mcp.engine.transfer.parse import daily_log_date, has_markdown_structure
from cortex_mcp.engine.transfer.transcript_files import transcript_host
from cortex_mcp.errors import InvalidInput

HEAD_BYTES = 4096
IMPORTABLE = "MEMORY.md, daily logs named YYYY-MM-DD.md, .json and .jsonl files"
MARKDOWN_SUFFIXES = (".md", ".markdown")
NOTHING = "nothing was imported"


def detect_format(name: str, text: str) -> str:
    """cortex-json | mcp-memory-jsonl | daily-log | memory-md, from the name and the text."""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if name.endswith(".jsonl") or (first.startswith('{"type"') and name != "MEMORY.md"):
        return "mcp-memory-jsonl"
    if name.endswith(".json") or first.startswith("{"):
        return "cortex-json"
    return "daily-log" if daily_log_date(name) else "memory-md"


async def kind_of(file: Path) -> str:
    """The file's format; a file import does not read is refused with what it reads, a coding
    agent's transcript with what to run instead."""
    try:
        head = await anyio.to_thread.run_sync(_head, file)
    except OSError as err:
        raise InvalidInput(str(file), f"cannot be read ({err.strerror})") from err
    if file.suffix.lower() not in (*MARKDOWN_SUFFIXES, ".json", ".jsonl"):
        raise InvalidInput(str(file), f"is not a memory file: import reads {IMPORTABLE}; {NOTHING}")
    kind = detect_format(file.name, head)
    host = transcript_host(head) if kind == "mcp-memory-jsonl" else None
    if host is not None:
        raise InvalidInput(
            str(file),
            f"is a {host} session transcript, not a memory file: import it with "
            f"`--transcripts {host}`; {NOTHING}",
        )
    if kind == "memory-md" and not await anyio.to_thread.run_sync(_reads_as_memory, file, head):
        raise InvalidInput(
            str(file),
            "has no Markdown heading or list item, so it is no memory file (one memory per"
            f" `- item` under `# Heading`); {NOTHING}",
        )
    return kind


def _reads_as_memory(file: Path, head: str) -> bool:
    """A Markdown memory file: blank, one of our own pages, or with a heading or list item."""
    return not head.strip() or has_markdown_structure(head) or is_generated(file)


def _head(file: Path) -> str:
    with file.open("rb") as data:
        return data.read(HEAD_BYTES).decode("utf-8", errors="replace")


async def nothing_to_read(path: Path) -> str:
    """Why a folder import read no file: what it looks for, and what it passed over."""
    generated, other = await anyio.to_thread.run_sync(_passed_over, path)
    parts = [f"no importable file under {path}: import reads {IMPORTABLE}"]
    if generated:
        parts.append(f"{generated} page(s) cortex-mcp generated itself were skipped")
    if other:
        parts.append(f"{other} other file(s) were not read")
    return "; ".join(parts) + "."


def _passed_over(path: Path) -> tuple[int, int]:
    """The files under `path` an import skips: (pages cortex-mcp generated, anything else)."""
    generated = other = 0
    for file in (p for p in path.rglob("*") if p.is_file()):
        if file.suffix == ".md" and is_generated(file):
            generated += 1
        else:
            other += 1
    return generated, other


def files_at(path: Path) -> list[Path]:
    """The file at `path`, or the memory files in the folder at `path` (not our own pages)."""
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise InvalidInput("path", f"no file or folder at {path}")
    found = sorted(
        p
        for p in path.rglob("*")
        if p.is_file()
        and (p.name == "MEMORY.md" or daily_log_date(p.name) or p.suffix in (".json", ".jsonl"))
    )
    return [p for p in found if p.suffix != ".md" or not is_generated(p)]
