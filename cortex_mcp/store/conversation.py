"""The conversation log: every ingested or flushed message, verbatim after redaction.

It is not memory: it never decays into core, is not in MEMORY.md (a JSON export carries it);
recall ranks its messages beside the memories (`engine/recall/log.py`). Each row is one
message; the messages of one cortex_ingest (or one cortex_flush) share an exchange id. A row
lists the memories extracted from it, and says whether an LLM extraction of its exchange is
still owed (`pending`, retried with backoff; or `waiting`, logged while no LLM could answer,
taken when a provider is configured later).
"""

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from cortex_mcp.clock import to_text
from cortex_mcp.search.stemming import match_terms
from cortex_mcp.search.tokenize import index_text
from cortex_mcp.store import message_vectors
from cortex_mcp.store.db import Connection, Sql, fetch_all, fetch_one
from cortex_mcp.store.terms import MESSAGE_BM25, index_message_terms, unindex_messages


@dataclass(slots=True)
class LoggedMessage:
    """One message of the log (not frozen: a recall makes hundreds, and a frozen dataclass
    takes twice as long to make; nothing changes one once made)."""

    seq: int
    agent_id: str
    session_id: str | None
    exchange_id: str
    origin: str
    role: str
    content: str
    created_at: datetime
    memory_ids: list[str]
    attempts: int


def to_message(row: Any) -> LoggedMessage:
    """A database row as a logged message (a recall reads hundreds: most link no memory)."""
    ids = row["memory_ids"]
    created = datetime.fromisoformat(row["created_at"])  # `from_text`, one call less
    return LoggedMessage(
        row["seq"],
        row["agent_id"],
        row["session_id"],
        row["exchange_id"],
        row["origin"],
        row["role"],
        row["content"],
        created if created.tzinfo else created.replace(tzinfo=UTC),
        [] if ids == "[]" else json.loads(ids),
        row["attempts"],
    )


async def append_message(
    conn: Connection,
    *,
    agent_id: str,
    session_id: str | None,
    exchange_id: str,
    origin: str,
    role: str,
    content: str,
    created_at: str,
    extraction: str = "none",
    memory_ids: list[str] | None = None,
) -> int:
    """Append one message and its full-text row; returns its sequence number."""
    row = await fetch_one(
        conn,
        "insert into conversation_log (agent_id, session_id, exchange_id, origin, role, content,"
        " created_at, memory_ids, extraction, next_attempt_at)"
        " values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning seq",
        (
            agent_id,
            session_id,
            exchange_id,
            origin,
            role,
            content,
            created_at,
            json.dumps(memory_ids or []),
            extraction,
            created_at if extraction == "pending" else None,
        ),
    )
    assert row is not None
    seq = int(row[0])
    await index_message(conn, seq, index_text(content))
    return seq


async def index_message(conn: Connection, seq: int, terms: str) -> None:
    """Write the full-text row of one message (`terms`: its `index_text`)."""
    if conn.dialect == "postgresql":
        await index_message_terms(conn, seq, terms)
        return
    await conn.execute("insert into conversation_fts (rowid, terms) values (?, ?)", (seq, terms))


async def link_memories(conn: Connection, seqs: list[int], memory_ids: list[str]) -> None:
    """Record that these memories were extracted from these messages."""
    if not memory_ids:
        return
    await conn.execute(
        Sql(
            "update conversation_log set memory_ids = (select json_group_array(value) from"
            " (select value from json_each(memory_ids) union select value from json_each(:ids)))"
            " where seq in (select value from json_each(:seqs))",
            "update conversation_log set memory_ids = (select coalesce(json_agg(v), '[]')::text"
            " from (select json_array_elements_text(cast(memory_ids as json)) as v"
            " union select json_array_elements_text(cast(:ids as json))) u)"
            " where seq in (select cast(json_array_elements_text(cast(:seqs as json)) as bigint))",
        ),
        {"ids": json.dumps(memory_ids), "seqs": json.dumps(seqs)},
    )


