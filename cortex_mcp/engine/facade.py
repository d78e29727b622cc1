"""The engine's one door for the edge: each use case the tools and resources call, delegated to
the package that does it. No SQL, no transaction, no logic here."""

import json
import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import anyio

from cortex_mcp.clock import Clock, utc_now
from cortex_mcp.config import Settings
from cortex_mcp.engine import (
    browse,
    episodes,
    forget,
    forget_text,
    ingest,
    lifecycle,
    projects,
    purge,
    recall,
    scratchpad,
    transfer,
    views,
)
from cortex_mcp.engine.embedding import VectorIndex
from cortex_mcp.engine.forget_text import ForgetMatching
from cortex_mcp.engine.ingest.channels import Message
from cortex_mcp.engine.ingest.flush import flush
from cortex_mcp.engine.ingest.remember import Remembering, remember
from cortex_mcp.engine.lifecycle import LifecycleReport
from cortex_mcp.engine.mirror.pages import archive_page, working_page
from cortex_mcp.engine.mirror.writer import MirrorWriter
from cortex_mcp.engine.purge import PurgePreview, PurgeReport
from cortex_mcp.engine.recall.project import Scope
from cortex_mcp.engine.runtime import Runtime, open_runtime
from cortex_mcp.engine.stats import engine_stats
from cortex_mcp.engine.transfer import ImportReport
from cortex_mcp.engine.writes import Written, follow_up, write_through
from cortex_mcp.models import (
    Category,
    FlushResult,
    ForgetResult,
    IngestResult,
    Layer,
    Memory,
    RecallResult,
    RememberResult,
    SearchDebug,
    StoredMemory,
)
from cortex_mcp.store.scratchpad import Scratchpad
from cortex_mcp.unicode_text import well_formed

logger = logging.getLogger(__name__)


def stored_by(memories: list[StoredMemory], *, profile_later: bool = False) -> Written:
    """What an ingest or a flush wrote, for the steps after it (`profile_later`: the caller
    must not wait for an LLM to redo the profile)."""
    superseded = [m.category for m in memories if m.superseded_id]
    return Written([m.id for m in memories], superseded, profile_later=profile_later)


