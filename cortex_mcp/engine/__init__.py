"""What memory does, free of MCP: the use cases the edge calls, on one `Engine`."""

import json
import logging
import time
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import anyio

from cortex_mcp.clock import Clock, utc_now
from cortex_mcp.config import Settings, provider_environment
from cortex_mcp.engine import (
    conversation,
    expansion,
    flush,
    forgetting,
    gate,
    graph,
    graph_view,
    lifecycle,
    privacy,
    render,
    sieve,
    transfer,
)
from cortex_mcp.engine.access import AccessRecorder
from cortex_mcp.engine.background import PassCounter
from cortex_mcp.engine.embedding import VectorIndex
from cortex_mcp.engine.lifecycle import LifecycleReport, MirrorWriter
from cortex_mcp.engine.llm import LanguageModel
from cortex_mcp.engine.nearby import nearby_memories
from cortex_mcp.engine.patterns import is_correction
from cortex_mcp.engine.questions import asked_predicates, slot_answers
from cortex_mcp.engine.redaction import redact
from cortex_mcp.engine.remember import remember as remember_memory
from cortex_mcp.engine.stats import engine_stats
from cortex_mcp.engine.transfer import ImportReport
from cortex_mcp.engine.update import Decide
from cortex_mcp.errors import InvalidInput, MemoryNotFound
from cortex_mcp.models import (
    SHARED_SCOPE,
    Category,
    FlushResult,
    ForgetResult,
    IngestResult,
    Layer,
    LogHit,
    Memory,
    RecallResult,
    RememberResult,
    SearchDebug,
    SearchHit,
    is_memory_id,
)
from cortex_mcp.providers.build import build_embedder_cascade
from cortex_mcp.search.tokenize import query_terms
from cortex_mcp.store import memories as rows
from cortex_mcp.store.db import Database
from cortex_mcp.store.logs import log_action
from cortex_mcp.store.migrations import migrate
from cortex_mcp.store.select import open_store

logger = logging.getLogger(__name__)

ALL_LAYERS = [Layer.CORE, Layer.WORKING, Layer.ARCHIVE]
LATENCY_WINDOW = 1000
DIGEST_HEADER = "Core memory digest (cortex-mcp; no query given):"


