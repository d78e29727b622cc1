"""The schema's history as a list of small steps; `migrate` applies the missing ones.

The version lives in `PRAGMA user_version`, read and set inside `BEGIN IMMEDIATE`, so several
processes starting at once on one file apply each step exactly once. Steps are append-only:
never edit a released one, add the next.
"""

import json
from collections.abc import Awaitable, Callable

from cortex_mcp.clock import from_text
from cortex_mcp.search.entities import entity_key
from cortex_mcp.store.conversation import append_message
from cortex_mcp.store.dates import index_dates
from cortex_mcp.store.db import Connection, Database, fetch_one
from cortex_mcp.store.episodes import EPISODES_SCHEMA, remember_flushed
from cortex_mcp.store.exchanges import fold_into_log_ids
from cortex_mcp.store.memories import index_memory
from cortex_mcp.store.migrations_pg import migrate_pg, pg_version

Migration = Callable[[Connection], Awaitable[None]]
MIGRATIONS: list[Migration] = []
migration = MIGRATIONS.append  # the order of this file is the schema's history


@migration
async def create_memories(conn: Connection) -> None:
    """Memories, their full-text index, relations, logs and key/value facts."""
    await execute_statements(
        conn,
        """
        create table memories (
            seq integer primary key,
            id text not null unique,
            agent_id text,
            layer text not null check (layer in ('working', 'core', 'archive')),
            category text not null,
            content text not null,
            content_key text not null,
            source text not null default 'manual',
            importance real not null default 0.5 check (importance between 0 and 1),
            confidence real not null default 0.8 check (confidence between 0 and 1),
            decay_score real not null default 1.0,
            access_count integer not null default 0,
            last_accessed text,
            created_at text not null,
            updated_at text not null,
            expires_at text,
            superseded_by text references memories(id),
            deleted_at text,
            metadata text not null default '{}' check (json_valid(metadata))
        );
        create index memories_by_agent_layer on memories(agent_id, layer, category);
        create index memories_by_content_key on memories(content_key);
        create index memories_by_superseded on memories(superseded_by);
        create index memories_by_expiry on memories(expires_at) where expires_at is not null;

        create virtual table memories_fts using fts5(
            terms, tokenize = 'porter unicode61 remove_diacritics 2'
        );

        create table relations (
            id text primary key,
            agent_id text,
            subject text not null,
            predicate text not null,
            object text not null,
            confidence real not null default 0.8 check (confidence between 0 and 1),
            source_memory_id text references memories(id),
            created_at text not null,
            updated_at text not null
        );
        create index relations_by_subject on relations(subject);
        create index relations_by_object on relations(object);

        create table access_log (
            id integer primary key,
            memory_id text not null references memories(id),
            query text,
            rank integer,
            accessed_at text not null
        );
        create index access_log_by_memory on access_log(memory_id, accessed_at);

        create table lifecycle_log (
            id integer primary key,
            action text not null,
            memory_ids text not null check (json_valid(memory_ids)),
            details text not null default '{}' check (json_valid(details)),
            executed_at text not null
        );

        create table meta (
            key text primary key,
            value text not null
        );
        """,
    )


@migration
async def create_extraction_queue(conn: Connection) -> None:
    """Exchanges the LLM could not extract yet, retried with backoff; survives restarts."""
    await execute_statements(
        conn,
        """
        create table extraction_queue (
            id integer primary key,
            agent_id text not null,
            session_id text,
            payload text not null check (json_valid(payload)),
            fallback_ids text not null default '[]' check (json_valid(fallback_ids)),
            attempts integer not null default 0,
            next_attempt_at text not null,
            last_error text,
            created_at text not null,
            done_at text
        );
        create index extraction_queue_due on extraction_queue(done_at, next_attempt_at)
        """,
    )


@migration
async def create_embedding_cache(conn: Connection) -> None:
    """Vectors by content hash and model, so unchanged text is never embedded twice."""
    await execute_statements(
        conn,
        """
        create table embedding_cache (
            content_hash text not null,
            model text not null,
            dimension integer not null,
            vector blob not null,
            created_at text not null,
            primary key (content_hash, model)
        )
        """,
    )


@migration
async def create_lifecycle_tables(conn: Connection) -> None:
    """The lifecycle's lease (one runner across processes) and its runs with their reports."""
    await execute_statements(
        conn,
        """
        create table lifecycle_lease (
            name text primary key,
            owner text not null,
            acquired_at text not null,
            expires_at text not null
        );
        create table lifecycle_runs (
            id integer primary key,
            owner text not null,
            started_at text not null,
            finished_at text,
            status text not null check (status in ('running', 'ok', 'failed', 'cancelled')),
            report text check (report is null or json_valid(report)),
            error text
        );
        create index lifecycle_runs_by_status on lifecycle_runs(status, started_at);
        create index lifecycle_log_by_time on lifecycle_log(executed_at);
        create index memories_by_layer_created on memories(layer, created_at)
        """,
    )