async def set_extraction(
    conn: Connection,
    seqs: list[int],
    state: str,
    next_attempt_at: datetime | None = None,
) -> None:
    """Mark messages' extraction `pending` (due at `next_attempt_at`), `done` or `none`; a
    pending message marked pending again counts one more attempt."""
    await conn.execute(
        Sql(
            "update conversation_log set extraction = :state, next_attempt_at = :due,"
            " attempts = attempts + (extraction = 'pending' and :state = 'pending')"
            " where seq in (select value from json_each(:seqs))",
            "update conversation_log set extraction = :state, next_attempt_at = :due,"
            " attempts = attempts + case when extraction = 'pending'"
            " and cast(:state as text) = 'pending' then 1 else 0 end"
            " where seq in (select cast(json_array_elements_text(cast(:seqs as json)) as bigint))",
        ),
        {
            "state": state,
            "due": to_text(next_attempt_at) if next_attempt_at else None,
            "seqs": json.dumps(seqs),
        },
    )


async def due_exchanges(conn: Connection, now: datetime, limit: int) -> list[str]:
    """Exchanges whose extraction is owed and due (retries first), oldest first."""
    rows = await fetch_all(
        conn,
        "select exchange_id, min(seq) as first, min(extraction) as state from conversation_log"
        " where deleted_at is null and (extraction = 'waiting'"
        " or (extraction = 'pending' and next_attempt_at <= ?))"
        " group by exchange_id order by state, first limit ?",
        (to_text(now), limit),
    )
    return [row["exchange_id"] for row in rows]


async def claim_exchange(
    conn: Connection, exchange_id: str, now: datetime, until: datetime
) -> bool:
    """Take a due exchange for one extraction: it is `pending` and not due again before
    `until`, so another process's pass leaves it alone; False when it is no longer due."""
    taken = await conn.execute(
        "update conversation_log set extraction = 'pending', next_attempt_at = ?"
        " where exchange_id = ? and deleted_at is null and (extraction = 'waiting'"
        " or (extraction = 'pending' and next_attempt_at <= ?))",
        (to_text(until), exchange_id, to_text(now)),
    )
    return taken > 0


async def pending_messages(conn: Connection, exchange_id: str) -> list[LoggedMessage]:
    """The visible messages of one exchange whose extraction is owed, in order."""
    rows = await fetch_all(
        conn,
        "select * from conversation_log where exchange_id = ? and deleted_at is null"
        " and extraction in ('pending', 'waiting') order by seq",
        (exchange_id,),
    )
    return [to_message(row) for row in rows]


# The best `pool` matches are taken inside FTS5 first (a LIMIT lets it keep only those), then
# filtered: half the time of sorting every match after the join (100,000 messages: 4.3 against
# 7.7 ms p50). They are ordered by `bm25(conversation_fts)` in SQLite's sorter, not by FTS5's
# `rank` column: the same scores and order, a third less time (its sorted cursor is a second
# statement over every match; bench/results/latency-s5-log*.json).
_SEARCH = (
    "select f.bm25, c.* from (select rowid, bm25(conversation_fts) as bm25"
    " from conversation_fts where conversation_fts match :match order by bm25 limit :pool) f"
    " cross join conversation_log c on c.seq = f.rowid"
    " where c.agent_id = :agent_id and c.deleted_at is null"
    " and not exists (select 1 from json_each(c.memory_ids) j join memories m on m.id = j.value"
    " where m.superseded_by is not null or m.deleted_at is not null)"
    " order by f.bm25 limit :limit"
)
# The hits and the visible turns around them in one statement (one turn on the connection);
# a turn around a hit comes with a null bm25, after the hits.
_SEARCH_AROUND = (
    "with hits as materialized (" + _SEARCH + "),"  # noqa: S608 - constants
    " near as (select h.seq + s.value as seq from hits h, json_each(:steps) s)"
    " select * from hits union all"
    " select null as bm25, c.* from conversation_log c"
    " where c.seq in (select seq from near) and c.seq not in (select seq from hits)"
    " and c.agent_id = :agent_id and c.deleted_at is null"
    " order by bm25, seq"
)
_SEARCH_PG = (
    MESSAGE_BM25  # noqa: S608 - constants
    + " select f.bm25, c.* from (select seq, bm25 from scored"
    " order by bm25 limit :pool) f join conversation_log c on c.seq = f.seq"
    " where c.agent_id = :agent_id and c.deleted_at is null"
    " and not exists (select 1 from json_array_elements_text(cast(c.memory_ids as json)) j"
    " join memories m on m.id = j where m.superseded_by is not null or m.deleted_at is not null)"
    " order by f.bm25 limit :limit"
)
SEARCH_POOL = 200


