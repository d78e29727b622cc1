"""A preview reports exactly what the run after it does, and changes nothing."""

from datetime import timedelta

import pytest

from cortex_mcp.clock import to_text
from cortex_mcp.engine.facade import Engine
from cortex_mcp.engine.lifecycle import run_lifecycle
from cortex_mcp.models import Category, Layer
from tests.conftest import FrozenClock, inspect_database
from tests.lifecycle.conftest import memory, plant

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]


async def plant_one_of_everything(engine: Engine, clock: FrozenClock) -> None:
    """Something for every phase to do."""
    now = clock.now
    recalled = memory(
        "Harry chose Oracle Cloud ARM for the VPS",
        category=Category.DECISION,
        layer=Layer.WORKING,
        created=now - timedelta(hours=30),
        access_count=2,
    )
    forgotten = memory(
        "Chatted about the weather in Shinagawa",
        layer=Layer.WORKING,
        created=now - timedelta(hours=50),
        importance=0.3,
    )
    twins = [
        memory("Harry's budget for the flat is 50 million yen", created=now - timedelta(days=3)),
        memory(
            "Harry's budget for the flat is 50 million yen now", created=now - timedelta(days=1)
        ),
    ]
    stale_todo = memory(
        "Look up ISP proxies", category=Category.TODO, created=now - timedelta(days=30)
    )
    old_archive = [
        memory(
            f"Old note {n} about router IPv6 port {n}",
            layer=Layer.ARCHIVE,
            created=now - timedelta(days=130 + n),
            metadata={"archived_at": to_text(now - timedelta(days=100))},
        )
        for n in range(3)
    ]
    identity = memory("Harry lives in Tokyo", category=Category.IDENTITY, created=now)
    await plant(engine, recalled, forgotten, *twins, stale_todo, *old_archive, identity)


def dump(engine: Engine) -> list[tuple[object, ...]]:
    with inspect_database(engine.db.location) as conn:
        return conn.execute("select * from memories order by seq").fetchall()


async def test_preview_then_run_report_the_same_changes(engine: Engine, clock: FrozenClock):
    await plant_one_of_everything(engine, clock)

    preview = await run_lifecycle(engine.runtime, dry_run=True)
    run = await run_lifecycle(engine.runtime)

    assert preview.dry_run and not run.dry_run
    assert preview.outcome() == run.outcome()
    assert len(run.promoted) == len(run.expired) == len(run.merged) == len(run.archived) == 1
    assert len(run.compressed) == 1 and len(run.profiles) == 1
    assert "memory/archive/2025-08.md" in run.mirror


async def test_a_preview_changes_nothing(engine: Engine, clock: FrozenClock):
    await plant_one_of_everything(engine, clock)
    before = dump(engine)

    preview = await run_lifecycle(engine.runtime, dry_run=True)

    assert dump(engine) == before
    assert preview.promoted and not (engine.settings.home / "MEMORY.md").exists()
    with inspect_database(engine.db.location) as conn:
        assert conn.execute("select count(*) from lifecycle_runs").fetchone() == (0,)
        assert conn.execute("select count(*) from lifecycle_log").fetchone() == (0,)


async def test_a_change_made_between_plan_and_apply_is_skipped_not_overwritten(
    engine: Engine, clock: FrozenClock
):
    from cortex_mcp.engine.lifecycle.apply import apply_changes
    from cortex_mcp.engine.lifecycle.run import plan_lifecycle

    await plant_one_of_everything(engine, clock)
    plan = await plan_lifecycle(engine.runtime, None, clock.now)
    promoted = next(c for c in plan.changes if c.action == "promote")
    (memory_id,) = promoted.expect
    await engine.forget(memory_id, reason="the user said so")

    async def no_lease(conn: object) -> None:
        return None

    skipped = await apply_changes(engine.db, plan.changes, clock.now, no_lease, {})

    assert skipped == [promoted]
    with inspect_database(engine.db.location) as conn:
        layer, deleted = conn.execute(
            "select layer, deleted_at from memories where id = ?", (memory_id,)
        ).fetchone()
    assert layer == "working" and deleted is not None
