"""Cortex writes only what is cortex's: a user's edit to a mirror page becomes memories and a
backup, never a silent overwrite; a user's own file keeps every byte outside cortex's block."""

import json
import os
import time
from pathlib import Path

import anyio
from mcp import Client

from cortex_mcp.engine.facade import Engine, open_engine
from cortex_mcp.engine.language.redaction import Cleaner
from cortex_mcp.engine.lifecycle import run_lifecycle
from cortex_mcp.engine.mirror.ownership import BEGIN, END, HASH_PREFIX, digest, hash_key
from cortex_mcp.engine.mirror.write import catch_up, write_mirror
from cortex_mcp.engine.mirror.writer import MirrorWriter
from cortex_mcp.engine.transfer import import_text
from cortex_mcp.models import Category, Layer
from cortex_mcp.server import build_server
from cortex_mcp.store.meta import meta_with_prefix, set_meta
from tests.conftest import FrozenClock, inspect_database
from tests.lifecycle.conftest import live, quiet_settings

USER_LINE = "Harry's dog is called Pochi"


def add_under_identity(memory_md: Path) -> str:
    """Hand-edit MEMORY.md as a user would: a new line under "Who the user is"."""
    text = memory_md.read_text(encoding="utf-8")
    edited = text.replace("## Who the user is\n\n", f"## Who the user is\n\n- {USER_LINE}\n")
    assert edited != text
    memory_md.write_text(edited, encoding="utf-8")
    return edited


def backups(home: Path) -> list[Path]:
    folder = home / "memory" / "backups"
    return sorted(folder.iterdir()) if folder.exists() else []


def edit_events(home: Path) -> list[dict[str, object]]:
    conn = inspect_database(home / "cortex.db")
    try:
        rows = conn.execute("select details from lifecycle_log where action = 'mirror_edit'")
        return [json.loads(row[0]) for row in rows]
    finally:
        conn.close()


async def assert_edit_kept(engine: Engine, edited: str) -> None:
    home = engine.settings.home
    core = {m.content: m for m in await live(engine, Layer.CORE)}
    assert core[USER_LINE].source == "manual"
    assert core[USER_LINE].category == Category.IDENTITY
    assert [b.read_text(encoding="utf-8") for b in backups(home)] == [edited]
    assert f"- {USER_LINE}" in (home / "MEMORY.md").read_text(encoding="utf-8")
    assert [e["added"] for e in edit_events(home)] == [1]


async def test_an_edit_to_memory_md_survives_the_next_write(engine: Engine):
    await engine.remember("Harry lives in Tokyo", category=Category.IDENTITY)
    await write_mirror(engine.runtime)
    edited = add_under_identity(engine.settings.home / "MEMORY.md")

    await engine.remember("Answer briefly", category=Category.PREFERENCE)
    await write_mirror(engine.runtime)

    await assert_edit_kept(engine, edited)
    await write_mirror(engine.runtime)  # written again: now cortex's own page, no second backup
    assert len(backups(engine.settings.home)) == 1


async def test_an_edit_made_while_cortex_was_down_is_kept_at_the_next_start(
    cortex_home: Path, clock: FrozenClock
):
    settings = quiet_settings(cortex_home)
    async with open_engine(settings, clock, {}) as engine:
        await engine.remember("Harry lives in Tokyo", category=Category.IDENTITY)
        await write_mirror(engine.runtime)
    edited = add_under_identity(cortex_home / "MEMORY.md")

    async with open_engine(settings, clock, {}) as engine:
        async with anyio.create_task_group() as tasks:
            writer = MirrorWriter(engine.runtime)
            tasks.start_soon(writer.run)  # catches up first thing
            with anyio.fail_after(5):
                await writer.caught_up.wait()
            tasks.cancel_scope.cancel()
        await assert_edit_kept(engine, edited)


