"""cortex_ingest never waits for an LLM (#25 item 4): it returns after the log write and the fast
channel; the deep channel extracts from the log in the background, and the log is its queue."""

import json
from typing import Any

import anyio.to_thread
import pytest
from mcp import Client

from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import open_engine
from cortex_mcp.engine.host import EngineHost
from cortex_mcp.engine.ingest.channels import profile_text
from cortex_mcp.engine.lifecycle import run_lifecycle
from cortex_mcp.server import build_server
from cortex_mcp.store.sqlite import pick_driver
from tests.background import deep_channel_done
from tests.conftest import FrozenClock, data_of, inspect_database, read_json
from tests.fakes import FakeOpenAI

DECISION = ("We decided to deploy the billing service on Fly.io.", "Good, Fly.io it is.")
EXTRACTED = json.dumps(
    {
        "memories": [
            {"content": "Billing service runs on Fly.io", "category": "project_state"},
            {"content": "User chose Fly.io for deployment", "category": "decision"},
        ]
    }
)

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]


def working(settings: Settings) -> list[str]:
    with inspect_database(settings.database_path) as conn:
        conn.row_factory = pick_driver().module.Row
        rows = conn.execute(
            "select content from memories where layer = 'working' and deleted_at is null"
            " order by seq"
        ).fetchall()
    return [row["content"] for row in rows]


async def ingest(client: Client, user: str, reply: str) -> dict[str, Any]:
    arguments = {"user_message": user, "assistant_message": reply, "session_id": "s-1"}
    return data_of(await client.call_tool("cortex_ingest", arguments))


async def test_ingest_returns_before_a_slow_llm_answers_and_the_deep_memories_follow(
    llm_settings: Settings, clock: FrozenClock, fake_openai: FakeOpenAI
) -> None:
    fake_openai.latency_s = 3.0  # under the provider's timeout: an ingest that waited would get it
    fake_openai.replies.append(EXTRACTED)
    host = EngineHost(llm_settings, clock)
    async with Client(build_server(llm_settings, clock, host=host)) as client:
        result = await ingest(client, *DECISION)
        at_return = working(llm_settings)
        owed = (await read_json(client, "cortex://stats"))["extraction_queue"]
        fake_openai.release()
        await deep_channel_done(host)
        stats = (await read_json(client, "cortex://stats"))["extraction_queue"]
        log = data_of(await client.call_tool("cortex_app_exchanges", {"limit": 5}))

    assert [m["category"] for m in result["fast"]] == ["decision"]  # the fast channel, at once
    assert result["deep"] == [] and result["queued"] is True and result["note"] is None
    assert at_return == [] and owed["pending"] == 1
    assert working(llm_settings) == [
        "Billing service runs on Fly.io",
        "User chose Fly.io for deployment",
    ]
    assert stats["pending"] == 0 and stats["extracted"] == 1 and stats["lag_ms"]["count"] == 1
    (exchange,) = log["exchanges"]  # the browser's extraction log shows both channels
    assert sorted(m["channel"] for m in exchange["memories"]) == ["deep", "deep", "fast"]


async def test_an_exchange_whose_process_died_before_the_deep_channel_ran_is_extracted_later(
    llm_settings: Settings, clock: FrozenClock, fake_openai: FakeOpenAI
) -> None:
    async with open_engine(llm_settings, clock) as engine:  # no background loop: it never ran
        said = await engine.ingest(*DECISION)
    assert said.queued and fake_openai.requests == [] and working(llm_settings) == []

    fake_openai.replies.append(EXTRACTED)
    host = EngineHost(llm_settings, clock)
    async with Client(build_server(llm_settings, clock, host=host)):
        await deep_channel_done(host)

    assert working(llm_settings) == [
        "Billing service runs on Fly.io",
        "User chose Fly.io for deployment",
    ]


async def test_a_deep_channel_cut_off_mid_call_is_taken_again_once_its_claim_runs_out(
    llm_settings: Settings, clock: FrozenClock, fake_openai: FakeOpenAI
) -> None:
    fake_openai.latency_s = 30.0
    host = EngineHost(llm_settings, clock)
    async with Client(build_server(llm_settings, clock, host=host)) as client:
        await ingest(client, *DECISION)
        # the background pass is waiting on the LLM when the server stops
        assert await anyio.to_thread.run_sync(fake_openai.wait_for_requests, 1)
    # the server stopped mid-call: the exchange is still owed, claimed by the pass that died
    with inspect_database(llm_settings.database_path) as conn:
        states = {row[0] for row in conn.execute("select extraction from conversation_log")}
    assert states == {"pending"} and working(llm_settings) == []

    fake_openai.latency_s = 0.0  # the cut-off request stays held: it answers nobody
    fake_openai.replies.append(EXTRACTED)
    clock.advance(minutes=11)
    host = EngineHost(llm_settings, clock)
    async with Client(build_server(llm_settings, clock, host=host)):
        await deep_channel_done(host)

    assert working(llm_settings) == [
        "Billing service runs on Fly.io",
        "User chose Fly.io for deployment",
    ]


async def test_an_ingest_that_replaces_a_profile_fact_does_not_wait_for_the_llm_to_redo_the_profile(
    llm_settings: Settings, clock: FrozenClock, fake_openai: FakeOpenAI
) -> None:
    fake_openai.default_reply = json.dumps({"memories": []})
    host = EngineHost(llm_settings, clock)
    async with Client(build_server(llm_settings, clock, host=host)) as client:
        await ingest(client, "My name is Harry and I live in Tokyo.", "Nice to meet you, Harry.")
        await deep_channel_done(host)
        fake_openai.replies.append(json.dumps({"summary": "Harry lives in Tokyo."}))
        await run_lifecycle(host.engine.runtime)  # the profile now exists, by the LLM
        before = await profile_text(host.engine.runtime, "default") or ""
        asked = len(fake_openai.requests)
        fake_openai.latency_s = 30.0  # far over the provider's timeout: a wait would show
        fake_openai.replies.append(json.dumps({"summary": "Harry lives in Osaka."}))
        with anyio.fail_after(4):  # under the provider's 5 s timeout
            moved = await ingest(client, "Actually, I live in Osaka now.", "Noted.")
        at_return = await profile_text(host.engine.runtime, "default") or ""
        fake_openai.release()
        with anyio.fail_after(10):
            while "Osaka" not in (await profile_text(host.engine.runtime, "default") or ""):
                await host.engine.runtime.passes.wait_beyond(host.engine.runtime.passes.count)

    assert [m["action"] for m in moved["fast"]] == ["superseded"]
    assert before.startswith("Harry lives in Tokyo.") and at_return == before
    assert len(fake_openai.requests) > asked  # the profile was redone, by the LLM, afterwards
