"""Decay by category with floors; compression of old archive months back into core."""

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from cortex_mcp.clock import to_text
from cortex_mcp.engine.facade import Engine, open_engine
from cortex_mcp.engine.lifecycle import run_lifecycle
from cortex_mcp.engine.lifecycle.decay import decay_score
from cortex_mcp.models import Category, Layer, Memory
from tests.conftest import FrozenClock, inspect_database
from tests.fakes import FakeOpenAI
from tests.lifecycle.conftest import live, memory, plant, quiet_settings, stored

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]


def aged(category: Category, days: float, clock: FrozenClock, **fields: Any) -> Memory:
    created = clock.now - timedelta(days=days)
    return memory(f"a {category.value}", category=category, created=created, **fields)


@pytest.mark.parametrize(
    ("category", "kept_after_days"),
    [
        (Category.IDENTITY, 3650),
        (Category.PREFERENCE, 3650),
        (Category.DECISION, 180),
        (Category.FACT, 45),
        (Category.TODO, 7),
        (Category.CONTEXT, 7),
    ],
)
def test_each_category_keeps_its_weight_as_long_as_its_curve_says(
    category: Category, kept_after_days: int, clock: FrozenClock
):
    assert decay_score(aged(category, kept_after_days, clock), clock.now) >= 0.2


@pytest.mark.parametrize(
    ("category", "gone_after_days"),
    [
        (Category.FACT, 90),
        (Category.TODO, 14),
        (Category.CONTEXT, 14),
        (Category.PROJECT_STATE, 150),
    ],
)
def test_fast_categories_fall_below_the_threshold(
    category: Category, gone_after_days: int, clock: FrozenClock
):
    assert decay_score(aged(category, gone_after_days, clock), clock.now) < 0.2


def test_floors_keep_identity_and_preferences_forever(clock: FrozenClock):
    assert decay_score(aged(Category.IDENTITY, 10_000, clock), clock.now) == 0.7
    assert decay_score(aged(Category.PREFERENCE, 10_000, clock), clock.now) == 0.35


def test_recalls_and_recent_use_slow_forgetting(clock: FrozenClock):
    never = aged(Category.TODO, 14, clock)
    recalled = aged(Category.TODO, 14, clock, access_count=4)
    used_yesterday = aged(Category.TODO, 14, clock, last_accessed=clock.now - timedelta(days=1))

    assert decay_score(never, clock.now) < 0.2 <= decay_score(recalled, clock.now)
    assert decay_score(used_yesterday, clock.now) > 0.6


async def test_decayed_memories_move_to_the_archive_with_a_logged_snapshot(
    engine: Engine, clock: FrozenClock
):
    todo, identity = aged(Category.TODO, 30, clock), aged(Category.IDENTITY, 900, clock)
    await plant(engine, todo, identity)

    report = await run_lifecycle(engine.runtime)

    assert report.archived == [todo.id]
    moved = await stored(engine, todo.id)
    assert moved.layer == Layer.ARCHIVE and moved.metadata["archived_from"] == "core"
    assert (await stored(engine, identity.id)).layer == Layer.CORE
    with inspect_database(engine.db.location) as conn:
        (details,) = conn.execute("select details from lifecycle_log where action = 'archive'")
    assert json.loads(details[0])["before"]["layer"] == "core"


def old_month(clock: FrozenClock, count: int) -> list[Memory]:
    """Entries written in October 2025 and archived 100 days ago."""
    archived = {"archived_at": to_text(clock.now - timedelta(days=100))}
    return [
        memory(
            f"October note {n}: the router needs port {8000 + n} open",
            layer=Layer.ARCHIVE,
            created=clock.now - timedelta(days=80 + n),
            importance=0.3 + n / 100,
            metadata=dict(archived),
        )
        for n in range(count)
    ]


async def test_an_old_archive_month_compresses_into_one_core_summary(
    engine: Engine, clock: FrozenClock
):
    entries = old_month(clock, 10)
    await plant(engine, *entries)

    report = await run_lifecycle(engine.runtime)

    (compressed,) = report.compressed
    assert (compressed.period, compressed.entries, compressed.by) == ("2025-10", 10, "extractive")
    summary = await stored(engine, compressed.summary_id)
    assert summary.layer == Layer.CORE and summary.category == Category.SUMMARY
    assert summary.content.startswith("[2025-10] October note 9") and "(+4 more" in summary.content
    for entry in entries:
        kept = await stored(engine, entry.id)
        assert kept.metadata["compressed_into"] == summary.id and kept.deleted_at is None


async def test_a_month_compressed_again_keeps_one_live_summary(engine: Engine, clock: FrozenClock):
    first, second = old_month(clock, 4), old_month(clock, 8)[4:]
    await plant(engine, *first)
    earlier = (await run_lifecycle(engine.runtime)).compressed[0].summary_id
    await plant(engine, *second)

    later = (await run_lifecycle(engine.runtime)).compressed[0]

    assert later.entries == 4 and (await stored(engine, earlier)).superseded_by == later.summary_id
    summaries = [m for m in await live(engine, Layer.CORE) if m.category == Category.SUMMARY]
    assert [m.id for m in summaries] == [later.summary_id]
    assert summaries[0].metadata["compressed_from"] == 8


async def test_compressed_entries_can_be_soft_deleted_and_restored(
    cortex_home: Path, clock: FrozenClock
):
    settings = quiet_settings(cortex_home, lifecycle={"delete_compressed_archive": True})
    async with open_engine(settings, clock, {}) as engine:
        entries = old_month(clock, 3)
        await plant(engine, *entries)
        await run_lifecycle(engine.runtime)
        gone = await stored(engine, entries[0].id)
        await engine.restore(entries[0].id)
        back = await stored(engine, entries[0].id)

    assert gone.deleted_at is not None and gone.metadata["compressed_into"]
    assert back.deleted_at is None


async def test_an_llm_writes_the_summary_in_the_memories_language(
    llm_engine: Engine, fake_openai: FakeOpenAI, clock: FrozenClock
):
    await plant(llm_engine, *old_month(clock, 3))
    fake_openai.replies.append('{"summary": "十月：路由器需要开放8000-8002端口。"}')

    (compressed,) = (await run_lifecycle(llm_engine.runtime)).compressed

    summary = await stored(llm_engine, compressed.summary_id)
    assert (
        compressed.by == "llm"
        and summary.content == "[2025-10] 十月：路由器需要开放8000-8002端口。"
    )
    prompt = fake_openai.requests[0].body["messages"][1]["content"]
    assert "October note 2" in prompt and "do not translate" in prompt