class Engine:
    """The memory engine of one server process: the use cases the edge calls."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.mirror = MirrorWriter(runtime)

    @property
    def db(self) -> Any:
        """The store (for the edge's health checks and tests)."""
        return self.runtime.db

    @property
    def settings(self) -> Settings:
        """The settings this engine runs with."""
        return self.runtime.settings

    @property
    def vectors(self) -> VectorIndex:
        """The vector index (its back-fill, its embedder)."""
        return self.runtime.vectors

    def agent(self, agent_id: str | None) -> str:
        """The agent a call acts for: the one it names, else the configured default."""
        return self.runtime.agent(agent_id)

    async def ingest(
        self,
        user_message: str,
        assistant_message: str,
        *,
        session_id: str | None = None,
        tool_calls: list[dict[str, Any]] | None = None,
        agent_id: str | None = None,
        project: str | None = None,
        said_at: datetime | None = None,
    ) -> IngestResult:
        """The Memory Sieve on one exchange: fast channel to core, deep channel to working;
        what it stores and logs is filed under `project` and dated `said_at` (none: now)."""
        agent, rt = self.agent(agent_id), self.runtime
        mark = await projects.log_mark(rt, project)
        exchange = (user_message, assistant_message)
        result = await write_through(
            rt,
            agent,
            lambda clean: ingest.ingest(
                rt, clean, *exchange, session_id, tool_calls, agent, project, said_at
            ),
            lambda result: stored_by([*result.fast, *result.deep], profile_later=True),
        )
        ids = [m.id for m in [*result.fast, *result.deep]]
        await projects.file_under(rt, project, ids, (agent, session_id, mark))
        return result

    async def flush(
        self,
        messages: list[tuple[str, str]],
        *,
        session_id: str | None = None,
        reason: str = "compaction",
        agent_id: str | None = None,
        project: str | None = None,
        said_at: Sequence[datetime | None] = (),
    ) -> FlushResult:
        """Extract from (role, content) messages about to be compacted away; nothing is lost.
        The session's episode is written too (no messages and a session_id closes it); what it
        stores and logs is filed under `project`. `said_at`: when each message was said, when
        the caller knows (an import of past sessions); each is logged and extracted as of then."""
        agent, rt, said = self.agent(agent_id), self.runtime, [Message(*m) for m in messages]
        mark = await projects.log_mark(rt, project)
        result = await write_through(
            rt,
            agent,
            lambda clean: flush(rt, clean, said, session_id, reason, agent, project, said_at),
            lambda result: stored_by([*result.memories, *filter(None, [result.summary])]),
        )
        ids = [m.id for m in [*result.memories, *filter(None, [result.summary])]]
        await projects.file_under(rt, project, ids, (agent, session_id, mark))
        return result

    async def remember(
        self,
        content: str,
        *,
        category: Category = Category.FACT,
        importance: float = 0.7,
        tags: list[str] | None = None,
        agent_id: str | None = None,
        scope: str = "agent",
        supersedes: str | None = None,
        context: str | None = None,
        relations: list[list[str]] | list[dict[str, str]] | None = None,
        project: str | None = None,
    ) -> RememberResult:
        """Store an explicit memory in core; duplicates reinforce, `supersedes` replaces;
        `context` is searched with it; `relations` (subject, predicate, object) join the graph;
        a new memory is filed under `project`."""
        agent, rt = self.agent(agent_id), self.runtime
        asked = Remembering(
            category, importance, tags or [], scope, supersedes, context, relations, project
        )
        result = await write_through(
            rt, agent, lambda clean: remember(rt, clean, content, asked, agent), remembered
        )
        await projects.file_under(rt, project, [result.id])
        return result

    async def recall(
        self,
        query: str,
        *,
        max_results: int = 8,
        max_tokens: int = 2000,
        layers: list[Layer] | None = None,
        categories: list[Category] | None = None,
        agent_id: str | None = None,
        project: str | None = None,
        only_project: bool = False,
        tags: list[str] | None = None,
    ) -> RecallResult:
        """The memories most relevant to `query`, as a context block within `max_tokens`;
        `project`'s memories first (`only_project`: none of other projects), `tags`: only
        memories carrying one of them."""
        where = (self.agent(agent_id), layers, categories)
        scope = Scope(project, only_project, tuple(tags or ()))
        await self.runtime.vectors.caught_up_after_start()  # the last run's vectors (#25)
        query = well_formed(query)  # half an emoji from a transcript's prompt (unicode_text)
        return await recall.recall(self.runtime, query, where, max_results, max_tokens, scope)

    async def search_debug(
        self, query: str, *, agent_id: str | None = None, layers: list[Layer] | None = None
    ) -> SearchDebug:
        """Every candidate for `query` with each factor of its score; changes nothing."""
        return await recall.search_debug(self.runtime, query, self.agent(agent_id), layers)

    async def forget(
        self, memory_id: str, *, reason: str | None = None, agent_id: str | None = None
    ) -> ForgetResult:
        """Soft-delete a memory: it leaves recall, and cortex_restore brings it back."""
        result = await forget.forget(self.runtime, memory_id, reason, self.agent(agent_id))
        await follow_up(self.runtime, self.agent(agent_id), Written())
        return result

    async def purge(self, memory_ids: list[str], *, agent_id: str | None = None) -> ForgetResult:
        """Erase memories for good (forgotten ones too) with every copy of their text; only
        an explicit request does this, never the lifecycle."""
        report = await self.purge_report(memory_ids, agent_id=agent_id)
        derived = [i for i in report.purged if i not in memory_ids]
        return ForgetResult(
            memory_id=memory_ids[0],
            deleted=True,
            reason="purged: erased for good",
            derived=derived,
            messages=report.messages,
            note=report.note,
        )

    async def forget_matching(
        self,
        text: str,
        *,
        purge: bool,
        confirm: str | None,
        reason: str | None = None,
        agent_id: str | None = None,
    ) -> ForgetMatching:
        """Forget (or purge) the agent's memories and logged messages holding `text`: a
        preview with a `confirm` token first, then, given that token, the forget itself."""
        agent = self.agent(agent_id)
        result = await forget_text.forget_matching(
            self.runtime, text, agent, erasing=purge, confirm=confirm, reason=reason
        )
        if result.done:
            await follow_up(self.runtime, agent, Written())
        return result

    async def purge_report(
        self, memory_ids: list[str], *, agent_id: str | None = None
    ) -> PurgeReport:
        """Erase memories for good, as `purge`, with the full report (the CLI shows it)."""
        return await purge.purge(self.runtime, memory_ids, agent_id)

    async def preview_purge_messages(
        self, memory_ids: list[str], *, agent_id: str | None = None
    ) -> int:
        """How many logged messages `purge_report(memory_ids)` would erase; changes nothing."""
        return await purge.preview_messages(self.runtime, memory_ids, agent_id)

    async def edit_memory(
        self,
        memory_id: str,
        agent: str,
        *,
        content: str | None,
        category: Category | None,
        importance: float | None,
        layer: Layer | None,
    ) -> dict[str, Any]:
        """The memory browser's hand edit, redacted like every write; the memory in full."""
        fields = browse.Edit(content, category, importance, layer)
        return await write_through(
            self.runtime,
            agent,
            lambda clean: browse.edit_memory(self.runtime, clean, memory_id, agent, fields),
            lambda detail: Written([memory_id]),
        )

    async def purge_matching(self, text: str) -> PurgeReport:
        """Erase every memory (any agent) whose text contains `text`, and `text` everywhere."""
        return await purge.purge_matching(self.runtime, text)

    async def preview_purge(self, text: str) -> PurgePreview:
        """What `purge_matching(text)` would erase; changes nothing."""
        return await purge.preview_matching(self.runtime, text)

    async def restore(self, memory_id: str, *, agent_id: str | None = None) -> ForgetResult:
        """Undo a forget, or a supersede: the memory is live again (the one that replaced it
        stays live too)."""
        result, category = await forget.restore(self.runtime, memory_id, self.agent(agent_id))
        await follow_up(self.runtime, self.agent(agent_id), Written([], [category]))
        return result

    async def owners(self, ids: list[str]) -> dict[str, str | None]:
        """The agent owning each memory or logged exchange named (None: shared memory)."""
        return await forget.owners(self.runtime, ids)

    async def memory_json(self, memory_id: str, *, agent_id: str | None = None) -> str:
        """One memory with its metadata and supersede chain, as JSON."""
        return await views.memory_json(self.runtime, memory_id, self.agent(agent_id))

    async def relations_markdown(self, *, agent_id: str | None = None) -> str:
        """The live relations an agent sees, with a Mermaid graph of the top entities."""
        return await views.relations_markdown(self.runtime.db, self.agent(agent_id))

    async def entity_json(self, name: str, *, agent_id: str | None = None) -> str:
        """One entity: its relations (current and closed) and its memories, as JSON."""
        found = await views.entity_json(self.runtime.db, name, self.agent(agent_id))
        return json.dumps(found, ensure_ascii=False, indent=2)

    async def episodes_json(
        self, *, page: int = 1, page_size: int = 20, agent_id: str | None = None
    ) -> str:
        """The agent's episodes, latest first, one page of them, as JSON."""
        return await episodes.episodes_json(self.runtime, self.agent(agent_id), page, page_size)

    async def episode_json(self, episode_id: str, *, agent_id: str | None = None) -> str:
        """One episode in full (goal, outcome, tools, action nodes, linked memories), as JSON."""
        return await episodes.episode_json(self.runtime, episode_id, self.agent(agent_id))

    async def core_markdown(self, *, agent_id: str | None = None) -> str:
        """Core memory of an agent (with shared memories) as Markdown grouped by category."""
        return await views.core_markdown(self.runtime, self.agent(agent_id))

    async def context_markdown(
        self, *, agent_id: str | None = None, project: str | None = None
    ) -> str:
        """What the cortex_context prompt loads: the scratchpad, the profile, core memory."""
        return await views.context_markdown(self.runtime, self.agent(agent_id), project)

    async def scratchpad(
        self,
        action: str,
        content: str | None = None,
        *,
        agent_id: str | None = None,
        project: str | None = None,
    ) -> Scratchpad:
        """Read, replace (redacted, within the configured length) or undo the scratchpad of
        an agent and project."""
        agent, rt = self.agent(agent_id), self.runtime
        if action == "replace":
            return await write_through(
                rt,
                agent,
                lambda clean: scratchpad.replace_scratchpad(
                    rt, clean, agent, project, content or ""
                ),
                lambda pad: Written(changed=False),
            )
        if action == "undo":
            return await scratchpad.undo_scratchpad(rt, agent, project)
        return await scratchpad.read_scratchpad(rt, agent, project)

    async def scratchpad_markdown(
        self, *, agent_id: str | None = None, project: str | None = None
    ) -> str:
        """The scratchpad of an agent and project as Markdown."""
        pad = await scratchpad.read_scratchpad(self.runtime, self.agent(agent_id), project)
        return scratchpad.scratchpad_markdown(pad)

    async def projects(self, *, agent_id: str | None = None) -> list[str]:
        """The projects an agent's memories are filed under."""
        return await projects.known_projects(self.runtime, self.agent(agent_id))

    async def profile_markdown(self, *, agent_id: str | None = None) -> str:
        """The user profile, or an explanation that none exists yet."""
        return await views.profile_markdown(self.runtime, self.agent(agent_id))

    async def run_lifecycle(self, *, dry_run: bool = False) -> LifecycleReport:
        """Consolidate memory now (or, with dry_run, report exactly what that would do);
        LifecycleBusy when another process is running it."""
        await self.runtime.access.flush()  # recalls count towards promotion and decay
        return await lifecycle.run_lifecycle(self.runtime, dry_run=dry_run)

    async def lifecycle_log(self, limit: int = 10) -> list[dict[str, Any]]:
        """The latest lifecycle runs with their reports, newest first."""
        return await lifecycle.lifecycle_log(self.runtime, limit)

    async def set_profile(self, content: str, *, agent_id: str | None = None) -> Memory:
        """Write the user's own words into their profile; kept across re-synthesis."""
        agent, rt = self.agent(agent_id), self.runtime
        return await write_through(
            rt,
            agent,
            lambda clean: lifecycle.set_manual_profile(rt, clean(content), agent),
            lambda profile: Written(),
            also=content,
        )

    async def working_markdown(self, day: str, *, agent_id: str | None = None) -> str:
        """One day (YYYY-MM-DD) of working memory as Markdown."""
        return await working_page(self.runtime, day, agent_id)

    async def archive_markdown(self, month: str, *, agent_id: str | None = None) -> str:
        """One month (YYYY-MM) of the archive, with its summary, as Markdown."""
        return await archive_page(self.runtime, month, agent_id)

    async def export_memory(self, format: str = "json", *, include_forgotten: bool = False) -> str:
        """Everything as JSON (lossless; `import` restores it) or as Markdown; forgotten
        memories only when asked."""
        if format == "markdown":
            return await transfer.export_markdown(self.runtime)
        return await transfer.export_json(self.runtime, include_forgotten=include_forgotten)

    async def import_memory(
        self,
        path: Path,
        *,
        agent_id: str | None = None,
        strict: bool = False,
        dry_run: bool = False,
    ) -> ImportReport:
        """Import a file or folder: our JSON, MEMORY.md, YYYY-MM-DD.md logs, memory-server JSONL.
        Bad rows are skipped and reported (`strict`: refused); `dry_run` writes nothing."""
        rt, agent = self.runtime, self.agent(agent_id)
        return await write_through(
            rt,
            agent,
            lambda clean: transfer.import_path(
                rt, clean, path, agent_id, strict=strict, dry_run=dry_run
            ),
            lambda report: Written(changed=not dry_run),
        )

    async def stats(self) -> dict[str, Any]:
        """Counts per layer and category, states, database size, backends and latencies."""
        await self.runtime.access.flush_before_read()
        return await engine_stats(self.runtime)


def remembered(result: RememberResult) -> Written:
    """What cortex_remember wrote, for the steps after it."""
    return Written([result.id], [result.category] if result.superseded_id else [])


@asynccontextmanager
async def open_engine(
    settings: Settings, clock: Clock = utc_now, environ: dict[str, str] | None = None
) -> AsyncIterator[Engine]:
    """Open the runtime (the database, migrated, and the providers); yield the engine; on exit
    write what is pending (recall counts, the mirror) and close. Nothing here touches the
    network or loads a model."""
    async with open_runtime(settings, clock, environ) as runtime:
        engine = Engine(runtime)
        try:
            yield engine
        finally:
            with anyio.CancelScope(shield=True):
                await runtime.access.flush()
                await engine.mirror.write_pending()
