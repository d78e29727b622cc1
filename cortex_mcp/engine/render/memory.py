"""Markdown and JSON views of memory: core memory by category, one memory, the profile."""

import json
from collections.abc import Iterable
from typing import Any

from cortex_mcp.models import Category, Memory

CATEGORY_HEADINGS: dict[Category, str] = {
    Category.IDENTITY: "Who the user is",
    Category.PREFERENCE: "Preferences and habits",
    Category.RULE: "Rules and conventions",
    Category.DECISION: "Decisions",
    Category.PROJECT_STATE: "Projects and where they stand",
    Category.TODO: "Open to-dos",
    Category.FACT: "Facts",
    Category.INSIGHT: "Insights and opinions",
    Category.SKILL: "Skills",
    Category.RELATIONSHIP: "People, organisations and things",
    Category.CORRECTION: "Corrections",
    Category.CONTEXT: "Context",
    Category.SUMMARY: "Historical summaries",
    Category.PROFILE: "Profile",
}
"""Section order and titles of core memory, as in MEMORY.md."""

NO_CORE_MEMORIES = "No core memories yet. Store one with cortex_remember."
"""What an empty MEMORY.md says (never imported back as a memory)."""

NO_PROFILE = (
    "# User profile\n\nNo profile exists yet. cortex-mcp synthesizes one from identity, "
    "preference, skill and project memories as they accumulate; until then, recall with an "
    "empty query returns the core memory digest.\n"
)


def render_core_markdown(memories: Iterable[Memory]) -> str:
    """Core memory as Markdown: one section per category, most important first within each."""
    by_category: dict[Category, list[Memory]] = {}
    for memory in memories:
        by_category.setdefault(memory.category, []).append(memory)
    parts = ["# Core memory", ""]
    if not by_category:
        parts.append(NO_CORE_MEMORIES)
    for category, heading in CATEGORY_HEADINGS.items():
        entries = sorted(
            by_category.get(category, []), key=lambda m: (-m.importance, -m.updated_at.timestamp())
        )
        if entries:
            parts += [f"## {heading}", ""]
            parts += ["- " + " ".join(m.content.split()) for m in entries]
            parts.append("")
    return "\n".join(parts).rstrip() + "\n"


def render_profile(profile: Memory | None) -> str:
    """The user profile as Markdown, or an explanation that there is none yet."""
    if profile is None:
        return NO_PROFILE
    return f"# User profile\n\n{profile.content}\n"


def render_memory_json(memory: Memory, chain: list[Memory]) -> str:
    """One memory with its metadata and its supersede chain, as JSON."""
    document: dict[str, Any] = memory.model_dump(mode="json")
    document["supersede_chain"] = [
        {
            "id": m.id,
            "content": m.content,
            "created_at": m.created_at.isoformat(),
            "superseded_by": m.superseded_by,
            "deleted": m.deleted_at is not None,
            "is_this": m.id == memory.id,
        }
        for m in chain
    ]
    return json.dumps(document, ensure_ascii=False, indent=2)