async def test_an_edit_survives_a_lifecycle_run(engine: Engine):
    await engine.remember("Harry lives in Tokyo", category=Category.IDENTITY)
    await write_mirror(engine.runtime)
    edited = add_under_identity(engine.settings.home / "MEMORY.md")

    await run_lifecycle(engine.runtime)

    await assert_edit_kept(engine, edited)


async def test_a_memory_md_the_user_wrote_before_cortex_is_imported_and_backed_up(
    engine: Engine,
):
    memory_md = engine.settings.home / "MEMORY.md"
    memory_md.parent.mkdir(parents=True, exist_ok=True)
    memory_md.write_text("# My notes\n\n## Decisions\n\n- Use Postgres\n", encoding="utf-8")

    await write_mirror(engine.runtime)

    core = {m.content: m.category for m in await live(engine, Layer.CORE)}
    assert core == {"Use Postgres": Category.DECISION}
    assert [b.read_text(encoding="utf-8") for b in backups(engine.settings.home)] == [
        "# My notes\n\n## Decisions\n\n- Use Postgres\n"
    ]


async def test_extra_memory_md_keeps_every_byte_outside_cortexs_block(
    cortex_home: Path, tmp_path: Path, clock: FrozenClock
):
    agents = tmp_path / "project" / "AGENTS.md"
    agents.parent.mkdir()
    mine = b"# Agents\r\n\r\nBuild with `make`.\r\nCaf\xe9 latin-1 byte, no final newline"
    agents.write_bytes(mine)
    settings = quiet_settings(cortex_home, mirror={"extra_memory_md": str(agents)})
    async with open_engine(settings, clock, {}) as engine:
        await engine.remember("Harry lives in Tokyo", category=Category.IDENTITY)
        await write_mirror(engine.runtime)
        first = agents.read_bytes()
        assert first.startswith(mine + b"\n\n" + BEGIN.encode())
        assert first.endswith(END.encode() + b"\n") and b"- Harry lives in Tokyo" in first

        # the user edits their part, before and after the block
        before, block = first.split(BEGIN.encode(), 1)
        edited = b"Intro\xff\r\n" + before + BEGIN.encode() + block + b"Tail \xfe\r\n"
        agents.write_bytes(edited)
        await engine.remember("Answer briefly", category=Category.PREFERENCE)
        await write_mirror(engine.runtime)

        second = agents.read_bytes()
        start, end = second.index(BEGIN.encode()), second.index(END.encode()) + len(END) + 1
        assert second[:start] == b"Intro\xff\r\n" + before
        assert second[end:] == b"Tail \xfe\r\n"
        assert b"- Answer briefly" in second[start:end]
        assert backups(cortex_home) == []  # only the user's own part changed: no edit of ours


async def test_an_edit_inside_the_extra_block_becomes_a_memory(
    cortex_home: Path, tmp_path: Path, clock: FrozenClock
):
    agents = tmp_path / "AGENTS.md"
    agents.write_text("# Agents\n", encoding="utf-8")
    settings = quiet_settings(cortex_home, mirror={"extra_memory_md": str(agents)})
    async with open_engine(settings, clock, {}) as engine:
        await engine.remember("Harry lives in Tokyo", category=Category.IDENTITY)
        await write_mirror(engine.runtime)
        add_under_identity(agents)

        await write_mirror(engine.runtime)

        core = {m.content: m.source for m in await live(engine, Layer.CORE)}
        assert core[USER_LINE] == "manual"
        assert agents.read_text(encoding="utf-8").startswith("# Agents\n\n" + BEGIN)
        assert len(backups(cortex_home)) == 1


async def test_the_users_own_working_day_file_is_never_written_over(
    engine: Engine, clock: FrozenClock
):
    day = engine.settings.home / "memory" / "working" / f"{clock.now:%Y-%m-%d}.md"
    day.parent.mkdir(parents=True)
    day.write_text("my own notes for today\n", encoding="utf-8")
    await engine.ingest("I moved to Osaka last week", "Noted.")

    await write_mirror(engine.runtime)

    assert day.read_text(encoding="utf-8") == "my own notes for today\n"


