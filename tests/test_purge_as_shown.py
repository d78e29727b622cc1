"""A purge by text finds what the Markdown page shows: a memory stored with a newline or a run
of spaces or tabs is written on one line of its page, its whitespace as one space, and the
user copies the text from there (retest16d E5)."""

import json
from pathlib import Path

import pytest

from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import open_engine
from cortex_mcp.engine.mirror.ownership import scrub_backups, without_lines_holding
from cortex_mcp.engine.mirror.write import write_mirror
from cortex_mcp.models import Category
from tests.conftest import FrozenClock, inspect_database
from tests.lifecycle.conftest import quiet_settings
from tests.test_privacy import files_holding

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]

STORED = ["Boat key 7711 is\nunder the seat.", "Car key  7712 is \t in the drawer."]
AS_SHOWN = ["KEY 7711 is under the seat", "7712 is in the drawer"]
"""What MEMORY.md shows of each, copied from the page (the case need not match)."""


@pytest.fixture
def settings(cortex_home: Path) -> Settings:
    return quiet_settings(cortex_home)


def stored_rows(settings: Settings) -> str:
    """Every memory's content and metadata and every logged message, as one text."""
    with inspect_database(settings.database_path) as db:
        memories = db.execute("select content, metadata from memories").fetchall()
        said = db.execute("select content from conversation_log").fetchall()
    return json.dumps([list(row) for row in [*memories, *said]], ensure_ascii=False)


async def test_a_purge_by_the_text_the_page_shows_erases_it_stored_with_other_whitespace(
    settings: Settings, clock: FrozenClock
) -> None:
    async with open_engine(settings, clock, {}) as engine:
        ids = [(await engine.remember(t, category=Category.IDENTITY)).id for t in STORED]
        aside = await engine.remember("She renewed it", context="boat key 7711 is\nunder the seat")
        await engine.flush([("user", "Noted: the boat key 7711 is\n  under the seat.")])
        await engine.remember("Harry lives in Tokyo", category=Category.IDENTITY)
        await write_mirror(engine.runtime)
        page = (settings.home / "MEMORY.md").read_text(encoding="utf-8").lower()
        before = stored_rows(settings)
        previews = [await engine.preview_purge(text) for text in AS_SHOWN]
        reports = [await engine.purge_matching(text) for text in AS_SHOWN]
        exported = await engine.export_memory(include_forgotten=True)
        exported += await engine.export_memory("markdown")
        renewed = [m.id for m in (await engine.recall("renewed")).memories]
        left = await engine.recall("Harry Tokyo")
        after = stored_rows(settings)

    assert all(text.lower() in page for text in AS_SHOWN)  # as the page shows them
    assert "7711" in before and "7712" in before
    assert [ids[n] in {m["id"] for m in p.memories} for n, p in enumerate(previews)] == [True] * 2
    assert previews[0].messages == 1 and aside.id in previews[0].rewritten
    assert ids[0] in reports[0].purged and ids[1] in reports[1].purged
    assert reports[0].messages == 1 and aside.id in reports[0].rewritten
    assert "7711" not in after and "7712" not in after
    assert "7711" not in exported and "7712" not in exported
    assert files_holding(settings.home, "7711", "7712") == []  # pages, backups, SQLite's bytes
    assert renewed == [aside.id] and [m.content for m in left.memories] == ["Harry lives in Tokyo"]


async def test_forget_by_text_as_the_page_shows_it_previews_and_purges_the_memory(
    settings: Settings, clock: FrozenClock
) -> None:
    async with open_engine(settings, clock, {}) as engine:
        kept = await engine.remember(STORED[0], category=Category.IDENTITY)
        preview = await engine.forget_matching(AS_SHOWN[0], purge=True, confirm=None)
        done = await engine.forget_matching(AS_SHOWN[0], purge=True, confirm=preview.confirm)
        gone = await engine.recall("boat key seat")

    assert [m["id"] for m in preview.memories] == [kept.id] and preview.memory_count == 1
    assert done.done and gone.memories == []
    assert "7711" not in stored_rows(settings)


