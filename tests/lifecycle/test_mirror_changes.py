"""The mirror rewrites only what changed (#28): a working day whose memories did not change is
not read again nor written, a rewrite with nothing new touches no page, and a day left empty
loses its page."""

from datetime import datetime, timedelta
from pathlib import Path

import pytest

from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import Engine, open_engine
from cortex_mcp.engine.mirror.write import write_mirror
from cortex_mcp.models import Layer
from tests.conftest import FrozenClock
from tests.lifecycle.conftest import lease_held_elsewhere, memory, plant

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]


def stamps(folder: Path) -> dict[str, tuple[int, int]]:
    """Each page's (inode, modification time): an atomic rewrite changes both."""
    return {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in sorted(folder.glob("*.md"))}


async def two_days(engine: Engine, clock: FrozenClock) -> tuple[datetime, datetime, list[str]]:
    """Monday and Tuesday, a working memory filed on each: (monday, tuesday, their ids)."""
    monday, tuesday = clock.now - timedelta(days=2), clock.now - timedelta(days=1)
    ids = await plant(
        engine,
        memory("Booked the dentist for Friday", layer=Layer.WORKING, created=monday),
        memory("Draft the quarterly report", layer=Layer.WORKING, created=tuesday),
    )
    return monday, tuesday, ids


async def test_a_working_day_that_did_not_change_is_not_rewritten(
    engine: Engine, clock: FrozenClock
) -> None:
    monday, tuesday, _ = await two_days(engine, clock)
    await write_mirror(engine.runtime, archive=False, changed_only=True)
    working = engine.settings.home / "memory" / "working"
    first = stamps(working)
    assert len(first) == 2

    await plant(engine, memory("Call the plumber back", layer=Layer.WORKING, created=tuesday))
    built = await write_mirror(engine.runtime, archive=False, changed_only=True)

    second = stamps(working)
    monday_page, tuesday_page = f"{monday:%Y-%m-%d}.md", f"{tuesday:%Y-%m-%d}.md"
    assert second[monday_page] == first[monday_page]  # the same file, never rewritten
    assert second[tuesday_page] != first[tuesday_page]
    assert "Call the plumber back" in (working / tuesday_page).read_text(encoding="utf-8")
    assert f"memory/working/{tuesday_page}" in built  # rendered again from the store
    assert f"memory/working/{monday_page}" not in built  # not even read


async def test_a_rewrite_with_nothing_new_touches_no_page(
    engine: Engine, clock: FrozenClock
) -> None:
    await engine.remember("Harry lives in Tokyo")
    await plant(engine, memory("Pick up the parcel", layer=Layer.WORKING, created=clock.now))
    await write_mirror(engine.runtime, archive=False, changed_only=True)
    home = engine.settings.home
    before = stamps(home) | stamps(home / "memory" / "working") | stamps(home / "memory")

    built = await write_mirror(engine.runtime, archive=False, changed_only=True)

    assert not [page for page in built if page.startswith("memory/working/")]
    assert stamps(home) | stamps(home / "memory" / "working") | stamps(home / "memory") == before


async def test_a_day_whose_last_memory_left_loses_its_page_and_the_others_stay(
    engine: Engine, clock: FrozenClock
) -> None:
    monday, _, [kept, gone] = await two_days(engine, clock)
    await write_mirror(engine.runtime, archive=False, changed_only=True)
    await engine.forget(gone)

    await write_mirror(engine.runtime, archive=False, changed_only=True)

    working = engine.settings.home / "memory" / "working"
    assert [p.name for p in working.glob("*.md")] == [f"{monday:%Y-%m-%d}.md"]
    assert kept


