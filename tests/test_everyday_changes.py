"""A change said the everyday way replaces the old value (user test 13: D2, D4, D5, D8): a job
started at, a CI moved off, a name gone by, a move with a time word (我上个月搬到杭州了).

Real in-process MCP sessions, key-less: each message goes through `cortex_ingest` as the Stop
hook sends it; the old memory must be superseded and the new one live."""

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from cortex_mcp.config import Settings
from cortex_mcp.engine.ingest.fast import fast_statements
from cortex_mcp.server import build_server
from tests.conftest import FrozenClock, data_of, inspect_database


@pytest.fixture
def plain(cortex_home: Path) -> Settings:
    """A plain install without an LLM, searching by keywords only."""
    return Settings.model_validate({"home": cortex_home, "embedding": {"provider": "none"}})


@pytest.fixture
async def client(plain: Settings, clock: FrozenClock) -> AsyncIterator[Client]:
    async with Client(build_server(plain, clock)) as connected:
        yield connected


async def ingest(client: Client, user: str) -> list[dict[str, Any]]:
    """The fast channel's memories of one exchange."""
    arguments = {"user_message": user, "assistant_message": "Noted."}
    fast = data_of(await client.call_tool("cortex_ingest", arguments))["fast"]
    assert isinstance(fast, list)
    return fast


def live(settings: Settings) -> list[str]:
    with inspect_database(settings.database_path) as conn:
        rows = conn.execute(
            "select content from memories where deleted_at is null and superseded_by is null"
        ).fetchall()
    return [row[0] for row in rows]


async def changed(
    client: Client, settings: Settings, before: str, after: str
) -> tuple[list[str], list[str], list[str]]:
    """What `before` stored, what `after` stored and the live memories after both; every
    memory of `before` is asserted superseded by one of `after`."""
    old = await ingest(client, before)
    new = await ingest(client, after)
    assert old and new, (old, new)
    assert sorted(m["superseded_id"] for m in new if m["superseded_id"]) == sorted(
        m["id"] for m in old
    ), new
    return [m["content"] for m in old], [m["content"] for m in new], live(settings)


JOB_CHANGES = [
    (
        "also new job — I left Siemens and started at BMW on Monday, now a staff engineer",
        ["I work at BMW.", "I work as a staff engineer."],
    ),
    (
        "I started a new job at BMW as a staff engineer",
        ["I work at BMW.", "I work as a staff engineer."],
    ),
]


@pytest.mark.parametrize(("message", "stored"), JOB_CHANGES)
async def test_a_new_job_said_the_everyday_way_replaces_workplace_and_role(
    client: Client, plain: Settings, message: str, stored: list[str]
) -> None:
    old, new, now = await changed(
        client, plain, "I work at Siemens as a backend engineer.", message
    )

    assert new == stored
    assert sorted(now) == sorted(stored) and not set(old) & set(now)


async def test_started_at_a_company_replaces_the_workplace(client: Client, plain: Settings) -> None:
    old, new, now = await changed(
        client, plain, "I work at Siemens.", "I started at BMW on Monday."
    )

    assert old == ["I work at Siemens."]
    assert new == now == ["I started at BMW on Monday."]


@pytest.mark.parametrize(
    "message",
    ["I started at the beginning", "I started at 9am today.", "I started at $120k."],
)
async def test_started_at_what_is_no_employer_stores_nothing(client: Client, message: str) -> None:
    assert await ingest(client, message) == []


@pytest.mark.parametrize(
    "message",
    [
        "btw we finally moved off Jenkins, everything runs on GitHub Actions now",
        "we migrated to GitHub Actions",
        "We use GitHub Actions now instead of Jenkins.",
    ],
)
async def test_moving_off_the_ci_replaces_the_ci(
    client: Client, plain: Settings, message: str
) -> None:
    old, new, now = await changed(client, plain, "our CI is Jenkins", message)

    assert old == ["Our CI is Jenkins"] and "GitHub Actions" in new[0] and now == new


async def test_the_chinese_ci_is_a_slot_the_next_ci_replaces(
    client: Client, plain: Settings
) -> None:
    old, new, now = await changed(
        client, plain, "我们的CI用的是Jenkins", "we migrated to GitHub Actions"
    )

    assert old == ["我们的CI用的是Jenkins"]
    assert new == now == ["We migrated to GitHub Actions"]


async def test_an_intro_sets_the_name_and_going_by_another_replaces_it(
    client: Client, plain: Settings
) -> None:
    intro = await ingest(
        client,
        "hey, quick intro since we'll work together a lot: I'm Dana, I live in Berlin and I work"
        " at Siemens as a backend engineer",
    )
    renamed = await ingest(client, "heads up, I go by Dee now rather than Dana")

    assert intro[0]["content"] == "My name is Dana."
    assert renamed[0]["superseded_id"] == intro[0]["id"]
    assert "My name is Dana." not in live(plain) and renamed[0]["content"] in live(plain)


@pytest.mark.parametrize(
    "message", ["I'm Fine, thanks", "Well: I'm Sorry, I forgot", "So: I'm Back, guys", "I'm Done."]
)
async def test_how_one_is_is_no_name(client: Client, message: str) -> None:
    assert await ingest(client, message) == []


@pytest.mark.parametrize("when", ["上个月", "上周", "去年", "最近", "前几天", "今年"])
async def test_a_move_with_a_time_word_replaces_the_home(
    client: Client, plain: Settings, when: str
) -> None:
    old, new, now = await changed(
        client, plain, "我住在上海。", f"跟你说一下，我{when}搬到杭州了。"
    )

    assert old == ["我住在上海。"] and now == new and "杭州" in new[0]


async def test_working_somewhere_as_a_job_sets_workplace_and_role(
    client: Client, plain: Settings
) -> None:
    old = await ingest(client, "你好，我叫王小明，住在上海，在阿里巴巴做前端开发。")
    new = await ingest(client, "我在字节跳动做后端开发。")

    assert [m["content"] for m in old][2:] == ["我在阿里巴巴工作。", "我的工作是前端开发。"]
    assert [m["superseded_id"] for m in new] == [m["id"] for m in old][2:]
    assert sorted(live(plain)) == sorted(
        ["我叫王小明。", "我住在上海。", *(m["content"] for m in new)]
    )


async def test_a_move_to_an_employer_after_leaving_another_is_a_job_not_a_home(
    client: Client, plain: Settings
) -> None:
    """Found trying the product: "actually i moved to Globex, left acme in october" made
    Globex the user's home and left the workplace as it was."""
    old, new, now = await changed(
        client, plain, "I work at Acme.", "actually i moved to Globex, left acme in october"
    )

    assert old == ["I work at Acme."] and len(new) == 1, new
    assert "I work at Acme." not in now
    assert not [text for text in now if text.startswith("I live in")], now


@pytest.mark.parametrize(
    ("said", "home"),
    [
        ("I moved to Berlin, left my old flat behind", "Berlin"),
        ("I moved to New York, left Boston for good", "New York"),
    ],
)
def test_a_move_to_a_place_stays_a_home(said: str, home: str) -> None:
    slots = [p.slot for p in fast_statements(said)]

    assert [(s.predicate, s.value) for s in slots if s is not None] == [("home", home)]


def test_a_role_said_as_an_initialism_is_a_role() -> None:
    """Found trying the product: "I joined Stripe last month as an SRE" set no role."""
    stored = [p.content for p in fast_statements("I joined Stripe last month as an SRE")]

    assert stored == ["I work at Stripe.", "I work as an SRE."]