SPACED_HAND_LINES = [
    ("- My  dentist is on Oak   Road qh03.\n", "dentist is on Oak Road", "Oak"),
    ("- Locker  combination\tqh11 is here.\n", "Locker combination qh11", "qh11"),
]
"""A hand line as the user typed it in MEMORY.md, the purge's text as normally spaced, and a
word of that text only that line holds (retest17 F1)."""


def backups_text(home: Path) -> str:
    folder = home / "memory" / "backups"
    return "".join(b.read_text(encoding="utf-8") for b in sorted(folder.glob("*.bak")))


@pytest.mark.parametrize("kept_first", [True, False], ids=["kept edit", "edit not kept yet"])
@pytest.mark.parametrize(("line", "needle", "token"), SPACED_HAND_LINES)
async def test_a_purge_by_text_cuts_a_hand_line_spaced_otherwise_out_of_the_backups(
    settings: Settings, clock: FrozenClock, line: str, needle: str, token: str, kept_first: bool
) -> None:
    """Retest17 F1: the backups of edited pages were scrubbed of the text as typed only, so a
    hand line with double spaces or a tab there stayed whole in `memory/backups/`."""
    async with open_engine(settings, clock, {}) as engine:
        await engine.remember("Harry lives in Tokyo", category=Category.IDENTITY)
        await write_mirror(engine.runtime)
        with (settings.home / "MEMORY.md").open("a", encoding="utf-8") as file:
            file.write(f"{line}- Harry's new bike is red\n")
        if kept_first:
            await write_mirror(engine.runtime)  # the edit: imported and backed up
        held = backups_text(settings.home)
        preview = await engine.forget_matching(needle, purge=True, confirm=None)
        done = await engine.forget_matching(needle, purge=True, confirm=preview.confirm)
        added = [m.content for m in (await engine.recall("bike red")).memories]
        page = (settings.home / "MEMORY.md").read_text(encoding="utf-8")

    kept = backups_text(settings.home)
    assert (token in held) == kept_first and done.done
    assert token.lower() not in kept.lower() and "[PURGED]" in kept
    assert "Harry's new bike is red" in kept and "Harry lives in Tokyo" in kept
    assert files_holding(settings.home, token) == []  # pages, backups, SQLite's bytes
    assert added == ["Harry's new bike is red"] and "Harry's new bike is red" in page


def test_the_mirror_side_of_a_purge_matches_any_run_of_whitespace_and_skips_blank_texts(
    tmp_path: Path,
) -> None:
    edit = "- keep me\n- Locker\n  combination\u00a0qh11\tis here.\n- Oak  Road qh03\n- also me\n"
    folder = tmp_path / "memory" / "backups"
    folder.mkdir(parents=True)
    (folder / "MEMORY.md.1.bak").write_text(edit, encoding="utf-8")
    needles = ["LOCKER combination qh11", "oak road", " ", ""]

    rewritten = scrub_backups(tmp_path, needles)
    kept = (folder / "MEMORY.md.1.bak").read_text(encoding="utf-8")

    assert rewritten == 1
    assert kept == "- keep me\n- [PURGED]\tis here.\n- [PURGED] qh03\n- also me\n"
    assert without_lines_holding(edit, needles) == "- keep me\n- also me\n"  # a wrapped item too
    assert without_lines_holding(edit, [" ", ""]) == edit
    assert scrub_backups(tmp_path, ["\t", ""]) == 0


