"""Recall's project and tag step (#26), one pass over the ranked memories: the current
project's memories rank first, other projects' last; a project named by the caller also
leaves other projects' memories out, and tags keep only memories carrying one of them.
Identity, preferences, the profile and a person's own slots (an allergy, a birthday, a pet)
belong to no project: never moved, never left out."""

from collections.abc import Sequence
from dataclasses import dataclass

from cortex_mcp.engine.language.slots import CATEGORIES as SLOT_CATEGORIES
from cortex_mcp.models import Category, LogHit, Memory
from cortex_mcp.store.db import Connection
from cortex_mcp.store.projects import projects_of_exchanges

GLOBAL_CATEGORIES = frozenset({Category.IDENTITY, Category.PREFERENCE, Category.PROFILE})
PERSONAL_SLOTS = frozenset(
    name for name, category in SLOT_CATEGORIES.items() if category is not Category.PROJECT_STATE
)
"""The slots (language/slots.py) of a person's own, whatever their category."""
WIDER_POOL = 4
"""With a filter, this many times the wanted results are ranked before it keeps its share."""


@dataclass(frozen=True)
class Scope:
    """Where a recall looks: the current project (`only`: and nothing of other projects), and
    tags (any of them)."""

    project: str | None = None
    only: bool = False
    tags: tuple[str, ...] = ()

    @property
    def wider(self) -> bool:
        """True when ranking may move or leave out memories (rank a wider pool first)."""
        return self.project is not None or bool(self.tags)

    @property
    def filters(self) -> bool:
        """True when memories may be left out (rank a wider pool first)."""
        return bool(self.tags) or (self.only and self.project is not None)


EVERYWHERE = Scope()
"""No project, no tags: recall as before projects."""


def project_of(memory: Memory) -> str | None:
    """The project a memory was filed under, or None (identity and the like, and a person's
    own slot: always None)."""
    if memory.category in GLOBAL_CATEGORIES or personal(memory):
        return None
    value = memory.metadata.get("project")
    return str(value) if value else None


def personal(memory: Memory) -> bool:
    """True for a slot of a person's that is no project's state: the user's allergy, a
    daughter's birthday, a pet's name (found trying the product: "I'm allergic to peanuts",
    said in one repository, was left out of the next one's session-start digest)."""
    predicate = str(memory.metadata.get("predicate") or "")
    return predicate.partition(":")[0] in PERSONAL_SLOTS


def in_scope(memory: Memory, scope: Scope) -> bool:
    """False for a memory the scope leaves out."""
    if scope.tags:
        tags = memory.metadata.get("tags") or []
        if not isinstance(tags, list) or not set(scope.tags) & {str(t) for t in tags}:
            return False
    if scope.only and scope.project is not None:
        return project_of(memory) in (None, scope.project)
    return True


def project_weight(memory: Memory, scope: Scope, boost: float) -> float:
    """`boost` for the current project's memories, its inverse for another project's, else 1."""
    filed = project_of(memory)
    if scope.project is None or filed is None:
        return 1.0
    return boost if filed == scope.project else 1 / boost


def scoped(
    found: Sequence[tuple[Memory, float]], scope: Scope, boost: float
) -> list[tuple[Memory, float]]:
    """The ranked memories the scope keeps, re-weighed for the project and re-sorted."""
    if scope.project is None and not scope.tags:
        return list(found)
    kept = [(m, s * project_weight(m, scope, boost)) for m, s in found if in_scope(m, scope)]
    return sorted(kept, key=lambda pair: pair[1], reverse=True)


def digest_order(memories: Sequence[Memory], scope: Scope, boost: float) -> list[Memory]:
    """Core memories for the digest: those the scope keeps, the current project's first."""
    kept = [m for m in memories if in_scope(m, scope)]
    return sorted(kept, key=lambda m: m.importance * project_weight(m, scope, boost), reverse=True)


async def scoped_said(conn: Connection, said: list[LogHit], scope: Scope) -> list[LogHit]:
    """The conversation-log hits a named project keeps: none logged under another project."""
    if not said or not scope.only or scope.project is None:
        return said
    filed = await projects_of_exchanges(conn, sorted({hit.exchange_id for hit in said}))
    return [hit for hit in said if filed.get(hit.exchange_id) in (None, scope.project)]
