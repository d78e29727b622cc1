"""Redaction on every path in: which kinds apply to an agent, and the guard in front of the
providers (the LLM and the embeddings endpoint) that catches whatever got past the entry."""

from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from cortex_mcp.engine.personal import declared_kinds
from cortex_mcp.engine.redaction import redact
from cortex_mcp.engine.sieve import Cleaner
from cortex_mcp.models import Category, Layer, Memory
from cortex_mcp.store import memories as rows

if TYPE_CHECKING:
    from cortex_mcp.engine import Engine


async def cleaner_for(engine: "Engine", agent: str, also: str = "") -> Cleaner:
    """A cleaner for text coming in for `agent`: secrets, plus the personal-data kinds that
    `redaction.kinds` or the agent's profile (or `also`, profile words being written now) say
    never to remember."""
    declared = set(engine.settings.redaction.kinds) | declared_kinds(also)
    async with engine.db.read() as conn:
        found = await rows.live_memories(conn, agent, [Layer.CORE], [Category.PROFILE], limit=1)
    if found:
        declared |= declared_kinds(found[0].content)
    return Cleaner(engine.settings.sieve.redact_secrets, declared)


def clean_value(value: Any, clean: Cleaner) -> Any:
    """A JSON value with every string in it cleaned."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, list):
        return [clean_value(item, clean) for item in value]
    if isinstance(value, dict):
        return {key: clean_value(item, clean) for key, item in value.items()}
    return value


def clean_memory(memory: Memory, clean: Cleaner) -> Memory:
    """An imported memory with its content and every text in its metadata cleaned."""
    metadata = clean_value(memory.metadata, clean)
    return memory.model_copy(update={"content": clean(memory.content), "metadata": metadata})


def clean_relation(relation: dict[str, Any], clean: Cleaner) -> dict[str, Any]:
    """An exported relation being imported, with its subject, predicate and object cleaned."""
    texts = ("subject", "predicate", "object")
    return {k: clean(v) if k in texts and isinstance(v, str) else v for k, v in relation.items()}


class ProviderGuard:
    """The last redaction before text leaves the process for an LLM or an embeddings endpoint:
    secrets always (unless redaction is switched off), and the configured personal kinds."""

    def __init__(self, enabled: bool = True, declared: Collection[str] = ()) -> None:
        self.enabled = enabled
        self.declared = frozenset(declared)

    def __call__(self, text: str) -> str:
        """`text` as it may be sent."""
        return redact(text, self.declared)[0] if self.enabled else text
