"""The episodes step (#26) on a store the previous release wrote, both engines: its flushed
sessions keep their messages, become episodes when they close, and the same messages flushed
again after the upgrade are not logged a second time."""

from pathlib import Path

import pytest

from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import open_engine
from cortex_mcp.store import migrations, migrations_pg
from cortex_mcp.store.conversation import append_message
from cortex_mcp.store.migrations import MIGRATIONS, migrate, schema_version
from cortex_mcp.store.migrations_pg import PG_MIGRATIONS
from cortex_mcp.store.select import open_store
from tests.conftest import FrozenClock

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]

STEP = "episodes_and_flushed_messages"
OLD_SESSION = [
    ("user", "Please make the export command write CSV with a header row."),
    ("tool", 'Bash {"command": "cortex export --csv"}'),
    ("tool", "Bash → Error: no such option: --csv"),
    ("assistant", "Decided: add a --format csv option instead of --csv; done and tested."),
]


async def test_a_previous_releases_flushed_session_is_kept_and_not_logged_twice(
    cortex_home: Path, monkeypatch: pytest.MonkeyPatch, clock: FrozenClock
) -> None:
    settings = Settings.model_validate(
        {"home": cortex_home, "embedding": {"provider": "none"}, "llm": {"provider": "none"}}
    )
    db = await open_store(settings)
    try:
        monkeypatch.setattr(
            migrations, "MIGRATIONS", MIGRATIONS[: [s.__name__ for s in MIGRATIONS].index(STEP)]
        )
        previous = [s.__name__ for s in PG_MIGRATIONS].index(STEP)
        monkeypatch.setattr(migrations_pg, "PG_MIGRATIONS", PG_MIGRATIONS[:previous])
        await migrate(db)
        if db.dialect == "postgresql":  # a fresh test database is copied from a migrated one
            async with db.write() as conn:
                await conn.execute("drop table episodes")
                await conn.execute("drop table flushed_messages")
                # and what the steps after it made (scratchpads_and_projects,
                # live_memories_by_layer, core_by_weight)
                await conn.execute("drop table scratchpads")
                await conn.execute("drop index memories_by_project")
                await conn.execute("alter table conversation_log drop column project")
                await conn.execute("drop index memories_live_by_layer")
                await conn.execute("drop index memories_core_by_weight")
        async with db.write() as conn:  # as the previous release's flush logged a session
            for role, content in OLD_SESSION:
                await append_message(
                    conn,
                    agent_id="default",
                    session_id="old",
                    exchange_id="old-flush",
                    origin="flush",
                    role=role,
                    content=content,
                    created_at="2026-01-01T08:00:00.000000Z",
                )
        monkeypatch.setattr(migrations, "MIGRATIONS", MIGRATIONS)
        monkeypatch.setattr(migrations_pg, "PG_MIGRATIONS", PG_MIGRATIONS)
        await migrate(db)
        assert await schema_version(db) == (
            len(PG_MIGRATIONS) if db.dialect == "postgresql" else len(MIGRATIONS)
        )
    finally:
        await db.close()

    async with open_engine(settings, clock) as engine:
        again = await engine.flush(list(OLD_SESSION), session_id="old")
        assert again.logged_messages == 0 and again.already_logged == len(OLD_SESSION)
        closed = await engine.flush([], session_id="old", reason="session-end")
        assert closed.summary is not None
        listed = await engine.episodes_json()
    assert '"total": 1' in listed
    assert "Please make the export command write CSV" in listed
    assert "Decided: add a --format csv option" in listed
    assert '"errors": 1' in listed