@dataclass
class Engine:
    """The memory engine of one server process: the database, the settings and the clock."""

    db: Database
    settings: Settings
    llm: LanguageModel
    vectors: VectorIndex
    clock: Clock = utc_now
    recall_latencies_ms: deque[float] = field(default_factory=lambda: deque(maxlen=LATENCY_WINDOW))
    passes: PassCounter = field(default_factory=PassCounter)
    wake: anyio.Event = field(default_factory=anyio.Event)
    mirror_lock: anyio.Lock = field(default_factory=anyio.Lock)
    access: AccessRecorder = field(init=False)
    mirror: MirrorWriter = field(init=False)

    def __post_init__(self) -> None:
        self.access = AccessRecorder(self.db)
        self.mirror = MirrorWriter(self)

    def agent(self, agent_id: str | None) -> str:
        """The agent a call acts for: the one it names, else the configured default."""
        return agent_id or self.settings.memory.default_agent_id

    @property
    def has_llm(self) -> bool:
        """True when an LLM provider could answer now (it may still fail on a call)."""
        return self.llm.available

    async def complete(self, system: str, prompt: str, *, json_mode: bool = True) -> str | None:
        """The LLM's answer, or None when there is no LLM or every provider failed."""
        return await self.llm.complete(system, prompt, json_mode=json_mode)

    @property
    def decide(self) -> Decide | None:
        """Ask the LLM to judge update-vs-new, when there is an LLM."""
        return self.complete if self.llm.available else None

    async def profile_text(self, agent_id: str) -> str | None:
        """The cached user profile that calibrates extraction, or None."""
        async with self.db.read() as conn:
            profile = await self._profile(conn, agent_id)
        return profile.content if profile else None

    async def ingest(
        self,
        user_message: str,
        assistant_message: str,
        *,
        session_id: str | None = None,
        tool_calls: list[dict[str, Any]] | None = None,
        agent_id: str | None = None,
    ) -> IngestResult:
        """The Memory Sieve on one exchange: fast channel to core, deep channel to working."""
        result = await sieve.ingest(
            self,
            user_message,
            assistant_message,
            session_id=session_id,
            tool_calls=tool_calls,
            agent_id=self.agent(agent_id),
        )
        stored = [*result.fast, *result.deep]
        await forgetting.link_stored(self, stored)
        logger.debug(
            "ingest: %d to core, %d to working, skipped %s, redacted %s",
            len(result.fast),
            len(result.deep),
            result.skipped,
            result.redacted,
        )
        self.mirror.mark_dirty()
        self.embed_soon([m.id for m in stored])
        await self._follow_supersedes(
            self.agent(agent_id), [m.category for m in stored if m.superseded_id]
        )
        return result

    async def flush(
        self,
        messages: list[tuple[str, str]],
        *,
        session_id: str | None = None,
        reason: str = "compaction",
        agent_id: str | None = None,
    ) -> FlushResult:
        """Extract from (role, content) messages about to be compacted away; nothing is lost."""
        result = await flush.flush(
            self,
            [sieve.Message(role, content) for role, content in messages],
            session_id=session_id,
            reason=reason,
            agent_id=self.agent(agent_id),
        )
        summary = [result.summary.id] if result.summary else []
        await forgetting.link_stored(
            self, result.memories + ([result.summary] if result.summary else [])
        )
        logger.debug(
            "flush: %d messages, %d extracted, %d queued, %d memories, redacted %s",
            result.messages,
            result.extracted_messages,
            result.queued_messages,
            len(result.memories),
            result.redacted,
        )
        self.mirror.mark_dirty()
        self.embed_soon([m.id for m in result.memories] + summary)
        await self._follow_supersedes(
            self.agent(agent_id), [m.category for m in result.memories if m.superseded_id]
        )
        return result

    async def retry_queued(self) -> int:
        """Extract due exchanges the LLM owes, from the conversation log; how many succeeded."""
        return await sieve.extract_backlog(self)

    async def prune_conversation(self) -> int:
        """Erase logged messages older than the retention setting; how many went."""
        return await conversation.prune(self)

    def embed_soon(self, memory_ids: list[str]) -> None:
        """Have the background loop embed new memories now, off the caller's path."""
        if memory_ids and self.vectors.configured:
            self.wake.set()

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
    ) -> RememberResult:
        """Store an explicit memory in core; duplicates reinforce, `supersedes` replaces;
        `context` (the conversation around it) is searched with it; `relations` (subject,
        predicate, object) join the entity graph with it."""
        if supersedes is not None and not is_memory_id(supersedes):
            raise InvalidInput("supersedes", "must be a memory id (a UUID)")
        triples = graph.checked_triples(relations or [], "relations")
        clean = await self.cleaner(self.agent(agent_id))
        content, context = clean(content), clean(context) if context is not None else None
        triples = [
            graph.Triple(clean(t.subject), clean(t.predicate), clean(t.object)) for t in triples
        ]
        nearby = []
        if supersedes is None and (category == Category.CORRECTION or is_correction(content)):
            owner = None if scope == SHARED_SCOPE else self.agent(agent_id)
            nearby = await nearby_memories(self.db, self.vectors, content, owner)
        async with self.db.write() as conn:
            result = await remember_memory(
                conn,
                content=content,
                category=category,
                importance=importance,
                tags=tags or [],
                agent_id=self.agent(agent_id),
                scope=scope,
                supersedes=supersedes,
                context=context,
                settings=self.settings.memory,
                now=self.clock(),
                nearby=nearby,
                relations=triples,
            )
        logger.debug("remember: %s %s (%s)", result.action, result.id, result.category.value)
        self.mirror.mark_dirty()
        self.embed_soon([result.id])
        if result.superseded_id:
            await self._follow_supersedes(self.agent(agent_id), [result.category])
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
    ) -> RecallResult:
        """The memories most relevant to `query`, as a context block within `max_tokens`."""
        self._check_query(query)
        started = time.perf_counter()
        agent = self.agent(agent_id)
        if not query.strip():
            result = await self._digest(agent, max_results, max_tokens, layers, categories)
        else:
            result = await self._search(
                query, agent, max_results, max_tokens, layers or ALL_LAYERS, categories
            )
        self.recall_latencies_ms.append((time.perf_counter() - started) * 1000)
        return result

    async def _search(
        self,
        query: str,
        agent: str,
        max_results: int,
        max_tokens: int,
        layers: list[Layer],
        categories: list[Category] | None,
    ) -> RecallResult:
        now = self.clock()
        ranking, hits = await self._rank(query, agent, layers, categories, keep=max_results)
        found = [(h.memory, h.score.final_score) for h in hits]
        # matched: by the query's words, or by time (made on or mentioning a day it names, or
        # mentioning a date when it asks when): these come before the conversation log's hits
        matched = {h.memory.id for h in hits if h.score.bm25 is not None or h.score.date_boost > 1}
        predicates = asked_predicates(query)
        said: list[LogHit] = []
        if predicates or len(matched) < max_results:  # else: one read, as before the log
            async with self.db.read() as conn:
                answers = await slot_answers(conn, query, agent, layers, categories)
                found, said = await conversation.with_log_hits(
                    conn, query, agent, found, matched, answers, max_results
                )
        lines = expansion.answer_lines(ranking.relations, [m for m, _ in found])
        budget = max(1, max_tokens - gate.tokens_of("\n".join(lines))) if lines else max_tokens
        block, fitted, fitted_said = conversation.recall_block(
            [m for m, _ in found], said, query, budget
        )
        block = expansion.with_relations(block, lines, gate.CONTEXT_EMPTY)
        found = found[:fitted]
        logged = redact(query)[0] if self.settings.sieve.redact_secrets else query
        self.access.record([m.id for m, _ in found], logged, now)  # the access log keeps it
        return RecallResult(
            context=block,
            memories=[gate.to_item(m, score) for m, score in found],
            total_candidates=len(ranking.scored),
            tokens_used=gate.tokens_of(block),
            conversation=said[:fitted_said],
        )

    async def _rank(
        self,
        query: str,
        agent: str,
        layers: list[Layer],
        categories: list[Category] | None,
        keep: int | None,
    ) -> tuple[gate.Ranking, list[SearchHit]]:
        return await gate.find(
            self.db,
            self.vectors,
            query,
            agent_id=agent,
            layers=layers,
            categories=categories,
            settings=self.settings.search,
            clock=self.clock,
            keep=keep,
        )

    async def _digest(
        self,
        agent: str,
        max_results: int,
        max_tokens: int,
        layers: list[Layer] | None,
        categories: list[Category] | None,
    ) -> RecallResult:
        """No query: the core memory digest, and the profile first when one exists."""
        async with self.db.read() as conn:
            found = await rows.live_memories(
                conn, agent, layers or [Layer.CORE], categories, limit=max_results
            )
            profile = await self._profile(conn, agent)
        memories = ([profile] if profile and profile not in found else []) + found
        block, fitted = gate.context_block(memories, max_tokens, DIGEST_HEADER)
        kept = memories[:fitted]
        return RecallResult(
            context=block,
            memories=[gate.to_item(m, m.importance) for m in kept],
            total_candidates=len(memories),
            tokens_used=gate.tokens_of(block),
        )

    async def search_debug(
        self, query: str, *, agent_id: str | None = None, layers: list[Layer] | None = None
    ) -> SearchDebug:
        """Every candidate for `query` with each factor of its score; changes nothing."""
        self._check_query(query)
        await self.access.flush()
        ranking, hits = await self._rank(
            query, self.agent(agent_id), layers or ALL_LAYERS, None, keep=None
        )
        return SearchDebug(
            query=query,
            terms=query_terms(query),
            match_expression=ranking.terms_match,
            backends=ranking.backends,
            candidates=hits,
        )

    async def forget(
        self, memory_id: str, *, reason: str | None = None, agent_id: str | None = None
    ) -> ForgetResult:
        """Soft-delete a memory: it leaves recall, and cortex_restore brings it back."""
        async with self.db.write() as conn:
            memory = await self._visible(conn, memory_id, agent_id)
            if memory.deleted_at is not None:
                raise InvalidInput("memory_id", "is already forgotten; cortex_restore undoes that")
            now = self.clock()
            await rows.set_deleted(conn, memory.id, now, reason)
            derived = await forgetting.forget_derived(conn, memory, now, reason)
            await self._hide_said(conn, memory, now)
            details = {"reason": reason} | ({"derived": derived} if derived else {})
            await log_action(conn, "forget", [memory.id, *derived], details, now)
        logger.debug("forget: %s with %d copies of its exchange", memory.id, len(derived))
        self.mirror.mark_dirty()
        return ForgetResult(memory_id=memory.id, deleted=True, reason=reason, derived=derived)

    async def purge(self, memory_ids: list[str], *, agent_id: str | None = None) -> ForgetResult:
        """Erase memories for good (forgotten ones too) with every copy of their text; only
        an explicit request does this, never the lifecycle."""
        report = await forgetting.purge(self, memory_ids, agent_id)
        derived = [i for i in report.purged if i not in memory_ids]
        reason = "purged: erased for good"
        return ForgetResult(memory_id=memory_ids[0], deleted=True, reason=reason, derived=derived)

    async def restore(self, memory_id: str, *, agent_id: str | None = None) -> ForgetResult:
        """Undo a forget, or a supersede: the memory is live again (the one that replaced it
        stays live too)."""
        async with self.db.write() as conn:
            memory = await self._visible(conn, memory_id, agent_id)
            now = self.clock()
            derived: list[str] = []
            if memory.deleted_at is not None:
                await rows.set_deleted(conn, memory.id, None, None)
                derived = await forgetting.restore_derived(conn, memory)
                await self._unhide_said(conn, memory, memory.deleted_at)
                await log_action(conn, "restore", [memory.id, *derived], {}, now)
                reason = None
            elif memory.superseded_by is not None:
                await rows.clear_superseded(conn, memory.id, now)
                details = {"was_superseded_by": memory.superseded_by}
                await log_action(conn, "restore_superseded", [memory.id], details, now)
                reason = f"was superseded by {memory.superseded_by}"
            else:
                raise InvalidInput(
                    "memory_id", "is neither forgotten nor superseded; there is nothing to restore"
                )
        self.mirror.mark_dirty()
        await self._follow_supersedes(self.agent(agent_id), [memory.category])
        return ForgetResult(memory_id=memory.id, deleted=False, reason=reason, derived=derived)

    async def _hide_said(self, conn: Any, memory: Memory, now: datetime) -> None:
        """A forgotten memory's words leave recall from the conversation log too."""
        await conversation.hide_said(conn, memory, now)

    async def _unhide_said(self, conn: Any, memory: Memory, hidden_at: datetime) -> None:
        """What forgetting this memory hid in the conversation log is shown again."""
        await conversation.unhide_said(conn, memory, hidden_at)

    async def _follow_supersedes(self, agent: str, categories: list[Category]) -> None:
        """A supersede (or its undoing) shows in the profile at once, not at the next run."""
        if categories and lifecycle.concerns_profile(set(categories)):
            await lifecycle.refresh_profile(self, agent)

    async def is_shared(self, memory_id: str) -> bool:
        """True when `memory_id` names a shared memory (one no agent owns)."""
        if not is_memory_id(memory_id):
            return False
        async with self.db.read() as conn:
            memory = await rows.get_memory(conn, memory_id)
        return memory is not None and memory.agent_id is None

    async def memory_json(self, memory_id: str, *, agent_id: str | None = None) -> str:
        """One memory with its metadata and supersede chain, as JSON."""
        await self.access.flush()
        async with self.db.read() as conn:
            memory = await self._visible(conn, memory_id, agent_id)
            chain = await rows.supersede_chain(conn, memory.id)
        return render.render_memory_json(memory, chain)

    async def relations_markdown(self, *, agent_id: str | None = None) -> str:
        """The live relations an agent sees, with a Mermaid graph of the top entities."""
        return await graph_view.relations_markdown(self.db, self.agent(agent_id))

    async def entity_json(self, name: str, *, agent_id: str | None = None) -> str:
        """One entity: its relations (current and closed) and its memories, as JSON."""
        found = await graph_view.entity_json(self.db, name, self.agent(agent_id))
        return json.dumps(found, ensure_ascii=False, indent=2)

    async def core_markdown(self, *, agent_id: str | None = None) -> str:
        """Core memory of an agent (with shared memories) as Markdown grouped by category."""
        async with self.db.read() as conn:
            core = await rows.live_memories(conn, self.agent(agent_id), [Layer.CORE], limit=10_000)
        return render.render_core_markdown(m for m in core if m.category != Category.PROFILE)

    async def profile_markdown(self, *, agent_id: str | None = None) -> str:
        """The user profile, or an explanation that none exists yet."""
        async with self.db.read() as conn:
            profile = await self._profile(conn, self.agent(agent_id))
        return render.render_profile(profile)

    async def run_lifecycle(self, *, dry_run: bool = False) -> LifecycleReport:
        """Consolidate memory now (or, with dry_run, report exactly what that would do);
        LifecycleBusy when another process is running it."""
        await self.access.flush()  # recalls count towards promotion and decay
        return await lifecycle.run_lifecycle(self, dry_run=dry_run)

    async def lifecycle_log(self, limit: int = 10) -> list[dict[str, Any]]:
        """The latest lifecycle runs with their reports, newest first."""
        return await lifecycle.lifecycle_log(self, limit)

    async def set_profile(self, content: str, *, agent_id: str | None = None) -> Memory:
        """Write the user's own words into their profile; kept across re-synthesis."""
        clean = await self.cleaner(self.agent(agent_id), also=content)
        profile = await lifecycle.set_manual_profile(self, clean(content), agent_id)
        self.mirror.mark_dirty()
        return profile

    async def working_markdown(self, day: str, *, agent_id: str | None = None) -> str:
        """One day (YYYY-MM-DD) of working memory as Markdown."""
        return await lifecycle.working_page(self, day, agent_id)

    async def archive_markdown(self, month: str, *, agent_id: str | None = None) -> str:
        """One month (YYYY-MM) of the archive, with its summary, as Markdown."""
        return await lifecycle.archive_page(self, month, agent_id)

    async def export_memory(self, format: str = "json", *, include_forgotten: bool = False) -> str:
        """Everything as JSON (lossless; `import` restores it) or as Markdown; forgotten
        memories only when asked."""
        if format == "markdown":
            return await transfer.export_markdown(self)
        return await transfer.export_json(self, include_forgotten=include_forgotten)

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
        report = await transfer.import_path(self, path, agent_id, strict=strict, dry_run=dry_run)
        if not dry_run:
            self.mirror.mark_dirty()
        return report

    async def stats(self) -> dict[str, Any]:
        """Counts per layer and category, states, database size, backends and latencies."""
        await self.access.flush()
        return await engine_stats(self)

    async def cleaner(self, agent_id: str, also: str = "") -> sieve.Cleaner:
        """The redaction for text coming in for an agent: secrets, and the personal-data kinds
        the configuration, the agent's profile or `also` (profile words) declare."""
        return await privacy.cleaner_for(self, agent_id, also)

    async def _visible(self, conn: Any, memory_id: str, agent_id: str | None) -> Memory:
        if not is_memory_id(memory_id):
            raise InvalidInput(
                "memory_id", "must be a memory id (a UUID such as those recall returns)"
            )
        memory = await rows.get_visible_memory(conn, memory_id, self.agent(agent_id))
        if memory is None:
            raise MemoryNotFound(memory_id)
        return memory

    async def _profile(self, conn: Any, agent: str) -> Memory | None:
        found = await rows.live_memories(conn, agent, [Layer.CORE], [Category.PROFILE], limit=1)
        return found[0] if found else None

    def _check_query(self, query: str) -> None:
        limit = self.settings.memory.max_query_chars
        if len(query) > limit:
            raise InvalidInput("query", f"{len(query):,} characters; the limit is {limit:,}")