async def test_temp_files_left_by_a_killed_write_are_removed_at_start(engine: Engine):
    """A minute-old temp file is a crash's; a younger one may be another server's write under
    way, which would fail if its file went (a second server starting, found after retest16c)."""
    home = engine.settings.home
    home.mkdir(parents=True, exist_ok=True)
    leftover = home / ".MEMORY.md.abc123.cortex-tmp"
    leftover.write_text("half a page of memory text", encoding="utf-8")
    (home / "memory").mkdir(exist_ok=True)
    other = home / "memory" / ".relations.md.x.cortex-tmp"
    other.write_text("x", encoding="utf-8")
    an_hour_ago = time.time() - 3600
    for crashed in (leftover, other):
        os.utime(crashed, (an_hour_ago, an_hour_ago))
    under_way = home / ".MEMORY.md.def456.cortex-tmp"
    under_way.write_text("another server's page, being written", encoding="utf-8")
    users = home / ".my-own-hidden-file"
    users.write_text("keep", encoding="utf-8")

    await catch_up(engine.runtime)

    assert not leftover.exists() and not other.exists()
    assert under_way.exists() and users.exists()


async def test_a_memory_remembered_just_before_the_session_ends_reaches_memory_md(
    cortex_home: Path, clock: FrozenClock
):
    settings = quiet_settings(cortex_home, mirror={"debounce_s": 3600})
    async with Client(build_server(settings, clock)) as client:
        await client.call_tool("cortex_remember", {"content": "Harry moved to Osaka"})

    assert "Harry moved to Osaka" in (cortex_home / "MEMORY.md").read_text(encoding="utf-8")


async def test_markdown_reimport_does_not_duplicate_a_shared_memory(engine: Engine):
    await engine.remember("The office wifi is cortex-5g", scope="shared")
    await write_mirror(engine.runtime)
    text = (engine.settings.home / "MEMORY.md").read_text(encoding="utf-8")

    report = await import_text(engine.runtime, Cleaner(True), text, "MEMORY.md")

    assert (report.memories_added, report.memories_skipped) == (0, 1)


async def test_a_session_ending_during_the_start_up_catch_up_sees_no_edit(
    cortex_home: Path, clock: FrozenClock
):
    """Seen when a short session ended while the start-up catch-up was still writing: its page
    was on disk but its hash was not, so the shutdown write called it a user edit and imported
    "No core memories yet…" as a memory."""
    settings = quiet_settings(cortex_home)
    async with Client(build_server(settings, clock)) as client:
        await client.call_tool("cortex_remember", {"content": "Harry lives in Tokyo"})
        await client.call_tool("cortex_recall", {"query": "Tokyo"})

    assert edit_events(cortex_home) == [] and backups(cortex_home) == []
    async with open_engine(settings, clock, {}) as engine:
        assert [m.content for m in await live(engine, Layer.CORE)] == ["Harry lives in Tokyo"]


async def test_a_write_cut_short_after_the_new_page_leaves_it_cortexs_own(engine: Engine):
    """Killed between renaming the new page into place and recording its hash: the hash of
    the page being written was recorded first, so the next start does not see an edit."""
    await engine.remember("Harry lives in Tokyo", category=Category.IDENTITY)
    await write_mirror(engine.runtime)
    memory_md = engine.settings.home / "MEMORY.md"
    async with engine.db.read() as conn:
        before = await meta_with_prefix(conn, HASH_PREFIX)
    await engine.remember("Answer briefly", category=Category.PREFERENCE)
    await write_mirror(engine.runtime)
    after = memory_md.read_text(encoding="utf-8")
    async with engine.db.write() as conn:  # as if the run had stopped before the last step
        key = hash_key(memory_md)
        await set_meta(conn, key, f"{digest(after)} {before[key]}")
    await engine.remember("Harry has a dog", category=Category.IDENTITY)

    await write_mirror(engine.runtime)

    assert edit_events(engine.settings.home) == [] and backups(engine.settings.home) == []
