"""Writing imported memories and relations, skipping whatever is already there."""

from datetime import datetime
from typing import TYPE_CHECKING, Any

from cortex_mcp.clock import from_text
from cortex_mcp.engine.transfer.parse import Draft
from cortex_mcp.engine.transfer.validate import (
    Problems,
    check_date,
    exported_memory,
    relation_fields,
)
from cortex_mcp.errors import InvalidInput
from cortex_mcp.models import Layer, Memory, derived_id, new_memory_id
from cortex_mcp.search.tokenize import normalised_content
from cortex_mcp.store import lifecycle as store
from cortex_mcp.store.db import Connection
from cortex_mcp.store.memories import insert_memory
from cortex_mcp.store.relations import Relation, insert_relation, relation_ids

if TYPE_CHECKING:
    from cortex_mcp.engine.transfer import ImportReport


def draft_memory(
    draft: Draft,
    agent: str,
    now: datetime,
    name: str,
    layer: Layer,
    importance: float,
    source: str = "import",
) -> Memory:
    """The memory an imported item becomes: dated as written, touched now (so it is fresh)."""
    written = draft.written or now
    return Memory.fresh(
        id=new_memory_id(int(written.timestamp() * 1000)),
        agent_id=agent,
        layer=layer,
        category=draft.category,
        content=draft.content,
        source=source,
        importance=importance,
        now=now,
        created_at=written,
        metadata={**draft.metadata, "imported_from": name},
    )


async def insert_drafts(conn: Connection, memories: list[Memory], report: "ImportReport") -> None:
    """Insert memories whose content the agent does not have in any state yet."""
    by_agent: dict[str | None, list[Memory]] = {}
    for memory in memories:
        by_agent.setdefault(memory.agent_id, []).append(memory)
    for agent, group in by_agent.items():
        seen = await store.contents_present(conn, agent, [m.content for m in group])
        for memory in group:
            key = normalised_content(memory.content)
            if key in seen:
                report.memories_skipped += 1
                continue
            seen.add(key)
            await insert_memory(conn, memory)
            report.memories_added += 1


def export_memory_rows(
    rows: list[tuple[int, object]], max_chars: int, problems: Problems, seen: set[str]
) -> list[Memory]:
    """The valid memories of numbered export rows; a bad row, or a second row with an id
    already in `seen` (which grows), is counted in `problems` and left out."""
    valid = []
    for number, row in rows:
        try:
            memory = exported_memory(row, max_chars)
            if memory.id in seen:
                raise InvalidInput("id", "appears twice in the file")
            seen.add(memory.id)
            valid.append(memory)
        except InvalidInput as error:
            problems.add(f"memories[{number}]", error)
    return valid


def export_relation_rows(
    rows: list[tuple[int, object]], problems: Problems
) -> list[dict[str, Any]]:
    """The valid relation documents of numbered export rows; the others in `problems`."""
    kept = []
    for number, row in rows:
        try:
            fields = relation_fields(row)
            for name in ("created_at", "updated_at"):
                check_date(_date(fields[name], name), name)
            kept.append(fields)
        except InvalidInput as error:
            problems.add(f"relations[{number}]", error)
    return kept


def _date(text: str, field: str) -> datetime:
    try:
        return from_text(text)
    except ValueError as err:
        raise InvalidInput(field, "must be an ISO 8601 date") from err


async def insert_export_memories(
    conn: Connection,
    memories: list[Memory],
    links: list[tuple[str, str]],
    report: "ImportReport",
) -> None:
    """Restore a batch of an export's memories (ids, layers, states) not yet there; their
    supersede links are added to `links`, set once every memory is in (`link_chains`)."""
    present = await store.existing_ids(conn, [m.id for m in memories])
    new = [m for m in memories if m.id not in present]
    for memory in new:
        await insert_memory(conn, memory.model_copy(update={"superseded_by": None}))
    links += [(m.id, m.superseded_by) for m in new if m.superseded_by is not None]
    report.memories_added += len(new)
    report.memories_skipped += len(memories) - len(new)


async def link_chains(conn: Connection, links: list[tuple[str, str]], known: set[str]) -> None:
    """Set the supersede links whose target is a memory of the file."""
    await store.set_superseded_by(conn, [(old, new) for old, new in links if new in known])


async def insert_export_relations(
    conn: Connection,
    documents: list[dict[str, Any]],
    known: set[str],
    report: "ImportReport",
) -> None:
    """Restore a batch of an export's relations not yet there."""
    relations = [_relation(r, known) for r in documents]
    existing = await relation_ids(conn, [r.id for r in relations])
    for relation in relations:
        added = relation.id not in existing and await insert_relation(conn, relation)
        report.relations_added += int(added)
        report.relations_skipped += int(not added)


def _relation(document: dict[str, Any], memory_ids: set[str]) -> Relation:
    try:
        source = document.get("source_memory_id")
        return Relation(
            id=str(document["id"]),
            agent_id=document.get("agent_id"),
            subject=str(document["subject"]),
            predicate=str(document["predicate"]),
            object=str(document["object"]),
            confidence=float(document.get("confidence", 0.8)),
            source_memory_id=source if source in memory_ids else None,
            created_at=from_text(str(document["created_at"])),
            updated_at=from_text(str(document["updated_at"])),
            valid_from=_when(document.get("valid_from")),
            valid_to=_when(document.get("valid_to")),
        )
    except (KeyError, TypeError, ValueError) as err:
        raise InvalidInput("file", f"a relation is malformed: {err}") from err


def _when(value: object) -> datetime | None:
    """An optional time of an exported relation (older exports have none)."""
    return from_text(value) if isinstance(value, str) and value else None


async def insert_relations(
    conn: Connection,
    triples: list[tuple[str, str, str]],
    agent: str,
    now: datetime,
    report: "ImportReport",
) -> None:
    """Store (subject, predicate, object) relations the agent does not have yet."""
    for subject, predicate, target in triples:
        relation = Relation(
            id=derived_id(now, "relation", agent, subject, predicate, target),
            agent_id=agent,
            subject=subject,
            predicate=predicate,
            object=target,
            confidence=0.8,
            source_memory_id=None,
            created_at=now,
            updated_at=now,
        )
        added = await insert_relation(conn, relation)
        report.relations_added += int(added)
        report.relations_skipped += int(not added)
