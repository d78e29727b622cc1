"""Redaction on every path in: which kinds apply to an agent (the configuration's, and those
its profile declares), and the cleaning of imported rows."""

from typing import Any

from cortex_mcp.engine.language.personal import declared_kinds
from cortex_mcp.engine.language.redaction import Cleaner
from cortex_mcp.engine.runtime import Runtime
from cortex_mcp.models import Memory
from cortex_mcp.store import memories as rows


async def cleaner_for(rt: Runtime, agent: str, also: str = "") -> Cleaner:
    """A cleaner for text coming in for `agent`: secrets, plus the personal-data kinds that
    `redaction.kinds` or the agent's profile (or `also`, profile words being written now) say
    never to remember."""
    declared = set(rt.settings.redaction.kinds) | declared_kinds(also)
    async with rt.db.read() as conn:
        profile = await rows.live_profile(conn, agent)
    if profile is not None:
        declared |= declared_kinds(profile.content)
    return Cleaner(rt.settings.sieve.redact_secrets, declared)


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
