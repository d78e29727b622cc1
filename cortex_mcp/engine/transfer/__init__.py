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
from cortex_mcp.engine.lifecycle.mirror import is_generated
from cortex_mcp.engine.privacy import clean_memory, clean_relation
from cortex_mcp.engine.render import render_core_markdown
from cortex_mcp.engine.transfer.parse import (
    Draft,
    Graph,
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
from cortex_mcp.errors import InvalidInput
from cortex_mcp.models import Category, Layer, Memory
from cortex_mcp.store import lifecycle as store
from cortex_mcp.store import memories as rows
from cortex_mcp.store.relations import Relation, relations_of

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


async def export_json(engine: "Engine", include_forgotten: bool = False) -> str:
    """Every memory and relation as one JSON document that `import` restores exactly;
    forgotten memories only with `include_forgotten`."""
    async with engine.db.read() as conn:
        memories = await store.all_memories(conn)
        relations = await relations_of(conn, None)
    if not include_forgotten:
        memories, relations = without_forgotten(memories, relations)
    document = {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "exported_at": to_text(engine.clock()),
        "memories": [m.model_dump(mode="json") for m in memories],
        "relations": [r.to_json() for r in relations],
    }
    return json.dumps(document, ensure_ascii=False, indent=1)


def without_forgotten(
    memories: list[Memory], relations: list[Relation]
) -> tuple[list[Memory], list[Relation]]:
    """The export without forgotten memories, the memories they superseded, and the relations
    drawn from them (an import of it stays consistent)."""
    gone = {m.id for m in memories if m.deleted_at is not None}
    while extra := {m.id for m in memories if m.superseded_by in gone and m.id not in gone}:
        gone |= extra
    kept = [m for m in memories if m.id not in gone]
    return kept, [r for r in relations if r.source_memory_id not in gone]


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
    engine: "Engine", text: str, name: str = "MEMORY.md", agent_id: str | None = None
) -> ImportReport:
    """Import one file's text; `name` (its file name) tells a daily log or JSONL apart. The
    text is read in full before one write transaction stores it, or nothing."""
    kind = detect_format(name, text)
    report = ImportReport(formats=[kind], files=1)
    agent, now = engine.agent(agent_id), engine.clock()
    triples: list[tuple[str, str, str]] = []
    relations: list[dict[str, Any]] = []
    if kind == "cortex-json":
        memories, relations = read_export(_export_document(text))
    elif kind == "mcp-memory-jsonl":
        graph = _graph(text)
        memories, triples = _memories(graph.drafts, agent, now, name), graph.relations
    elif kind == "daily-log":
        memories = _daily(text, name, agent, engine)
    else:
        memories = _memories(parse_markdown(text, Category.FACT), agent, now, name)
    clean = await engine.cleaner(agent)
    memories = [clean_memory(m, clean) for m in memories]
    relations = [clean_relation(r, clean) for r in relations]
    triples = [(clean(s), clean(p), clean(o)) for s, p, o in triples]
    async with engine.db.write() as conn:
        if kind == "cortex-json":
            await insert_export(conn, memories, relations, report)
        else:
            await insert_drafts(conn, memories, report)
            await insert_relations(conn, triples, agent, now, report)
    return report


async def import_path(engine: "Engine", path: Path, agent_id: str | None = None) -> ImportReport:
    """Import a file, or every MEMORY.md, daily log and .json/.jsonl file in a folder."""
    files = await anyio.to_thread.run_sync(_files_at, path)
    total = ImportReport()
    for file in files:
        text = await anyio.Path(file).read_text(encoding="utf-8")
        report = await import_text(engine, text, file.name, agent_id)
        total.formats += report.formats
        total.files += 1
        for name in ("memories_added", "memories_skipped", "relations_added", "relations_skipped"):
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
    except ValueError as err:
        raise InvalidInput("file", "is not valid JSON") from err
    if not isinstance(document, dict) or document.get("format") != EXPORT_FORMAT:
        raise InvalidInput("file", f"is not a {EXPORT_FORMAT} export (no format field)")
    if int(document.get("version", 0)) > EXPORT_VERSION:
        raise InvalidInput("file", f"export version {document['version']} is newer than this")
    return document


def _graph(text: str) -> Graph:
    try:
        return parse_knowledge_graph(text)
    except ValueError as err:
        raise InvalidInput("file", str(err)) from err


IMPORTANCE = {
    Category.IDENTITY: 0.9,
    Category.PREFERENCE: 0.8,
    Category.CORRECTION: 0.8,
    Category.DECISION: 0.75,
    Category.SKILL: 0.7,
    Category.PROJECT_STATE: 0.7,
}


def _memories(
    drafts: list[Draft], agent: str, now: datetime, name: str, layer: Layer = Layer.CORE
) -> list[Memory]:
    return [
        draft_memory(d, agent, now, name, layer, IMPORTANCE.get(d.category, 0.6)) for d in drafts
    ]


def _daily(text: str, name: str, agent: str, engine: "Engine") -> list[Memory]:
    """A daily log's items, dated that day: working while within the TTL, else archive."""
    day = daily_log_date(name)
    assert day is not None
    now, ttl = engine.clock(), timedelta(hours=engine.settings.sieve.working_ttl_hours)
    recent = day + timedelta(days=1) + ttl > now
    drafts = parse_markdown(text, Category.CONTEXT)
    for draft in drafts:
        draft.written = draft.written or day
    memories = _memories(drafts, agent, now, name, Layer.WORKING if recent else Layer.ARCHIVE)
    if recent:
        return [
            m.model_copy(update={"expires_at": day + timedelta(days=1) + ttl}) for m in memories
        ]
    archived = {"archived_at": to_text(now), "archived_from": "import"}
    return [m.model_copy(update={"metadata": m.metadata | archived}) for m in memories]
