"""The back-fill (#28 item 4): batches paced by how long they take, several at once, each row
stored with its own text's vector through the one embed-cache-store path of both tables."""

import os
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from cortex_mcp.engine.embedding import ROUND_BATCHES
from cortex_mcp.engine.embedding_pace import MIN_BATCH, BatchPace
from cortex_mcp.engine.facade import Engine, open_engine
from cortex_mcp.providers.local import BACKGROUND_NICENESS, in_background_thread
from cortex_mcp.store.db import fetch_all
from tests.conftest import FrozenClock
from tests.fakes import FakeOpenAI
from tests.test_log_vectors import backfilled, vector_settings


async def stored_and_cached(engine: Engine, table: str, source: str) -> list[tuple[Any, ...]]:
    """(content, the stored vector, the cached vector of that content) of every row."""
    from cortex_mcp.store.vectors import content_hash

    async with engine.db.read() as conn:
        rows = await fetch_all(
            conn, f"select s.content, v.embedding from {table} v join {source} s on s.seq = v.rowid"
        )
        cache = await fetch_all(conn, "select content_hash, vector from embedding_cache")
    cached = {row[0]: bytes(row[1]) for row in cache}
    return [(row[0], bytes(row[1]), cached.get(content_hash(row[0]))) for row in rows]


async def test_batches_run_side_by_side_and_every_row_gets_its_own_texts_vector(
    cortex_home: Path, fake_openai: FakeOpenAI, clock: FrozenClock
) -> None:
    async with open_engine(vector_settings(cortex_home, fake_openai), clock, {}) as engine:
        engine.vectors.workers = 3
        for n in range(23):
            await engine.remember(f"Project {n} ships its release number {n * 7} on a Friday")
        for n in range(9):
            await engine.ingest(f"Which room is meeting {n} in?", f"Room {n + 40}, second floor.")
        embedded = await backfilled(engine)
        memories = await stored_and_cached(engine, "memory_vectors", "memories")
        messages = await stored_and_cached(engine, "message_vectors", "conversation_log")
        stats = (await engine.stats())["vectors"]

    sizes = [len(request.body["input"]) for request in fake_openai.requests]
    assert embedded >= 23 + 18
    assert len(memories) >= 23 and len(messages) == 18
    assert all(stored == cached for _, stored, cached in memories + messages)
    assert max(sizes) <= 64  # never more than the configured batch size
    assert stats["messages_waiting"] == 0


def test_the_pace_aims_each_batch_at_its_target_and_halves_after_a_failure() -> None:
    pace = BatchPace(64, target_s=2.0)
    first = pace.size

    pace.took(first, 0.1 * first)  # 100 ms a text: 20 fit in two seconds
    assert pace.size == 20
    pace.took(20, 20.0)  # a busy machine: one second a text
    assert pace.size == MIN_BATCH
    pace.failed()
    assert pace.size == MIN_BATCH // 2
    pace.took(2, 0.002)  # fast again: grows, at most four times a round, never past 64
    assert pace.size == 8
    for _ in range(5):
        pace.took(pace.size, 0.001)
    assert pace.size == 64


def test_the_pace_never_asks_for_more_than_the_configured_batch() -> None:
    assert BatchPace(3).size == 3
    pace = BatchPace(3)
    pace.took(3, 30.0)
    assert pace.size == 3


async def test_stored_texts_are_embedded_in_a_thread_of_lower_priority() -> None:
    def niceness(_: list[str]) -> tuple[int, int]:
        thread = threading.get_native_id()
        return thread, os.getpriority(os.PRIO_PROCESS, thread)

    caller = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    thread, nice = await in_background_thread(niceness, ["tea"])

    assert thread != threading.get_native_id()
    if sys.platform == "linux":
        assert nice == min(19, caller + BACKGROUND_NICENESS)
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == caller


async def test_an_error_in_the_background_thread_reaches_the_caller() -> None:
    def broken(_: list[str]) -> None:
        raise RuntimeError("engine unusable")

    with pytest.raises(RuntimeError, match="engine unusable"):
        await in_background_thread(broken, ["tea"])


async def without_vectors(engine: Engine) -> None:
    """Drop every memory's vector, if any was stored."""
    from cortex_mcp.store.vectors import vector_table_exists

    async with engine.db.write() as conn:
        if await vector_table_exists(conn):
            await conn.execute("delete from memory_vectors")


async def test_each_worker_takes_the_next_batch_as_soon_as_its_last_is_stored(
    cortex_home: Path, fake_openai: FakeOpenAI, clock: FrozenClock
) -> None:
    settings = vector_settings(cortex_home, fake_openai, batch_size=4)
    async with open_engine(settings, clock, {}) as engine:
        for n in range(50):
            await engine.remember(f"Service {n} listens on port {8000 + n * 13} in staging")
        await without_vectors(engine)  # as if the writes' own embedding had failed
        fake_openai.reset()
        engine.vectors.workers = 2
        first_round = await engine.vectors.backfill()
        rest = await backfilled(engine)

    sizes = [len(request.body["input"]) for request in fake_openai.requests]
    assert first_round == 4 * 2 * ROUND_BATCHES  # not one batch per worker and a wait
    assert first_round + rest == 50
    assert max(sizes) == 4


async def test_after_a_failed_batch_the_round_starts_no_new_one(
    cortex_home: Path, fake_openai: FakeOpenAI, clock: FrozenClock
) -> None:
    settings = vector_settings(cortex_home, fake_openai, batch_size=4)
    async with open_engine(settings, clock, {}) as engine:
        for n in range(40):
            await engine.remember(f"Team {n} meets in room {200 + n} on Tuesdays")
        await without_vectors(engine)
        fake_openai.reset()
        fake_openai.status = 500
        engine.vectors.workers = 1
        embedded = await engine.vectors.backfill()
        failed_texts = {text for request in fake_openai.requests for text in request.body["input"]}

    assert embedded == 0
    assert len(failed_texts) == 4  # the one failed batch, perhaps retried; nothing after it
