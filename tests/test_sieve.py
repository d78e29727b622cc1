"""cortex_ingest and cortex_flush end to end, with the fake OpenAI server as the LLM."""

import json
import sqlite3
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest
from mcp import Client

from cortex_mcp.config import Settings
from cortex_mcp.engine.host import EngineHost
from cortex_mcp.server import build_server
from cortex_mcp.store.sqlite import pick_driver
from tests.background import deep_channel_done
from tests.conftest import FrozenClock, data_of, inspect_database, read_json, recall, remember
from tests.fakes import FakeOpenAI

EXAMPLE_1 = (
    "帮我算一下品川区这个1LDK的实际利回，表面利回5%，管理费月1.2万",
    "年管理费14.4万，假设房价2000万，实际利回 = (100-14.4)/2000 = 4.28%。"
    "考虑修缮积立金和固定资产税，综合利回约3.8-4.0%。这个区域近3年的成交价中位数是1850-2100万，你的预算在合理范围内。",
    [
        (
            "品川区1LDK投资评估：表面利回5%，管理费月1.2万(年14.4万)，实际利回约4.28%，"
            "综合利回3.8-4.0%(含修缮积立金+固定资产税)",
            "fact",
            0.7,
            "both",
        ),
        ("品川区1LDK近3年成交价中位数1850-2100万日元", "fact", 0.5, "assistant"),
        ("用户正在积极评估品川区投资物件，关注实际利回而非表面利回", "project_state", 0.6, "user"),
    ],
)
EXAMPLE_2 = (
    "Oracle Cloud ARM的iptables一直不生效，重启后规则全丢了",
    "ARM实例用的是nftables不是iptables。用 iptables-persistent 或者直接写 nft 规则到 "
    "/etc/nftables.conf，然后 systemctl enable nftables。"
    "另外注意 Oracle 的 Security List 也要开对应端口。",
    [
        (
            "Oracle Cloud ARM实例使用nftables而非iptables。持久化方案：iptables-persistent 或 "
            "nft规则写入 /etc/nftables.conf + systemctl enable nftables",
            "fact",
            0.7,
            "assistant",
        ),
        (
            "Oracle Cloud除了OS防火墙，还需要在Security List中开放端口（双层防火墙）",
            "fact",
            0.6,
            "assistant",
        ),
        (
            "用户在管理Oracle Cloud ARM VPS，运行中遇到了防火墙配置问题",
            "project_state",
            0.4,
            "user",
        ),
    ],
)
EXAMPLE_4 = (
    "你建议的 Cloudflare Workers 方案太复杂了，我就想要个简单的静态站",
    "明白，那推荐 GitHub Pages + Jekyll，零成本，push 即部署...",
    [
        (
            "用户偏好简单方案，拒绝了Cloudflare Workers认为太复杂。倾向零配置/低复杂度的部署方案",
            "preference",
            0.7,
            "both",
        ),
        ("用户选择了GitHub Pages + Jekyll作为静态站部署方案", "decision", 0.6, "both"),
    ],
)

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]


def extraction_reply(items: list[tuple[str, str, float, str]]) -> str:
    return json.dumps(
        {
            "memories": [
                {"content": c, "category": k, "importance": i, "source": s, "reasoning": "seed"}
                for c, k, i, s in items
            ]
        },
        ensure_ascii=False,
    )


@pytest.fixture
def llm_host(llm_settings: Settings, clock: FrozenClock) -> EngineHost:
    return EngineHost(llm_settings, clock)


@pytest.fixture
async def llm_client(
    llm_settings: Settings, clock: FrozenClock, llm_host: EngineHost
) -> AsyncIterator[Client]:
    async with Client(build_server(llm_settings, clock, host=llm_host)) as connected:
        yield connected


def live_rows(settings: Settings) -> list[sqlite3.Row]:
    with inspect_database(settings.database_path) as conn:
        conn.row_factory = pick_driver().module.Row
        return conn.execute(
            "select * from memories where deleted_at is null and superseded_by is null order by seq"
        ).fetchall()


def prompts_sent(fake: FakeOpenAI) -> list[str]:
    return [m["content"] for r in fake.requests for m in r.body.get("messages", [])]


async def ingest(client: Client, user: str, assistant: str, **extra: Any) -> dict[str, Any]:
    return data_of(
        await client.call_tool(
            "cortex_ingest", {"user_message": user, "assistant_message": assistant, **extra}
        )
    )


