"""Promotion per seed 004 (#24): a restated fact counts toward promotion, and one run promotes
at most `promote_max_per_run` per agent, best first, naming the rest for the next run."""

from datetime import timedelta

from cortex_mcp.engine.facade import Engine
from cortex_mcp.models import Category, Layer
from tests.conftest import FrozenClock
from tests.lifecycle.conftest import live, memory, plant, stored


async def test_one_run_promotes_at_most_five_and_the_next_run_takes_the_rest(
    engine: Engine, clock: FrozenClock
) -> None:
    created = clock.now - timedelta(hours=30)
    decisions = [
        "Releases ship on Tuesdays after the freeze",
        "Invoices are archived for seven years",
        "The mobile app drops Android 9 support",
        "Backups replicate to a second region nightly",
        "Design reviews need two approvers",
        "Logs older than thirty days are compressed",
        "The wiki moves to the new documentation portal",
    ]
    facts = [
        memory(
            text,
            category=Category.DECISION,
            layer=Layer.WORKING,
            created=created + timedelta(seconds=i),
            importance=0.9,
            metadata={"channel": "deep"},
        )
        for i, text in enumerate(decisions)
    ]
    ids = await plant(engine, *facts)

    first = await engine.run_lifecycle()
    second = await engine.run_lifecycle()

    assert len(first.promoted) == 5
    assert sorted(first.promotion_deferred) == sorted(set(ids) - set(first.promoted))
    assert sorted(second.promoted) == sorted(first.promotion_deferred)
    assert second.promotion_deferred == []
    assert {m.id for m in await live(engine, Layer.CORE)} == set(ids)


async def test_a_restated_fact_is_promoted_before_one_said_once(
    engine: Engine, clock: FrozenClock
) -> None:
    created = clock.now - timedelta(hours=30)
    once = memory("The quarterly review happens in the small meeting room", layer=Layer.WORKING,
                  created=created, importance=0.5, metadata={"channel": "deep"})  # fmt: skip
    restated = memory("The staging cluster is rebuilt every Sunday night", layer=Layer.WORKING,
                      created=created, importance=0.5,
                      metadata={"channel": "deep", "mentions": 3})  # fmt: skip
    await plant(engine, once, restated)

    report = await engine.run_lifecycle()

    assert report.promoted == [restated.id]
    assert (await stored(engine, once.id)).layer == Layer.WORKING


async def test_a_restatement_raises_confidence(engine: Engine) -> None:
    first = await engine.remember("The build server lives in the Frankfurt region")
    again = await engine.remember("The build server lives in the Frankfurt region.")

    assert again.action == "duplicate" and again.id == first.id
    assert (await stored(engine, first.id)).confidence > 0.8
