"""A hand edit of MEMORY.md is a write like any other (tester 13): changing "I'm now living in
Lisbon, moved over the summer" into "I live in Porto." stored the new line as a second,
slot-less memory and left Lisbon live (and listed) beside it. The new line now takes
cortex_remember's path: its home slot replaces the old value."""

from pathlib import Path

import anyio
import pytest

from cortex_mcp.engine.facade import Engine, open_engine
from cortex_mcp.engine.mirror import write
from cortex_mcp.engine.mirror.ownership import OnDisk, Verdict
from cortex_mcp.engine.mirror.write import keep_edits, write_mirror
from cortex_mcp.engine.writes import refresh_owed_profiles
from cortex_mcp.models import Category, Layer
from cortex_mcp.store.memories import live_profile
from tests.conftest import FrozenClock, inspect_database
from tests.hardening.test_mirror_ownership import backups, edit_events
from tests.lifecycle.conftest import live, quiet_settings

LISBON = "I'm now living in Lisbon, moved over the summer"
PORTO = "I live in Porto."


async def test_a_line_changed_in_memory_md_replaces_the_memory_of_the_same_slot(
    engine: Engine,
) -> None:
    lisbon = await engine.remember(LISBON, category=Category.IDENTITY)
    await engine.remember("I work at Siemens.", category=Category.IDENTITY)
    await engine.run_lifecycle()  # the profile, which names Lisbon
    await write_mirror(engine.runtime)
    memory_md = engine.settings.home / "MEMORY.md"
    text = memory_md.read_text(encoding="utf-8")
    assert f"- {LISBON}" in text
    memory_md.write_text(text.replace(LISBON, PORTO), encoding="utf-8")

    await write_mirror(engine.runtime)

    core = {m.content: m for m in await live(engine, Layer.CORE)}
    assert LISBON not in core and "I work at Siemens." in core
    porto = core[PORTO]
    assert porto.source == "manual" and porto.category == Category.IDENTITY
    assert porto.metadata.get("predicate") == core_predicate(engine, lisbon.id)
    rewritten = memory_md.read_text(encoding="utf-8")
    assert f"- {PORTO}" in rewritten and "Lisbon" not in rewritten
    assert len(backups(engine.settings.home)) == 1
    assert [event["added"] for event in edit_events(engine.settings.home)] == [1]
    await refresh_owed_profiles(engine.runtime)  # the background pass's step
    async with engine.runtime.db.read() as conn:
        profile = await live_profile(conn, "default")
    assert profile is not None and PORTO in profile.content and "Lisbon" not in profile.content


def core_predicate(engine: Engine, memory_id: str) -> object:
    """The slot (predicate) the replaced memory held."""
    conn = inspect_database(engine.settings.home / "cortex.db")
    try:
        row = conn.execute(
            "select json_extract(metadata, '$.predicate') from memories where id = ?",
            (memory_id,),
        ).fetchone()
    finally:
        conn.close()
    assert row[0] is not None, "the Lisbon memory held a slot"
    return row[0]


async def lisbon_edited_to_porto(engine: Engine) -> dict[Path, OnDisk]:
    """MEMORY.md written with the Lisbon memory, then edited to Porto: the edit as seen."""
    await engine.remember(LISBON, category=Category.IDENTITY)
    await write_mirror(engine.runtime)
    memory_md = engine.settings.home / "MEMORY.md"
    edited = memory_md.read_text(encoding="utf-8").replace(LISBON, PORTO)
    memory_md.write_text(edited, encoding="utf-8")
    return {memory_md: OnDisk(Verdict.EDITED, edited)}


async def test_two_servers_that_see_the_same_edit_keep_it_once(
    cortex_home: Path, clock: FrozenClock
) -> None:
    """Both judged the page edited before either rewrote it: one backup, one import."""
    settings = quiet_settings(cortex_home)
    async with open_engine(settings, clock, {}) as one, open_engine(settings, clock, {}) as two:
        seen = await lisbon_edited_to_porto(one)

        await keep_edits(one.runtime, seen)
        await keep_edits(two.runtime, seen)

    assert len(backups(cortex_home)) == 1
    assert [event["added"] for event in edit_events(cortex_home)] == [1]


async def test_an_edit_a_stopped_server_did_not_finish_keeping_is_kept_by_the_next(
    cortex_home: Path, clock: FrozenClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found re-testing the product: an edit made just before a short-lived stdio server
    started (one call, then exit) was claimed by it, never imported, and the next rewrite of
    MEMORY.md put the old line back: the edit was lost, with no backup of it."""
    settings = quiet_settings(cortex_home)
    async with open_engine(settings, clock, {}) as one, open_engine(settings, clock, {}) as two:
        seen = await lisbon_edited_to_porto(one)

        async def stopped(*args: object) -> None:
            raise anyio.get_cancelled_exc_class()

        with monkeypatch.context() as patch:
            patch.setattr(write, "keep_edit", stopped)
            with pytest.raises(anyio.get_cancelled_exc_class()):
                await keep_edits(one.runtime, seen)
        await keep_edits(two.runtime, seen)

        core = [m.content for m in await live(two, Layer.CORE)]
    assert PORTO in core and LISBON not in core, core
