"""Read-only views the resources show: one memory as JSON, core and the profile as Markdown,
the entity graph (`cortex://relations`, `cortex://entity/{name}`). Each is scoped like recall:
an agent sees its own memories and relations and the shared ones.
"""

from typing import Any

from cortex_mcp.clock import to_text
from cortex_mcp.engine.forget import visible
from cortex_mcp.engine.mirror.pages import memory_md_page
from cortex_mcp.engine.render.memory import render_memory_json, render_profile
from cortex_mcp.engine.render.pages import mermaid_graph, without_front_matter
from cortex_mcp.engine.runtime import Runtime
from cortex_mcp.engine.scratchpad import read_scratchpad, scratchpad_block
from cortex_mcp.errors import InvalidInput
from cortex_mcp.models import Layer
from cortex_mcp.search.entities import MAX_NAME, display_name, entity_key, relation_line
from cortex_mcp.search.query import match_expression
from cortex_mcp.store import fts
from cortex_mcp.store import memories as rows
from cortex_mcp.store import relations as graph_rows
from cortex_mcp.store.db import Connection, Database
from cortex_mcp.store.relations import Relation

TOP_ENTITIES = 12
"""Entities the Mermaid graph of `cortex://relations` is drawn around."""
MERMAID_EDGES = 40
ENTITY_MEMORIES = 20


async def unforgotten(conn: Connection, relations: list[Relation]) -> list[Relation]:
    """The relations whose source memory is not forgotten (nor gone): what a forget took
    away is shown only where the user asks for forgotten memories (the browser's filter)."""
    sources = [r.source_memory_id for r in relations if r.source_memory_id]
    found = await rows.memories_by_id(conn, sources)
    return [
        r
        for r in relations
        if r.source_memory_id is None
        or (r.source_memory_id in found and found[r.source_memory_id].deleted_at is None)
    ]


async def relations_markdown(db: Database, agent_id: str) -> str:
    """Every live relation as a line, then a Mermaid graph of the best-connected entities."""
    async with db.read() as conn:
        every = [r for r in await graph_rows.relations_of(conn, agent_id) if r.live]
        every = await unforgotten(conn, every)
        top = await graph_rows.top_entities(conn, agent_id, TOP_ENTITIES)
    lines = ["# Relations", "", f"{len(every)} live relations."]
    if not every:
        return "\n".join([*lines, "", "No relations yet."]) + "\n"
    lines += ["", *(f"- {_line(r)}" for r in every)]
    keys = {key for key, _ in top}
    drawn = [r for r in every if entity_key(r.subject) in keys or entity_key(r.object) in keys]
    lines += ["", "## Top entities", ""]
    lines += [f"- {key} ({count} relations)" for key, count in top]
    return "\n".join([*lines, "", *mermaid_graph(drawn[:MERMAID_EDGES])]) + "\n"


async def entity_json(db: Database, name: str, agent_id: str) -> dict[str, Any]:
    """One entity (by any of its names): its relations, current and closed, and its memories."""
    key = entity_key(name)
    if not key or len(name) > MAX_NAME:
        raise InvalidInput("name", f"must be an entity name of 1 to {MAX_NAME} characters")
    async with db.read() as conn:
        keys = await graph_rows.merged_keys(conn, [key], agent_id)
        related = await graph_rows.relations_touching(
            conn, keys, agent_id, live_only=False, limit=500
        )
        related = await unforgotten(conn, related)
        sources = [r.source_memory_id for r in related if r.source_memory_id]
        match = match_expression(display_name(name))
        layers = [Layer.CORE, Layer.WORKING, Layer.ARCHIVE]
        named = (
            await fts.text_candidates(conn, match, agent_id, layers, None, ENTITY_MEMORIES)
            if match
            else []
        )
        ids = list(dict.fromkeys([*sources, *(c.id for _, c in named)]))
        found = await rows.memories_by_id(conn, ids)
    memories = {i: m for i, m in found.items() if m.deleted_at is None}
    if not related and not memories:
        raise InvalidInput("name", f"no entity or memory is named {name!r}")
    return {
        "entity": key,
        "aliases": [k for k in keys if k != key],
        "relations": [_relation_json(r) for r in related if r.live],
        "closed_relations": [_relation_json(r) for r in related if not r.live],
        "memories": [
            {
                "id": m.id,
                "content": m.content,
                "category": m.category,
                "layer": m.layer,
                "created_at": to_text(m.created_at),
                "state": "superseded" if m.superseded_by else "live",
            }
            for m in (memories[i] for i in ids if i in memories)
        ],
    }


def _line(relation: Relation) -> str:
    return relation_line(relation.subject, relation.predicate, relation.object)


def _relation_json(relation: Relation) -> dict[str, Any]:
    return relation.to_json() | {"line": _line(relation)}


async def memory_json(rt: Runtime, memory_id: str, agent: str) -> str:
    """One memory with its metadata and supersede chain, as JSON."""
    await rt.access.flush_before_read()
    async with rt.db.read() as conn:
        memory = await visible(conn, memory_id, agent)
        chain = await rows.supersede_chain(conn, memory.id)
    return render_memory_json(memory, chain)


async def core_markdown(rt: Runtime, agent: str) -> str:
    """Core memory of an agent (with shared memories) as Markdown grouped by category: the
    page MEMORY.md holds (without its front matter), within the one core budget
    (`workspace.core_tokens`)."""
    return without_front_matter(await memory_md_page(rt, agent))


CONTEXT_INTRO = (
    "Here is what you remember about me from earlier conversations (cortex-mcp). "
    "Use it when it is relevant; call cortex_recall for anything more specific."
)


async def context_markdown(rt: Runtime, agent: str, project: str | None) -> str:
    """The cortex_context prompt: the scratchpad of `project` (within its own budget), the
    profile, and core memory as cortex://core and MEMORY.md show it (one budget)."""
    pad = await read_scratchpad(rt, agent, project)
    pad_text = scratchpad_block(pad, rt.settings.workspace.scratchpad_tokens)
    profile = await profile_markdown(rt, agent)
    core = await core_markdown(rt, agent)
    return "\n\n".join(filter(None, [CONTEXT_INTRO, pad_text, profile.strip(), core]))


async def profile_markdown(rt: Runtime, agent: str) -> str:
    """The user profile, or an explanation that none exists yet."""
    async with rt.db.read() as conn:
        profile = await rows.live_profile(conn, agent)
    return render_profile(profile)