async def test_a_day_that_emptied_after_its_page_was_deleted_by_hand_is_no_error(
    engine: Engine, clock: FrozenClock
) -> None:
    """After a write only the days that emptied are looked at, not the folder: a page the user
    removed, or replaced with a file of their own, is left as it is."""
    monday, tuesday, [first, second] = await two_days(engine, clock)
    await write_mirror(engine.runtime, archive=False, changed_only=True)
    working = engine.settings.home / "memory" / "working"
    (working / f"{monday:%Y-%m-%d}.md").unlink()
    (working / f"{tuesday:%Y-%m-%d}.md").write_text("# my own notes\n", encoding="utf-8")
    await engine.forget(first)
    await engine.forget(second)

    await write_mirror(engine.runtime, archive=False, changed_only=True)

    assert [p.name for p in working.glob("*.md")] == [f"{tuesday:%Y-%m-%d}.md"]
    assert (working / f"{tuesday:%Y-%m-%d}.md").read_text(encoding="utf-8") == "# my own notes\n"


async def test_a_day_another_process_wrote_loses_its_page_when_this_one_empties_it(
    engine: Engine, settings: Settings, clock: FrozenClock
) -> None:
    """Retest16 D1: server B files a memory on a new day and writes its page; server A, which
    never saw that day, forgets the memory: the page goes (it stayed, showing the forgotten
    text, until A's next start)."""
    monday, tuesday = clock.now - timedelta(days=2), clock.now - timedelta(days=1)
    await plant(
        engine, memory("Booked the dentist for Friday", layer=Layer.WORKING, created=monday)
    )
    await write_mirror(engine.runtime, archive=False, changed_only=True)  # A's own marks
    working = engine.settings.home / "memory" / "working"
    async with open_engine(settings, clock, environ={}) as other:  # server B, same home
        [theirs] = await plant(
            other, memory("Mike's secret code is 5531", layer=Layer.WORKING, created=tuesday)
        )
        await write_mirror(other.runtime, archive=False, changed_only=True)
    assert f"{tuesday:%Y-%m-%d}.md" in [p.name for p in working.glob("*.md")]

    await engine.forget(theirs)
    await write_mirror(engine.runtime, archive=False, changed_only=True)

    assert [p.name for p in working.glob("*.md")] == [f"{monday:%Y-%m-%d}.md"]
    await engine.forget(
        (await plant(engine, memory("Call the plumber", layer=Layer.WORKING, created=tuesday)))[0]
    )
    await write_mirror(engine.runtime, archive=False, changed_only=True)  # its own write
    assert [p.name for p in working.glob("*.md")] == [f"{monday:%Y-%m-%d}.md"]


async def test_a_copy_of_a_page_under_another_name_is_the_users(
    engine: Engine, clock: FrozenClock
) -> None:
    """Retest16 D2: a copy of a generated page, front matter and all, with the user's notes
    added, was deleted (no backup) at the next full write as a stale page of the mirror's."""
    monday = clock.now - timedelta(days=2)
    await plant(
        engine, memory("Booked the dentist for Friday", layer=Layer.WORKING, created=monday)
    )
    await write_mirror(engine.runtime, archive=False)
    working = engine.settings.home / "memory" / "working"
    page = (working / f"{monday:%Y-%m-%d}.md").read_text(encoding="utf-8")
    copy = working / f"{monday:%Y-%m-%d} copy with my notes.md"
    copy.write_text(page + "My own important notes.\n", encoding="utf-8")

    await write_mirror(engine.runtime)  # as at start and in lifecycle runs: the folder read

    assert copy.read_text(encoding="utf-8").endswith("My own important notes.\n")


async def edited_day_then_emptied(engine: Engine, clock: FrozenClock) -> Path:
    """Tuesday's page, with a line added by hand, after its one memory was forgotten."""
    tuesday = clock.now - timedelta(days=1)
    [tango] = await plant(engine, memory("The tango note", layer=Layer.WORKING, created=tuesday))
    await write_mirror(engine.runtime, archive=False, changed_only=True)
    page = engine.settings.home / "memory" / "working" / f"{tuesday:%Y-%m-%d}.md"
    with page.open("a", encoding="utf-8") as file:
        file.write("- [10:00] (fact) The victor note, added by hand\n")
    await engine.forget(tango)
    return page