def _search_params(match: str, agent_id: str, limit: int) -> dict[str, Any]:
    """The parameters of a log search for the best `limit` hits."""
    return {
        "match": match,
        "agent_id": agent_id,
        "limit": limit,
        "pool": max(SEARCH_POOL, limit * 4),
    }


async def search_log(
    conn: Connection, match: str, agent_id: str, limit: int
) -> list[tuple[float, LoggedMessage]]:
    """(bm25, message) pairs for a MATCH expression over the agent's visible messages, among
    the log's best matches; a message a superseded or forgotten memory came from is left out
    (it says the old value)."""
    params = _search_params(match, agent_id, limit)
    if conn.dialect == "postgresql":
        rows = await fetch_all(conn, _SEARCH_PG, {**params, "terms": match_terms(match)})
    else:
        rows = await fetch_all(conn, _SEARCH, params)
    return [(row["bm25"], to_message(row)) for row in rows]


@dataclass(frozen=True)
class Around:
    """A log search's hits, best first, and the agent's visible messages within some turns of
    them that are not hits themselves, in order."""

    hits: list[tuple[float, LoggedMessage]]
    turns: list[LoggedMessage]


async def search_log_around(
    conn: Connection, match: str, agent_id: str, limit: int, turns: int
) -> Around:
    """`search_log`'s hits with the visible messages within `turns` of them (by seq): one
    statement on SQLite, two reads on PostgreSQL."""
    if conn.dialect == "postgresql":
        hits = await search_log(conn, match, agent_id, limit)
        return Around(hits, await visible_messages(conn, around_seqs(hits, turns), agent_id))
    steps = [step for step in range(-turns, turns + 1) if step]
    params = {**_search_params(match, agent_id, limit), "steps": json.dumps(steps)}
    rows = await fetch_all(conn, _SEARCH_AROUND, params)
    found: list[tuple[float, LoggedMessage]] = []
    near: list[LoggedMessage] = []
    for row in rows:
        if row["bm25"] is None:
            near.append(to_message(row))
        else:
            found.append((row["bm25"], to_message(row)))
    near.sort(key=lambda message: message.seq)
    return Around(found, near)


# The messages of these nearest (seq, distance) pairs that `message_vectors.rows_of` keeps, and
# the visible turns around them, in one statement (a turn comes with a null distance); equal
# distances in the pairs' order, as `rows_of` orders them.
_NEAREST_AROUND = (
    "with knn as (select json_extract(value, '$[0]') as seq,"
    " json_extract(value, '$[1]') as distance, key as place from json_each(:pairs)),"
    " hits as materialized (select knn.distance as distance, knn.place as place, c.* from knn"
    " cross join conversation_log c on c.seq = knn.seq"
    " where c.agent_id = :agent_id and c.deleted_at is null"
    " and not exists (select 1 from json_each(c.memory_ids) j join memories m"
    " on m.id = j.value where m.superseded_by is not null or m.deleted_at is not null)"
    " order by knn.distance, knn.place limit :limit),"
    " near as (select h.seq + s.value as seq from hits h, json_each(:steps) s)"
    " select * from hits union all"
    " select null as distance, null as place, c.* from conversation_log c"
    " where c.seq in (select seq from near) and c.seq not in (select seq from hits)"
    " and c.agent_id = :agent_id and c.deleted_at is null"
    " order by distance, place, seq"
)


@dataclass(frozen=True)
class NearAround:
    """The nearest visible messages as (cosine distance, row), nearest first, and the
    agent's visible messages within some turns of them that are not among them, in order."""

    hits: list[tuple[float, Any]]
    turns: list[LoggedMessage]


