"""The `relations` table: subject —predicate→ object facts, each optionally from a memory."""

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from cortex_mcp.clock import from_text, to_text
from cortex_mcp.search.entities import ALIAS_PREDICATES, entity_key
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
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    subject_key: str = ""
    object_key: str = ""

    @property
    def live(self) -> bool:
        """True while the relation holds (its source memory is neither replaced nor forgotten)."""
        return self.valid_to is None

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
            "valid_from": to_text(self.valid_from or self.created_at),
            "valid_to": to_text(self.valid_to) if self.valid_to else None,
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
        valid_from=from_text(row["valid_from"]) if row["valid_from"] else None,
        valid_to=from_text(row["valid_to"]) if row["valid_to"] else None,
        subject_key=row["subject_key"],
        object_key=row["object_key"],
    )


async def insert_relation(conn: Connection, relation: Relation) -> bool:
    """Store a relation unless its id, or the same live (agent, subject, predicate, object),
    exists; True when a row was added. Both ends are keyed by `entities.entity_key`."""
    row = await fetch_one(
        conn,
        Sql(
            "insert into relations (id, agent_id, subject, predicate, object, confidence,"
            " source_memory_id, created_at, updated_at, valid_from, valid_to, subject_key,"
            " object_key)"
            " select :id, :agent_id, :subject, :predicate, :object, :confidence, :source,"
            " :created_at, :updated_at, :valid_from, :valid_to, :subject_key, :object_key"
            " where not exists (select 1 from relations where id = :id"
            " or (agent_id is :agent_id and subject = :subject and predicate = :predicate"
            " and object = :object and valid_to is null and :valid_to is null)) returning id",
            "insert into relations (id, agent_id, subject, predicate, object, confidence,"
            " source_memory_id, created_at, updated_at, valid_from, valid_to, subject_key,"
            " object_key)"
            " select cast(:id as text), cast(:agent_id as text), :subject, :predicate, :object,"
            " :confidence, :source, :created_at, :updated_at, :valid_from,"
            " cast(:valid_to as text), :subject_key, :object_key"
            " where not exists (select 1 from relations where id = :id"
            " or (agent_id is not distinct from :agent_id and subject = :subject"
            " and predicate = :predicate and object = :object and valid_to is null"
            " and :valid_to is null)) returning id",
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
            "valid_from": to_text(relation.valid_from or relation.created_at),
            "valid_to": to_text(relation.valid_to) if relation.valid_to else None,
            "subject_key": entity_key(relation.subject),
            "object_key": entity_key(relation.object),
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


async def close_relations(conn: Connection, memory_ids: list[str], now: datetime) -> None:
    """The relations drawn from these memories stop holding (valid_to = now); kept, not
    deleted, so the history stays and a restore can reopen them."""
    await conn.execute(
        Sql(
            "update relations set valid_to = ?, updated_at = ? where valid_to is null"
            " and source_memory_id in (select value from json_each(?))",
            "update relations set valid_to = ?, updated_at = ? where valid_to is null"
            " and source_memory_id in (select json_array_elements_text(cast(? as json)))",
        ),
        (to_text(now), to_text(now), json.dumps(memory_ids)),
    )


async def reopen_relations(conn: Connection, memory_id: str) -> None:
    """The relations of a memory that is live again hold again."""
    await conn.execute(
        "update relations set valid_to = null where source_memory_id = ?"
        " and valid_to is not null and exists (select 1 from memories m where m.id = ?"
        " and m.deleted_at is null and m.superseded_by is null)",
        (memory_id, memory_id),
    )


async def known_keys(conn: Connection, candidates: list[str], agent_id: str | None) -> list[str]:
    """Which of these candidate keys name an entity of a live visible relation (by index)."""
    rows = await fetch_all(
        conn,
        Sql(
            "select subject_key from relations where subject_key in"
            " (select value from json_each(:keys)) and valid_to is null"
            " and (:agent_id is null or agent_id = :agent_id or (agent_id is null and :shared))"
            " union select object_key from relations where object_key in"
            " (select value from json_each(:keys)) and valid_to is null"
            " and (:agent_id is null or agent_id = :agent_id or (agent_id is null and :shared))",
            "select subject_key from relations where subject_key in"
            " (select json_array_elements_text(cast(:keys as json))) and valid_to is null"
            " and (cast(:agent_id as text) is null or agent_id = :agent_id"
            " or (agent_id is null and :shared))"
            " union select object_key from relations where object_key in"
            " (select json_array_elements_text(cast(:keys as json))) and valid_to is null"
            " and (cast(:agent_id as text) is null or agent_id = :agent_id"
            " or (agent_id is null and :shared))",
        ),
        {"keys": json.dumps(candidates), "agent_id": agent_id, "shared": sees_shared()},
    )
    return [row[0] for row in rows]


async def merged_keys(conn: Connection, keys: list[str], agent_id: str | None) -> list[str]:
    """The keys with every alias of theirs (live relations named like `ALIAS_PREDICATES`)."""
    rows = await fetch_all(
        conn,
        Sql(
            "select subject_key, object_key from relations where valid_to is null"
            " and lower(replace(predicate, '_', ' ')) in (select value from json_each(:aliases))"
            " and (subject_key in (select value from json_each(:keys))"
            " or object_key in (select value from json_each(:keys)))"
            " and (:agent_id is null or agent_id = :agent_id"
            " or (agent_id is null and :shared))",
            "select subject_key, object_key from relations where valid_to is null"
            " and lower(replace(predicate, '_', ' ')) in"
            " (select json_array_elements_text(cast(:aliases as json)))"
            " and (subject_key in (select json_array_elements_text(cast(:keys as json)))"
            " or object_key in (select json_array_elements_text(cast(:keys as json))))"
            " and (cast(:agent_id as text) is null or agent_id = :agent_id"
            " or (agent_id is null and :shared))",
        ),
        {
            "aliases": json.dumps(sorted(ALIAS_PREDICATES)),
            "keys": json.dumps(keys),
            "agent_id": agent_id,
            "shared": sees_shared(),
        },
    )
    return list(dict.fromkeys([*keys, *(key for row in rows for key in row)]))


async def relations_touching(
    conn: Connection,
    keys: list[str],
    agent_id: str | None,
    *,
    live_only: bool = True,
    limit: int = 100,
) -> list[Relation]:
    """Visible relations with either end among `keys`, live ones first, newest first."""
    rows = await fetch_all(
        conn,
        Sql(
            "select * from relations where (subject_key in (select value from json_each(:keys))"
            " or object_key in (select value from json_each(:keys)))"
            " and (:live_only = 0 or valid_to is null)"
            " and (:agent_id is null or agent_id = :agent_id"
            " or (agent_id is null and :shared))"
            " order by valid_to is not null, created_at desc limit :limit",
            "select * from relations where"
            " (subject_key in (select json_array_elements_text(cast(:keys as json)))"
            " or object_key in (select json_array_elements_text(cast(:keys as json))))"
            " and (:live_only = 0 or valid_to is null)"
            " and (cast(:agent_id as text) is null or agent_id = :agent_id"
            " or (agent_id is null and :shared))"
            " order by valid_to is not null, created_at desc limit :limit",
        ),
        {
            "keys": json.dumps(keys),
            "agent_id": agent_id,
            "shared": sees_shared(),
            "live_only": int(live_only),
            "limit": limit,
        },
    )
    return [_to_relation(row) for row in rows]


async def relations_from(
    conn: Connection, memory_ids: list[str], agent_id: str | None
) -> list[Relation]:
    """The live visible relations drawn from these memories."""
    rows = await fetch_all(
        conn,
        Sql(
            "select * from relations where valid_to is null"
            " and source_memory_id in (select value from json_each(:ids))"
            " and (:agent_id is null or agent_id = :agent_id"
            " or (agent_id is null and :shared))",
            "select * from relations where valid_to is null"
            " and source_memory_id in (select json_array_elements_text(cast(:ids as json)))"
            " and (cast(:agent_id as text) is null or agent_id = :agent_id"
            " or (agent_id is null and :shared))",
        ),
        {"ids": json.dumps(memory_ids), "agent_id": agent_id, "shared": sees_shared()},
    )
    return [_to_relation(row) for row in rows]


async def top_entities(conn: Connection, agent_id: str | None, limit: int) -> list[tuple[str, int]]:
    """The keys of the entities with the most live visible relations, with their counts."""
    rows = await fetch_all(
        conn,
        Sql(
            "select key, count(*) as n from (select subject_key as key, agent_id, valid_to"
            " from relations union all select object_key, agent_id, valid_to from relations)"
            " where valid_to is null and key != ''"
            " and (:agent_id is null or agent_id = :agent_id"
            " or (agent_id is null and :shared))"
            " group by key order by n desc, key limit :limit",
            "select key, count(*) as n from (select subject_key as key, agent_id, valid_to"
            " from relations union all select object_key, agent_id, valid_to from relations)"
            " as ends where valid_to is null and key != ''"
            " and (cast(:agent_id as text) is null or agent_id = :agent_id"
            " or (agent_id is null and :shared))"
            " group by key order by n desc, key limit :limit",
        ),
        {"agent_id": agent_id, "shared": sees_shared(), "limit": limit},
    )
    return [(row[0], int(row[1])) for row in rows]


async def close_relations_of_retired(conn: Connection, memory_ids: list[str]) -> None:
    """Among these memories, the relations of those no longer live are closed (at the time
    the memory was forgotten or last changed)."""
    await conn.execute(
        Sql(
            "update relations set valid_to = (select coalesce(m.deleted_at, m.updated_at)"
            " from memories m where m.id = relations.source_memory_id) where valid_to is null"
            " and source_memory_id in (select id from memories where id in"
            " (select value from json_each(?)) and (deleted_at is not null"
            " or superseded_by is not null))",
            "update relations set valid_to = (select coalesce(m.deleted_at, m.updated_at)"
            " from memories m where m.id = relations.source_memory_id) where valid_to is null"
            " and source_memory_id in (select id from memories where id in"
            " (select json_array_elements_text(cast(? as json))) and (deleted_at is not null"
            " or superseded_by is not null))",
        ),
        (json.dumps(memory_ids),),
    )