async def test_an_edit_to_a_page_whose_day_then_empties_is_kept(
    engine: Engine, clock: FrozenClock
) -> None:
    """Retest16 D3: a line added by hand to a working page, then the day's last memory
    forgotten: the edit was never imported nor backed up, and the page stayed showing the
    forgotten memory. Now it is kept as an edit is (imported on its day, backed up) and the
    page shows what the day holds now; the forgotten memory does not come back."""
    page = await edited_day_then_emptied(engine, clock)

    await write_mirror(engine.runtime, archive=False, changed_only=True)

    text = page.read_text(encoding="utf-8")
    assert "The victor note, added by hand" in text and "tango" not in text
    backups = list((engine.settings.home / "memory" / "backups").glob(f"{page.name}.*.bak"))
    assert len(backups) == 1 and "victor" in backups[0].read_text(encoding="utf-8")
    found = await engine.recall("victor note")
    assert [m.content for m in found.memories] == ["The victor note, added by hand"]
    assert not [m for m in (await engine.recall("tango")).memories if "tango" in m.content]


@pytest.mark.parametrize(
    ("folder", "name"),
    [
        ("working", "2026-13-01.md"),  # no month 13
        ("working", "2026-02-30.md"),  # no 30 February
        ("working", "２０２６-11-19.md"),  # digits that are not ASCII
        ("working", "2025-12.md"),  # a month's name among the days
        ("archive", "2025-12-31.md"),  # a day's name among the months
    ],
)
async def test_a_file_named_like_a_date_that_is_none_is_the_users(
    engine: Engine, folder: str, name: str
) -> None:
    """Retest16b N2: only the names the mirror gives its pages are removed as stale pages."""
    await write_mirror(engine.runtime)
    page = engine.settings.home / "memory" / folder / name
    page.parent.mkdir(parents=True, exist_ok=True)
    text = (engine.settings.home / "MEMORY.md").read_text(encoding="utf-8") + "Mine.\n"
    page.write_text(text, encoding="utf-8")  # the generator's front matter and all

    await write_mirror(engine.runtime)

    assert page.read_text(encoding="utf-8") == text


async def test_a_folder_named_like_a_page_stops_no_write(
    engine: Engine, clock: FrozenClock
) -> None:
    """Retest16b N3: a folder named like a page made every write of the mirror fail, MEMORY.md
    and every other page included, for the server's whole life."""
    working = engine.settings.home / "memory" / "working"
    today, old = working / f"{clock.now:%Y-%m-%d}.md", working / "2025-10-10.md"
    for folder in (today, old):
        folder.mkdir(parents=True)
        (folder / "inside.txt").write_text("my things\n", encoding="utf-8")
    yesterday = clock.now - timedelta(days=1)
    await plant(
        engine,
        memory("Call the plumber back", layer=Layer.WORKING, created=clock.now),
        memory("Booked the dentist for Friday", layer=Layer.WORKING, created=yesterday),
    )
    await engine.remember("My favourite colour is teal.")

    await write_mirror(engine.runtime)
    await write_mirror(engine.runtime, archive=False, changed_only=True)

    assert "teal" in (engine.settings.home / "MEMORY.md").read_text(encoding="utf-8")
    assert "dentist" in (working / f"{yesterday:%Y-%m-%d}.md").read_text(encoding="utf-8")
    assert today.is_dir() and old.is_dir()  # the user's folders, left as they were
    assert (today / "inside.txt").read_text(encoding="utf-8") == "my things\n"


async def test_a_young_temp_file_beside_the_pages_may_be_another_servers_write(
    engine: Engine,
) -> None:
    """Retest16c: a server listing the folder deleted another server's temp file mid-write, and
    that write failed. Only a temp file a minute old is a crash's to remove."""
    import os
    import time

    from cortex_mcp.store.home import TEMP_SUFFIX

    await write_mirror(engine.runtime)
    working = engine.settings.home / "memory" / "working"
    working.mkdir(parents=True, exist_ok=True)
    young, old = (
        working / f".2026-11-19.md.a{TEMP_SUFFIX}",
        working / f".2026-11-18.md.b{TEMP_SUFFIX}",
    )
    for temporary in (young, old):
        temporary.write_text("half written\n", encoding="utf-8")
    an_hour_ago = time.time() - 3600
    os.utime(old, (an_hour_ago, an_hour_ago))

    await write_mirror(engine.runtime)  # a full write: the folders are read

    assert young.exists() and not old.exists()


