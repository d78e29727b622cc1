"""Relations as text: (subject, predicate, object) triples, from a slot, from the agent's
`relations` argument (checked: bad input is refused naming the field) or from the LLM's answer
(repaired: a bad item is dropped). `ingest.write.record_relations` stores them with a memory."""

from dataclasses import dataclass
from typing import Any

from cortex_mcp.engine.language.slots import Slot
from cortex_mcp.errors import InvalidInput
from cortex_mcp.search.entities import MAX_NAME

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
    "left": "left",
    "role": "works as",
    "answer_language": "prefers answers in",
    "tool": "uses",
}


def slot_triple(slot: Slot) -> Triple:
    """The relation a slot states: (user, works at, Acme), (user, wife, Anna), (user, has cat,
    Mochi), (user, birthday, May 3)."""
    kind, _, detail = slot.predicate.partition(":")
    if kind == "person" and slot.predicate.count(":") == 2:  # another person's own fact
        attribute = slot.attribute
        subject = slot.subject if slot.subject[:1].isupper() else f"user's {slot.subject}"
        return Triple(subject, SLOT_PREDICATES.get(attribute, attribute), slot.value)
    if kind in ("version", "uses"):
        return Triple(slot.subject, "uses", slot.value)
    if kind in ("allergy", "avoids", "diet"):
        return Triple(slot.subject, {"allergy": "allergic to", "avoids": "avoids"}.get(kind, kind),
                      slot.value)  # fmt: skip
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
