"""A lifecycle run never holds every memory as a full row at once (#28 item 6): it plans on slim
rows and reads full rows a page (or a chunk of changes) at a time, so its peak memory does not
grow by ~3 KB per memory of the store. Counted, not timed: every full `Memory` the store reads
is tracked until it is freed, and the most alive at once must stay below a page."""

import weakref
from collections.abc import AsyncIterator, Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from cortex_mcp.engine.facade import Engine, open_engine
from cortex_mcp.engine.lifecycle import run_lifecycle
from cortex_mcp.models import Category, Layer, Memory
from cortex_mcp.store import lifecycle as store_lifecycle
from cortex_mcp.store import memories as store_memories
from tests.conftest import FrozenClock
from tests.lifecycle.conftest import memory, plant, quiet_settings

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]

CORE = 1_400
WORKING = 1_400
MOST_AT_ONCE = 1_000
"""A page of full rows (or a chunk of changes being applied), well under the store's size."""


class Alive:
    """Counts the full memories read from the store that are still referenced."""

    def __init__(self) -> None:
        self.now = 0
        self.most = 0
        self.read = 0

    def wrap(self, read: Callable[[Any], Memory]) -> Callable[[Any], Memory]:
        def counted(row: Any) -> Memory:
            found = read(row)
            self.now += 1
            self.read += 1
            self.most = max(self.most, self.now)
            weakref.finalize(found, self._freed)
            return found

        return counted

    def _freed(self) -> None:
        self.now -= 1


@pytest.fixture
async def quiet_engine(cortex_home: Path, clock: FrozenClock) -> AsyncIterator[Engine]:
    """No LLM, no vectors, no mirror: the run's own phases only."""
    settings = quiet_settings(cortex_home, mirror={"enabled": False})
    async with open_engine(settings, clock, environ={}) as opened:
        yield opened


async def test_a_run_over_a_store_larger_than_a_page_holds_a_page_of_full_rows_at_most(
    quiet_engine: Engine, clock: FrozenClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    faded = clock.now - timedelta(days=120)
    expired = clock.now - timedelta(days=30)
    await plant(
        quiet_engine,
        *[
            memory(f"Old fact number {n} about shelf {n % 37}", created=faded, importance=0.3)
            for n in range(CORE)
        ],
        *[
            memory(
                f"Errand number {n} for week {n % 11}",
                category=Category.TODO,
                layer=Layer.WORKING,
                created=expired,
            )
            for n in range(WORKING)
        ],
    )
    alive = Alive()
    for module in (store_memories, store_lifecycle):
        monkeypatch.setattr(module, "to_memory", alive.wrap(store_memories.to_memory))

    report = await run_lifecycle(quiet_engine.runtime)

    assert len(report.archived) == CORE  # every faded fact went to the archive ...
    assert len(report.expired) + len(report.promoted) + len(report.promotion_deferred) == WORKING
    assert alive.read >= CORE + WORKING  # ... each read whole once, when its change applied
    assert alive.most <= MOST_AT_ONCE  # but never all of them at once
