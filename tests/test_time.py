"""Time understood (issue 15): the dates a memory mentions are resolved when it is written,
kept beside its text, erased with it, and found by a question about that time."""

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from cortex_mcp import cli
from cortex_mcp.config import Settings
from cortex_mcp.models import Category, Layer, Memory, new_memory_id
from cortex_mcp.server import build_server
from tests.conftest import FrozenClock, data_of, inspect_database, recall, remember

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]

MONDAY = datetime(2026, 1, 12, 10, tzinfo=UTC)  # "yesterday" said then is Sunday 11 January


@pytest.fixture
def settings(cortex_home: Path) -> Settings:
    """No embedder: the rankings compared here must not depend on when vectors are ready."""
    return Settings.model_validate({"home": cortex_home, "embedding": {"provider": "none"}})


def dates_of(settings: Settings, memory_id: str) -> list[tuple[str, str]]:
    with inspect_database(settings.database_path) as conn:
        return [
            tuple(row)
            for row in conn.execute(
                "select d.start_day, d.end_day from memory_dates d"
                " join memories m on m.seq = d.memory_seq where m.id = ? order by d.start_day",
                (memory_id,),
            )
        ]


async def debug(client: Client, query: str) -> dict[str, dict[str, Any]]:
    found = data_of(await client.call_tool("cortex_search_debug", {"query": query}))
    return {c["memory"]["content"]: c for c in found["candidates"]}


async def test_the_dates_a_memory_mentions_are_resolved_against_its_time_and_kept_beside_it(
    client: Client, settings: Settings, clock: FrozenClock
) -> None:
    clock.now = MONDAY
    said = "Yesterday I ran 10 km; the race is next Friday"
    stored = await remember(client, said, context="上个月我开始跑步")

    assert dates_of(settings, stored["id"]) == [
        ("2025-12-01", "2026-01-01"),  # 上个月, from the context, across the year end
        ("2026-01-11", "2026-01-12"),
        ("2026-01-16", "2026-01-17"),
    ]
    with inspect_database(settings.database_path) as conn:
        content = conn.execute("select content from memories where id = ?", (stored["id"],))
        assert content.fetchone()[0] == said  # the text stays as written


async def test_a_purge_erases_the_dates_and_a_forget_hides_them(
    client: Client, settings: Settings, clock: FrozenClock
) -> None:
    clock.now = MONDAY
    purged = await remember(client, "Yesterday I signed the lease for flat 4B")
    forgotten = await remember(client, "Yesterday I returned the rental car")
    clock.advance(days=2)
    with inspect_database(settings.database_path) as conn:
        seq = conn.execute("select seq from memories where id = ?", (purged["id"],)).fetchone()[0]

    await client.call_tool("cortex_forget", {"memory_id": forgotten["id"]})
    await client.call_tool("cortex_forget", {"memory_id": purged["id"], "purge": True})

    with inspect_database(settings.database_path) as conn:
        rows = conn.execute("select count(*) from memory_dates where memory_seq = ?", (seq,))
        assert rows.fetchone()[0] == 0
    assert dates_of(settings, forgotten["id"]) == [("2026-01-11", "2026-01-12")]
    assert (await recall(client, "what did I do last week"))["memories"] == []


@pytest.mark.parametrize(
    ("dated", "wordy", "question"),
    [
        (
            "Yesterday I did a long run along the river",
            "I do the watering and I did the weeding",
            "what did I do last week",
        ),
        ("昨天我做了一个蛋糕", "妈妈问我做了什么作业", "上周我做了什么"),
        ("昨日は京都で何をしたか日記に書いた", "何をしたか覚えていない", "先週何をした"),
    ],
    ids=["en", "zh", "ja"],
)
async def test_a_question_about_last_week_finds_what_was_said_to_be_yesterday_then(
    client: Client,
    settings: Settings,
    clock: FrozenClock,
    dated: str,
    wordy: str,
    question: str,
) -> None:
    clock.now = MONDAY  # made this week; it speaks of Sunday, last week
    memory = await remember(client, dated)
    await remember(client, wordy)  # made this week, and closer in words to the question
    clock.advance(days=2)

    found = [m["id"] for m in (await recall(client, question))["memories"]]
    scores = await debug(client, question)
    plain = settings.model_copy(
        update={
            "search": settings.search.model_copy(
                update={"date_boost": 0.0, "dated_relevance": 0.0, "when_boost": 0.0}
            )
        }
    )
    async with Client(build_server(plain, clock)) as undated:
        plainly = [m["id"] for m in (await recall(undated, question))["memories"]]

    assert memory["id"] in found
    if memory["id"] in plainly:  # undated, the relevance floor may leave nothing at all (#23)
        assert found.index(memory["id"]) < plainly.index(memory["id"])
    assert scores[dated]["score"]["date_boost"] == 2.0
    assert scores[wordy]["score"]["date_boost"] == 1.0


async def test_a_question_naming_a_month_finds_a_memory_that_said_last_month_then(
    client: Client, clock: FrozenClock
) -> None:
    clock.now = datetime(2026, 3, 2, 9, tzinfo=UTC)
    memory = await remember(client, "Last month Maria adopted a kitten called Mochi")
    clock.advance(days=30)
    await remember(client, "Maria's kitten Mochi likes tuna")

    found = await recall(client, "What did Maria do in February 2026?")

    assert [m["id"] for m in found["memories"]][:1] == [memory["id"]]


async def test_an_imported_memory_resolves_its_dates_against_its_own_time(
    client: Client, settings: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    made = datetime(2023, 5, 8, 12, tzinfo=UTC)
    memory = Memory.fresh(
        id=new_memory_id(int(made.timestamp() * 1000)),
        agent_id="default",
        layer=Layer.CORE,
        category=Category.FACT,
        content="Caroline went to the LGBTQ support group yesterday",
        source="user",
        importance=0.7,
        now=made,
    )
    document = {"format": "cortex-mcp", "version": 1, "relations": []}
    path = tmp_path / "export.json"
    memories = {"memories": [memory.model_dump(mode="json")]}
    path.write_text(json.dumps(document | memories), encoding="utf-8")

    assert await anyio.to_thread.run_sync(cli.main, ["import", str(path)]) == 0
    capsys.readouterr()

    assert dates_of(settings, memory.id) == [("2023-05-07", "2023-05-08")]
    found = await recall(client, "What did Caroline do on 7 May 2023?")
    assert [m["id"] for m in found["memories"]][:1] == [memory.id]