@asynccontextmanager
async def open_engine(
    settings: Settings, clock: Clock = utc_now, environ: dict[str, str] | None = None
) -> AsyncIterator[Engine]:
    """Open the database (migrating it) and the providers; yield the engine; close on exit.

    `environ` holds the standard provider variables (OPENAI_API_KEY, ...); by default they are
    read from the process environment. Nothing here touches the network or loads a model.
    """
    environ = provider_environment() if environ is None else environ
    db = await open_store(settings)
    llm = LanguageModel.from_settings(settings.llm, environ, settings.sieve.llm_max_tokens)
    llm.guard = privacy.ProviderGuard(settings.sieve.redact_secrets, settings.redaction.kinds)
    embedder = build_embedder_cascade(settings.embedding, environ)
    if settings.embedding.provider == "auto" and embedder.embedder is None:
        logger.warning("semantic search is off (%s); recall uses BM25 alone", embedder.note)
    try:
        await migrate(db)
        index = VectorIndex(
            db,
            embedder,
            clock,
            settings.embedding.batch_size,
            drop_function_words=settings.embedding.drop_function_words,
            guard=llm.guard,
        )
        engine = Engine(db=db, settings=settings, llm=llm, vectors=index, clock=clock)
        await engine.access.start()
        try:
            yield engine
        finally:
            with anyio.CancelScope(shield=True):
                await engine.access.flush()
                await engine.mirror.write_pending()
    finally:
        with anyio.CancelScope(shield=True):
            await llm.aclose()
            await embedder.aclose()
            await db.close()
