"""Schema migrations on real SQLite files."""

from pathlib import Path

import aiosqlite
import pytest

from cortex_mcp.store import migrations
from cortex_mcp.store.migrations import MIGRATIONS, migrate, schema_version
from cortex_mcp.store.sqlite import open_database
from tests.conftest import inspect_database


async def test_a_blank_file_migrates_to_the_current_schema(tmp_path: Path) -> None:
    db = await open_database(tmp_path / "c.db", 1000)
    try:
        await migrate(db)
        assert await schema_version(db) == len(MIGRATIONS)
    finally:
        await db.close()

    with inspect_database(tmp_path / "c.db") as conn:
        tables = {row[0] for row in conn.execute("select name from sqlite_master")}
        journal = conn.execute("pragma journal_mode").fetchone()[0]
    assert {
        "memories",
        "memories_fts",
        "relations",
        "access_log",
        "lifecycle_log",
        "meta",
    } <= tables
    assert journal == "wal"


async def test_migrating_twice_changes_nothing(tmp_path: Path) -> None:
    db = await open_database(tmp_path / "c.db", 1000)
    try:
        await migrate(db)
        await migrate(db)
        assert await schema_version(db) == len(MIGRATIONS)
    finally:
        await db.close()


async def test_a_failing_step_leaves_version_and_schema_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken(conn: aiosqlite.Connection) -> None:
        await conn.execute("create table half_done (x)")
        await conn.execute("this is not sql")

    db = await open_database(tmp_path / "c.db", 1000)
    try:
        await migrate(db)
        monkeypatch.setattr(migrations, "MIGRATIONS", [*MIGRATIONS, broken])
        with pytest.raises(Exception, match="syntax error"):
            await migrations.migrate(db)
        assert await schema_version(db) == len(MIGRATIONS)
    finally:
        await db.close()

    with inspect_database(tmp_path / "c.db") as conn:
        assert (
            conn.execute("select name from sqlite_master where name = 'half_done'").fetchall() == []
        )


