"""The Markdown mirror: what the database holds, within budget, written atomically."""

import os
import sys
import time
from datetime import timedelta
from pathlib import Path

import anyio
import pytest

from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import Engine, open_engine
from cortex_mcp.engine.lifecycle import run_lifecycle
from cortex_mcp.engine.mirror.ownership import BEGIN, END, remove_temporaries
from cortex_mcp.engine.mirror.pages import archive_page, memory_md_page, working_page
from cortex_mcp.engine.mirror.write import TEMPORARY_AGE_S, write_mirror
from cortex_mcp.engine.mirror.writer import MirrorWriter
from cortex_mcp.errors import InvalidInput
from cortex_mcp.models import Category, Layer
from cortex_mcp.store.home import TEMP_SUFFIX, write_atomic
from cortex_mcp.store.relations import Relation, insert_relation
from tests.conftest import FrozenClock
from tests.lifecycle.conftest import live, memory, plant, quiet_settings

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def listing(folder: Path) -> list[Path]:
    return sorted(folder.iterdir())


async def test_memory_md_lists_every_core_memory_by_category(engine: Engine, clock: FrozenClock):
    await engine.remember("Harry lives in Tokyo", category=Category.IDENTITY, importance=0.9)
    await engine.remember("Answer in Chinese, briefly", category=Category.PREFERENCE)
    await engine.remember("Chose Oracle Cloud for the VPS", category=Category.DECISION)
    await engine.remember("利回りは4.28%", category=Category.FACT)

    await write_mirror(engine.runtime)

    text = read(engine.settings.home / "MEMORY.md")
    core = await live(engine, Layer.CORE)
    assert [line[2:] for line in text.splitlines() if line.startswith("- ")] == [
        m.content for m in sorted(core, key=lambda m: list(Category).index(m.category))
    ]
    assert text.index("## Who the user is") < text.index("## Preferences and habits")
    assert text.startswith("---\ngenerator: cortex-mcp\n") and "total_entries: 4" in text
    assert "cortex_recall" not in text  # everything fits: no pointer
    assert await memory_md_page(engine.runtime) == text


async def test_memory_md_keeps_to_its_budget_and_points_to_recall_for_the_rest(
    cortex_home: Path, clock: FrozenClock
):
    settings = quiet_settings(cortex_home, mirror={"max_lines": 60, "max_bytes": 4000})
    async with open_engine(settings, clock, {}) as engine:
        await plant(
            engine,
            *[
                memory(f"Fact number {n} " + "words " * 10, created=clock.now, importance=n / 500)
                for n in range(500)
            ],
        )
        await write_mirror(engine.runtime)

    text = read(cortex_home / "MEMORY.md")
    lines = text.splitlines()
    assert len(lines) <= 60 and len(text.encode()) <= 4000
    shown_count = sum(1 for line in lines if line.startswith("- "))
    assert f"{500 - shown_count} more: ask cortex_recall" in text
    assert "of 500 core memories" in text
    shown = [line for line in lines if line.startswith("- Fact number")]
    assert shown[0].startswith("- Fact number 499 ")  # the most important first
    assert len(shown) > 20


async def test_the_default_budget_is_what_agents_load(engine: Engine, clock: FrozenClock):
    long = "x" * 400
    await plant(engine, *[memory(f"{n} {long}", created=clock.now) for n in range(300)])

    await write_mirror(engine.runtime)

    text = read(engine.settings.home / "MEMORY.md")
    assert len(text.splitlines()) <= 200 and len(text.encode()) <= 25_000


async def test_working_days_archive_months_and_relations_match_the_database(
    engine: Engine, clock: FrozenClock
):
    day = clock.now - timedelta(hours=5)
    working = memory("Discussed Shinagawa yields", layer=Layer.WORKING, created=day)
    archived = memory(
        "NTT router needs IPv6 mode", layer=Layer.ARCHIVE, created=day - timedelta(days=40)
    )
    await plant(engine, working, archived)
    async with engine.db.write() as conn:
        await insert_relation(
            conn,
            Relation("r1", "default", "Harry", "invests in", "Shinagawa flat", 0.9, None, day, day),
        )

    pages = await write_mirror(engine.runtime)

    home = engine.settings.home
    assert pages == [
        "MEMORY.md",
        "memory/archive/2025-11.md",
        "memory/relations.md",
        "memory/working/2026-01-01.md",
    ]
    assert "- [04:00] (fact) Discussed Shinagawa yields" in read(
        home / "memory/working/2026-01-01.md"
    )
    assert "NTT router needs IPv6 mode" in read(home / "memory/archive/2025-11.md")
    relations = read(home / "memory/relations.md")
    assert "- Harry ──invests in──▶ Shinagawa flat" in relations and "```mermaid" in relations
    assert await working_page(engine.runtime, "2026-01-01") == read(
        home / "memory/working/2026-01-01.md"
    )
    assert await archive_page(engine.runtime, "2025-11") == read(home / "memory/archive/2025-11.md")


