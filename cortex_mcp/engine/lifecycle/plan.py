"""What a lifecycle run will do, before it does it: changes planned on an in-memory state.

Every phase plans on the same `State` (the live working and core memories as the previous
phases leave them), so a preview and a run share one plan. A `Change` carries what it expects
of each row it touches (still live, same layer, same `updated_at`), the rows it inserts and the
rows it rewrites, and the before/after snapshots the audit log keeps.
"""

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from cortex_mcp.engine.lifecycle.similarity import signature
from cortex_mcp.models import Layer, Memory


@dataclass
class Change:
    """One atomic step of a run: applied whole, or skipped when a row changed meanwhile."""

    action: str
    expect: dict[str, tuple[Layer, datetime]]
    inserts: list[Memory] = field(default_factory=list)
    updates: list[Memory] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def memory_ids(self) -> list[str]:
        """Every id the change touches, for the audit log."""
        ids = list(self.expect) + [m.id for m in self.inserts + self.updates]
        return list(dict.fromkeys(ids))


def logged(details: Any) -> Any:
    """A change's details as the audit log keeps them: each memory as a full JSON snapshot
    (taken when the change is applied, so a plan holds no copies)."""
    if isinstance(details, Memory):
        return details.model_dump(mode="json")
    if isinstance(details, dict):
        return {key: logged(value) for key, value in details.items()}
    if isinstance(details, list):
        return [logged(value) for value in details]
    return details


def expecting(*memories: Memory) -> dict[str, tuple[Layer, datetime]]:
    """The state a change expects these memories to still be in."""
    return {m.id: (m.layer, m.updated_at) for m in memories}


class State:
    """The live working and core memories of every agent, as the phases planned so far leave
    them; plus what those phases sent to the archive."""

    def __init__(self, memories: list[Memory], now: datetime) -> None:
        self.now = now
        self.items: dict[str, Memory] = {m.id: m for m in memories}
        self.archived: list[Memory] = []
        self._terms: dict[str, frozenset[str]] = {}

    def terms(self, memory: Memory) -> frozenset[str]:
        """The memory's comparison terms, computed once per run (content never changes)."""
        found = self._terms.get(memory.id)
        if found is None:
            found = self._terms[memory.id] = signature(memory.content)
        return found

    def in_layer(self, layer: Layer) -> list[Memory]:
        """Live memories of one layer, in creation order."""
        return [m for m in self.items.values() if m.layer == layer]

    def forget_terms(self) -> None:
        """Drop the comparison terms once no phase needs them (they are most of a plan)."""
        self._terms.clear()

    def changed(self, memory: Memory, **fields: Any) -> Memory:
        """A copy of `memory` with these fields (and `updated_at` now); the state keeps it,
        or lets it go when it left the live working and core layers."""
        fields.setdefault("updated_at", self.now)
        if "metadata" not in fields:
            fields["metadata"] = dict(memory.metadata)
        updated = memory.model_copy(update=fields)
        gone = updated.superseded_by or updated.deleted_at or updated.layer == Layer.ARCHIVE
        if gone:
            self.items.pop(memory.id, None)
            if updated.layer == Layer.ARCHIVE and not updated.superseded_by:
                self.archived.append(updated)
        else:
            self.items[memory.id] = updated
        return updated

    def add(self, memory: Memory) -> Memory:
        """A memory the plan creates; live from now on."""
        self.items[memory.id] = memory
        return memory