async def test_memories_of_an_older_file_are_indexed_again_with_their_context(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = [step.__name__ for step in MIGRATIONS].index("separate_context_column")
    db = await open_database(tmp_path / "c.db", 1000)
    try:
        monkeypatch.setattr(migrations, "MIGRATIONS", MIGRATIONS[:before])
        await migrations.migrate(db)
        async with db.write() as conn:  # a row as the older schema wrote it: one FTS column
            await conn.execute(
                "insert into memories (id, layer, category, content, content_key, created_at,"
                " updated_at, metadata) values ('m1', 'core', 'fact', 'Yes, it was powerful',"
                " 'yes, it was powerful', '2026-01-01T00:00:00+00:00',"
                " '2026-01-01T00:00:00+00:00', json_object('context', 'the support group'))"
            )
            await conn.execute("insert into memories_fts (rowid, terms) values (1, 'yes it')")
        monkeypatch.setattr(migrations, "MIGRATIONS", MIGRATIONS)
        await migrations.migrate(db)
    finally:
        await db.close()

    with inspect_database(tmp_path / "c.db") as conn:
        by_content = conn.execute(
            "select rowid from memories_fts where memories_fts match 'terms : powerful'"
        ).fetchall()
        by_context = conn.execute(
            "select rowid from memories_fts where memories_fts match 'context : support'"
        ).fetchall()
        rows = conn.execute("select count(*) from memories_fts").fetchone()[0]
    assert by_content == [(1,)] and by_context == [(1,)] and rows == 1


async def test_waiting_queue_entries_move_to_the_log_and_their_raw_memories_retire(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = [step.__name__ for step in MIGRATIONS].index("create_conversation_log")
    db = await open_database(tmp_path / "c.db", 1000)
    try:
        monkeypatch.setattr(migrations, "MIGRATIONS", MIGRATIONS[:before])
        await migrations.migrate(db)
        async with db.write() as conn:  # what the raw fallback of #17 and earlier wrote
            await conn.execute(
                "insert into memories (id, layer, category, content, content_key, created_at,"
                " updated_at, metadata) values ('raw1', 'working', 'context',"
                " '[unextracted exchange] user: 我的猫叫咪咪 assistant: 好', 'k',"
                " '2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z',"
                ' \'{"channel": "fallback"}\')'
            )
            await conn.execute(
                "insert into extraction_queue (agent_id, payload, fallback_ids, next_attempt_at,"
                " created_at) values ('default', json_object('user', '我的猫叫咪咪',"
                " 'assistant', '好', 'tools', ''), '[\"raw1\"]', '2026-01-01T00:00:00.000000Z',"
                " '2026-01-01T00:00:00.000000Z')"
            )
        monkeypatch.setattr(migrations, "MIGRATIONS", MIGRATIONS)
        await migrations.migrate(db)
    finally:
        await db.close()

    with inspect_database(tmp_path / "c.db") as conn:
        logged = conn.execute(
            "select role, content, extraction, origin from conversation_log order by seq"
        ).fetchall()
        found = conn.execute(
            "select rowid from conversation_fts where conversation_fts match '咪咪'"
        ).fetchall()
        raw = conn.execute("select deleted_at from memories where id = 'raw1'").fetchone()
        waiting = conn.execute(
            "select count(*) from extraction_queue where done_at is null"
        ).fetchone()
    assert logged == [
        ("user", "我的猫叫咪咪", "pending", "ingest"),
        ("assistant", "好", "pending", "ingest"),
    ]
    assert found == [(1,)] and raw[0] is not None and waiting == (0,)


async def test_relations_of_an_older_file_gain_keys_and_close_with_their_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = [step.__name__ for step in MIGRATIONS].index("relations_in_time")
    db = await open_database(tmp_path / "c.db", 1000)
    try:
        monkeypatch.setattr(migrations, "MIGRATIONS", MIGRATIONS[:before])
        await migrations.migrate(db)
        async with db.write() as conn:  # an imported relation, and one of a replaced memory
            for memory_id, gone in (("old", "'2026-02-01T00:00:00.000000Z'"), ("new", "null")):
                await conn.execute(
                    "insert into memories (id, layer, category, content, content_key,"
                    " created_at, updated_at, deleted_at) values (?, 'core', 'fact', ?, ?,"
                    f" '2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z', {gone})",
                    (memory_id, memory_id, memory_id),
                )
            for relation_id, subject, source in (
                ("r1", "Wang_Wei", None),
                ("r2", "default_user", "old"),
            ):
                await conn.execute(
                    "insert into relations (id, agent_id, subject, predicate, object,"
                    " source_memory_id, created_at, updated_at) values (?, 'default', ?,"
                    " 'works_at', 'ＡＣＭＥ', ?, '2026-01-01T00:00:00.000000Z',"
                    " '2026-01-01T00:00:00.000000Z')",
                    (relation_id, subject, source),
                )
        monkeypatch.setattr(migrations, "MIGRATIONS", MIGRATIONS)
        await migrations.migrate(db)
        async with db.read() as conn:
            rows = await conn.fetch_all(
                "select id, subject_key, object_key, valid_from, valid_to"
                " from relations order by id"
            )
            found = [tuple(row) for row in rows]
    finally:
        await db.close()

    assert found == [
        ("r1", "wang wei", "acme", "2026-01-01T00:00:00.000000Z", None),
        ("r2", "user", "acme", "2026-01-01T00:00:00.000000Z", "2026-02-01T00:00:00.000000Z"),
    ]


async def test_memories_of_an_older_file_get_the_dates_they_mention_indexed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = [step.__name__ for step in MIGRATIONS].index("index_mentioned_dates")
    db = await open_database(tmp_path / "c.db", 1000)
    try:
        monkeypatch.setattr(migrations, "MIGRATIONS", MIGRATIONS[:before])
        await migrations.migrate(db)
        async with db.write() as conn:
            await conn.execute(
                "insert into memories (id, layer, category, content, content_key, created_at,"
                " updated_at, metadata) values ('m1', 'core', 'fact', '我昨天去了医院',"
                " '我昨天去了医院', '2024-03-01T08:00:00.000000Z', '2024-03-01T08:00:00.000000Z',"
                " json_object('context', '先月から具合が悪い'))"
            )
        monkeypatch.setattr(migrations, "MIGRATIONS", MIGRATIONS)
        await migrations.migrate(db)
    finally:
        await db.close()

    with inspect_database(tmp_path / "c.db") as conn:
        rows = conn.execute(
            "select start_day, end_day from memory_dates order by start_day"
        ).fetchall()
    assert [tuple(row) for row in rows] == [
        ("2024-02-01", "2024-03-01"),  # 先月, from the context
        ("2024-02-29", "2024-03-01"),  # 昨天, across the leap day
    ]


async def test_an_older_files_exchange_links_take_the_conversation_logs_exchange_id(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = [step.__name__ for step in MIGRATIONS].index("one_exchange_id")
    db = await open_database(tmp_path / "c.db", 1000)
    try:
        monkeypatch.setattr(migrations, "MIGRATIONS", MIGRATIONS[:before])
        await migrations.migrate(db)
        async with db.write() as conn:  # as the previous release wrote one ingest and a flush
            for memory_id, logged in (("fact", "log-1"), ("decision", "log-1"), ("summary", None)):
                metadata = f'{{"exchange_id": "{logged}"}}' if logged else "{}"
                await conn.execute(
                    "insert into memories (id, layer, category, content, content_key,"
                    " created_at, updated_at, metadata) values (?, 'core', 'fact', ?, ?,"
                    " '2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z', ?)",
                    (memory_id, memory_id, memory_id, metadata),
                )
            for exchange, memory_id in (
                ("uuid-a", "fact"),
                ("uuid-a", "decision"),
                ("uuid-b", "summary"),
            ):
                await conn.execute(
                    "insert into exchange_links (exchange_id, memory_id) values (?, ?)",
                    (exchange, memory_id),
                )
        monkeypatch.setattr(migrations, "MIGRATIONS", MIGRATIONS)
        await migrations.migrate(db)
    finally:
        await db.close()

    with inspect_database(tmp_path / "c.db") as conn:
        links = conn.execute(
            "select exchange_id, memory_id from exchange_links order by memory_id"
        ).fetchall()
    assert [tuple(row) for row in links] == [
        ("log-1", "decision"),
        ("log-1", "fact"),
        ("uuid-b", "summary"),  # no memory of it records a log id: the group keeps its own
    ]
