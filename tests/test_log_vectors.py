"""The conversation log's vectors (#23): every logged message embedded in the background,
searched by meaning beside BM25, dropped when its message is hidden or erased, re-embedded on
a model change."""

import json
from pathlib import Path
from typing import Any

import pytest

from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import Engine, open_engine
from cortex_mcp.store.db import Connection, fetch_one
from cortex_mcp.store.vectors import cached_vectors, content_hash
from tests.conftest import FrozenClock
from tests.fakes import FakeOpenAI

DATA = Path(__file__).parent / "data" / "log_paraphrase.json"
MAX_ROUNDS = 200


def vector_settings(home: Path, fake: FakeOpenAI, **embedding: Any) -> Settings:
    return Settings.model_validate(
        {
            "home": home,
            "llm": {"provider": "none"},
            "embedding": {
                "provider": "openai",
                "base_url": fake.url,
                "api_key": "test",
                "dimensions": 64,
                "timeout_s": 120,
                **embedding,
            },
        }
    )


async def backfilled(engine: Engine) -> int:
    """Run the back-fill until nothing is left; how many texts it embedded."""
    done = 0
    for _ in range(MAX_ROUNDS):
        embedded = await engine.vectors.backfill()
        if not embedded:
            return done
        done += embedded
    raise AssertionError("the back-fill did not finish")


async def count(engine: Engine, sql: str) -> int:
    async with engine.db.read() as conn:
        row = await fetch_one(conn, sql)
    return int(row[0]) if row else 0


@pytest.mark.engines
@pytest.mark.usefixtures("database_engine")
async def test_logged_messages_are_back_filled_and_counted_while_waiting(
    cortex_home: Path, fake_openai: FakeOpenAI, clock: FrozenClock
) -> None:
    async with open_engine(vector_settings(cortex_home, fake_openai), clock, {}) as engine:
        await engine.ingest("Which train goes to the lake?", "The blue line, every ten minutes.")
        before = (await engine.stats())["vectors"]
        embedded = await backfilled(engine)
        after = (await engine.stats())["vectors"]
        stored = await count(engine, "select count(*) from message_vectors")

    assert before["messages_waiting"] == 2 and before["messages_with_vectors"] == 0
    assert embedded >= 2
    assert after["messages_waiting"] == 0 and after["messages_with_vectors"] == 2
    assert stored == 2


@pytest.mark.engines
@pytest.mark.usefixtures("database_engine")
async def test_a_forgotten_message_loses_its_vector_and_a_restore_brings_it_back(
    cortex_home: Path, fake_openai: FakeOpenAI, clock: FrozenClock
) -> None:
    async with open_engine(vector_settings(cortex_home, fake_openai), clock, {}) as engine:
        kept = await engine.remember("The office plants are watered on Mondays")
        said = await engine.ingest("I'm Dave.", "Welcome, Dave from the Leeds office.")
        await backfilled(engine)
        assert await count(engine, "select count(*) from message_vectors") == 2
        memory = (said.fast + said.deep)[0]

        await engine.forget(memory.id)
        hidden = await count(engine, "select count(*) from message_vectors")
        await engine.restore(memory.id)
        await backfilled(engine)
        shown = await count(engine, "select count(*) from message_vectors")
        await engine.forget(kept.id)

    assert hidden == 0  # the whole exchange is hidden with the memory taken from it
    assert shown == 2


@pytest.mark.engines
@pytest.mark.usefixtures("database_engine")
async def test_a_purge_erases_the_message_vectors_and_their_cached_embeddings(
    cortex_home: Path, fake_openai: FakeOpenAI, clock: FrozenClock
) -> None:
    async with open_engine(vector_settings(cortex_home, fake_openai), clock, {}) as engine:
        await engine.ingest("The weather was nice on the hike", "Sounds lovely.")
        said = await engine.ingest("I'm Dave.", "Welcome, Dave from the Vault Street office.")
        await backfilled(engine)
        assert await count(engine, "select count(*) from message_vectors") == 4
        memory = (said.fast + said.deep)[0]

        await engine.purge([memory.id])
        vectors = await count(engine, "select count(*) from message_vectors")
        messages = await count(engine, "select count(*) from conversation_log")
        async with engine.db.read() as conn:
            cached = await vectors_of(conn, ["Welcome, Dave from the Vault Street office."])

    assert messages == 2 and vectors == 2  # the hike's exchange keeps its two
    assert cached == {}  # the purged message's embedding left the cache with it