@pytest.mark.parametrize(
    ("stored", "needle", "token"),
    [
        ("Shed key qk14z is\nin the pot.", "Shed key qk14z is in the pot.\n", "qk14z"),  # a line
        ("Attic key qk15z is on the hook.", "- Attic key qk15z is on the hook.", "qk15z"),
        ("Der SCHLÜSSEL für qk13z liegt ÜBERALL", "der schlüssel für qk13z liegt überall", "qk13z"),
        ("Der Schlüssel liegt überall", "SCHLÜSSEL LIEGT ÜBERALL", "Schlüssel"),  # no long ASCII
    ],
)
async def test_a_needle_copied_with_its_line_or_cased_outside_ascii_finds_the_memory(
    settings: Settings, clock: FrozenClock, stored: str, needle: str, token: str
) -> None:
    """Retest17 F3 and F4: a line copied whole (with its line break, or the page's `- `) and a
    text whose letters outside ASCII differ in case (SQLite's `lower()` folds ASCII only) found
    nothing, and the confirmed purge said it was done."""
    async with open_engine(settings, clock, {}) as engine:
        kept = await engine.remember(stored, category=Category.IDENTITY)
        other = await engine.remember("Harry lives in Tokyo", category=Category.IDENTITY)
        preview = await engine.forget_matching(needle, purge=True, confirm=None)
        done = await engine.forget_matching(needle, purge=True, confirm=preview.confirm)
        left = await engine.recall("Harry Tokyo")

    assert [m["id"] for m in preview.memories] == [kept.id], preview
    assert done.done and token not in stored_rows(settings)
    assert [m.id for m in left.memories] == [other.id]


async def test_a_forget_by_text_that_matches_nothing_says_so(
    settings: Settings, clock: FrozenClock
) -> None:
    """Retest17 F3: a preview and a confirmed purge that found nothing answered `note: null`,
    as if the text had been erased."""
    async with open_engine(settings, clock, {}) as engine:
        await engine.remember("Harry lives in Tokyo", category=Category.IDENTITY)
        preview = await engine.forget_matching("Osaka harbour", purge=True, confirm=None)
        done = await engine.forget_matching("Osaka harbour", purge=True, confirm=preview.confirm)
        found = await engine.forget_matching("lives in Tokyo", purge=False, confirm=None)
        cli_preview = await engine.preview_purge("Osaka harbour")  # `cortex-mcp purge --matching`
        cli_report = await engine.purge_matching("Osaka harbour")

    assert cli_preview.note and "nothing to forget" in cli_preview.note
    assert cli_report.note and "nothing to forget" in cli_report.note
    assert preview.memory_count == 0 and preview.note and "nothing to forget" in preview.note
    assert done.done and done.note and "nothing to forget" in done.note
    assert found.memory_count == 1 and found.note is None


async def test_a_text_only_a_hand_edit_not_kept_yet_holds_is_named_there(
    settings: Settings, clock: FrozenClock
) -> None:
    """Retest17b D2: a secret on a line added by hand to MEMORY.md, not kept yet: the preview
    said "nothing to forget", though the next write would have stored it as a memory. It now
    names the page, and the purge takes the line out."""
    page = settings.home / "MEMORY.md"
    async with open_engine(settings, clock, {}) as engine:
        await engine.remember("Harry lives in Tokyo", category=Category.IDENTITY)
        await write_mirror(engine.runtime)
        with page.open("a", encoding="utf-8") as file:
            file.write("- The safe code is qz881\n- Harry's new bike is red\n")
        preview = await engine.forget_matching("safe code is qz881", purge=True, confirm=None)
        done = await engine.forget_matching(
            "safe code is qz881", purge=True, confirm=preview.confirm
        )
        await write_mirror(engine.runtime)
        bikes = await engine.recall("bike red")

    assert preview.note and "MEMORY.md" in preview.note and preview.memory_count == 0
    assert done.done and done.note and "MEMORY.md" in done.note
    assert "qz881" not in page.read_text(encoding="utf-8")
    assert "qz881" not in stored_rows(settings)
    assert [m.content for m in bikes.memories] == ["Harry's new bike is red"]
