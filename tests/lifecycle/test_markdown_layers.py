"""A Markdown export imported again keeps what it was (#29): a working-memory flush summary
stays working memory (never a permanent core memory), archive entries stay archived, and no
placeholder or heading our pages render ("No core memories yet. Store one with
cortex_remember.") comes back as a memory. On both engines."""

from datetime import timedelta
from pathlib import Path

import pytest

from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import Engine, open_engine
from cortex_mcp.engine.render.memory import NO_CORE_MEMORIES
from cortex_mcp.models import Category, Layer
from tests.conftest import FrozenClock
from tests.lifecycle.conftest import live, memory, plant

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]

SUMMARY = "Session summary: we planned the billing migration to Go, starting with invoices."


async def every_live(engine: Engine, agent: str = "default") -> dict[Layer, list[str]]:
    return {layer: [m.content for m in await live(engine, layer, agent)] for layer in Layer}


async def exported(engine: Engine, folder: Path) -> Path:
    path = folder / "export.md"
    path.write_text(await engine.export_memory("markdown"), encoding="utf-8")
    return path


async def test_a_flush_summary_in_working_memory_is_not_imported_as_core(
    tmp_path: Path, settings: Settings, clock: FrozenClock
) -> None:
    async with open_engine(settings, clock, environ={}) as engine:
        await plant(
            engine,
            memory("I work as a data engineer.", created=clock.now - timedelta(days=1)),
            memory(
                SUMMARY,
                category=Category.SUMMARY,
                layer=Layer.WORKING,
                created=clock.now - timedelta(hours=2),
            ),
            memory(
                "We used Jenkins for CI.",
                layer=Layer.ARCHIVE,
                created=clock.now - timedelta(days=90),
            ),
        )
        path = await exported(engine, tmp_path)
        report = await engine.import_memory(path, agent_id="moved")  # as another agent would
        stored = await every_live(engine, "moved")

    assert report.memories_added == 3
    assert stored[Layer.CORE] == ["I work as a data engineer."]
    assert stored[Layer.WORKING] == [SUMMARY]
    assert stored[Layer.ARCHIVE] == ["We used Jenkins for CI."]


@pytest.mark.parametrize(
    "placeholder",
    [NO_CORE_MEMORIES, f"_{NO_CORE_MEMORIES}_", f"> {NO_CORE_MEMORIES}", "No relations yet."],
)
async def test_no_rendered_placeholder_is_imported_as_a_memory(
    tmp_path: Path, settings: Settings, clock: FrozenClock, placeholder: str
) -> None:
    page = tmp_path / "MEMORY.md"
    page.write_text(f"# Core memory\n\n{placeholder}\n\n# Relations\n\n", encoding="utf-8")
    async with open_engine(settings, clock, environ={}) as engine:
        report = await engine.import_memory(page)
        stored = await every_live(engine)

    assert report.memories_added == 0
    assert stored == {layer: [] for layer in Layer}


async def test_an_empty_store_exported_and_imported_stays_empty(
    tmp_path: Path, settings: Settings, clock: FrozenClock
) -> None:
    async with open_engine(settings, clock, environ={}) as engine:
        path = await exported(engine, tmp_path)
        report = await engine.import_memory(path)
        stored = await every_live(engine)

    assert report.memories_added == 0
    assert stored == {layer: [] for layer in Layer}
