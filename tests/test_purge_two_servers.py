"""Two servers on one home: a mirror write under way in one when the other purges does not put
the purged text back on the page (retest16d E1). Server A rendered MEMORY.md from the store,
server B purged and rewrote the page, then A's write landed with the text; the next hand edit
imported it as a new memory.

A pass notices another process's commit by SQLite's `data_version`; PostgreSQL has none, and
there a pass notices another process's purge by the mark it leaves (round sixteen left E1 open
on PostgreSQL).
"""

from pathlib import Path
from typing import Any

import anyio.from_thread
import pytest

from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import Engine, open_engine
from cortex_mcp.engine.lease import KEEPING, new_owner
from cortex_mcp.engine.mirror import manual
from cortex_mcp.engine.mirror import write as writing
from cortex_mcp.engine.mirror.write import write_mirror
from cortex_mcp.models import Category
from tests.conftest import FrozenClock
from tests.lifecycle.conftest import lease_held_elsewhere, quiet_settings

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]

SECRET = "My stale secret is zq01xk"


@pytest.fixture
def settings(cortex_home: Path) -> Settings:
    return quiet_settings(cortex_home)


def purge_midway(monkeypatch: pytest.MonkeyPatch, when: str, purge: Any) -> None:
    """Make the next mirror pass run `purge` (another server's) after it rendered the pages
    from the store, once it is about to write them, or once it wrote them."""
    if when == "after the render":
        render = writing._pages_now

        async def render_then_purge(*args: Any) -> Any:
            pages = await render(*args)
            await purge()
            return pages

        monkeypatch.setattr(writing, "_pages_now", render_then_purge)
    else:
        write_owned = writing._write_owned

        def write_with_purge(*args: Any) -> Any:
            if when == "before the pages are written":
                anyio.from_thread.run(purge)
            written = write_owned(*args)
            if when == "after the pages are written":
                anyio.from_thread.run(purge)
            return written

        monkeypatch.setattr(writing, "_write_owned", write_with_purge)


@pytest.mark.parametrize(  # the last: B's rewrite lands last anyway; A's second pass keeps it
    "when", ["after the render", "before the pages are written", "after the pages are written"]
)
async def test_a_mirror_write_under_way_in_another_server_does_not_bring_a_purged_text_back(
    settings: Settings, clock: FrozenClock, monkeypatch: pytest.MonkeyPatch, when: str
) -> None:
    memory_md = settings.home / "MEMORY.md"
    async with open_engine(settings, clock, {}) as a, open_engine(settings, clock, {}) as b:
        secret = (await a.remember(SECRET, category=Category.IDENTITY)).id
        await a.remember("Harry lives in Tokyo", category=Category.IDENTITY)
        await write_mirror(a.runtime)
        await a.remember("Harry answers briefly", category=Category.IDENTITY)  # A's write due
        purged: list[Engine] = []

        async def b_purges() -> None:
            if not purged:  # once: B's own mirror writes pass here too
                purged.append(b)
                await b.purge([secret])

        purge_midway(monkeypatch, when, b_purges)
        await write_mirror(a.runtime, archive=False, changed_only=True)  # A's debounced write
        monkeypatch.undo()
        page = memory_md.read_text(encoding="utf-8")
        with memory_md.open("a", encoding="utf-8") as file:
            file.write("- Harry's new bike is red\n")  # the user's edit after both settled
        await write_mirror(b.runtime, archive=False, changed_only=True)
        left = (await a.recall("stale secret zq01xk")).memories
        added = (await a.recall("bike red")).memories

    assert purged
    assert "zq01xk" not in page and "Harry answers briefly" in page
    assert not [m for m in left if "zq01xk" in m.content], left
    assert [m.content for m in added] == ["Harry's new bike is red"]
    assert "zq01xk" not in memory_md.read_text(encoding="utf-8")


async def test_an_edit_kept_by_another_server_during_a_purge_does_not_bring_the_text_back(
    settings: Settings, clock: FrozenClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Retest17 E1': server A found MEMORY.md edited (a hand line added) while it still showed
    the secret, began keeping the edit, and server B purged the secret meanwhile. A's import,
    after B's erase, took the secret's line for a new one and stored it again. A edit is now
    kept holding the lifecycle lease, which a purge holds from before its erase to after its
    rewrite of the pages: B's purge waits for A's keep, which finds the secret still stored."""
    memory_md = settings.home / "MEMORY.md"
    async with open_engine(settings, clock, {}) as a, open_engine(settings, clock, {}) as b:
        secret = (await a.remember(SECRET, category=Category.IDENTITY)).id
        await write_mirror(a.runtime)
        with memory_md.open("a", encoding="utf-8") as file:
            file.write("- Harry's new bike is red\n")
        keep_edit = manual.keep_edit
        purges: list[Any] = []

        async def keep_while_b_purges(*args: Any) -> Any:
            if not purges:  # A, once: B's purge starts while A keeps the edit
                purges.append(b)
                group.start_soon(b.purge, [secret])
                await anyio.sleep(1.0)  # time enough for B's whole purge, were it not held
            return await keep_edit(*args)

        monkeypatch.setattr(writing, "keep_edit", keep_while_b_purges)
        async with anyio.create_task_group() as group:
            await write_mirror(a.runtime, archive=False)  # A's write keeps the edit
        monkeypatch.undo()
        await write_mirror(a.runtime, archive=False)
        left = (await a.recall("stale secret zq01xk")).memories
        bikes = (await a.recall("bike red")).memories

    assert purges
    assert not [m for m in left if "zq01xk" in m.content], left
    assert [m.content for m in bikes] == ["Harry's new bike is red"]
    assert "zq01xk" not in memory_md.read_text(encoding="utf-8")


async def test_an_edit_waits_while_another_process_holds_the_lease_and_is_kept_after(
    settings: Settings, clock: FrozenClock
) -> None:
    """While another process holds the lifecycle lease (a purge, a run), an edited page is
    neither kept nor written over; once the lease is free the next write keeps it."""
    memory_md = settings.home / "MEMORY.md"
    async with open_engine(settings, clock, {}) as a, open_engine(settings, clock, {}) as b:
        await a.remember("Harry lives in Tokyo", category=Category.IDENTITY)
        await write_mirror(a.runtime)
        with memory_md.open("a", encoding="utf-8") as file:
            file.write("- Harry's new bike is red\n")
        edited = memory_md.read_text(encoding="utf-8")
        async with lease_held_elsewhere(b):
            await write_mirror(a.runtime, archive=False)
            while_held = memory_md.read_text(encoding="utf-8")
            bikes_while_held = (await a.recall("bike red")).memories
        await write_mirror(a.runtime, archive=False)
        bikes = (await a.recall("bike red")).memories

    assert while_held == edited and not bikes_while_held
    assert [m.content for m in bikes] == ["Harry's new bike is red"]
    assert "Harry's new bike is red" in memory_md.read_text(encoding="utf-8")


async def test_a_lifecycle_run_waits_for_a_mirror_write_keeping_an_edit(
    settings: Settings, clock: FrozenClock
) -> None:
    """Retest17b: a lifecycle run asked for while another server's mirror write kept an edit
    (holding the lease for milliseconds) was refused, "a lifecycle run is in progress"."""
    async with open_engine(settings, clock, {}) as a, open_engine(settings, clock, {}) as b:
        await a.remember("Harry lives in Tokyo", category=Category.IDENTITY)
        async with lease_held_elsewhere(b, f"{KEEPING}:{new_owner()}", for_s=0.5):
            report = await a.run_lifecycle()

    assert report.dry_run is False
