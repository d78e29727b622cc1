"""What a lifecycle run will do, before it does it: changes planned on a slim in-memory state.

Every phase plans on the same `State` (the live working and core memories as the previous
phases leave them, as slim rows: no text, the few metadata keys a phase reads), so a preview
and a run share one plan. A `Change` carries what it expects of each row it touches (still
live, same layer, same `updated_at`), the rows it inserts and the edits it makes to existing
rows. The full rows an edit rewrites, and the before/after snapshots the audit log keeps, are
read and built only when the change is applied, a chunk at a time (`apply`).
"""

from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from cortex_mcp.engine.lifecycle.similarity import signature
from cortex_mcp.models import Layer, Memory
from cortex_mcp.store.slim import SlimMemory, slim_of

Row = SlimMemory
MetadataEdit = Callable[[dict[str, Any]], dict[str, Any]]


def _same(metadata: dict[str, Any]) -> dict[str, Any]:
    return metadata


@dataclass(slots=True)
class Edit:
    """How a change rewrites one existing row: these fields, and its metadata through
    `metadata` (given a copy of the row's metadata as the change finds it)."""

    id: str
    fields: dict[str, Any]
    metadata: MetadataEdit = _same

    def applied(self, before: Memory) -> Memory:
        """The row after the edit."""
        update = {**self.fields, "metadata": self.metadata(dict(before.metadata))}
        return before.model_copy(update=update)


@dataclass(frozen=True, slots=True)
class Before:
    """In a change's details: the full row as the change found it (logged when applied)."""

    id: str


@dataclass(frozen=True, slots=True)
class After:
    """In a change's details: the full row as the change left it (logged when applied)."""

    id: str


@dataclass(slots=True)
class Change:
    """One atomic step of a run: applied whole, or skipped when a row changed meanwhile."""

    action: str
    expect: dict[str, tuple[Layer, datetime]]
    inserts: list[Memory] = field(default_factory=list)
    updates: list[Edit] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def memory_ids(self) -> list[str]:
        """Every id the change touches, for the audit log."""
        ids = list(self.expect) + [m.id for m in self.inserts] + [e.id for e in self.updates]
        return list(dict.fromkeys(ids))


def logged(details: Any, before: dict[str, Memory], after: dict[str, Memory]) -> Any:
    """A change's details as the audit log keeps them: each memory as a full JSON snapshot,
    `Before`/`After` resolved to the rows the change found and left."""
    if isinstance(details, Before | After):
        found = (before if isinstance(details, Before) else after)[details.id]
        return found.model_dump(mode="json")
    if isinstance(details, Memory):
        return details.model_dump(mode="json")
    if isinstance(details, dict):
        return {key: logged(value, before, after) for key, value in details.items()}
    if isinstance(details, list):
        return [logged(value, before, after) for value in details]
    return details


def expecting(*memories: Row) -> dict[str, tuple[Layer, datetime]]:
    """The state a change expects these memories to still be in."""
    return {m.id: (m.layer, m.updated_at) for m in memories}


Full = Callable[[list[str]], Awaitable[dict[str, Memory]]]
"""Reads the full rows of these ids (at most a page of them), by id."""
Texts = Callable[[list[str]], Awaitable[dict[str, str]]]
"""Reads the texts of these ids (at most a page of them), by id."""


class State:
    """The live working and core memories of every agent, as slim rows, as the phases planned
    so far leave them; plus what those phases sent to the archive. `full` reads the full rows
    (text and metadata) of a few ids when a phase needs them."""

    def __init__(
        self,
        memories: Iterable[Memory | Row],
        now: datetime,
        full: Full | None = None,
        texts: Texts | None = None,
    ):
        self.now = now
        listed = list(memories)
        given = {m.id: m for m in listed if isinstance(m, Memory)}
        self.items: dict[str, Row] = {
            m.id: slim_of(m) if isinstance(m, Memory) else m for m in listed
        }
        self.archived: list[Row] = []
        self._terms: dict[str, tuple[str, ...]] = {}
        self._given = given
        self._full = full
        self._texts = texts
        self._created: dict[str, Memory] = {}

    async def full(self, ids: list[str]) -> dict[str, Memory]:
        """The full rows of these ids: those the plan created, else as read (a page at most
        per read)."""
        found = {i: self._created[i] for i in ids if i in self._created}
        rest = [i for i in ids if i not in found]
        found |= {i: self._given[i] for i in rest if i in self._given}
        rest = [i for i in rest if i not in found]
        if rest and self._full is not None:
            for start in range(0, len(rest), PAGE):
                found |= await self._full(rest[start : start + PAGE])
        return found

    async def texts(self, ids: list[str]) -> AsyncIterator[tuple[str, str]]:
        """(id, text) of these ids, a page at a time (only the text is read)."""
        for start in range(0, len(ids), PAGE):
            chunk = ids[start : start + PAGE]
            whole = {
                i: m.content for i in chunk if (m := self._created.get(i) or self._given.get(i))
            }
            rest = [i for i in chunk if i not in whole]
            if rest and self._texts is not None:
                whole |= await self._texts(rest)
            elif rest:
                whole |= {i: m.content for i, m in (await self.full(rest)).items()}
            for memory_id in chunk:
                if memory_id in whole:
                    yield memory_id, whole[memory_id]
            del whole

    async def read_terms(self, ids: list[str]) -> None:
        """Compute the comparison terms of these memories, a page of texts at a time; each
        term is kept once (interned), each set as a tuple."""
        vocabulary: dict[str, str] = {}
        async for memory_id, text in self.texts(ids):
            terms = signature(text)
            self._terms[memory_id] = tuple(vocabulary.setdefault(t, t) for t in terms)

    def terms(self, memory: Row) -> tuple[str, ...]:
        """The memory's comparison terms: read by `read_terms`, or of a memory the state was
        given or created whole (content never changes)."""
        found = self._terms.get(memory.id)
        if found is None:
            whole = self._created.get(memory.id) or self._given.get(memory.id)
            found = tuple(signature(whole.content)) if whole is not None else ()
            self._terms[memory.id] = found
        return found

    def in_layer(self, layer: Layer) -> list[Row]:
        """Live memories of one layer, in creation order."""
        return [m for m in self.items.values() if m.layer == layer]

    def forget_terms(self) -> None:
        """Drop the comparison terms once no phase needs them (they are most of a plan)."""
        self._terms.clear()

    def changed(
        self, memory: Row, metadata: MetadataEdit = _same, **fields: Any
    ) -> tuple[Row, Edit]:
        """The row with these fields (and `updated_at` now), and the edit that makes it so;
        the state keeps the row, or lets it go when it left the live working and core layers.
        `mentions` is the slim row's own copy of the metadata key of that name."""
        fields.setdefault("updated_at", self.now)
        mentions = fields.pop("mentions", memory.mentions)
        updated = replace(
            memory,
            **{k: v for k, v in fields.items() if k not in ("superseded_by", "deleted_at")},
            mentions=mentions,
        )
        gone = fields.get("superseded_by") or fields.get("deleted_at")
        if gone or updated.layer == Layer.ARCHIVE:
            self.items.pop(memory.id, None)
            if updated.layer == Layer.ARCHIVE and not fields.get("superseded_by"):
                self.archived.append(updated)
        else:
            self.items[memory.id] = updated
        return updated, Edit(memory.id, fields, metadata)

    def add(self, memory: Memory) -> Memory:
        """A memory the plan creates; live from now on."""
        self._created[memory.id] = memory
        self.items[memory.id] = slim_of(memory)
        return memory


PAGE = 1000
"""Full rows or texts per read."""
