"""The entity graph, alive: relations drawn from what is stored, in the same transaction.

A memory written with a slot (the fast channel's subject / predicate / value) gets its
relation; so does each relation the LLM extraction or the agent (`cortex_remember`'s
`relations`) attaches to a memory. A relation is scoped like its memory and holds while its
memory does: superseding or forgetting the memory closes it (store/memories.py), restoring
reopens it, purging erases it.
"""

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from cortex_mcp.engine.slots import Slot
from cortex_mcp.errors import InvalidInput
from cortex_mcp.models import Memory, new_memory_id
from cortex_mcp.search.entities import MAX_NAME
from cortex_mcp.store.db import Connection
from cortex_mcp.store.relations import Relation, insert_relation

MAX_RELATIONS = 20
"""Relations one memory may carry (from the agent or the LLM)."""


@dataclass(frozen=True)
class Triple:
    """subject —predicate→ object, as written."""

    subject: str
    predicate: str
    object: str


SLOT_PREDICATES = {
    "name": "name",
    "home": "lives in",
    "workplace": "works at",
    "role": "works as",
    "answer_language": "prefers answers in",
    "tool": "uses",
}


def slot_triple(slot: Slot) -> Triple:
    """The relation a slot states: (user, works at, Acme), (user, wife, Anna), (user, has cat,
    Mochi), (user, birthday, May 3)."""
    kind, _, detail = slot.predicate.partition(":")
    if kind in SLOT_PREDICATES:
        predicate = SLOT_PREDICATES[kind]
    elif kind == "person":
        predicate = detail
    elif kind == "pet":
        predicate = f"has {detail}"
    else:  # birthday
        predicate = "birthday" if detail in ("", "self") else f"{detail} birthday"
    return Triple(slot.subject, predicate, slot.value)


def checked_triples(items: object, where: str) -> list[Triple]:
    """Triples from JSON-like input (objects with subject, predicate, object); a bad one is an
    `InvalidInput` naming `where[i].field` and the rule."""
    if not isinstance(items, list):
        raise InvalidInput(where, "must be a list of {subject, predicate, object}")
    if len(items) > MAX_RELATIONS:
        raise InvalidInput(where, f"at most {MAX_RELATIONS} relations per memory")
    triples = []
    for number, item in enumerate(items):
        parts = _parts(item)
        if parts is None:
            raise InvalidInput(f"{where}[{number}]", "must be {subject, predicate, object}")
        for name, value in zip(("subject", "predicate", "object"), parts, strict=True):
            if not isinstance(value, str) or not value.strip():
                raise InvalidInput(f"{where}[{number}].{name}", "must be a non-empty string")
            if len(value) > MAX_NAME:
                raise InvalidInput(f"{where}[{number}].{name}", f"at most {MAX_NAME} characters")
        subject, predicate, target = (" ".join(str(p).split()) for p in parts)
        triples.append(Triple(subject, predicate, target))
    return triples


RELATION_KEYS = {
    "subject": ("subject", "from", "source", "head", "entity"),
    "predicate": ("predicate", "relation", "relationType", "relation_type", "type", "verb"),
    "object": ("object", "to", "target", "tail", "value"),
}


def _parts(item: object) -> tuple[Any, Any, Any] | None:
    if isinstance(item, list | tuple) and len(item) == 3:
        return item[0], item[1], item[2]
    if not isinstance(item, dict):
        return None
    found = [next((item[k] for k in keys if k in item), None) for keys in RELATION_KEYS.values()]
    return found[0], found[1], found[2]


def repaired_triples(items: object) -> list[Triple]:
    """What an LLM answer's `relations` holds, repaired like the rest of its answer: one
    object for a list, [s, p, o] lists, synonyms of the field names (from/to, relationType);
    anything still unreadable is dropped, nothing raises."""
    if isinstance(items, dict):
        items = [items]
    if not isinstance(items, list):
        return []
    triples = []
    for item in items[:MAX_RELATIONS]:
        try:
            triples += checked_triples([item], "relations")
        except InvalidInput:
            continue
    return triples


async def record(
    conn: Connection,
    memory: Memory,
    slot: Slot | None,
    triples: tuple[Triple, ...] | list[Triple],
    now: datetime,
) -> int:
    """Inside the write transaction: store the relations `memory` states (its slot's and the
    given ones), scoped and dated like it; how many were new."""
    wanted = ([slot_triple(slot)] if slot is not None else []) + list(triples)
    added = 0
    for triple in wanted:
        relation = Relation(
            id=new_memory_id(int(now.timestamp() * 1000)),
            agent_id=memory.agent_id,
            subject=triple.subject,
            predicate=triple.predicate,
            object=triple.object,
            confidence=memory.confidence,
            source_memory_id=memory.id,
            created_at=now,
            updated_at=now,
            valid_from=memory.created_at,
        )
        added += int(await insert_relation(conn, relation))
    return added