async def nearest_around(
    conn: Connection, nearest: list[tuple[int, float]], agent_id: str, limit: int, turns: int
) -> NearAround:
    """`message_vectors.rows_of` (the best `limit` of these (seq, distance) pairs that are
    visible messages of the agent) with the visible messages within `turns` of them: one
    statement on SQLite, two reads on PostgreSQL."""
    if not nearest:
        return NearAround([], [])
    if conn.dialect == "postgresql":
        hits = await message_vectors.rows_of(conn, nearest, agent_id, limit)
        said = [(distance, to_message(row)) for distance, row in hits]
        return NearAround(hits, await visible_messages(conn, around_seqs(said, turns), agent_id))
    steps = [step for step in range(-turns, turns + 1) if step]
    rows = await fetch_all(
        conn,
        _NEAREST_AROUND,
        {
            "pairs": json.dumps(nearest),
            "agent_id": agent_id,
            "limit": limit,
            "steps": json.dumps(steps),
        },
    )
    found = [(float(row["distance"]), row) for row in rows if row["distance"] is not None]
    found.sort(key=lambda pair: pair[0])
    near = [to_message(row) for row in rows if row["distance"] is None]
    return NearAround(found, near)


def around_seqs(found: list[tuple[float, LoggedMessage]], turns: int) -> list[int]:
    """The sequence numbers within `turns` of these messages that are not among them."""
    own = {message.seq for _, message in found}
    return sorted(
        {seq + step for seq in own for step in range(-turns, turns + 1) if seq + step not in own}
    )


async def exchange_origin(conn: Connection, exchange_id: str) -> str | None:
    """`ingest` or `flush`: where an exchange came from; None when it is not in the log."""
    row = await fetch_one(
        conn, "select origin from conversation_log where exchange_id = ? limit 1", (exchange_id,)
    )
    return str(row[0]) if row else None


async def hide_exchange(conn: Connection, exchange_id: str, when: datetime) -> int:
    """Hide every message of an exchange from recall (a forget); `unhide_exchange` undoes it.
    How many messages were hidden."""
    hidden = await conn.execute(
        "update conversation_log set deleted_at = ? where exchange_id = ? and deleted_at is null",
        (to_text(when), exchange_id),
    )
    await message_vectors.delete_hidden(conn)
    return hidden


async def hide_messages_of(conn: Connection, memory_id: str, when: datetime) -> None:
    """Hide the messages a memory was extracted from."""
    await conn.execute(
        Sql(
            "update conversation_log set deleted_at = ? where deleted_at is null and exists"
            " (select 1 from json_each(memory_ids) where value = ?)",
            "update conversation_log set deleted_at = ? where deleted_at is null"
            " and jsonb_exists(cast(memory_ids as jsonb), ?)",
        ),
        (to_text(when), memory_id),
    )
    await message_vectors.delete_hidden(conn)


async def unhide_exchange(conn: Connection, exchange_id: str, hidden_at: datetime) -> None:
    """Show again the messages of an exchange that one forget (at `hidden_at`) hid."""
    await conn.execute(
        "update conversation_log set deleted_at = null where exchange_id = ? and deleted_at = ?",
        (exchange_id, to_text(hidden_at)),
    )


async def unhide_messages_of(conn: Connection, memory_id: str, hidden_at: datetime) -> None:
    """Show again the messages of a memory that one forget (at `hidden_at`) hid."""
    await conn.execute(
        Sql(
            "update conversation_log set deleted_at = null where deleted_at = ? and exists"
            " (select 1 from json_each(memory_ids) where value = ?)",
            "update conversation_log set deleted_at = null where deleted_at = ?"
            " and jsonb_exists(cast(memory_ids as jsonb), ?)",
        ),
        (to_text(hidden_at), memory_id),
    )


async def exchange_seqs(conn: Connection, exchange_ids: list[str]) -> list[int]:
    """Sequence numbers of these exchanges' messages (hidden ones too)."""
    found = await fetch_all(
        conn,
        Sql(
            "select seq from conversation_log"
            " where exchange_id in (select value from json_each(?))",
            "select seq from conversation_log"
            " where exchange_id in (select json_array_elements_text(cast(? as json)))",
        ),
        (json.dumps(exchange_ids),),
    )
    return [int(row[0]) for row in found]


