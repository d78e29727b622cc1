"""Importing files: our JSON export (ids kept), a MEMORY.md (to core), dated daily logs (to
working while recent, else the archive), the MCP memory server's JSONL, or a folder of them.

Every row is checked with the tools' rules; a bad one is skipped and reported as
`file:where: field: rule` (with `strict`, the file is refused). One write transaction per
file stores the rest or, on a file-level error, nothing; `dry_run` counts and rolls back.
JSON and JSONL files are streamed in batches, so a large import's memory stays bounded;
Markdown files are read whole (they are pages, not dumps).
"""

from collections.abc import Collection, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import IO, Any, TypeVar

import anyio
import anyio.to_thread
from pydantic import BaseModel, Field

from cortex_mcp.clock import to_text
from cortex_mcp.engine.language.redaction import Cleaner
from cortex_mcp.engine.privacy import clean_memory, clean_relation
from cortex_mcp.engine.runtime import Runtime
from cortex_mcp.engine.transfer.files import (
    HEAD_BYTES,
    detect_format,
    files_at,
    kind_of,
    nothing_to_read,
)
from cortex_mcp.engine.transfer.parse import (
    Draft,
    daily_log_date,
    parse_knowledge_graph,
    parse_markdown,
)
from cortex_mcp.engine.transfer.restore import (
    draft_memory,
    export_memory_rows,
    export_relation_rows,
    insert_drafts,
    insert_export_memories,
    insert_export_relations,
    insert_relations,
    link_chains,
)
from cortex_mcp.engine.transfer.said import insert_messages
from cortex_mcp.engine.transfer.stream import (
    Source,
    batches,
    items_of,
    lines_of,
    scan_header,
    text_source,
)
from cortex_mcp.engine.transfer.validate import (
    MAX_PROBLEMS_SHOWN,
    Problems,
    check_content,
    check_date,
)
from cortex_mcp.errors import InvalidInput
from cortex_mcp.models import Category, Layer, Memory
from cortex_mcp.store.db import Connection

EXPORT_FORMAT = "cortex-mcp"
EXPORT_VERSION = 1
T = TypeVar("T")
IMPORTANCE = {
    Category.IDENTITY: 0.9,
    Category.PREFERENCE: 0.8,
    Category.CORRECTION: 0.8,
    Category.DECISION: 0.75,
    Category.SKILL: 0.7,
    Category.PROJECT_STATE: 0.7,
}
COUNTS = (
    "memories_added",
    "memories_skipped",
    "relations_added",
    "relations_skipped",
    "messages_added",
    "messages_skipped",
)


class ImportReport(BaseModel):
    """What an import added and what it found already there."""

    formats: list[str] = Field(default_factory=list, description="Formats read, one per file.")
    files: int = 0
    memories_added: int = 0
    memories_skipped: int = 0
    relations_added: int = 0
    relations_skipped: int = 0
    messages_added: int = Field(default=0, description="Conversation-log messages restored.")
    messages_skipped: int = Field(default=0, description="Messages whose exchange was there.")
    rows_invalid: int = Field(default=0, description="Rows that broke a rule and were skipped.")
    problems: list[str] = Field(
        default_factory=list, description="The first bad rows, as file:where: field: rule."
    )
    dry_run: bool = Field(default=False, description="True for --check: nothing was written.")
    note: str | None = Field(
        default=None, description="Why nothing was read, when a folder held no importable file."
    )


class _CheckOnly(Exception):
    """Raised inside the write transaction of a check, to roll everything back."""


