"""cortex_ingest waits for nothing slow (#25 item 4): one commit (one fsync) per call, and the
deep channel's LLM calls (the extraction, then the same-fact question) never hold the store:
another process and another ingest write while each is pending. Events, not durations."""

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio.to_thread
from mcp import Client

from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import open_engine
from cortex_mcp.engine.host import EngineHost
from cortex_mcp.server import build_server
from cortex_mcp.store.sqlite import SqliteDatabase
from tests.background import deep_channel_done
from tests.conftest import FrozenClock, data_of, inspect_database
from tests.fakes import FakeOpenAI

DECISION = ("We decided to deploy the billing service on Fly.io.", "Good, Fly.io it is.")
EXTRACTED = json.dumps(
    {"memories": [{"content": "The billing service runs on Fly.io now", "category": "fact"}]}
)


def billing(settings: Settings) -> list[str]:
    """The live memories about the billing service."""
    with inspect_database(settings.database_path) as conn:
        rows = conn.execute(
            "select content from memories where content like 'The billing service%'"
            " and deleted_at is null and superseded_by is null order by seq"
        ).fetchall()
    return [row[0] for row in rows]


OTHER_WRITER = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], timeout=0, isolation_level=None)
try:
    conn.execute("begin immediate")
    conn.execute("create table if not exists other_writer (said text)")
    conn.execute("insert into other_writer values ('written while the LLM thinks')")
    conn.execute("commit")
except sqlite3.OperationalError as error:
    sys.exit(3 if "locked" in str(error) else 4)
"""


def other_process_writes(path: Path) -> bool:
    """Another process takes the write lock at once (no busy wait) and commits: True, or
    False when the lock was held. A process of its own: two SQLite libraries in one process
    (the stdlib's and sqlean's) do not see each other's POSIX locks."""
    done = subprocess.run(
        [sys.executable, "-c", OTHER_WRITER, str(path)], capture_output=True, check=False
    )
    assert done.returncode in (0, 3), done.stderr
    return done.returncode == 0


async def ingest(client: Client, user: str, reply: str) -> dict[str, Any]:
    arguments = {"user_message": user, "assistant_message": reply, "session_id": "s-1"}
    return data_of(await client.call_tool("cortex_ingest", arguments))


async def test_an_ingest_logs_its_fast_memories_and_what_is_owed_in_one_commit(
    llm_settings: Settings, clock: FrozenClock, fake_openai: FakeOpenAI
) -> None:
    statements: list[str] = []
    async with open_engine(llm_settings, clock) as engine:  # no background loop: only the call
        db = engine.runtime.db
        assert isinstance(db, SqliteDatabase)
        await db.conn.set_trace_callback(statements.append)
        said = await engine.ingest(*DECISION, session_id="s-1")
        statements = list(statements)  # those of the call only

    # a write transaction's commit syncs the WAL to disk (synchronous=FULL); a read's does not
    writes = [s for s in statements if s.strip().lower() == "begin immediate"]
    assert [m.category for m in said.fast] == ["decision"] and said.queued
    assert len(writes) == 1, statements  # was 3: the log, the fast memory, what is owed
    with inspect_database(llm_settings.database_path) as conn:
        states = conn.execute("select role, extraction from conversation_log").fetchall()
        linked = conn.execute("select count(*) from exchange_links").fetchone()[0]
    assert sorted(states) == [("assistant", "pending"), ("user", "pending")]
    assert linked == 1 and fake_openai.requests == []


async def test_no_llm_call_of_the_deep_channel_holds_the_store(
    llm_settings: Settings, clock: FrozenClock, fake_openai: FakeOpenAI
) -> None:
    llm = llm_settings.llm.model_copy(update={"timeout_s": 600.0})  # never cut off here
    llm_settings = llm_settings.model_copy(update={"llm": llm})
    fake_openai.default_reply = '{"memories": []}'  # the other exchanges: nothing to extract
    fake_openai.latency_s = 600.0  # held until released: each call stays pending
    fake_openai.replies.extend([EXTRACTED, json.dumps({"action": "new"})])
    host = EngineHost(llm_settings, clock)
    async with Client(build_server(llm_settings, clock, host=host)) as client:
        await client.call_tool("cortex_remember", {"content": "The billing service runs on Heroku"})
        first = await ingest(client, *DECISION)
        # 1. the extraction is pending: another process and another ingest write meanwhile
        assert await anyio.to_thread.run_sync(fake_openai.wait_for_requests, 1)
        assert other_process_writes(llm_settings.database_path)
        during_extraction = await ingest(client, "I prefer dark roast coffee.", "Noted.")
        assert len(fake_openai.requests) == 1  # still the one extraction, unanswered
        assert billing(llm_settings) == ["The billing service runs on Heroku"]
        # 2. the extraction answers; the same-fact question about Heroku is pending
        fake_openai.release()
        fake_openai.latency_s = 600.0  # before this task yields: the question is held too
        assert await anyio.to_thread.run_sync(fake_openai.wait_for_requests, 2)
        question = fake_openai.requests[1].body["messages"][1]["content"]
        assert "<existing>" in question and "Heroku" in question
        assert other_process_writes(llm_settings.database_path)
        during_question = await ingest(client, "My sister Ana lives in Lisbon.", "Nice.")
        assert billing(llm_settings) == ["The billing service runs on Heroku"]
        # 3. the memory is written once the LLM answered, after the other writes
        fake_openai.release()
        await deep_channel_done(host)

    assert first["queued"] and during_extraction["queued"] and during_question["queued"]
    assert [m["category"] for m in during_extraction["fast"]] == ["preference"]
    assert during_question["fast"]
    assert "The billing service runs on Fly.io now" in billing(llm_settings)
    assert len(fake_openai.requests) == 4  # the question, then the two later extractions
    with inspect_database(llm_settings.database_path) as conn:
        written = conn.execute("select count(*) from other_writer").fetchone()[0]
    assert written == 2


async def test_eight_identical_ingests_at_once_store_the_decision_once(
    llm_settings: Settings, clock: FrozenClock, fake_openai: FakeOpenAI
) -> None:
    # each is ruled on before its write transaction and re-checked in it
    async with open_engine(llm_settings, clock) as engine, anyio.create_task_group() as calls:
        for _ in range(8):
            calls.start_soon(engine.ingest, *DECISION)

    with inspect_database(llm_settings.database_path) as conn:
        kept = conn.execute(
            "select count(*) from memories where json_extract(metadata, '$.channel') = 'fast'"
            " and deleted_at is null and superseded_by is null"
        ).fetchone()[0]
        logged = conn.execute("select count(*) from conversation_log").fetchone()[0]
    assert (kept, logged) == (1, 16)  # every exchange logged, the decision stored once