async def test_a_line_added_while_the_page_is_being_written_is_kept_not_written_over(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Retest17b: the user appended a line to MEMORY.md after a mirror write had read the page
    and before it wrote it; the write went over it, and the line was in neither the store, the
    page nor a backup. A page no longer as read is left for a later pass, which keeps the line."""
    from cortex_mcp.engine.mirror import write as writing
    from cortex_mcp.models import Category

    await engine.remember("Harry lives in Tokyo", category=Category.IDENTITY)
    await write_mirror(engine.runtime)
    page = engine.settings.home / "MEMORY.md"
    judge = writing._judge

    def judge_then_user_appends(*args: object) -> object:
        judged = judge(*args)  # type: ignore[arg-type]
        with page.open("a", encoding="utf-8") as file:
            file.write("- Harry's new bike is red\n")
        return judged

    await engine.remember("Harry answers briefly", category=Category.IDENTITY)
    monkeypatch.setattr(writing, "_judge", judge_then_user_appends)
    await write_mirror(engine.runtime, archive=False, changed_only=True)
    monkeypatch.undo()
    kept_until_then = page.read_text(encoding="utf-8")
    await write_mirror(engine.runtime, archive=False, changed_only=True)  # the later pass

    assert "Harry's new bike is red" in kept_until_then
    bikes = await engine.recall("bike red")
    assert [m.content for m in bikes.memories] == ["Harry's new bike is red"]
    text = page.read_text(encoding="utf-8")
    assert "Harry's new bike is red" in text and "Harry answers briefly" in text


async def test_an_edited_page_whose_day_emptied_stays_while_its_edit_cannot_be_kept(
    engine: Engine, clock: FrozenClock
) -> None:
    """While another process holds the lease, an edit is not kept: a page whose day emptied
    is then left as it is, the user's line on it, not removed (it was, as if kept)."""
    page = await edited_day_then_emptied(engine, clock)
    async with lease_held_elsewhere(engine):
        await write_mirror(engine.runtime)  # the folder read: the emptied day's page is stale
        while_held = page.read_text(encoding="utf-8") if page.exists() else None
    await write_mirror(engine.runtime)

    assert while_held is not None and "victor" in while_held
    found = await engine.recall("victor note")
    assert [m.content for m in found.memories] == ["The victor note, added by hand"]


async def test_a_line_added_while_the_new_page_goes_to_disk_is_kept_not_written_over(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Retest17c: a line appended after the page was checked, while the new text was being
    synced to disk (milliseconds under load), was still swapped over and lost. The page is
    read once more just before the swap."""
    import os

    from cortex_mcp.models import Category

    await engine.remember("Harry lives in Tokyo", category=Category.IDENTITY)
    await write_mirror(engine.runtime)
    page = engine.settings.home / "MEMORY.md"
    fsync, appended = os.fsync, list[bool]()

    def fsync_while_the_user_appends(fd: int) -> None:
        fsync(fd)
        if not appended:
            appended.append(True)
            with page.open("a", encoding="utf-8") as file:
                file.write("- Harry's new bike is red\n")

    await engine.remember("Harry answers briefly", category=Category.IDENTITY)
    monkeypatch.setattr(os, "fsync", fsync_while_the_user_appends)
    await write_mirror(engine.runtime, archive=False, changed_only=True)
    monkeypatch.undo()
    await write_mirror(engine.runtime, archive=False, changed_only=True)  # the later pass

    assert appended
    bikes = await engine.recall("bike red")
    assert [m.content for m in bikes.memories] == ["Harry's new bike is red"]
    text = page.read_text(encoding="utf-8")
    assert "Harry's new bike is red" in text and "Harry answers briefly" in text