class FileImport:
    """One file's import: where it comes from, for whom, and what it found."""

    def __init__(
        self,
        rt: Runtime,
        clean: Cleaner,
        name: str,
        agent_id: str | None,
        origin: str,
        strict: bool,
        taken_lines: Collection[int] = (),
    ) -> None:
        self.rt, self.clean, self.name, self.origin = rt, clean, name, origin
        self.taken_lines = frozenset(taken_lines)
        self.agent, self.now = rt.agent(agent_id), rt.clock()
        self.limit = rt.settings.memory.max_content_chars
        self.problems = Problems(name, strict)
        self.report = ImportReport(files=1)

    async def run(self, source: Source, kind: str, dry_run: bool) -> ImportReport:
        """Check and store the file in one transaction (rolled back for a dry run); secrets
        (and the kinds the user declared) are redacted first, like on every path in."""
        self.report.formats, self.report.dry_run = [kind], dry_run
        if kind == "cortex-json":
            _check_header(await anyio.to_thread.run_sync(scan_header, source))
        try:
            async with self.rt.db.write() as conn:
                if kind == "cortex-json":
                    await self._export(conn, source)
                elif kind == "mcp-memory-jsonl":
                    await self._graph(conn, source)
                else:
                    text = await anyio.to_thread.run_sync(_read_text, source)
                    await insert_drafts(
                        conn, self._cleaned(self._markdown(text, kind)), self.report
                    )
                if dry_run:
                    raise _CheckOnly
        except _CheckOnly:
            pass
        self.report.rows_invalid, self.report.problems = self.problems.count, self.problems.shown
        return self.report

    async def _export(self, conn: Connection, source: Source) -> None:
        seen: set[str] = set()
        links: list[tuple[str, str]] = []
        memories = batches(enumerate(items_of(source, "memories")))
        while (rows := await _next(memories)) is not None:
            valid = self._cleaned(export_memory_rows(rows, self.limit, self.problems, seen))
            await insert_export_memories(conn, valid, links, self.report)
        await link_chains(conn, links, seen)
        relations = batches(enumerate(items_of(source, "relations")))
        while (rows := await _next(relations)) is not None:
            documents = export_relation_rows(rows, self.problems)
            documents = [clean_relation(document, self.clean) for document in documents]
            await insert_export_relations(conn, documents, seen, self.report)
        said = batches(enumerate(items_of(source, "conversation")))
        restored: set[str] = set()  # an exchange split between two batches is one exchange
        limit = self.rt.settings.sieve.max_message_chars
        while (rows := await _next(said)) is not None:
            added, skipped = await insert_messages(
                conn, rows, self.clean, limit, self.problems, restored
            )
            self.report.messages_added += added
            self.report.messages_skipped += skipped

    async def _graph(self, conn: Connection, source: Source) -> None:
        lines = batches(enumerate(lines_of(source), start=1))
        while (numbered := await _next(lines)) is not None:
            graph = parse_knowledge_graph(numbered, self.problems)
            drafts = self._valid(graph.drafts)
            memories = self._cleaned(self._memories(drafts, Layer.CORE))
            await insert_drafts(conn, memories, self.report)
            triples = [(self.clean(s), self.clean(p), self.clean(o)) for s, p, o in graph.relations]
            await insert_relations(conn, triples, self.agent, self.now, self.report)

    def _markdown(self, text: str, kind: str) -> list[Memory]:
        if kind != "daily-log":
            parsed = parse_markdown(text, Category.FACT)
            drafts = self._valid([d for d in parsed if d.line not in self.taken_lines])
            core = [d for d in drafts if d.layer is None]
            archived = [d for d in drafts if d.layer == Layer.ARCHIVE]
            working = [d for d in drafts if d.layer == Layer.WORKING]
            memories = self._memories(core, Layer.CORE) + self._archived(archived)
            for midnight in sorted({_midnight(d) for d in working}):
                same_day = [d for d in working if _midnight(d) == midnight]
                memories += self._of_day(same_day, midnight)
            return memories
        day = daily_log_date(self.name)
        assert day is not None
        check_date(day, "date")
        drafts = self._valid(parse_markdown(text, Category.CONTEXT))
        for draft in drafts:
            draft.written = draft.written or day
        return self._of_day(drafts, day)

    def _of_day(self, drafts: list[Draft], day: datetime) -> list[Memory]:
        """A day's working memories: working until the day's expiry, archived after it."""
        ttl = timedelta(hours=self.rt.settings.sieve.working_ttl_hours)
        if day + timedelta(days=1) + ttl <= self.now:
            return self._archived(drafts)
        expiry = day + timedelta(days=1) + ttl
        memories = self._memories(drafts, Layer.WORKING)
        return [m.model_copy(update={"expires_at": expiry}) for m in memories]

    def _archived(self, drafts: list[Draft]) -> list[Memory]:
        archived = {"archived_at": to_text(self.now), "archived_from": "import"}
        memories = self._memories(drafts, Layer.ARCHIVE)
        return [m.model_copy(update={"metadata": m.metadata | archived}) for m in memories]

    def _cleaned(self, memories: list[Memory]) -> list[Memory]:
        return [clean_memory(memory, self.clean) for memory in memories]

    def _valid(self, drafts: list[Draft]) -> list[Draft]:
        """The drafts whose content and date keep the rules; the others in `problems`."""
        kept = []
        for draft in drafts:
            try:
                check_content(draft.content, self.limit)
                check_date(draft.written, "date")
                kept.append(draft)
            except InvalidInput as error:
                self.problems.add(draft.line, error)
        return kept

    def _memories(self, drafts: list[Draft], layer: Layer) -> list[Memory]:
        return [
            draft_memory(
                draft,
                self.agent,
                self.now,
                self.name,
                layer,
                IMPORTANCE.get(draft.category, 0.6),
                self.origin,
            )
            for draft in drafts
        ]