@pytest.mark.parametrize(
    "example", [EXAMPLE_1, EXAMPLE_2, EXAMPLE_4], ids=["yield", "oracle", "rejected"]
)
async def test_seed_examples_store_the_memories_the_llm_extracted(
    llm_client: Client,
    llm_host: EngineHost,
    llm_settings: Settings,
    fake_openai: FakeOpenAI,
    example: Any,
) -> None:
    user, assistant, expected = example
    fake_openai.replies.append(extraction_reply(expected))

    result = await ingest(llm_client, user, assistant, session_id="s-1")
    await deep_channel_done(llm_host)

    assert result["fast"] == [] and result["deep"] == [] and result["queued"] is True
    working = [row for row in live_rows(llm_settings) if row["layer"] == "working"]
    assert [(m["content"], m["category"]) for m in working] == [
        (content, category) for content, category, _, _ in expected
    ]
    first_prompt = prompts_sent(fake_openai)[1]
    assert f"<user>{user}</user>" in first_prompt
    assert f"<assistant>{assistant}</assistant>" in first_prompt
    stored = {row["content"]: row for row in live_rows(llm_settings)}
    for content, category, importance, source in expected:
        assert stored[content]["category"] == category  # kept in the user's language, verbatim
        assert stored[content]["importance"] == importance
        assert stored[content]["source"] == source
        assert stored[content]["expires_at"] is not None


async def test_small_talk_stores_nothing_and_makes_no_llm_call(
    llm_client: Client, llm_settings: Settings, fake_openai: FakeOpenAI
) -> None:
    result = await ingest(llm_client, "今天天气真好", "是啊，东京今天晴天，适合出去走走！")

    assert result == {**result, "fast": [], "deep": [], "skipped": "small talk", "queued": False}
    assert fake_openai.requests == []
    assert live_rows(llm_settings) == []


async def test_fast_channel_writes_high_signal_statements_to_core_at_once(
    llm_client: Client, fake_openai: FakeOpenAI
) -> None:
    fake_openai.replies.append('{"memories": []}')

    result = await ingest(
        llm_client, "我是东京的不动产投资者。我喜欢低风险的投资。", "好的，记住了。"
    )

    assert [(m["category"], m["layer"], m["channel"]) for m in result["fast"]] == [
        ("identity", "core", "fast"),
        ("preference", "core", "fast"),
    ]
    found = await recall(llm_client, "投资者")
    assert found["memories"][0]["content"] == "我是东京的不动产投资者。"


async def test_a_fast_channel_memory_is_found_by_the_rest_of_the_message_it_came_from(
    llm_client: Client, llm_settings: Settings, fake_openai: FakeOpenAI
) -> None:
    fake_openai.replies.append('{"memories": []}')
    message = "We finally picked the stack for the billing rewrite. I prefer Rust for it."

    result = await ingest(llm_client, message, "Noted.")
    found = await recall(llm_client, "billing rewrite stack")

    assert [m["content"] for m in result["fast"]] == ["I prefer Rust for it."]
    shown = [m["content"] for m in found["memories"]] + [
        h["content"] for h in found["conversation"]
    ]
    assert shown[:1] in (["I prefer Rust for it."], [message])  # or the message stands for it
    contexts = [json.loads(row["metadata"]).get("context") for row in live_rows(llm_settings)]
    assert contexts == [f"{message}\nNoted."]  # the message, then the other side's words


async def test_a_fast_channel_memory_is_found_by_words_only_the_reply_has(
    llm_client: Client, fake_openai: FakeOpenAI
) -> None:
    fake_openai.replies.append('{"memories": []}')
    reply = "Rust is a sound pick for the billing rewrite: the invoice engine needs it."

    await ingest(llm_client, "I prefer Rust for it.", reply)
    found = await recall(llm_client, "invoice engine")

    assert [m["content"] for m in found["memories"]][:1] == ["I prefer Rust for it."]
    assert [hit["role"] for hit in found["conversation"]] == ["assistant"]  # the reply, as said


