"""The schedule: due after a missed fire, caught up on start, run by exactly one process."""

import json
import sys
from datetime import UTC, datetime
from pathlib import Path

import anyio
import pytest
from anyio.abc import Process
from anyio.streams.buffered import BufferedByteReceiveStream

from cortex_mcp.engine.facade import Engine, open_engine
from cortex_mcp.engine.lease import Lease, LeaseLost
from cortex_mcp.engine.lifecycle import (
    LifecycleBusy,
    LifecycleScheduler,
    is_due,
    lifecycle_log,
    lifecycle_status,
    run_lifecycle,
)
from cortex_mcp.engine.lifecycle.schedule import next_fire, previous_fire, zone
from cortex_mcp.models import Layer
from cortex_mcp.store import lifecycle as store
from tests.conftest import FrozenClock, inspect_database
from tests.fakes import FakeOpenAI
from tests.lifecycle.conftest import live, memory, plant, quiet_settings

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]

NIGHTLY = "0 3 * * *"


def at(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 1, day, hour, minute, tzinfo=UTC)


def test_a_store_that_never_ran_is_due():
    assert is_due(NIGHTLY, None, at(1, 9))


def test_a_run_after_the_last_fire_time_is_not_due_again():
    assert not is_due(NIGHTLY, at(2, 3, 1), at(2, 23, 59))
    assert is_due(NIGHTLY, at(2, 3, 1), at(3, 3, 0))


def test_a_laptop_asleep_at_three_catches_up_when_it_starts():
    assert is_due(NIGHTLY, at(1, 3, 0), at(3, 10, 0))


def test_the_schedule_is_read_in_its_time_zone():
    tokyo = zone("Asia/Tokyo", at(1, 0))
    assert previous_fire(NIGHTLY, at(2, 0), tokyo) == at(1, 18)  # 03:00 JST is 18:00 UTC
    assert next_fire(NIGHTLY, at(2, 0), tokyo) == at(2, 18)


async def test_the_scheduler_runs_when_due_and_then_waits_for_the_next_fire(
    engine: Engine, clock: FrozenClock
):
    scheduler = LifecycleScheduler(engine.runtime)

    first = await scheduler.tick()
    second = await scheduler.tick()
    clock.now = at(2, 3, 0)
    third = await scheduler.tick()

    assert first is not None and second is None and third is not None
    assert scheduler.wait_s() == engine.settings.lifecycle.poll_interval_s
    runs = await lifecycle_log(engine.runtime)
    assert [r["status"] for r in runs] == ["ok", "ok"]
    assert runs[0]["report"]["promoted"] == {"count": 0, "first": []}
    assert all(r["report"]["duration_ms"] > 0 for r in runs), "the log records how long (#29)"
    status = await lifecycle_status(engine.runtime)
    assert status["last_successful_run"] == "2026-01-02T03:00:00.000000Z"
    assert status["next_run"] == "2026-01-03T03:00:00.000000Z" and not status["running"]


async def test_the_background_loop_catches_up_at_once_then_sleeps_until_each_run(
    cortex_home: Path, clock: FrozenClock
):
    settings = quiet_settings(
        cortex_home, lifecycle={"poll_interval_s": 7 * 86400, "startup_delay_s": 60}
    )
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)
        clock.advance(seconds=seconds)
        if len(waits) == 10:
            raise anyio.get_cancelled_exc_class()()

    async with open_engine(settings, clock, {}) as engine:
        with pytest.raises(anyio.get_cancelled_exc_class()):
            await LifecycleScheduler(engine.runtime, sleep).run()
        runs = await lifecycle_log(engine.runtime, limit=100)

    assert len(runs) == 9 and {r["status"] for r in runs} == {"ok"}
    assert waits == [60.0, 18 * 3600.0 - 60] + [86400.0] * 8
    assert clock.now == at(10, 3)


async def test_the_loop_checks_at_least_every_poll_interval(engine: Engine, clock: FrozenClock):
    scheduler = LifecycleScheduler(engine.runtime)

    assert scheduler.wait_s() == 300.0
    clock.now = at(2, 2, 58)
    assert scheduler.wait_s() == 120.0


async def test_a_second_run_while_the_lease_is_held_is_refused(engine: Engine):
    holder = Lease(engine.runtime, "other-process")
    await holder.take()

    with pytest.raises(LifecycleBusy, match="other-process"):
        await run_lifecycle(engine.runtime)
    await holder.release()
    assert (await run_lifecycle(engine.runtime)).dry_run is False


