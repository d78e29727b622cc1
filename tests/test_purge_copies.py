"""Purge removes every copy cortex made: the backups of edited pages and the mirror; a mirror
write that failed leaves MEMORY.md cortex's own at the next start; a purge whose mirror rewrite
fails still erases and says so in one line (issue #27, item 4)."""

import os
from pathlib import Path

import pytest

from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import open_engine
from cortex_mcp.engine.mirror.write import catch_up, write_mirror
from cortex_mcp.models import Category, Layer
from cortex_mcp.store import purge as erasing
from cortex_mcp.store.db import Database
from tests.conftest import FrozenClock
from tests.lifecycle.conftest import memory, plant, quiet_settings

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]

SECRET = "Sam's locker number is 5521 at the gym"


@pytest.fixture
def settings(cortex_home: Path) -> Settings:
    return quiet_settings(cortex_home)


def backups(home: Path) -> list[Path]:
    folder = home / "memory" / "backups"
    return sorted(folder.iterdir()) if folder.exists() else []


async def test_two_failed_mirror_writes_do_not_make_memory_md_a_user_edit(
    settings: Settings, clock: FrozenClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with open_engine(settings, clock, {}) as engine:
        await engine.remember("Harry lives in Tokyo", category=Category.IDENTITY)
        await write_mirror(engine.runtime)

        def no_space(fd: int) -> None:
            raise OSError(28, "No space left on device")

        monkeypatch.setattr(os, "fsync", no_space)
        for text in ("Harry answers briefly", "Harry has a dog called Pochi"):
            await engine.remember(text, category=Category.IDENTITY)
            with pytest.raises(OSError, match="No space"):
                await write_mirror(engine.runtime)
        monkeypatch.undo()

    async with open_engine(settings, clock, {}) as engine:
        await catch_up(engine.runtime)
        page = (settings.home / "MEMORY.md").read_text(encoding="utf-8")

    assert backups(settings.home) == []  # cortex's own page was not taken for an edit
    assert "Pochi" in page and page.count("Harry lives in Tokyo") == 1


async def test_purge_cuts_the_text_out_of_the_backups_of_edited_pages(
    settings: Settings, clock: FrozenClock
) -> None:
    async with open_engine(settings, clock, {}) as engine:
        await engine.remember("Harry lives in Tokyo", category=Category.IDENTITY)
        await write_mirror(engine.runtime)
        memory_md = settings.home / "MEMORY.md"
        edited = memory_md.read_text(encoding="utf-8").replace(
            "## Who the user is\n\n", f"## Who the user is\n\n- {SECRET}\n"
        )
        memory_md.write_text(edited, encoding="utf-8")
        await write_mirror(engine.runtime)  # the edit: imported and backed up
        held = [b.read_text(encoding="utf-8") for b in backups(settings.home)]

        report = await engine.purge_matching("LOCKER NUMBER is 5521")
        page = memory_md.read_text(encoding="utf-8")

    kept = [b.read_text(encoding="utf-8") for b in backups(settings.home)]
    assert len(held) == 1 and "5521" in held[0]
    assert report.backups == 1 and report.purged  # the imported memory went too
    assert len(kept) == 1 and "5521" not in kept[0] and "Harry lives in Tokyo" in kept[0]
    assert "5521" not in page


async def test_a_purge_whose_mirror_cannot_be_rewritten_still_erases_and_says_so(
    settings: Settings, clock: FrozenClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with open_engine(settings, clock, {}) as engine:
        secret = await engine.remember(SECRET, category=Category.FACT)
        await engine.remember("Harry lives in Tokyo", category=Category.IDENTITY)
        await write_mirror(engine.runtime)
        assert "5521" in (settings.home / "MEMORY.md").read_text(encoding="utf-8")

        def no_space(fd: int) -> None:
            raise OSError(28, "No space left on device")

        monkeypatch.setattr(os, "fsync", no_space)
        result = await engine.purge([secret.id])
        left = sorted(p.name for p in settings.home.rglob("*.md"))
        monkeypatch.undo()
        recalled = await engine.recall("locker number")

    async with open_engine(settings, clock, {}) as engine:
        await catch_up(engine.runtime)
        page = (settings.home / "MEMORY.md").read_text(encoding="utf-8")

    assert result.deleted and result.note is not None and "\n" not in result.note
    assert "No space left on device" in result.note
    assert "MEMORY.md" not in left  # the page holding the text is gone until rewritten
    assert recalled.memories == []
    assert "5521" not in page and "Harry lives in Tokyo" in page
    assert backups(settings.home) == []


@pytest.mark.parametrize("page", ["MEMORY.md", "working day"])
async def test_a_purge_never_brings_its_text_back_from_a_page_the_user_edited(
    settings: Settings, clock: FrozenClock, page: str
) -> None:
    """Retest16b N1: a purge rewrites the mirror; a page the user had edited was kept as an
    edit, every line imported, the purged one too: it came back as a live memory."""
    async with open_engine(settings, clock, {}) as engine:
        if page == "MEMORY.md":
            secret = (await engine.remember(SECRET, category=Category.IDENTITY)).id
            await engine.remember("Harry lives in Tokyo", category=Category.IDENTITY)
            path = settings.home / "MEMORY.md"
        else:
            [secret] = await plant(engine, memory(SECRET, layer=Layer.WORKING, created=clock.now))
            await plant(
                engine, memory("Harry lives in Tokyo", layer=Layer.WORKING, created=clock.now)
            )
            path = settings.home / "memory" / "working" / f"{clock.now:%Y-%m-%d}.md"
        await write_mirror(engine.runtime)
        with path.open("a", encoding="utf-8") as file:
            file.write("- Harry's new bike is red\n")  # the user's edit, not kept yet

        await engine.purge([secret])
        gone = (await engine.recall("locker number 5521")).memories
        added = (await engine.recall("bike red")).memories

    assert not [m for m in gone if "5521" in m.content], gone
    assert [m.content for m in added] == ["Harry's new bike is red"]  # the rest of the edit kept
    assert "5521" not in path.read_text(encoding="utf-8")
    assert all("5521" not in b.read_text(encoding="utf-8") for b in backups(settings.home))


async def test_a_purge_is_not_undone_by_a_mirror_write_between_its_erase_and_its_rewrite(
    settings: Settings, clock: FrozenClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Retest16c: a mirror write of the debounced writer (or of another server) that ran after
    the erase committed and before the purge rewrote the mirror took the edited MEMORY.md for
    an edit and imported the purged line; and a memory of two lines, one line on its page, was
    never found there to be left out."""
    secret = "My safe combination is 7788.\nIt is behind the painting."
    async with open_engine(settings, clock, {}) as engine:
        kept = (await engine.remember(secret, category=Category.IDENTITY)).id
        await engine.remember("Harry lives in Tokyo", category=Category.IDENTITY)
        await write_mirror(engine.runtime)
        memory_md = settings.home / "MEMORY.md"
        with memory_md.open("a", encoding="utf-8") as file:
            file.write("- Harry's new bike is red\n")  # the user's edit, not kept yet
        rewrite = erasing.rewrite_file

        async def another_write_first(db: Database) -> bool:
            await write_mirror(engine.runtime)  # the writer's turn, knowing of no purge
            return await rewrite(db)

        monkeypatch.setattr(erasing, "rewrite_file", another_write_first)
        await engine.purge([kept])
        monkeypatch.undo()
        gone = (await engine.recall("safe combination 7788")).memories
        added = (await engine.recall("bike red")).memories

    assert not [m for m in gone if "7788" in m.content], gone
    assert [m.content for m in added] == ["Harry's new bike is red"]
    assert "7788" not in memory_md.read_text(encoding="utf-8")
    assert all("7788" not in b.read_text(encoding="utf-8") for b in backups(settings.home))


async def test_a_short_secret_in_a_hand_added_line_is_not_kept_before_the_erase(
    settings: Settings, clock: FrozenClock
) -> None:
    """Retest16d E2: the edits kept before the erase took a hand line holding the purged text
    (shorter than a scrub of other memories reaches) for a new memory, and it stayed live."""
    async with open_engine(settings, clock, {}) as engine:
        secret = (await engine.remember("Door PIN 4321", category=Category.IDENTITY)).id
        await engine.remember("Harry lives in Tokyo", category=Category.IDENTITY)
        await write_mirror(engine.runtime)
        with (settings.home / "MEMORY.md").open("a", encoding="utf-8") as file:
            file.write("- Door PIN 4321 also opens the garage\n- Harry's new bike is red\n")

        await engine.purge([secret])
        left = [m.content for m in (await engine.recall("door pin garage")).memories]
        added = [m.content for m in (await engine.recall("bike red")).memories]

    assert not [text for text in left if "4321" in text], left
    assert added == ["Harry's new bike is red"]
    assert all("4321" not in b.read_text(encoding="utf-8") for b in backups(settings.home))


async def test_a_purge_with_the_mirror_off_removes_the_pages_it_wrote_before(
    settings: Settings, clock: FrozenClock
) -> None:
    """Retest16d E3: MEMORY.md, written while the mirror was on, kept the purged text after a
    purge with the mirror off, and said nothing."""
    async with open_engine(settings, clock, {}) as engine:
        secret = (await engine.remember(SECRET, category=Category.IDENTITY)).id
        await write_mirror(engine.runtime)
    off = settings.model_copy(
        update={"mirror": settings.mirror.model_copy(update={"enabled": False})}
    )
    async with open_engine(off, clock, {}) as engine:
        result = await engine.purge([secret])

    assert not (settings.home / "MEMORY.md").exists()
    assert result.note is not None and "mirror is off: 1 page(s)" in result.note, result.note


async def test_a_purge_whose_copies_cannot_be_touched_still_answers(
    settings: Settings, clock: FrozenClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Retest16d E4: with the folders read-only the erase was done but the tool answered only
    "Error executing tool", and the backups were never scrubbed."""
    import cortex_mcp.engine.purge as purging

    def read_only(*_: object, **__: object) -> int:
        raise PermissionError(13, "Permission denied")

    async def cannot_write(*_: object, **__: object) -> list[str]:
        raise PermissionError(13, "Permission denied")

    async with open_engine(settings, clock, {}) as engine:
        secret = (await engine.remember(SECRET, category=Category.IDENTITY)).id
        await write_mirror(engine.runtime)
        monkeypatch.setattr(purging, "write_mirror", cannot_write)
        monkeypatch.setattr(purging, "drop_pages_holding", read_only)
        monkeypatch.setattr(purging, "scrub_backups", read_only)
        result = await engine.purge([secret])
        monkeypatch.undo()
        left = (await engine.recall("locker number 5521")).memories

    assert result.deleted and left == []
    assert result.note is not None and "could not be removed (Permission denied)" in result.note
    assert "backups of edited pages could not be rewritten" in result.note