async def test_llm_down_logs_the_exchange_owes_it_and_the_retry_extracts_it_from_the_log(
    llm_settings: Settings, clock: FrozenClock, fake_openai: FakeOpenAI
) -> None:
    user, assistant, expected = EXAMPLE_2
    fake_openai.status = 500
    async with Client(build_server(llm_settings, clock)) as client:
        down = await ingest(client, user, assistant, session_id="s-2")
        stats = await read_json(client, "cortex://stats")
        found = await recall(client, "Security List 端口")

    assert down["queued"] is True and down["deep"] == [] and down["logged"] == 2
    assert "fallback" not in down and down["note"] is None  # the provider will retry: no ask
    assert live_rows(llm_settings) == []  # no raw copy among the memories
    assert stats["extraction_queue"]["pending"] == 1
    assert stats["conversation_log"]["messages"] == 2
    assert found["memories"] == [] and found["conversation"][0]["content"] == assistant
    assert "Security List" in found["context"]

    fake_openai.status = 200  # the provider is back; the server restarted in between
    fake_openai.replies.append(extraction_reply(expected))
    clock.advance(hours=1)  # past the retry's backoff
    host = EngineHost(llm_settings, clock)
    async with Client(build_server(llm_settings, clock, host=host)) as client:
        with anyio.fail_after(10):
            await host.engine.runtime.passes.wait_beyond(0)
        after = await read_json(client, "cortex://stats")
        again = await recall(client, "Security List 端口")

    assert after["extraction_queue"]["pending"] == 0
    rows = live_rows(llm_settings)
    assert {row["content"] for row in rows} == {content for content, _, _, _ in expected}
    exchange = {json.loads(row["metadata"])["exchange_id"] for row in rows}
    with inspect_database(llm_settings.database_path) as conn:
        logged = conn.execute(
            "select exchange_id, extraction, memory_ids from conversation_log order by seq"
        ).fetchall()
    assert {row[0] for row in logged} == exchange and {row[1] for row in logged} == {"done"}
    assert set(json.loads(logged[0][2])) == {row["id"] for row in rows}
    assert again["memories"] and again["conversation"] == []  # its memories now stand for it


async def test_a_correction_supersedes_the_old_value_and_keeps_the_chain(
    llm_client: Client, llm_host: EngineHost, llm_settings: Settings, fake_openai: FakeOpenAI
) -> None:
    fake_openai.replies.append(
        extraction_reply([("The apartment budget is 50M yen", "fact", 0.7, "user")])
    )
    await ingest(llm_client, "My budget for the apartment is 50M yen.", "Noted, 50M yen.")
    await deep_channel_done(llm_host)
    fake_openai.replies.append('{"memories": []}')  # the fast channel's rules judge alone

    result = await ingest(llm_client, "Actually, I have not confirmed a budget.", "Understood.")
    await deep_channel_done(llm_host)

    budget = [row for row in live_rows(llm_settings) if "budget" in row["content"]]
    assert [row["content"] for row in budget] == ["Actually, I have not confirmed a budget."]
    assert result["fast"][0]["action"] == "superseded"
    chain = await read_json(llm_client, f"cortex://memory/{result['fast'][0]['id']}")
    assert [link["content"] for link in chain["supersede_chain"]] == [
        "The apartment budget is 50M yen",
        "Actually, I have not confirmed a budget.",
    ]


async def test_without_an_llm_a_correction_still_supersedes_its_closest_neighbour(
    client: Client, settings: Settings
) -> None:
    old = await remember(client, "The apartment budget is 50M yen")

    result = await ingest(client, "Actually, I have not confirmed a budget.", "OK.")

    assert result["fast"][0]["superseded_id"] == old["id"]
    assert result["queued"] is False and result["skipped"] == "no LLM"  # nothing piles up
    top = (await recall(client, "budget"))["memories"][0]
    assert top["content"] == "Actually, I have not confirmed a budget."


async def test_without_an_llm_a_changed_value_is_never_a_duplicate(
    client: Client, settings: Settings
) -> None:
    await remember(client, "The apartment budget is 50M yen")

    await remember(client, "The apartment budget is 30M yen")

    contents = {row["content"] for row in live_rows(settings)}
    assert {"The apartment budget is 50M yen", "The apartment budget is 30M yen"} <= contents


SECRETS = {
    "sk-proj-4fGh7Jk9Lm2Np5Qr8St1Uv3Wx6Yz0AbCdEf": "api_key",
    "hunter2pass": "password",
    "4111 1111 1111 1111": "card_number",
    "abc123def456ghi789jkl": "bearer_token",
}


async def test_secrets_are_redacted_before_storing_and_before_the_llm_sees_them(
    llm_client: Client, llm_host: EngineHost, llm_settings: Settings, fake_openai: FakeOpenAI
) -> None:
    user = (
        "Remember my OpenAI key sk-proj-4fGh7Jk9Lm2Np5Qr8St1Uv3Wx6Yz0AbCdEf"
        " and password=hunter2pass. My card is 4111 1111 1111 1111."
    )
    assistant = "Use it as Authorization: Bearer abc123def456ghi789jkl in the header."
    fake_openai.replies.append(
        extraction_reply([("User stores an OpenAI key [REDACTED:api_key]", "fact", 0.5, "user")])
    )

    result = await ingest(llm_client, user, assistant)
    await deep_channel_done(llm_host)

    assert set(result["redacted"]) == set(SECRETS.values())
    everything = json.dumps([dict(r) for r in live_rows(llm_settings)], ensure_ascii=False)
    everything += "".join(prompts_sent(fake_openai))
    for secret in SECRETS:
        assert secret not in everything
    assert "[REDACTED:password]" in "".join(prompts_sent(fake_openai))