@migration
async def create_fts_vocabulary(conn: Connection) -> None:
    """Document counts per indexed term, so duplicate checks search only rare terms."""
    await conn.execute(
        "create virtual table memories_fts_vocabulary using fts5vocab(memories_fts, 'row')"
    )


@migration
async def separate_context_column(conn: Connection) -> None:
    """The full-text index gains a `context` column (the conversation around a memory, from
    its metadata), ranked below the content; every memory is indexed again."""
    await execute_statements(
        conn,
        """
        drop table memories_fts_vocabulary;
        drop table memories_fts;
        create virtual table memories_fts using fts5(
            terms, context, tokenize = 'porter unicode61 remove_diacritics 2'
        );
        create virtual table memories_fts_vocabulary using fts5vocab(memories_fts, 'col')
        """,
    )
    for seq, content, metadata in await conn.fetch_all(
        "select seq, content, metadata from memories"
    ):
        await index_memory(conn, seq, content, json.loads(metadata))


@migration
async def index_slots(conn: Connection) -> None:
    """Memories about a stable attribute are found by their predicate (update, not append)."""
    await conn.execute(
        "create index memories_by_slot on memories(json_extract(metadata, '$.predicate'))"
        " where json_extract(metadata, '$.predicate') is not null"
    )


@migration
async def create_exchange_links(conn: Connection) -> None:
    """Which memories came from which ingested exchange or flush: forgetting one hides the
    exchange's stored text, purging one erases it."""
    await execute_statements(
        conn,
        """
        create table exchange_links (
            exchange_id text not null,
            memory_id text not null references memories(id),
            primary key (exchange_id, memory_id)
        ) without rowid;
        create index exchange_links_by_memory on exchange_links(memory_id)
        """,
    )


@migration
async def mark_as_cortex_mcp(conn: Connection) -> None:
    """A marker that says this file is a cortex-mcp database (`meta.application`), so a file
    found at an old default path is recognised as ours before anything moves it."""
    await conn.execute(
        "insert into meta (key, value) values ('application', 'cortex-mcp')"
        " on conflict(key) do update set value = excluded.value"
    )


@migration
async def index_browse_order(conn: Connection) -> None:
    """The memory browser pages by creation time and by importance (keyset on seq)."""
    await execute_statements(
        conn,
        """
        create index memories_by_created on memories(created_at, seq);
        create index memories_by_importance on memories(importance, seq)
        """,
    )


@migration
async def create_conversation_log(conn: Connection) -> None:
    """The conversation log: every ingested or flushed message, verbatim after redaction, kept
    apart from memory with its own full-text index; the queue's waiting work moves into it
    and the raw fallback memories that stood in for it are retired."""
    await execute_statements(
        conn,
        """
        create table conversation_log (
            seq integer primary key,
            agent_id text not null,
            session_id text,
            exchange_id text not null,
            origin text not null check (origin in ('ingest', 'flush')),
            role text not null,
            content text not null,
            created_at text not null,
            memory_ids text not null default '[]' check (json_valid(memory_ids)),
            extraction text not null default 'none'
                check (extraction in ('none', 'waiting', 'pending', 'done')),
            attempts integer not null default 0,
            next_attempt_at text,
            deleted_at text
        );
        create index conversation_log_by_exchange on conversation_log(exchange_id);
        create index conversation_log_by_time on conversation_log(created_at);
        create index conversation_log_pending on conversation_log(extraction, next_attempt_at)
            where extraction in ('pending', 'waiting');
        create virtual table conversation_fts using fts5(
            terms, tokenize = 'porter unicode61 remove_diacritics 2'
        )
        """,
    )
    await move_queue_to_log(conn)


@migration
async def relations_in_time(conn: Connection) -> None:
    """Relations gain a validity span (valid_from, valid_to: closed when their memory is
    superseded or forgotten, not deleted) and the normalised keys of both ends, which the
    entity graph and recall look them up by."""
    await execute_statements(
        conn,
        """
        alter table relations add column valid_from text;
        alter table relations add column valid_to text;
        alter table relations add column subject_key text not null default '';
        alter table relations add column object_key text not null default '';
        update relations set valid_from = created_at;
        create index relations_by_subject_key on relations(subject_key, valid_to);
        create index relations_by_object_key on relations(object_key, valid_to);
        create index relations_by_source on relations(source_memory_id)
        """,
    )
    found = await conn.fetch_all("select id, subject, object from relations")
    for relation_id, subject, target in found:
        await conn.execute(
            "update relations set subject_key = ?, object_key = ? where id = ?",
            (entity_key(subject), entity_key(target), relation_id),
        )
    await conn.execute(
        "update relations set valid_to = (select coalesce(m.deleted_at, m.updated_at)"
        " from memories m where m.id = relations.source_memory_id)"
        " where source_memory_id in (select id from memories"
        " where deleted_at is not null or superseded_by is not null)"
    )