async def test_pages_for_days_that_emptied_are_removed_but_the_users_files_are_kept(
    engine: Engine, clock: FrozenClock
):
    gone = memory("Small talk", layer=Layer.WORKING, created=clock.now - timedelta(days=3))
    await plant(engine, gone)
    await write_mirror(engine.runtime)
    working_dir = engine.settings.home / "memory" / "working"
    (working_dir / "2025-01-01.md").write_text("# my own notes\n", encoding="utf-8")

    await run_lifecycle(engine.runtime)  # the expired working memory moves to the archive

    assert sorted(p.name for p in working_dir.iterdir()) == ["2025-01-01.md"]


async def test_the_extra_memory_md_gets_the_same_page_inside_cortexs_block(
    cortex_home: Path, tmp_path: Path, clock: FrozenClock
):
    extra = tmp_path / "workspace" / "MEMORY.md"
    settings = quiet_settings(cortex_home, mirror={"extra_memory_md": str(extra)})
    async with open_engine(settings, clock, {}) as engine:
        await engine.remember("Harry lives in Tokyo", category=Category.IDENTITY)
        pages = await write_mirror(engine.runtime)

    assert str(extra) in pages
    body = read(cortex_home / "MEMORY.md").split("---\n", 2)[2].strip()
    assert read(extra) == f"{BEGIN}\n{body}\n{END}\n"


async def test_bad_dates_and_months_are_refused(engine: Engine):
    with pytest.raises(InvalidInput, match="date"):
        await working_page(engine.runtime, "2026-13-01")
    with pytest.raises(InvalidInput, match="month"):
        await archive_page(engine.runtime, "../../etc")


CRASH = """
import os, sys
from pathlib import Path
from cortex_mcp.store import home as mirror

def die(*args: object) -> None:
    os._exit(9)  # the process dies after writing the new text, before the rename

mirror.os.replace = die  # type: ignore[assignment]
mirror.write_atomic(Path(sys.argv[1]), "new " * 100_000)
"""


async def test_a_crash_mid_write_leaves_the_previous_file_whole(tmp_path: Path):
    page = tmp_path / "MEMORY.md"
    write_atomic(page, "previous contents\n")

    result = await anyio.run_process(
        [sys.executable, "-c", CRASH, str(page)], check=False, cwd=Path(__file__).parents[2]
    )

    assert result.returncode == 9
    assert read(page) == "previous contents\n"
    leftovers = [p for p in listing(tmp_path) if p != page]
    assert len(leftovers) == 1 and len(read(leftovers[0])) == 400_000
    an_hour_ago = time.time() - 3600
    os.utime(leftovers[0], (an_hour_ago, an_hour_ago))
    # the next start (or a write that lists the folder) takes a minute-old temp file for a crash's
    assert remove_temporaries([tmp_path], TEMP_SUFFIX, TEMPORARY_AGE_S) == 1
    write_atomic(page, "next\n")
    assert listing(tmp_path) == [page] and read(page) == "next\n"


def test_a_failed_write_removes_its_temporary_file(tmp_path: Path, monkeypatch):
    page = tmp_path / "MEMORY.md"
    write_atomic(page, "previous\n")

    def no_space(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", no_space)
    with pytest.raises(OSError, match="No space"):
        write_atomic(page, "next\n")

    assert listing(tmp_path) == [page] and read(page) == "previous\n"


async def test_the_writer_rewrites_once_changes_have_been_quiet(engine: Engine, clock: FrozenClock):
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)
        clock.advance(seconds=seconds - 2 if len(waits) == 1 else seconds)
        if len(waits) == 1:
            writer.mark_dirty()  # another change, 3 s into the quiet time: wait 5 s more

    writer = MirrorWriter(engine.runtime, sleep)
    page = engine.settings.home / "MEMORY.md"
    with anyio.fail_after(5):
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(writer.run)
            await engine.remember("Harry lives in Tokyo", category=Category.IDENTITY)
            clock.advance(seconds=1)
            writer.mark_dirty()
            await writer.wait_for_write(0)
            first = read(page)
            await engine.remember("Harry likes tea", category=Category.PREFERENCE)
            writer.mark_dirty()
            await writer.wait_for_write(1)
            tasks.cancel_scope.cancel()

    assert waits == [5.0, 5.0, 5.0]
    assert "Harry lives in Tokyo" in first and "Harry likes tea" not in first
    assert "Harry likes tea" in read(page)


async def test_a_disabled_writer_never_writes(cortex_home: Path, clock: FrozenClock):
    settings: Settings = quiet_settings(cortex_home, mirror={"enabled": False})
    async with open_engine(settings, clock, {}) as engine:
        writer = MirrorWriter(engine.runtime)
        writer.mark_dirty()
        with anyio.fail_after(1):
            await writer.run()
        report = await run_lifecycle(engine.runtime)

    assert report.mirror == [] and not (cortex_home / "MEMORY.md").exists()
