"""120 simulated days of use on one database: the lifecycle keeps memory small and loses nothing."""

from datetime import timedelta
from pathlib import Path

import pytest

from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import Engine
from cortex_mcp.engine.lifecycle import LifecycleScheduler
from cortex_mcp.engine.mirror.write import write_mirror
from cortex_mcp.models import Category, Layer
from tests.conftest import FrozenClock, inspect_database
from tests.lifecycle.conftest import memory, plant, quiet_settings

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]

DAYS = 120


@pytest.fixture
def settings(cortex_home: Path) -> Settings:
    """The mirror is written once at the end (its own tests check it after every run)."""
    return quiet_settings(cortex_home, mirror={"enabled": False})


WORDS = ["amber", "birch", "cedar", "delta", "ember", "fjord", "grove", "harbor", "island"]


def word(n: int) -> str:
    return WORDS[n % len(WORDS)] + str(n)


async def live_one_day(engine: Engine, clock: FrozenClock, day: int, written: set[str]) -> None:
    """What one day of conversations leaves behind: a to-do, a fact, two working memories."""
    todo = await engine.remember(
        f"Todo {day}: call {word(day)} about the {word(day + 7)} invoice",
        category=Category.TODO,
        importance=0.5,
    )
    fact = await engine.remember(
        f"Fact {day}: the {word(day + 3)} project uses {word(day + 5)} storage",
        category=Category.FACT,
        importance=0.6,
    )
    written |= {todo.id, fact.id}
    recalled = memory(
        f"Day {day} insight about {word(day + 11)} pricing",
        layer=Layer.WORKING,
        created=clock.now,
        importance=0.5,
        access_count=3,
        metadata={"channel": "deep"},
    )
    passing = memory(
        f"Day {day} chat about {word(day + 13)} weather",
        layer=Layer.WORKING,
        created=clock.now,
        importance=0.5,
        metadata={"channel": "deep"},
    )
    if day % 7 == 3:  # the same fact, said again a little differently
        again = memory(
            f"Fact {day}: The {word(day + 3)} project really uses {word(day + 5)} storage!",
            created=clock.now,
            importance=0.6,
        )
        written |= set(await plant(engine, again))
    written |= set(await plant(engine, recalled, passing))


async def test_120_days_keep_identity_archive_todos_compress_months_and_lose_nothing(
    engine: Engine, clock: FrozenClock
):
    written: set[str] = set()
    identity = [
        await engine.remember(text, category=Category.IDENTITY, importance=0.9)
        for text in ("I am Harry, I live in Tokyo", "I work as a property investor")
    ]
    preference = await engine.remember(
        "I prefer short, direct answers in Chinese", category=Category.PREFERENCE, importance=0.8
    )
    written |= {m.id for m in identity} | {preference.id}
    scheduler = LifecycleScheduler(engine.runtime)
    ran = 0
    for day in range(DAYS):
        clock.now = clock.now.replace(hour=10) + timedelta(days=1 if day else 0)
        await live_one_day(engine, clock, day, written)
        clock.now = clock.now.replace(hour=3) + timedelta(days=1)
        ran += (await scheduler.tick()) is not None

    assert ran == DAYS
    with inspect_database(engine.db.location) as conn:
        rows = conn.execute(
            "select id, layer, category, superseded_by, deleted_at,"
            " json_extract(metadata, '$.compressed_into'), json_extract(metadata, '$.period')"
            " from memories order by seq"  # written order (PostgreSQL's heap order is not)
        ).fetchall()
    by_id = {row[0]: row for row in rows}
    state = {
        row[0]: "superseded"
        if row[3]
        else "compressed"
        if row[5]
        else "archived"
        if row[1] == "archive"
        else "live"
        for row in rows
        if row[4] is None
    }

    assert written <= set(by_id), "a memory that was written is gone"
    assert len(rows) == len(state), "nothing is deleted, not even softly"
    assert all(state[m.id] == "live" and by_id[m.id][1] == "core" for m in identity)
    assert state[preference.id] == "live"
    todos = [row for row in rows if row[2] == "todo"]
    early_todos = [row for row in todos if row[0] in written][: DAYS - 20]
    assert all(row[1] == "archive" for row in early_todos)
    assert sum(1 for row in todos if row[1] == "core") < 15, "to-dos decay within weeks"
    summaries = [row for row in rows if row[2] == "summary" and state[row[0]] == "live"]
    assert "2026-01" in {row[6] for row in summaries}
    assert all(by_id[row[5]][2] == "summary" for row in rows if row[5])
    compressed = [row for row in rows if state.get(row[0]) == "compressed"]
    assert len(compressed) > 50
    assert any(state[i] == "superseded" for i in written), "restated facts merged"
    counts = {kind: list(state.values()).count(kind) for kind in set(state.values())}
    assert sum(counts.values()) == len(rows)
    await write_mirror(engine.runtime)
    memory_md = (engine.settings.home / "MEMORY.md").read_text(encoding="utf-8")
    assert "## Historical summaries" in memory_md and "I am Harry" in memory_md
