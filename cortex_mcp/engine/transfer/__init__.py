"""Moving memory in and out.

Export: JSON without loss (every memory in every state with its id, layer, supersede link and
metadata, every relation, and the conversation log) and Markdown (core by category, working by
day, archive by month, relations). Import: our JSON (ids kept), a MEMORY.md (to core), dated
daily logs `YYYY-MM-DD.md` (to working while recent, else to the archive), the official MCP memory
server's knowledge-graph JSONL (observations to memories, relations to relations), or a folder
of such files. Imports are idempotent: what is already there, by id or by content in any state,
is skipped.
"""

import json

from cortex_mcp.clock import to_text
from cortex_mcp.engine.render import pages as markdown
from cortex_mcp.engine.render.memory import render_core_markdown
from cortex_mcp.engine.runtime import Runtime
from cortex_mcp.engine.transfer.files import detect_format
from cortex_mcp.engine.transfer.load import (
    EXPORT_FORMAT,
    EXPORT_VERSION,
    ImportReport,
    import_path,
    import_text,
)
from cortex_mcp.engine.transfer.said import exported_messages
from cortex_mcp.models import Category, Layer, Memory
from cortex_mcp.store import lifecycle as store
from cortex_mcp.store import memories as rows
from cortex_mcp.store.relations import Relation, relations_of

ALL = 10_000_000
__all__ = [
    "ImportReport",
    "detect_format",
    "export_json",
    "export_markdown",
    "import_path",
    "import_text",
]


async def export_json(rt: Runtime, include_forgotten: bool = False) -> str:
    """Every memory and relation as one JSON document that `import` restores exactly;
    forgotten memories only with `include_forgotten`."""
    async with rt.db.read() as conn:
        memories = await store.all_memories(conn)
        relations = await relations_of(conn, None)
        said = await exported_messages(conn, with_hidden=include_forgotten)
    if not include_forgotten:
        memories, relations = without_forgotten(memories, relations)
    document = {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "exported_at": to_text(rt.clock()),
        "memories": [m.model_dump(mode="json") for m in memories],
        "relations": [r.to_json() for r in relations],
        "conversation": said,
    }
    return json.dumps(document, ensure_ascii=False, indent=1)


def without_forgotten(
    memories: list[Memory], relations: list[Relation]
) -> tuple[list[Memory], list[Relation]]:
    """The export without forgotten memories, the memories they superseded, and the relations
    drawn from them (an import of it stays consistent)."""
    gone = {m.id for m in memories if m.deleted_at is not None}
    while extra := {m.id for m in memories if m.superseded_by in gone and m.id not in gone}:
        gone |= extra
    kept = [m for m in memories if m.id not in gone]
    return kept, [r for r in relations if r.source_memory_id not in gone]


async def export_markdown(rt: Runtime, agent_id: str | None = None) -> str:
    """An agent's live memory as one Markdown document (core in full, no budget)."""
    agent = rt.agent(agent_id)
    async with rt.db.read() as conn:
        layers = {
            layer: await rows.live_memories(conn, agent, [layer], limit=ALL) for layer in Layer
        }
        relations = [r for r in await relations_of(conn, agent) if r.live]
    core = [m for m in layers[Layer.CORE] if m.category != Category.PROFILE]
    parts = [
        "\n".join(markdown.front_matter(exported_at=to_text(rt.clock()))),
        render_core_markdown(core),
    ]
    for day, memories in _grouped(layers[Layer.WORKING], 10):
        parts.append(_body(markdown.render_working_day(day, memories)))
    for month, memories in _grouped(layers[Layer.ARCHIVE], 7):
        parts.append(_body(markdown.render_archive_month(month, memories, [])))
    parts.append(_body(markdown.render_relations(relations)))
    return "\n".join(parts)


def _grouped(memories: list[Memory], length: int) -> list[tuple[str, list[Memory]]]:
    groups: dict[str, list[Memory]] = {}
    for memory in memories:
        groups.setdefault(memory.created_at.isoformat()[:length], []).append(memory)
    return sorted(groups.items())


def _body(page: str) -> str:
    """A page without its front matter."""
    return page.split("---\n", 2)[2].lstrip("\n") if page.startswith("---\n") else page