@pytest.mark.engines
@pytest.mark.usefixtures("database_engine")
async def test_a_new_embedding_model_re_embeds_the_log(
    cortex_home: Path, fake_openai: FakeOpenAI, clock: FrozenClock
) -> None:
    async with open_engine(vector_settings(cortex_home, fake_openai), clock, {}) as engine:
        await engine.ingest("We watched a film about a puppy called Rex", "Congratulations!")
        await backfilled(engine)
    new_model = vector_settings(
        cortex_home, fake_openai, model="text-embedding-3-large", dimensions=32
    )
    async with open_engine(new_model, clock, {}) as engine:
        stale = (await engine.stats())["vectors"]
        await backfilled(engine)
        fresh = (await engine.stats())["vectors"]
        found = await engine.recall("dog")

    assert stale["messages_with_vectors"] == 2  # of the old model, until the back-fill runs
    assert fresh["model"] == "text-embedding-3-large" and fresh["dimension"] == 32
    assert fresh["messages_with_vectors"] == 2 and fresh["messages_waiting"] == 0
    assert [hit.content for hit in found.conversation][:1] == [
        "We watched a film about a puppy called Rex"
    ]


async def vectors_of(conn: Connection, texts: list[str]) -> dict[str, list[float]]:
    return await cached_vectors(conn, [content_hash(t) for t in texts], "text-embedding-3-small")


def role(speaker: str) -> str:
    """Jon and Caroline speak as the user, the others as the assistant (no name in the text:
    none to match)."""
    return "user" if speaker in ("Jon", "Caroline") else "assistant"


def conversation() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(DATA.read_text(encoding="utf-8"))
    return data


async def test_recall_finds_a_logged_message_by_meaning_alone(
    cortex_home: Path, clock: FrozenClock
) -> None:
    """A real dev question whose evidence turn shares no word with it (logged alone, between
    two sessions of another dialogue): the log's vector leg finds it, BM25 alone does not."""
    data = conversation()
    turns = {t["dia_id"]: t for s in data["sessions"] for t in s["turns"]}
    [evidence] = data["evidence"]
    local = Settings.model_validate(
        {
            "home": cortex_home,
            "llm": {"provider": "none"},
            "embedding": {"provider": "local", "timeout_s": 300},
        }
    )
    async with open_engine(local, clock, {}) as engine:
        for session in data["sessions"]:
            said = [(role(t["speaker"]), t["text"]) for t in session["turns"]]
            await engine.flush(said, session_id=session["session"])
        await backfilled(engine)
        found = await engine.recall(data["question"], max_results=10)
    keywords = local.model_copy(
        update={"embedding": local.embedding.model_copy(update={"provider": "none"})}
    )
    async with open_engine(keywords, clock, {}) as engine:
        bm25 = await engine.recall(data["question"], max_results=10)

    text = turns[evidence]["text"]
    assert any(text in hit.content for hit in found.conversation)
    assert not any(text in hit.content for hit in bm25.conversation), bm25.conversation
    assert not any(text in m.content for m in [*found.memories, *bm25.memories])


@pytest.mark.engines
@pytest.mark.usefixtures("database_engine")
async def test_the_matrix_in_memory_follows_every_change_of_the_store(
    cortex_home: Path, fake_openai: FakeOpenAI, clock: FrozenClock
) -> None:
    """Vectors searched in memory (both engines, #23): a message hidden and another embedded
    between two searches (the table's row count unchanged) still leave the matrix in step."""
    async with open_engine(vector_settings(cortex_home, fake_openai), clock, {}) as engine:
        dave = await engine.ingest("I'm Dave.", "Welcome, Dave from the Leeds office.")
        await backfilled(engine)
        assert [hit.content for hit in (await engine.recall("Leeds")).conversation]
        await engine.forget((dave.fast + dave.deep)[0].id)  # hides its two messages
        await engine.ingest("We watched a film about a puppy called Rex", "Congratulations!")
        await backfilled(engine)  # two new vectors: as many rows as before
        found = await engine.recall("dog")
        matrix = engine.vectors.said
        async with engine.db.read() as conn:
            in_step = await matrix.nearest(conn, [1.0] * 64, 4) is not None

    assert in_step  # the matrix answered
    assert [hit.content for hit in found.conversation][:1] == [
        "We watched a film about a puppy called Rex"
    ]
    assert matrix.seqs is not None and matrix.size == 2
