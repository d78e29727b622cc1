"""A recall's query is embedded from its start, once (#23: hybrid recall p50 ≤ 50 ms)."""

from pathlib import Path

import anyio
import pytest
from mcp import Client

from cortex_mcp.engine.host import EngineHost
from cortex_mcp.search.query import MAX_EMBEDDED_CHARS
from cortex_mcp.server import build_server
from tests.conftest import FrozenClock, recall, remember
from tests.fakes import FakeOpenAI
from tests.test_hybrid import embedded, vector_settings

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]


async def test_a_recall_started_early_sends_its_question_to_the_embedder_once(
    cortex_home: Path, fake_openai: FakeOpenAI, sdks_imported: None, clock: FrozenClock
) -> None:
    settings = vector_settings(cortex_home, fake_openai)
    host = EngineHost(settings, clock)
    async with Client(build_server(settings, clock, host=host)) as client:
        car = await remember(client, "Harry drives a blue automobile to work every day")
        await remember(client, "The quarterly report is due next Friday")
        await embedded(host)
        await recall(client, "What is due next Friday?")  # the vectors answered: early from now
        assert host.engine.runtime.vectors.answering
        found = await recall(client, "汽车")

    assert fake_openai.embedded.count("汽车") == 1
    assert found["memories"][0]["id"] == car["id"]  # no word in common: found by its vector


async def test_two_callers_of_one_query_share_its_embedding(
    cortex_home: Path, fake_openai: FakeOpenAI, sdks_imported: None, clock: FrozenClock
) -> None:
    host = EngineHost(vector_settings(cortex_home, fake_openai), clock)
    async with host.use():
        vectors = host.engine.runtime.vectors
        got: list[list[float] | None] = []

        async def ask() -> None:
            got.append(await vectors.query_vector("where does Harry work?"))

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(ask)
            tasks.start_soon(ask)

    assert fake_openai.embedded.count("where does Harry work?") == 1
    assert len(got) == 2 and got[0] is not None and got[0] == got[1]


async def test_no_query_is_embedded_while_no_stored_vector_can_answer(
    cortex_home: Path, fake_openai: FakeOpenAI, sdks_imported: None, clock: FrozenClock
) -> None:
    settings = vector_settings(cortex_home, fake_openai)
    host = EngineHost(settings, clock)
    async with Client(build_server(settings, clock, host=host)) as client:
        await recall(client, "anything about Harry?")
        await recall(client, "anything about Harry's car?")
        assert not host.engine.runtime.vectors.answering

    assert not [text for text in fake_openai.embedded if text.startswith("anything about")]


async def test_a_long_query_is_embedded_from_its_first_part_and_searched_by_every_word(
    cortex_home: Path, fake_openai: FakeOpenAI, sdks_imported: None, clock: FrozenClock
) -> None:
    # found trying the prompt hook: a prompt with a pasted log (1,800 characters) cost the
    # local model 2.5 s, past the hook's 2 s, and nothing was injected
    settings = vector_settings(cortex_home, fake_openai)
    host = EngineHost(settings, clock)
    pasted = "\n".join(f"INFO worker processed invoice batch {i} in 12 ms" for i in range(40))
    async with Client(build_server(settings, clock, host=host)) as client:
        crash = await remember(client, "The worker crashes when PostgreSQL is unreachable")
        await remember(client, "The quarterly report is due next Friday")
        await embedded(host)
        await recall(client, "What is due next Friday?")
        found = await recall(client, f"Why did the worker crash? Log:\n{pasted}\nPostgreSQL")

    sent = [text for text in fake_openai.embedded if text.startswith("Why did the worker")]
    assert sent and all(len(text) <= MAX_EMBEDDED_CHARS for text in sent)
    assert found["memories"][0]["id"] == crash["id"]  # "PostgreSQL", past the cut, still found