async def test_provenance_is_visible_in_the_memory_resource(
    llm_client: Client, llm_host: EngineHost, llm_settings: Settings, fake_openai: FakeOpenAI
) -> None:
    fake_openai.replies.append(
        extraction_reply([("用户选择了GitHub Pages", "decision", 0.6, "both")])
    )

    result = await ingest(llm_client, "我决定用GitHub Pages。", "好的。", session_id="session-7")
    await deep_channel_done(llm_host)

    fast = await read_json(llm_client, f"cortex://memory/{result['fast'][0]['id']}")
    deep_id = next(r["id"] for r in live_rows(llm_settings) if r["layer"] == "working")
    deep = await read_json(llm_client, f"cortex://memory/{deep_id}")
    assert (fast["source"], fast["metadata"]["channel"], fast["metadata"]["session_id"]) == (
        "user",
        "fast",
        "session-7",
    )
    assert (deep["source"], deep["metadata"]["channel"], deep["metadata"]["session_id"]) == (
        "both",
        "deep",
        "session-7",
    )


def conversation(n: int) -> list[dict[str, str]]:
    return [
        {
            "role": "user" if i % 2 == 0 else "assistant",
            "content": f"message {i} marker-{i:03d} " + "x" * 300,
        }
        for i in range(n)
    ]


async def test_flush_of_200_messages_with_the_llm_up_extracts_every_message(
    llm_client: Client, fake_openai: FakeOpenAI
) -> None:
    fake_openai.default_reply = '{"memories": []}'
    try:
        result = data_of(
            await llm_client.call_tool(
                "cortex_flush", {"messages": conversation(200), "session_id": "long"}
            )
        )
    finally:
        fake_openai.default_reply = "ok"

    assert result["messages"] == 200
    assert result["extracted_messages"] == 200 and result["queued_messages"] == 0
    assert result["batches"] > 1
    sent = "".join(prompts_sent(fake_openai))
    assert all(f"marker-{i:03d}" in sent for i in range(200))
    assert result["summary"] is None  # a chat that ran no tool is no episode (#26)


async def test_flush_of_200_messages_with_the_llm_down_logs_and_owes_every_message(
    llm_client: Client, llm_settings: Settings, fake_openai: FakeOpenAI
) -> None:
    fake_openai.status = 500

    result = data_of(await llm_client.call_tool("cortex_flush", {"messages": conversation(200)}))

    assert result["extracted_messages"] == 0 and result["queued_messages"] == 200
    assert result["logged_messages"] == 200
    with inspect_database(llm_settings.database_path) as conn:
        logged = conn.execute("select content, extraction from conversation_log").fetchall()
    assert len(logged) == 200 and {row[1] for row in logged} == {"pending"}
    text = " ".join(row[0] for row in logged)
    assert all(f"marker-{i:03d}" in text for i in range(200))
    # No pseudo-summary (#23), and no episode: the session ran no tool (#26).
    assert result["summary"] is None


async def test_ingest_and_flush_reject_bad_input_naming_the_field(
    client: Client, settings: Settings
) -> None:
    cases = [
        ("cortex_ingest", {"user_message": "", "assistant_message": ""}, "user_message"),
        ("cortex_ingest", {"user_message": "x" * 32_001}, "user_message: 32,001 characters"),
        ("cortex_ingest", {"user_message": "hi", "tool_calls": "nope"}, "tool_calls"),
        ("cortex_flush", {"messages": []}, "messages"),
        ("cortex_flush", {"messages": [{"role": "robot", "content": "x"}]}, "role"),
        (
            "cortex_flush",
            {"messages": [{"role": "user", "content": "x" * 32_001}]},
            "messages[0].content",
        ),
        ("cortex_flush", {"messages": [{"role": "user", "content": "x"}], "reason": ""}, "reason"),
    ]
    for tool, arguments, expected in cases:
        assert isinstance(arguments, dict)
        result = await client.call_tool(tool, arguments)
        assert result.is_error, (tool, arguments)
        assert expected in result.content[0].text, result.content[0].text  # type: ignore[union-attr]
    assert live_rows(settings) == []