@migration
async def index_mentioned_dates(conn: Connection) -> None:
    """The dates a memory mentions ("yesterday", 上周, 先月, "8 May 2023"), resolved against
    its creation time, are kept beside its text; every memory is indexed."""
    await execute_statements(
        conn,
        """
        create table memory_dates (
            memory_seq integer not null,
            start_day text not null,
            end_day text not null
        );
        create index memory_dates_by_memory on memory_dates(memory_seq);
        create index memory_dates_by_day on memory_dates(start_day, end_day)
        """,
    )
    found = await conn.fetch_all("select seq, content, metadata, created_at from memories")
    for seq, content, metadata, created_at in found:
        await index_dates(conn, seq, content, json.loads(metadata), from_text(created_at))


@migration
async def one_exchange_id(conn: Connection) -> None:
    """An ingest had two ids (the log's and a random one for its links): the links take the
    log's."""
    await fold_into_log_ids(conn)


@migration
async def episodes_and_flushed_messages(conn: Connection) -> None:
    """Episodes (#26): one per agent and session, a memory of its own (the row points at it and
    goes with it when it is purged); and the content hash of every flushed message per
    session, so the same messages flushed twice are logged once."""
    await execute_statements(conn, EPISODES_SCHEMA)
    await remember_flushed(conn)


@migration
async def scratchpads_and_projects(conn: Connection) -> None:
    """A scratchpad per agent and project (its versions go to the lifecycle log), a `project`
    on conversation-log messages, and memories found by their metadata's project (#26)."""
    await execute_statements(
        conn,
        """
        create table scratchpads (
            agent_id text not null,
            project text not null default '',
            content text not null,
            updated_at text not null,
            primary key (agent_id, project)
        );
        alter table conversation_log add column project text;
        create index conversation_log_by_project on conversation_log(project)
            where project is not null;
        create index memories_by_project on memories(json_extract(metadata, '$.project'))
            where json_extract(metadata, '$.project') is not null
        """,
    )


@migration
async def live_memories_by_layer(conn: Connection) -> None:
    """An agent's live memories of a layer are counted, and the mirror's marks of its working
    days made, from an index, not from every row (#28, at 100,000 memories: the digest's three
    counts took 194 ms, the marks 113 ms after every write, and a recall waited behind them)."""
    await conn.execute(
        "create index memories_live_by_layer"
        " on memories(layer, agent_id, category, created_at, updated_at)"
        " where deleted_at is null and superseded_by is null"
    )


@migration
async def core_by_weight(conn: Connection) -> None:
    """The live core memories by weight, for the readers of most of core (MEMORY.md after
    every write, the digest): 51 ms at 100,000 memories by a plan over every live row."""
    await conn.execute(
        "create index memories_core_by_weight on memories(importance desc, updated_at desc)"
        " where layer = 'core' and deleted_at is null and superseded_by is null"
    )


async def move_queue_to_log(conn: Connection) -> None:
    """Waiting queue entries become pending exchanges of the log; their raw fallback memories
    are retired (soft-deleted, so restorable)."""
    waiting = await conn.fetch_all(
        "select id, agent_id, session_id, payload, fallback_ids, created_at"
        " from extraction_queue where done_at is null"
    )
    for queue_id, agent_id, session_id, payload, fallback_ids, created_at in waiting:
        body = json.loads(payload)
        if "transcript" in body:
            messages = [("transcript", body["transcript"])]
        else:
            tools = [("tool", body["tools"])] if body.get("tools") else []
            messages = [("user", body.get("user", "")), ("assistant", body.get("assistant", ""))]
            messages = [m for m in messages + tools if m[1]]
        origin = "flush" if "transcript" in body else "ingest"
        for role, content in messages:
            await append_message(
                conn,
                agent_id=agent_id,
                session_id=session_id,
                exchange_id=f"queue-{queue_id}",
                origin=origin,
                role=role,
                content=content,
                created_at=created_at,
                extraction="pending",
            )
        await conn.execute(
            "update memories set deleted_at = ?, metadata = json_set(metadata,"
            " '$.forget_reason', 'moved to the conversation log')"
            " where id in (select value from json_each(?)) and deleted_at is null",
            (created_at, fallback_ids),
        )
        await conn.execute(
            "update extraction_queue set done_at = ? where id = ?", (created_at, queue_id)
        )


async def execute_statements(conn: Connection, script: str) -> None:
    """Run `;`-separated statements one by one, inside the caller's transaction.

    (`executescript` would commit the open transaction first, breaking the step's atomicity.)
    """
    for statement in script.split(";"):
        if statement.strip():
            await conn.execute(statement)


async def schema_version(db: Database) -> int:
    """The version the store is at: the number of migration steps applied."""
    async with db.read() as conn:
        if db.dialect == "postgresql":
            return await pg_version(conn)
        row = await fetch_one(conn, "pragma user_version")
    return int(row[0]) if row else 0


async def migrate(db: Database) -> int:
    """Bring the store to the current schema; safe when several processes start at once."""
    if db.dialect == "postgresql":
        return await migrate_pg(db)
    async with db.write() as conn:
        row = await fetch_one(conn, "pragma user_version")
        version = int(row[0]) if row else 0
        for number, step in enumerate(MIGRATIONS[version:], start=version + 1):
            await step(conn)
            await conn.execute(f"pragma user_version = {number}")  # PRAGMA takes no parameters
    return len(MIGRATIONS)
