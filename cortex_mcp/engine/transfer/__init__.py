"""Moving memory in and out.

Export: JSON without loss (every memory in every state with its id, layer, supersede link and
metadata, and every relation) and Markdown (core by category, working by day, archive by month,
relations). Import: our JSON (ids kept), a MEMORY.md (to core), dated daily logs
`YYYY-MM-DD.md` (to working while recent, else to the archive), the official MCP memory
server's knowledge-graph JSONL (observations to memories, relations to relations), or a folder
of such files. Imports are idempotent: what is already there, by id or by content in any state,
is skipped.
"""

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread
from pydantic import BaseModel, Field

from cortex_mcp.clock import to_text
from cortex_mcp.engine.lifecycle import markdown
from cortex_mcp.engine.lifecycle.markdown import is_generated
from cortex_mcp.engine.render import render_core_markdown
from cortex_mcp.engine.transfer.parse import (
    Draft,
    daily_log_date,
    parse_knowledge_graph,
    parse_markdown,
)
from cortex_mcp.engine.transfer.restore import (
    draft_memory,
    insert_drafts,
    insert_export,
    insert_relations,
    read_export,
)
from cortex_mcp.engine.transfer.validate import (
    MAX_PROBLEMS_SHOWN,
    Problems,
    check_content,
    check_date,
)
from cortex_mcp.errors import InvalidInput
from cortex_mcp.models import Category, Layer, Memory
from cortex_mcp.store import lifecycle as store
from cortex_mcp.store import memories as rows
from cortex_mcp.store.relations import relations_of

if TYPE_CHECKING:
    from cortex_mcp.engine import Engine

EXPORT_FORMAT = "cortex-mcp"
EXPORT_VERSION = 1
ALL = 10_000_000


class ImportReport(BaseModel):
    """What an import added and what it found already there."""

    formats: list[str] = Field(default_factory=list, description="Formats read, one per file.")
    files: int = 0
    memories_added: int = 0
    memories_skipped: int = 0
    relations_added: int = 0
    relations_skipped: int = 0
    rows_invalid: int = Field(default=0, description="Rows that broke a rule and were skipped.")
    problems: list[str] = Field(
        default_factory=list, description="The first bad rows, as file:where: field: rule."
    )
    dry_run: bool = Field(default=False, description="True for --check: nothing was written.")


class _CheckOnly(Exception):
    """Raised inside the write transaction of a check, to roll everything back."""


async def export_json(engine: "Engine") -> str:
    """Every memory and relation as one JSON document that `import` restores exactly."""
    async with engine.db.read() as conn:
        memories = await store.all_memories(conn)
        relations = await relations_of(conn, None)
    document = {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "exported_at": to_text(engine.clock()),
        "memories": [m.model_dump(mode="json") for m in memories],
        "relations": [r.to_json() for r in relations],
    }
    return json.dumps(document, ensure_ascii=False, indent=1)


async def export_markdown(engine: "Engine", agent_id: str | None = None) -> str:
    """An agent's live memory as one Markdown document (core in full, no budget)."""
    agent = engine.agent(agent_id)
    async with engine.db.read() as conn:
        layers = {
            layer: await rows.live_memories(conn, agent, [layer], limit=ALL) for layer in Layer
        }
        relations = await relations_of(conn, agent)
    core = [m for m in layers[Layer.CORE] if m.category != Category.PROFILE]
    parts = [
        "\n".join(markdown.front_matter(exported_at=to_text(engine.clock()))),
        render_core_markdown(core),
    ]
    for day, memories in _grouped(layers[Layer.WORKING], 10):
        parts.append(_body(markdown.render_working_day(day, memories)))
    for month, memories in _grouped(layers[Layer.ARCHIVE], 7):
        parts.append(_body(markdown.render_archive_month(month, memories, [])))
    parts.append(_body(markdown.render_relations(relations)))
    return "\n".join(parts)


def _grouped(memories: list[Memory], length: int) -> list[tuple[str, list[Memory]]]:
    groups: dict[str, list[Memory]] = {}
    for memory in memories:
        groups.setdefault(memory.created_at.isoformat()[:length], []).append(memory)
    return sorted(groups.items())


def _body(page: str) -> str:
    """A page without its front matter."""
    return page.split("---\n", 2)[2].lstrip("\n") if page.startswith("---\n") else page


def detect_format(name: str, text: str) -> str:
    """cortex-json | mcp-memory-jsonl | daily-log | memory-md, from the name and the text."""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if name.endswith(".jsonl") or (first.startswith('{"type"') and name != "MEMORY.md"):
        return "mcp-memory-jsonl"
    if name.endswith(".json") or first.startswith("{"):
        return "cortex-json"
    return "daily-log" if daily_log_date(name) else "memory-md"


