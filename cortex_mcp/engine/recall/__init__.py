"""cortex_recall: the order of the steps, each in a module of its own.

The query is read once (`question`), ranked over full text, vectors, dates and the graph
(`rank`, `graph`), a question about a slot is answered first (`slots`), the conversation log's
messages (each searched with the turns around it) compete with the memories for every place
(`log`), and everything is fitted into the
context block (`block`). No query: the core digest, with the profile first.
"""

import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.lowlevel

from cortex_mcp.engine.language.redaction import redact
from cortex_mcp.engine.recall import block
from cortex_mcp.engine.recall.corrected import not_corrected
from cortex_mcp.engine.recall.floor import meaning_only, nearest_only, stands
from cortex_mcp.engine.recall.log import (
    LogVector,
    NearLeg,
    log_pool,
    text_messages,
    vector_messages,
    with_log_hits,
)
from cortex_mcp.engine.recall.log_dates import dated_log
from cortex_mcp.engine.recall.project import (
    EVERYWHERE,
    WIDER_POOL,
    Scope,
    digest_order,
    in_scope,
    scoped,
    scoped_said,
)
from cortex_mcp.engine.recall.question import Question, read_question
from cortex_mcp.engine.recall.rank import Ranking, Then, find, vector_backend
from cortex_mcp.engine.recall.slots import slot_answers
from cortex_mcp.engine.recall.unlogged import without_log
from cortex_mcp.engine.runtime import Runtime
from cortex_mcp.engine.scratchpad import read_scratchpad, scratchpad_block
from cortex_mcp.errors import InvalidInput
from cortex_mcp.guidance import DIGEST_HEADER, DIGEST_MORE, empty_store
from cortex_mcp.models import (
    Category,
    Layer,
    LogHit,
    Memory,
    RecallResult,
    SearchDebug,
    SearchHit,
)
from cortex_mcp.search.tokenize import normalised_content
from cortex_mcp.store import memories as rows
from cortex_mcp.store.conversation import LoggedMessage, log_counts
from cortex_mcp.store.db import Connection
from cortex_mcp.store.lifecycle import count_live, sees_a_live_memory

ALL_LAYERS = [Layer.CORE, Layer.WORKING, Layer.ARCHIVE]
Where = tuple[str, list[Layer] | None, list[Category] | None]
"""Whose memories, in which layers (None: every layer, and core for the digest) and
categories (None: all)."""
DIGEST_NONE = (
    "No core memory to show here (none in the layers, project or tags asked for); cortex_recall"
    " with a query searches every layer, every project and the conversation log."
)
"""The digest with nothing in its scope, of a store that holds something (found trying the
product: a new folder's session start read "No stored memory matches this query.", and a
digest of the working layer of a store with only core memories "Memory is empty")."""
MORE_TOKENS = 20
"""Kept free in the digest's budget for the DIGEST_MORE line (and the blank line before)."""


def check_query(rt: Runtime, query: str) -> None:
    """InvalidInput when the query is over the configured length."""
    limit = rt.settings.memory.max_query_chars
    if len(query) > limit:
        raise InvalidInput("query", f"{len(query):,} characters; the limit is {limit:,}")


async def recall(
    rt: Runtime,
    query: str,
    where: Where,
    max_results: int,
    max_tokens: int,
    scope: Scope = EVERYWHERE,
) -> RecallResult:
    """The memories most relevant to `query`, as a context block within `max_tokens`; no
    query: the core digest (layers: core unless `where` names others). `scope`: the current
    project first, and the project and tag filters."""
    check_query(rt, query)
    started = time.perf_counter()
    if not query.strip():
        result = await digest(rt, where, max_results, max_tokens, scope)
    elif not rt.vectors.answering:
        question = read_question(query, rt.clock())
        result = await search(rt, question, where, max_results, max_tokens, scope)
    else:  # the query's vector is made from the start, before the query is read (#23)
        async with anyio.create_task_group() as early:
            early.start_soon(rt.vectors.query_vector, query)
            await anyio.lowlevel.checkpoint()  # on its way: the embedder does not hold the GIL
            question = read_question(query, rt.clock())
            result = await search(rt, question, where, max_results, max_tokens, scope)
    rt.recall_latencies_ms.append((time.perf_counter() - started) * 1000)
    return result


