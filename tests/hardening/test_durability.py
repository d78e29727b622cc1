"""Durable commits: fsync on every commit by default; a dead lease holder does not block runs."""

import os
import socket
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import open_engine
from cortex_mcp.engine.lease import Lease, owner_is_gone
from cortex_mcp.engine.lifecycle import LifecycleBusy, run_lifecycle
from cortex_mcp.store import lifecycle as store
from tests.conftest import FrozenClock
from tests.lifecycle.conftest import quiet_settings


def _reaped() -> int:
    """The id of a process that has exited and been reaped."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


async def synchronous_of(settings: Settings, clock: FrozenClock) -> int:
    async with open_engine(settings, clock, {}) as engine, engine.db.read() as conn:
        row = await conn.fetch_one("pragma synchronous")
    assert row is not None
    return int(row[0])


async def test_commits_are_synced_to_disk_by_default_and_normal_is_a_setting(
    cortex_home: Path, clock: FrozenClock
):
    assert await synchronous_of(quiet_settings(cortex_home), clock) == 2  # FULL
    normal = quiet_settings(cortex_home, store={"synchronous": "NORMAL"})
    assert await synchronous_of(normal, clock) == 1


def test_an_unknown_synchronous_mode_is_a_configuration_error(cortex_home: Path):
    with pytest.raises(ValueError, match="synchronous"):
        quiet_settings(cortex_home, store={"synchronous": "OFF"})


def test_only_a_gone_process_on_this_host_counts_as_gone():
    host = socket.gethostname()
    assert owner_is_gone(f"{host}:{_reaped()}:abcd")
    assert not owner_is_gone(f"{host}:{os.getpid()}:abcd")
    assert not owner_is_gone(f"another-host.example:{_reaped()}:abcd")
    assert not owner_is_gone("crashed-process")
    # a purge's and a mirror keep's owners name their kind first (found in retest17b)
    assert owner_is_gone(f"purge:{host}:{_reaped()}:abcd")
    assert owner_is_gone(f"mirror-keep:{host}:{_reaped()}:abcd")
    assert not owner_is_gone(f"mirror-keep:{host}:{os.getpid()}:abcd")


async def test_a_lease_whose_process_is_gone_is_taken_over_at_once(
    cortex_home: Path, clock: FrozenClock
):
    settings = quiet_settings(cortex_home, lifecycle={"lease_ttl_s": 600})
    dead = f"{socket.gethostname()}:{_reaped()}:dead"
    async with open_engine(settings, clock, {}) as engine:
        await Lease(engine.runtime, dead).take()  # the holder was SIGKILLed mid-run
        report = await run_lifecycle(engine.runtime)  # no wait for the 600 s expiry
        assert report.dry_run is False
        async with engine.db.read() as conn:
            assert await store.lease_holder(conn) is None


async def test_a_live_holders_lease_is_still_respected(cortex_home: Path, clock: FrozenClock):
    settings = quiet_settings(cortex_home, lifecycle={"lease_ttl_s": 600})
    child = await anyio.open_process([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        async with open_engine(settings, clock, {}) as engine:
            await Lease(engine.runtime, f"{socket.gethostname()}:{child.pid}:live").take()
            with pytest.raises(LifecycleBusy, match=str(child.pid)):
                await run_lifecycle(engine.runtime)
    finally:
        child.kill()
        await child.wait()
        await child.aclose()