def _midnight(draft: Draft) -> datetime:
    """The day a working item of an export was written (its section's day)."""
    written = draft.written or datetime.min.replace(tzinfo=UTC)
    return written.replace(hour=0, minute=0, second=0, microsecond=0)


async def _next(chunks: Iterator[list[T]]) -> list[T] | None:
    """The next batch, read and parsed in a worker thread; None at the end."""
    return await anyio.to_thread.run_sync(next, chunks, None)


def _read_text(source: Source) -> str:
    with source() as data:
        try:
            return data.read().decode("utf-8")
        except UnicodeDecodeError as error:
            raise InvalidInput("file", "is not UTF-8 text") from error


def _check_header(header: Any) -> None:
    if not header.is_object or header.scalars.get("format") != EXPORT_FORMAT:
        raise InvalidInput("file", f"is not a {EXPORT_FORMAT} export (no format field)")
    version = header.scalars.get("version", 0)
    if isinstance(version, bool) or not isinstance(version, int):
        raise InvalidInput("version", "must be a whole number")
    if version > EXPORT_VERSION:
        raise InvalidInput("version", f"export version {version} is newer than this")
    for key in ("memories", "relations", "conversation"):
        if header.kinds.get(key, "start_array") != "start_array":
            raise InvalidInput(key, "must be a list")


async def import_text(
    rt: Runtime,
    clean: Cleaner,
    text: str,
    name: str = "MEMORY.md",
    agent_id: str | None = None,
    *,
    source: str = "import",
    strict: bool = False,
    dry_run: bool = False,
    taken_lines: Collection[int] = (),
) -> ImportReport:
    """Import one file's text; `name` (its file name) tells a daily log or JSONL apart;
    `source` is what the new memories record as their source; the Markdown items starting on
    `taken_lines` are left out (the mirror stored them another way)."""
    run = FileImport(rt, clean, name, agent_id, source, strict, taken_lines)
    return await run.run(text_source(text), detect_format(name, text[:HEAD_BYTES]), dry_run)


async def import_path(
    rt: Runtime,
    clean: Cleaner,
    path: Path,
    agent_id: str | None = None,
    *,
    strict: bool = False,
    dry_run: bool = False,
) -> ImportReport:
    """Import a file, or every MEMORY.md, daily log and .json/.jsonl file in a folder. A file
    that cannot be read is refused with one line naming it."""
    files = await anyio.to_thread.run_sync(files_at, path)
    total = ImportReport(dry_run=dry_run, note=None if files else await nothing_to_read(path))
    kinds = [await kind_of(file) for file in files]  # every file, before anything is written
    for file, kind in zip(files, kinds, strict=True):
        try:
            run = FileImport(rt, clean, file.name, agent_id, "import", strict)
            report = await run.run(_opener(file), kind, dry_run)
        except OSError as err:
            raise InvalidInput(str(file), f"cannot be read ({err.strerror})") from err
        except InvalidInput as err:
            raise InvalidInput(str(file), str(err).removeprefix(f"{file.name}: ")) from err
        total.formats += report.formats
        total.files += 1
        total.problems += report.problems[: MAX_PROBLEMS_SHOWN - len(total.problems)]
        for name in (*COUNTS, "rows_invalid"):
            setattr(total, name, getattr(total, name) + getattr(report, name))
    return total


def _opener(file: Path) -> Source:
    def open_file() -> IO[bytes]:
        return file.open("rb")

    return open_file
