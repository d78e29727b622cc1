"""A lifecycle run gives way to writers (#28): it applies its changes in transactions of a few
hundred at most, and a write that arrives meanwhile is stored before the run's last one."""

from datetime import timedelta

import anyio
import pytest

from cortex_mcp.engine.facade import Engine
from cortex_mcp.engine.lifecycle.apply import CHUNK, apply_changes
from cortex_mcp.engine.lifecycle.run import plan_lifecycle
from cortex_mcp.models import Layer
from cortex_mcp.store.db import Connection
from tests.conftest import FrozenClock
from tests.lifecycle.conftest import memory, plant

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]


async def test_a_write_during_a_run_is_stored_between_its_transactions(
    engine: Engine, clock: FrozenClock
) -> None:
    old = clock.now - timedelta(days=30)
    await plant(
        engine,
        *[
            memory(f"Errand number {n} for the week", layer=Layer.WORKING, created=old)
            for n in range(CHUNK * 2 + 100)
        ],
    )
    plan = await plan_lifecycle(engine.runtime, None, clock.now)
    assert len(plan.changes) > CHUNK * 2  # three transactions at least
    order: list[str] = []
    first_transaction = anyio.Event()

    async def fence(conn: Connection) -> None:
        order.append("run")
        first_transaction.set()

    async def writer() -> None:
        await first_transaction.wait()
        await engine.remember("Harry lives in Tokyo")
        order.append("write")

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(writer)
        skipped = await apply_changes(engine.db, plan.changes, clock.now, fence, {"run_id": 0})

    assert not skipped
    assert order.count("run") >= 3
    assert order.index("write") < len(order) - 1  # not queued behind the whole run