async def _unindex(conn: Connection, seqs: list[int]) -> None:
    """Remove the full-text rows of these messages, their vectors and cached embeddings."""
    await message_vectors.erase(conn, seqs)
    if conn.dialect == "postgresql":
        await unindex_messages(conn, seqs)
        return
    await conn.execute(
        "delete from conversation_fts where rowid in (select value from json_each(?))",
        (json.dumps(seqs),),
    )


async def erase_older_than(conn: Connection, cutoff: datetime) -> int:
    """Remove every message logged before `cutoff` (the retention setting); how many went."""
    found = await fetch_all(
        conn, "select seq from conversation_log where created_at < ?", (to_text(cutoff),)
    )
    await _unindex(conn, [int(row[0]) for row in found])
    return await conn.execute(
        "delete from conversation_log where created_at < ?", (to_text(cutoff),)
    )


async def log_counts(conn: Connection) -> dict[str, int]:
    """Messages, exchanges, hidden messages, exchanges whose extraction is owed (a retry) and
    exchanges logged while no LLM could answer."""
    row = await fetch_one(
        conn,
        "select count(*), count(distinct exchange_id), count(deleted_at),"
        " count(distinct case when extraction = 'pending' and deleted_at is null"
        " then exchange_id end),"
        " count(distinct case when extraction = 'waiting' and deleted_at is null"
        " then exchange_id end),"
        " count(distinct case when extraction = 'done' then exchange_id end)"
        " from conversation_log",
    )
    assert row is not None
    return {
        "messages": int(row[0]),
        "exchanges": int(row[1]),
        "hidden_messages": int(row[2]),
        "pending_exchanges": int(row[3]),
        "waiting_exchanges": int(row[4]),
        "extracted_exchanges": int(row[5]),
    }


async def said_by(conn: Connection, memory_ids: list[str]) -> list[int]:
    """Sequence numbers of the messages these memories were extracted from (hidden ones too)."""
    found = await fetch_all(
        conn,
        Sql(
            "select seq from conversation_log where exists (select 1 from json_each(memory_ids)"
            " where value in (select value from json_each(:ids)))",
            "select seq from conversation_log where jsonb_exists_any(cast(memory_ids as jsonb),"
            " array(select json_array_elements_text(cast(:ids as json))))",
        ),
        {"ids": json.dumps(memory_ids)},
    )
    return [int(row[0]) for row in found]


async def optimize_log_index(conn: Connection) -> None:
    """Merge the log's full-text segments, dropping every deleted message's terms (term
    tables on PostgreSQL have no segments: nothing to do)."""
    if conn.dialect == "postgresql":
        return
    await conn.execute("insert into conversation_fts (conversation_fts) values ('optimize')")


async def recent_exchanges(conn: Connection, agent_id: str, limit: int) -> list[LoggedMessage]:
    """The visible messages of the agent's latest `limit` exchanges, oldest message first."""
    rows = await fetch_all(
        conn,
        "select * from conversation_log where agent_id = :agent_id and deleted_at is null"
        " and exchange_id in (select exchange_id from conversation_log"
        " where agent_id = :agent_id and deleted_at is null"
        " group by exchange_id order by max(seq) desc limit :limit) order by seq",
        {"agent_id": agent_id, "limit": limit},
    )
    return [to_message(row) for row in rows]


async def user_messages_before(
    conn: Connection, agent_id: str, exchange_id: str, limit: int
) -> list[tuple[str, str]]:
    """The agent's last `limit` visible user messages logged before the exchange `exchange_id`
    (all of them when it is not logged yet), newest first: each one's exchange id and text."""
    rows = await fetch_all(
        conn,
        "select exchange_id, content from conversation_log where agent_id = :agent_id"
        " and role = 'user' and deleted_at is null and exchange_id <> :exchange_id"
        " and seq < coalesce((select min(seq) from conversation_log"
        " where exchange_id = :exchange_id), 9223372036854775807)"
        " order by seq desc limit :limit",
        {"agent_id": agent_id, "exchange_id": exchange_id, "limit": limit},
    )
    return [(str(row[0]), str(row[1])) for row in rows]


