"""The `relations` table: subject —predicate→ object facts, each optionally from a memory."""

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from cortex_mcp.clock import from_text, to_text
from cortex_mcp.store.db import Connection, Sql, fetch_all, fetch_one
from cortex_mcp.store.scope import sees_shared


@dataclass(frozen=True)
class Relation:
    """One edge of the knowledge graph."""

    id: str
    agent_id: str | None
    subject: str
    predicate: str
    object: str
    confidence: float
    source_memory_id: str | None
    created_at: datetime
    updated_at: datetime

    def to_json(self) -> dict[str, Any]:
        """The relation as a JSON-ready dict."""
        return {
            "id": self.id,
            "agent_id": self.agent_id,
            "subject": self.subject,
            "predicate": self.predicate,
            "object": self.object,
            "confidence": self.confidence,
            "source_memory_id": self.source_memory_id,
            "created_at": to_text(self.created_at),
            "updated_at": to_text(self.updated_at),
        }


def _to_relation(row: Any) -> Relation:
    return Relation(
        id=row["id"],
        agent_id=row["agent_id"],
        subject=row["subject"],
        predicate=row["predicate"],
        object=row["object"],
        confidence=row["confidence"],
        source_memory_id=row["source_memory_id"],
        created_at=from_text(row["created_at"]),
        updated_at=from_text(row["updated_at"]),
    )


async def insert_relation(conn: Connection, relation: Relation) -> bool:
    """Store a relation unless its id or the same (agent, subject, predicate, object) exists;
    True when a row was added."""
    row = await fetch_one(
        conn,
        Sql(
            "insert into relations (id, agent_id, subject, predicate, object, confidence,"
            " source_memory_id, created_at, updated_at)"
            " select :id, :agent_id, :subject, :predicate, :object, :confidence, :source,"
            " :created_at, :updated_at where not exists (select 1 from relations where id = :id"
            " or (agent_id is :agent_id and subject = :subject and predicate = :predicate"
            " and object = :object)) returning id",
            "insert into relations (id, agent_id, subject, predicate, object, confidence,"
            " source_memory_id, created_at, updated_at)"
            " select cast(:id as text), cast(:agent_id as text), :subject, :predicate, :object,"
            " :confidence, :source, :created_at, :updated_at where not exists (select 1"
            " from relations where id = :id or (agent_id is not distinct from :agent_id"
            " and subject = :subject and predicate = :predicate and object = :object))"
            " returning id",
        ),
        {
            "id": relation.id,
            "agent_id": relation.agent_id,
            "subject": relation.subject,
            "predicate": relation.predicate,
            "object": relation.object,
            "confidence": relation.confidence,
            "source": relation.source_memory_id,
            "created_at": to_text(relation.created_at),
            "updated_at": to_text(relation.updated_at),
        },
    )
    return row is not None


async def relations_of(conn: Connection, agent_id: str | None) -> list[Relation]:
    """Relations visible to an agent (its own and shared ones); every relation for None."""
    rows = await fetch_all(
        conn,
        "select * from relations where cast(:agent_id as text) is null or agent_id = :agent_id"
        " or (agent_id is null and :shared) order by subject, predicate, object",
        {"agent_id": agent_id, "shared": sees_shared()},
    )
    return [_to_relation(row) for row in rows]


async def count_relations(conn: Connection) -> int:
    """How many relations are stored."""
    row = await fetch_one(conn, "select count(*) from relations")
    return int(row[0]) if row else 0


async def relation_ids(conn: Connection, ids: list[str]) -> set[str]:
    """Which of these relation ids exist."""
    rows = await fetch_all(
        conn,
        Sql(
            "select id from relations where id in (select value from json_each(?))",
            "select id from relations where id in"
            " (select json_array_elements_text(cast(? as json)))",
        ),
        (json.dumps(ids),),
    )
    return {row[0] for row in rows}
