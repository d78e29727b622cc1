"""The log's recall legs read their hits and the turns around them in one statement (#23):
the same messages as the hits read first and their neighbours read after, hidden turns left
out, on both engines."""

from pathlib import Path

import pytest

from cortex_mcp.clock import utc_now
from cortex_mcp.engine.facade import Engine, open_engine
from cortex_mcp.store import conversation as log
from cortex_mcp.store import message_vectors
from cortex_mcp.store.db import fetch_all
from tests.conftest import FrozenClock
from tests.fakes import FakeOpenAI
from tests.test_log_vectors import vector_settings

AGENT = "default"
TURNS = 2
EXCHANGES = [
    ("Where did we leave the kayak?", "Behind the boathouse, chained to the rail."),
    ("And the paddles?", "In the garage, on the hooks by the freezer."),
    ("Is the kayak trailer ready?", "The left tyre of the trailer needs air first."),
    ("What about the life jackets?", "Two are in the car, the third one is torn."),
    ("When is the kayak trip?", "Saturday morning, leaving at seven from the lake."),
    ("Who is coming along this weekend?", "Mira and Jonas, and maybe their cousin."),
]


async def logged(engine: Engine) -> list[int]:
    """The sequence numbers of the log, in order."""
    for user, assistant in EXCHANGES:
        await engine.ingest(user, assistant)
    async with engine.db.read() as conn:
        rows = await fetch_all(conn, "select seq from conversation_log order by seq")
    return [int(row["seq"]) for row in rows]


def seqs(messages: list[log.LoggedMessage]) -> list[int]:
    return [message.seq for message in messages]


@pytest.mark.engines
@pytest.mark.usefixtures("database_engine")
async def test_text_hits_come_with_the_visible_turns_around_them(
    cortex_home: Path, fake_openai: FakeOpenAI, clock: FrozenClock
) -> None:
    async with open_engine(vector_settings(cortex_home, fake_openai), clock, {}) as engine:
        order = await logged(engine)
        assert len(order) == 2 * len(EXCHANGES)
        async with engine.db.read() as conn:
            hidden = (await log.visible_messages(conn, order[6:8], AGENT))[0].exchange_id
        async with engine.db.write() as conn:
            await log.hide_exchange(conn, hidden, utc_now())
        async with engine.db.read() as conn:
            hits = await log.search_log(conn, '"kayak"', AGENT, 3)
            apart = await log.visible_messages(conn, log.around_seqs(hits, TURNS), AGENT)
            together = await log.search_log_around(conn, '"kayak"', AGENT, 3, TURNS)

    assert [(score, m.seq) for score, m in together.hits] == [(s, m.seq) for s, m in hits]
    assert seqs(together.turns) == seqs(apart)
    assert together.turns, "the kayak turns have neighbours"
    assert not {m.seq for _, m in hits} & set(seqs(together.turns))
    assert all(m.exchange_id != hidden for m in together.turns)


async def test_nearest_messages_come_with_the_visible_turns_around_them(
    cortex_home: Path, fake_openai: FakeOpenAI, clock: FrozenClock
) -> None:
    async with open_engine(vector_settings(cortex_home, fake_openai), clock, {}) as engine:
        order = await logged(engine)
        async with engine.db.read() as conn:
            hidden = (await log.visible_messages(conn, [order[2]], AGENT))[0].exchange_id
        async with engine.db.write() as conn:
            await log.hide_exchange(conn, hidden, utc_now())
        pairs = [(order[6], 0.1), (order[0], 0.2), (order[2], 0.3), (order[11], 0.4)]
        async with engine.db.read() as conn:
            rows = await message_vectors.rows_of(conn, pairs, AGENT, 2)
            found = [(distance, log.to_message(row)) for distance, row in rows]
            apart = await log.visible_messages(conn, log.around_seqs(found, TURNS), AGENT)
            together = await log.nearest_around(conn, pairs, AGENT, 2, TURNS)

    assert [(d, row["seq"]) for d, row in together.hits] == [(d, m.seq) for d, m in found]
    assert [row["seq"] for _, row in together.hits] == [order[6], order[0]]
    assert seqs(together.turns) == seqs(apart)
    assert order[2] not in seqs(together.turns) and order[3] not in seqs(together.turns)
    assert order[4] in seqs(together.turns) and order[1] in seqs(together.turns)
