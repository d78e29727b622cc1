"""A purge by text finds what the Markdown page shows: a memory stored with a newline or a run
of spaces or tabs is written on one line of its page, its whitespace as one space, and the
user copies the text from there (retest16d E5)."""

import json
from pathlib import Path

import pytest

from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import open_engine
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