async def visible_messages(conn: Connection, seqs: list[int], agent_id: str) -> list[LoggedMessage]:
    """The agent's visible messages among these sequence numbers (the turns around a hit)."""
    if not seqs:
        return []
    rows = await fetch_all(
        conn,
        Sql(
            "select * from conversation_log where seq in (select value from json_each(:seqs))"
            " and agent_id = :agent_id and deleted_at is null order by seq",
            "select * from conversation_log"
            " where seq in (select cast(json_array_elements_text(cast(:seqs as json)) as bigint))"
            " and agent_id = :agent_id and deleted_at is null order by seq",
        ),
        {"seqs": json.dumps(seqs), "agent_id": agent_id},
    )
    return [to_message(row) for row in rows]


async def exchange_owners(conn: Connection, exchange_ids: list[str]) -> dict[str, str]:
    """The agent each of these exchanges was logged for (unknown ids are absent)."""
    rows = await fetch_all(
        conn,
        Sql(
            "select distinct exchange_id, agent_id from conversation_log"
            " where exchange_id in (select value from json_each(?))",
            "select distinct exchange_id, agent_id from conversation_log"
            " where exchange_id in (select json_array_elements_text(cast(? as json)))",
        ),
        (json.dumps(exchange_ids),),
    )
    return {row[0]: row[1] for row in rows}


async def erase_messages(conn: Connection, seqs: list[int]) -> int:
    """Remove these messages and their full-text rows for good; how many went."""
    await _unindex(conn, seqs)
    await conn.execute(
        Sql(
            "delete from conversation_log where seq in (select value from json_each(?))",
            "delete from conversation_log where seq = any(cast(? as bigint[]))",
        ),
        (json.dumps(seqs) if conn.dialect == "sqlite" else seqs,),
    )
    return len(seqs)


def _over_seqs(before: str, after: str = "") -> Sql:
    """A statement over the messages whose seqs are a JSON list parameter (`seq in (…)` between
    `before` and `after`), in each engine's words."""
    return Sql(
        f"{before} seq in (select value from json_each(?)){after}",  # noqa: S608 - constants
        f"{before} seq in (select cast(json_array_elements_text(cast(? as json)) as bigint))"
        f"{after}",
    )


async def hide_messages(conn: Connection, seqs: list[int], when: datetime) -> int:
    """Hide these messages from recall (a forget by text); how many were visible."""
    found = await fetch_all(
        conn,
        _over_seqs(
            "update conversation_log set deleted_at = ? where deleted_at is null and",
            " returning seq",
        ),
        (to_text(when), json.dumps(seqs)),
    )
    await message_vectors.delete_hidden(conn)
    return len(found)


async def visible_of(conn: Connection, seqs: list[int]) -> list[int]:
    """Those of these messages not hidden, in order."""
    found = await fetch_all(
        conn,
        _over_seqs(
            "select seq from conversation_log where deleted_at is null and", " order by seq"
        ),
        (json.dumps(seqs),),
    )
    return [int(row["seq"]) for row in found]


async def exchanges_of(conn: Connection, seqs: list[int]) -> list[str]:
    """The distinct exchange ids of these messages, oldest first."""
    found = await fetch_all(
        conn,
        _over_seqs(
            "select exchange_id, min(seq) as first from conversation_log where",
            " group by exchange_id order by first",
        ),
        (json.dumps(seqs),),
    )
    return [str(row["exchange_id"]) for row in found]


async def unhide_whole_exchange(conn: Connection, exchange_id: str) -> int:
    """Show again every hidden message of an exchange (its restore by id); how many."""
    return await conn.execute(
        "update conversation_log set deleted_at = null"
        " where exchange_id = ? and deleted_at is not null",
        (exchange_id,),
    )


async def all_messages(
    conn: Connection, with_hidden: bool
) -> list[tuple[LoggedMessage, str | None, str | None]]:
    """Every message of the log in order, with when it was hidden (None: visible) and the
    project it is filed under (None: none); hidden ones only `with_hidden` (an export)."""
    rows = await fetch_all(
        conn,
        "select * from conversation_log where deleted_at is null or :hidden order by seq",
        {"hidden": with_hidden},
    )
    return [(to_message(row), row["deleted_at"], row["project"]) for row in rows]


async def logged_exchanges(conn: Connection, exchange_ids: list[str]) -> set[str]:
    """Which of these exchanges the log holds already."""
    return set(await exchange_owners(conn, exchange_ids))