async def test_two_engines_on_one_file_with_a_due_schedule_run_it_exactly_once(
    cortex_home: Path, clock: FrozenClock
):
    settings = quiet_settings(cortex_home)
    async with (
        open_engine(settings, clock, {}) as first,
        open_engine(settings, clock, {}) as second,
    ):
        await plant(
            first, *[memory(f"note {i} on topic {i}", created=at(1, 8)) for i in range(300)]
        )
        reports = []

        async def tick(engine: Engine) -> None:
            reports.append(await LifecycleScheduler(engine.runtime).tick())

        async with anyio.create_task_group() as both:
            both.start_soon(tick, first)
            both.start_soon(tick, second)

        assert sum(report is not None for report in reports) == 1
        assert len(await lifecycle_log(first.runtime)) == 1


async def test_a_crashed_holder_is_taken_over_only_after_its_lease_expires(
    cortex_home: Path, clock: FrozenClock
):
    settings = quiet_settings(cortex_home, lifecycle={"lease_ttl_s": 60})
    async with open_engine(settings, clock, {}) as crashed:
        await Lease(crashed.runtime, "crashed-process").take()  # and never released: it died
        async with crashed.db.write() as conn:
            await store.start_run(conn, "crashed-process", clock.now)
    async with open_engine(settings, clock, {}) as survivor:
        scheduler = LifecycleScheduler(survivor.runtime)
        assert await scheduler.tick() is None
        clock.advance(seconds=59)
        assert await scheduler.tick() is None
        clock.advance(seconds=2)
        assert await scheduler.tick() is not None
        async with survivor.db.read() as conn:
            assert await store.lease_holder(conn) is None  # released after the run
        runs = await lifecycle_log(survivor.runtime)
    assert [(r["owner"], r["status"]) for r in runs][1:] == [("crashed-process", "failed")]
    assert runs[0]["status"] == "ok" and "interrupted" in runs[1]["error"]


async def test_a_run_that_lost_its_lease_writes_nothing_more(engine: Engine, clock: FrozenClock):
    lease = Lease(engine.runtime, "slow-process")
    await lease.take()
    clock.advance(seconds=engine.settings.lifecycle.lease_ttl_s + 1)
    await Lease(engine.runtime, "newcomer").take()

    with pytest.raises(LeaseLost):
        await lease.keep()


async def test_cancelling_a_run_mid_phase_leaves_no_partial_state(
    llm_engine: Engine, fake_openai: FakeOpenAI, clock: FrozenClock
):
    texts = ["The staging server runs Ubuntu", "The staging server runs Ubuntu now"]
    ids = await plant(llm_engine, *[memory(t, created=at(1, 1)) for t in texts])
    fake_openai.latency_s = 30

    with anyio.move_on_after(0.5):  # the LLM takes 30 s: this cancels the merge phase
        await run_lifecycle(llm_engine.runtime)

    assert sorted(m.id for m in await live(llm_engine, Layer.CORE)) == sorted(ids)
    (run,) = await lifecycle_log(llm_engine.runtime)
    assert run["status"] == "cancelled"
    async with llm_engine.db.read() as conn:
        assert await store.lease_holder(conn) is None


CONTENDER = """
import json, sys, anyio, anyio.to_thread
from pathlib import Path
from cortex_mcp.engine.facade import open_engine
from cortex_mcp.engine.lifecycle import LifecycleScheduler
from tests.lifecycle.conftest import quiet_settings

async def main() -> None:
    async with open_engine(quiet_settings(Path(sys.argv[1])), environ={}) as engine:
        sys.stdout.write("ready\\n")
        sys.stdout.flush()
        await anyio.to_thread.run_sync(sys.stdin.readline)  # go
        report = await LifecycleScheduler(engine.runtime).tick()
    sys.stdout.write(json.dumps({"ran": report is not None}) + "\\n")

anyio.run(main)
"""


async def start_contender(home: Path) -> tuple[Process, BufferedByteReceiveStream]:
    """A server process on `home` that ticks its scheduler once told to go."""
    command = [sys.executable, "-c", CONTENDER, str(home)]
    process = await anyio.open_process(command, cwd=Path(__file__).parents[2])
    assert process.stdout is not None
    output = BufferedByteReceiveStream(process.stdout)
    assert await output.receive_until(b"\n", 100) == b"ready"
    return process, output


async def test_two_server_processes_on_one_database_run_the_lifecycle_once(
    cortex_home: Path, engine: Engine, clock: FrozenClock
):
    many = [memory(f"fact {i} about thing {i}", created=at(1, 8)) for i in range(500)]
    await plant(engine, *many)

    with anyio.fail_after(60):
        contenders = [await start_contender(cortex_home) for _ in range(2)]
        for process, _ in contenders:
            assert process.stdin is not None
            await process.stdin.send(b"go\n")
        results = [json.loads(await out.receive_until(b"\n", 1000)) for _, out in contenders]
        for process, _ in contenders:
            assert await process.wait() == 0

    assert sorted(r["ran"] for r in results) == [False, True]
    with inspect_database(cortex_home / "cortex.db") as conn:
        statuses = [row[0] for row in conn.execute("select status from lifecycle_runs")]
    assert statuses == ["ok"]