async def import_text(
    engine: "Engine",
    text: str,
    name: str = "MEMORY.md",
    agent_id: str | None = None,
    *,
    source: str = "import",
    strict: bool = False,
    dry_run: bool = False,
) -> ImportReport:
    """Import one file's text; `name` (its file name) tells a daily log or JSONL apart. Every
    row is checked with the tools' rules: a bad one is skipped and reported (with `strict`,
    the file is refused). One write transaction stores the rest, or nothing; `dry_run` counts
    what would be added and rolls it back."""
    kind = detect_format(name, text)
    report = ImportReport(formats=[kind], files=1, dry_run=dry_run)
    problems = Problems(name)
    agent, now = engine.agent(agent_id), engine.clock()
    limit = engine.settings.memory.max_content_chars
    triples: list[tuple[str, str, str]] = []
    relations: list[dict[str, Any]] = []
    if kind == "cortex-json":
        memories, relations = read_export(_export_document(text), limit, problems)
    elif kind == "mcp-memory-jsonl":
        graph = parse_knowledge_graph(text.splitlines(), problems)
        drafts = _valid(graph.drafts, limit, problems)
        memories, triples = _memories(drafts, agent, now, name, source=source), graph.relations
    elif kind == "daily-log":
        memories = _daily(text, name, agent, engine, problems, source)
    else:
        drafts = _valid(parse_markdown(text, Category.FACT), limit, problems)
        memories = _memories(drafts, agent, now, name, source=source)
    report.rows_invalid, report.problems = problems.count, problems.shown
    if strict and problems.count:
        raise InvalidInput(name, f"{problems.count} bad rows (strict); {problems.shown[0]}")
    try:
        async with engine.db.write() as conn:
            if kind == "cortex-json":
                await insert_export(conn, memories, relations, report)
            else:
                await insert_drafts(conn, memories, report)
                await insert_relations(conn, triples, agent, now, report)
            if dry_run:
                raise _CheckOnly
    except _CheckOnly:
        pass
    return report


def _valid(drafts: list[Draft], max_chars: int, problems: Problems) -> list[Draft]:
    """The drafts whose content and date keep the rules; the others counted in `problems`."""
    kept = []
    for draft in drafts:
        try:
            check_content(draft.content, max_chars)
            check_date(draft.written, "date")
            kept.append(draft)
        except InvalidInput as error:
            problems.add(draft.line, error)
    return kept


async def import_path(
    engine: "Engine",
    path: Path,
    agent_id: str | None = None,
    *,
    strict: bool = False,
    dry_run: bool = False,
) -> ImportReport:
    """Import a file, or every MEMORY.md, daily log and .json/.jsonl file in a folder. A file
    that cannot be read as a whole is refused with one line naming it."""
    files = await anyio.to_thread.run_sync(_files_at, path)
    total = ImportReport(dry_run=dry_run)
    for file in files:
        try:
            text = (await anyio.Path(file).read_bytes()).decode("utf-8")
        except UnicodeDecodeError as err:
            raise InvalidInput(str(file), "is not UTF-8 text") from err
        except OSError as err:
            raise InvalidInput(str(file), f"cannot be read ({err.strerror})") from err
        try:
            report = await import_text(
                engine, text, file.name, agent_id, strict=strict, dry_run=dry_run
            )
        except InvalidInput as err:
            raise InvalidInput(str(file), str(err).removeprefix(f"{file.name}: ")) from err
        total.formats += report.formats
        total.files += 1
        total.problems += report.problems[: MAX_PROBLEMS_SHOWN - len(total.problems)]
        for name in (
            "memories_added",
            "memories_skipped",
            "relations_added",
            "relations_skipped",
            "rows_invalid",
        ):
            setattr(total, name, getattr(total, name) + getattr(report, name))
    return total


def _files_at(path: Path) -> list[Path]:
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


def _export_document(text: str) -> dict[str, Any]:
    try:
        document = json.loads(text)
    except RecursionError as err:
        raise InvalidInput("file", "is nested too deeply to be an export") from err
    except ValueError as err:
        raise InvalidInput("file", "is not valid JSON") from err
    if not isinstance(document, dict) or document.get("format") != EXPORT_FORMAT:
        raise InvalidInput("file", f"is not a {EXPORT_FORMAT} export (no format field)")
    version = document.get("version", 0)
    if isinstance(version, bool) or not isinstance(version, int):
        raise InvalidInput("version", "must be a whole number")
    if version > EXPORT_VERSION:
        raise InvalidInput("version", f"export version {version} is newer than this")
    return document


IMPORTANCE = {
    Category.IDENTITY: 0.9,
    Category.PREFERENCE: 0.8,
    Category.CORRECTION: 0.8,
    Category.DECISION: 0.75,
    Category.SKILL: 0.7,
    Category.PROJECT_STATE: 0.7,
}


def _memories(
    drafts: list[Draft],
    agent: str,
    now: datetime,
    name: str,
    layer: Layer = Layer.CORE,
    source: str = "import",
) -> list[Memory]:
    return [
        draft_memory(d, agent, now, name, layer, IMPORTANCE.get(d.category, 0.6), source)
        for d in drafts
    ]


def _daily(
    text: str, name: str, agent: str, engine: "Engine", problems: Problems, source: str
) -> list[Memory]:
    """A daily log's items, dated that day: working while within the TTL, else archive."""
    day = daily_log_date(name)
    assert day is not None
    check_date(day, "date")
    now, ttl = engine.clock(), timedelta(hours=engine.settings.sieve.working_ttl_hours)
    recent = day + timedelta(days=1) + ttl > now
    drafts = _valid(
        parse_markdown(text, Category.CONTEXT), engine.settings.memory.max_content_chars, problems
    )
    for draft in drafts:
        draft.written = draft.written or day
    layer = Layer.WORKING if recent else Layer.ARCHIVE
    memories = _memories(drafts, agent, now, name, layer, source)
    if recent:
        return [
            m.model_copy(update={"expires_at": day + timedelta(days=1) + ttl}) for m in memories
        ]
    archived = {"archived_at": to_text(now), "archived_from": "import"}
    return [m.model_copy(update={"metadata": m.metadata | archived}) for m in memories]