async def search(
    rt: Runtime,
    question: Question,
    where: Where,
    max_results: int,
    max_tokens: int,
    scope: Scope = EVERYWHERE,
) -> RecallResult:
    """The ranked memories and log lines for a question, fitted into the token budget."""
    agent, chosen, categories = where
    layers = chosen or ALL_LAYERS
    now = rt.clock()
    text: list[list[tuple[float, LoggedMessage]]] = []
    legs: list[NearLeg] = []
    fused: list[Fused] = []
    slots: list[list[Memory]] = []

    async def scoped_answers(conn: Connection) -> list[Memory]:
        # the slot answers the scope keeps: another project's database is not this one's
        found = await slot_answers(conn, question.predicates, agent, layers, categories)
        return [m for m in found if in_scope(m, scope)]

    async def log_text(conn: Connection) -> None:
        # the log's text leg and the slot answers, read while the query is embedded
        text.append(await text_messages(conn, question.log_match, agent, log_pool(max_results)))
        slots.append(await scoped_answers(conn))

    async def log_near(conn: Connection, vector: list[float]) -> None:
        # the log's vector leg, searched beside the memories' ranking once the query's vector
        # is there (the same vector `log_vector` gives below)
        leg = log_leg(rt, vector)
        legs.append(await vector_messages(conn, leg, agent, log_pool(max_results)))

    async def with_log(conn: Connection, ranking: Ranking, hits: list[SearchHit]) -> None:
        # the log competes for every place (#23), in the read that ranked the memories
        found = [(h.memory, h.score.final_score) for h in hits]
        found = scoped(found, scope, rt.settings.workspace.project_boost)
        found = one_per_text(found)[:max_results]  # the project's copy of a text said in two
        # matched: by the query's words, or by time (made on or mentioning a day it names, or
        # mentioning a date when it asks when): these come before the conversation log's hits
        matched = {h.memory.id for h in hits if h.score.bm25 is not None or h.score.date_boost > 1}
        answers = slots[0] if slots else await scoped_answers(conn)
        asked = matched | {m.id for m in answers}
        unrelated = nearest_only(hits, asked, rt.settings.search, rt.vectors.model)
        found = [(m, score) for m, score in found if m.id not in unrelated]
        by_meaning = meaning_only(hits, asked)
        vector = await log_vector(rt, question, ranking)
        if ranking.store is not None and not ranking.store.log:  # nothing logged to search
            found = without_log(found, matched, answers, max_results)
            fused.append(Fused(found, [], answers, by_meaning))
            return
        found, said = await with_log_hits(
            conn,
            question.log_match,
            agent,
            found,
            matched,
            answers,
            max_results,
            question.terms,
            dated_log(question, rt.settings.search),
            vector,
            text[0] if text else None,
            legs[0] if legs and vector is not None else None,
            question.text,
        )
        fused.append(Fused(found, await scoped_said(conn, said, scope), answers, by_meaning))

    ranking, hits = await rank(
        rt,
        question,
        where,
        max_results * (WIDER_POOL if scope.wider else 1),
        log_text,
        log_near,
        with_log,
        repeats=scope.wider,
    )
    [(found, said, answers, by_meaning)] = [
        (f.found, f.said, f.answers, f.by_meaning) for f in fused
    ]
    relations = ranking.relations
    dated = bool(question.spans)
    shown = [m for m, _ in found]
    if not stands(
        question.terms, hits, shown, said, rt.settings.search, rt.vectors.model, answers, dated
    ):
        found, said, relations = [], [], []  # the floor: nothing rather than something unrelated
    lines = block.answer_lines(relations, [m for m, _ in found])
    budget = max(1, max_tokens - block.tokens_of("\n".join(lines))) if lines else max_tokens
    said = not_corrected(block.distinct_said(said, question.terms), [m for m, _ in found])
    # a line that only asks ("what's my name?") answers nothing: the text the model reads
    # leaves it out, the structured result lists it last, marked `question`
    stating = [hit for hit in said if not hit.question]
    context, fitted, fitted_said = block.recall_block(
        [m for m, _ in found], stating, question.terms, budget
    )
    context = block.with_relations(context, lines, block.CONTEXT_EMPTY)
    if not found and not said and not lines and await is_empty(rt, agent):
        context = empty_store(rt.settings.tools)
    found = found[:fitted]
    answered = {m.id for m in answers}
    logged = redact(question.text)[0] if rt.settings.sieve.redact_secrets else question.text
    # the access log keeps the query; a memory only its vector found is not counted: the
    # nearest of everything (an instruction, a short preference) would otherwise gain a boost
    # from each answer it padded and pad every answer after (found by the natural questions)
    rt.access.record([m.id for m, _ in found if m.id not in by_meaning], logged, now)
    return RecallResult(
        context=context,
        memories=[block.to_item(m, score, m.id in answered) for m, score in found],
        total_candidates=len(ranking.scored),
        tokens_used=block.tokens_of(context),
        conversation=stating[:fitted_said] + [hit for hit in said if hit.question],
    )


@dataclass(frozen=True)
class Fused:
    """The memories and log lines a search shows, and the slot answers among them."""

    found: list[tuple[Memory, float]]
    said: list[LogHit]
    answers: list[Memory]
    by_meaning: set[str]
    """The memories among them only a vector found (`floor.meaning_only`)."""


async def log_vector(rt: Runtime, question: Question, ranking: Ranking) -> LogVector | None:
    """The query's vector for the log's vector leg (the one ranking embedded: it is cached)
    and the fusion's weights; None when vectors could not answer the ranking."""
    name = vector_backend(rt.db)
    if not any(b.name == name and b.available for b in ranking.backends):
        return None
    vector = await rt.vectors.query_vector(question.text)
    return None if vector is None else log_leg(rt, vector)


