"""Compression: archive entries past the archive TTL flow back to core as monthly summaries.

Expired entries are grouped by agent and the month they were written. Each month becomes one
core memory of category `summary` ("[2026-01] ..."): written by the LLM, or extractively (the
weightiest entries, shortened) without one. A month summarised before is summarised again with
the new entries and supersedes its previous summary, so each month keeps one live summary. The
entries are marked compressed (and soft-deleted only with `delete_compressed_archive`).
"""

from collections import defaultdict
from datetime import datetime, timedelta
from typing import Any

from cortex_mcp.clock import to_text
from cortex_mcp.config import LifecycleSettings
from cortex_mcp.engine.language.answers import llm_object
from cortex_mcp.engine.lifecycle.plan import Before, Change, Edit, Row, State, expecting
from cortex_mcp.engine.llm import Ask
from cortex_mcp.models import Category, Layer, Memory, derived_id

SUMMARY_IMPORTANCE = 0.6
PROMPT_CHARS = 12_000
EXTRACT_ENTRIES = 6
EXTRACT_ENTRY_CHARS = 160
COMPRESS_SYSTEM = "You write short summaries of a user's old memories. Answer with JSON only."
COMPRESS_PROMPT = """These archived memories of one user were written in {period}. Summarise them
in 3-5 sentences for the user's long-term memory: keep names, numbers, decisions and outcomes;
leave out small talk. Write in the language of the memories; do not translate.
{previous}
<memories>
{memories}
</memories>

Answer {{"summary": "..."}}."""


def period_of(memory: Row | Memory) -> str:
    """The month a memory was written: YYYY-MM."""
    return memory.created_at.strftime("%Y-%m")


def weight(memory: Memory) -> tuple[float, int, datetime]:
    """What makes an entry worth keeping in a summary: importance, then recalls, then age."""
    return memory.importance, memory.access_count, memory.created_at


def extractive_summary(entries: list[Memory], previous: str | None) -> str:
    """The weightiest entries, shortened and joined; the previous summary's text first."""
    best = sorted(entries, key=weight, reverse=True)[:EXTRACT_ENTRIES]
    parts = [previous] if previous else []
    for memory in best:
        text = " ".join(memory.content.split())
        parts.append(text if len(text) <= EXTRACT_ENTRY_CHARS else text[:EXTRACT_ENTRY_CHARS] + "…")
    more = len(entries) - len(best)
    return "; ".join(parts) + (f" (+{more} more in the archive)" if more > 0 else "")


async def llm_summary(
    ask: Ask, period: str, entries: list[Memory], previous: str | None
) -> str | None:
    """The LLM's summary of a month, or None when it gave no usable answer."""
    lines, used = [], 0
    for memory in sorted(entries, key=weight, reverse=True):
        line = "- " + " ".join(memory.content.split())
        if used + len(line) > PROMPT_CHARS:
            break
        lines.append(line)
        used += len(line)
    earlier = f"\nThe month was summarised before as: {previous}\n" if previous else ""
    prompt = COMPRESS_PROMPT.format(period=period, previous=earlier, memories="\n".join(lines))
    answer = await ask(COMPRESS_SYSTEM, prompt)
    document = llm_object(answer)
    summary = document.get("summary") if document is not None else None
    return " ".join(summary.split()) if isinstance(summary, str) and summary.strip() else None


async def plan_compression(
    state: State, expired: list[Row], settings: LifecycleSettings, ask: Ask | None
) -> list[Change]:
    """One summary per (agent, month) of expired archive entries; the entries of one month
    are read whole while it is summarised, one month at a time."""
    groups: dict[tuple[str | None, str], list[Row]] = defaultdict(list)
    for memory in expired:
        groups[(memory.agent_id, period_of(memory))].append(memory)
    summaries = {
        (m.agent_id, m.period): m
        for m in state.in_layer(Layer.CORE)
        if m.category == Category.SUMMARY
    }
    changes = []
    for (agent, period), rows in sorted(groups.items(), key=lambda g: (g[0][1], g[0][0] or "")):
        previous = summaries.get((agent, period))
        full = await state.full([m.id for m in rows] + ([previous.id] if previous else []))
        rows = [m for m in rows if m.id in full]  # a row purged since it was listed is gone
        if not rows:
            continue
        entries = [full[m.id] for m in rows]
        before = full.get(previous.id) if previous else None
        old_text = before.content.removeprefix(f"[{period}] ") if before else None
        text = await llm_summary(ask, period, entries, old_text) if ask else None
        by = "llm" if text else "extractive"
        text = text or extractive_summary(entries, old_text)
        summary = _summary(state, agent, period, f"[{period}] {text}", by, rows, previous)
        changes.append(_compress(state, summary, rows, previous, settings))
    return changes


def _summary(
    state: State,
    agent: str | None,
    period: str,
    content: str,
    by: str,
    entries: list[Row],
    previous: Row | None,
) -> Memory:
    """The new live summary of a month, counting every entry it stands for."""
    count = len(entries) + int(previous.compressed_from if previous else 0)
    return state.add(
        Memory.fresh(
            id=derived_id(state.now, "summary", agent or "", period, *(m.id for m in entries)),
            agent_id=agent,
            layer=Layer.CORE,
            category=Category.SUMMARY,
            content=content,
            source="lifecycle",
            importance=SUMMARY_IMPORTANCE,
            now=state.now,
            metadata={"period": period, "compressed_from": count, "summary_by": by},
        )
    )


def _compress(
    state: State,
    summary: Memory,
    entries: list[Row],
    previous: Row | None,
    settings: LifecycleSettings,
) -> Change:
    replaced = [state.changed(previous, superseded_by=summary.id)[1]] if previous else []
    delete = settings.delete_compressed_archive
    marked = [_marked(entry, summary.id, state.now, delete) for entry in entries]
    return Change(
        action="compress",
        expect=expecting(*entries, *([previous] if previous else [])),
        inserts=[summary],
        updates=marked + replaced,
        details={
            "by": summary.metadata["summary_by"],
            "period": summary.metadata["period"],
            "summary": summary,
            "replaced_summary": previous.id if previous else None,
            "entries": [Before(entry.id) for entry in entries],
        },
    )


def _marked(entry: Row, summary_id: str, now: datetime, delete: bool) -> Edit:
    """The entry pointing at its summary; soft-deleted too when so configured."""
    stamp = to_text(now)

    def pointing(metadata: dict[str, Any]) -> dict[str, Any]:
        metadata.update(compressed_into=summary_id, compressed_at=stamp)
        if delete:
            metadata["forget_reason"] = "compressed into a monthly summary"
        return metadata

    return Edit(entry.id, {"updated_at": now, "deleted_at": now if delete else None}, pointing)


def ttl_cutoff(now: datetime, settings: LifecycleSettings) -> datetime:
    """Entries archived at or before this moment are due for compression."""
    return now - timedelta(days=settings.archive_ttl_days)