def log_leg(rt: Runtime, vector: list[float]) -> LogVector:
    """The query's vector with the fusion's weights and the log's vectors in memory."""
    search = rt.settings.search
    return LogVector(vector, search.text_weight, search.vector_weight, rt.vectors.said)


async def rank(
    rt: Runtime,
    question: Question,
    where: Where,
    keep: int | None,
    meanwhile: Callable[[Connection], Coroutine[Any, Any, None]] | None = None,
    alongside: Callable[[Connection, list[float]], Coroutine[Any, Any, None]] | None = None,
    then: Then | None = None,
    repeats: bool = False,
) -> tuple[Ranking, list[SearchHit]]:
    """Every candidate ranked, and the best `keep` distinct ones read in full (None: all;
    `repeats`: the same text of two projects both); `meanwhile` runs while the query is
    embedded, `alongside` beside the ranking once the query's vector is there, `then` after
    it in the same read (`find`)."""
    agent, layers, categories = where
    return await find(
        rt.db,
        rt.vectors,
        question,
        agent_id=agent,
        layers=layers or ALL_LAYERS,
        categories=categories,
        settings=rt.settings.search,
        clock=rt.clock,
        keep=keep,
        meanwhile=meanwhile,
        alongside=alongside,
        then=then,
        repeats=repeats,
    )


def one_per_text(found: list[tuple[Memory, float]]) -> list[tuple[Memory, float]]:
    """The first of each text among ranked memories (the same statement filed under two
    projects is two memories: the project step has put the current one's first)."""
    seen: set[str] = set()
    kept = []
    for memory, score in found:
        key = normalised_content(memory.content)
        if key not in seen:
            seen.add(key)
            kept.append((memory, score))
    return kept


async def digest(
    rt: Runtime, where: Where, max_results: int, max_tokens: int, scope: Scope = EVERYWHERE
) -> RecallResult:
    """No query: the scratchpad (within a budget of its own), the profile, then the core
    memory digest (the current project's first), saying how many it left out."""
    agent, layers, categories = where
    layers = layers or [Layer.CORE]
    pool = max_results * (WIDER_POOL if scope.wider else 1)
    async with rt.db.read() as conn:
        if layers == [Layer.CORE] and categories is None:
            found = await rows.weightiest_core(conn, agent, None, pool)
        else:
            found = await rows.live_memories(conn, agent, layers, categories, limit=pool)
        profile = await rows.live_profile(conn, agent)
        counted = categories or [c for c in Category if c != Category.PROFILE]
        total = sum([await count_live(conn, agent, layer, counted) for layer in layers])
    found = digest_order(found, scope, rt.settings.workspace.project_boost)[:max_results]
    pad = await read_scratchpad(rt, agent, scope.project)
    share = min(rt.settings.workspace.scratchpad_tokens, max_tokens // 2)
    pad_text = scratchpad_block(pad, share)
    if not found and profile is None:
        empty = total == 0 and await is_empty(rt, agent)
        note = empty_store(rt.settings.tools) if empty else DIGEST_NONE
        context = "\n\n".join(filter(None, [pad_text, note]))
        return RecallResult(
            context=context, memories=[], total_candidates=0, tokens_used=block.tokens_of(context)
        )
    memories = ([profile] if profile and profile not in found else []) + found
    budget = max(50, max_tokens - block.tokens_of(pad_text) - MORE_TOKENS)
    context, fitted = block.context_block(memories, budget, DIGEST_HEADER)
    kept = memories[:fitted]
    shown = sum(1 for m in kept if m.category != Category.PROFILE or categories)
    left_out = max(0, total - shown)
    if left_out:
        context += "\n" + DIGEST_MORE.format(more=left_out)
    context = "\n\n".join(filter(None, [pad_text, context]))
    return RecallResult(
        context=context,
        memories=[block.to_item(m, m.importance) for m in kept],
        total_candidates=max(total, len(memories)),
        tokens_used=block.tokens_of(context),
    )


async def is_empty(rt: Runtime, agent: str) -> bool:
    """True when the agent sees no live memory in any layer and nothing is logged."""
    async with rt.db.read() as conn:
        if await sees_a_live_memory(conn, agent):
            return False
        said = await log_counts(conn)
    return said["messages"] == said["hidden_messages"]


async def search_debug(
    rt: Runtime, query: str, agent: str, layers: list[Layer] | None
) -> SearchDebug:
    """Every candidate for `query` with each factor of its score; changes nothing."""
    check_query(rt, query)
    await rt.access.flush_before_read()
    question = read_question(query, rt.clock())
    ranking, hits = await rank(rt, question, (agent, layers, None), keep=None)
    return SearchDebug(
        query=query,
        terms=question.terms,
        match_expression=ranking.terms_match,
        backends=ranking.backends,
        candidates=hits,
    )
