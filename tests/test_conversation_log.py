"""Without an LLM nothing said is lost or shown twice (#18): the conversation log, recall's last
resort over it, the fast channel through cortex_ingest, the agent asked to extract.

Real MCP sessions (in-process) on real SQLite files, with no LLM and keyword search only unless
a test says so."""

import json
import re
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from mcp import Client

from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import open_engine
from cortex_mcp.engine.ingest import AGENT_NOTE
from cortex_mcp.engine.ingest.backlog import extract_backlog
from cortex_mcp.engine.ingest.log import prune
from cortex_mcp.engine.recall.log import text_key
from cortex_mcp.search.budget import estimate_tokens
from cortex_mcp.server import build_server
from tests.conftest import FrozenClock, data_of, inspect_database, read_json, recall, remember
from tests.fakes import FakeOpenAI

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]


@pytest.fixture
def plain(cortex_home: Path) -> Settings:
    """A plain install without an LLM, searching by keywords only."""
    return Settings.model_validate({"home": cortex_home, "embedding": {"provider": "none"}})


@pytest.fixture
async def plain_client(plain: Settings, clock: FrozenClock) -> AsyncIterator[Client]:
    async with Client(build_server(plain, clock)) as connected:
        yield connected


async def ingest(client: Client, user: str, assistant: str = "OK.", **extra: Any) -> dict[str, Any]:
    arguments = {"user_message": user, "assistant_message": assistant, **extra}
    return data_of(await client.call_tool("cortex_ingest", arguments))


def live(settings: Settings) -> list[tuple[str, dict[str, Any]]]:
    with inspect_database(settings.database_path) as conn:
        rows = conn.execute(
            "select content, metadata from memories"
            " where deleted_at is null and superseded_by is null order by seq"
        ).fetchall()
    return [(content, json.loads(metadata)) for content, metadata in rows]


def logged(settings: Settings) -> list[tuple[str, str, str]]:
    with inspect_database(settings.database_path) as conn:
        return conn.execute(
            "select exchange_id, role, content from conversation_log order by seq"
        ).fetchall()


def block_lines(context: str) -> list[str]:
    """The text of each line of a context block, without its date/layer prefix and id."""
    texts = []
    for line in context.splitlines():
        if line.startswith("- ["):
            text = line.split("] ", 1)[1]
            texts.append(re.sub(r" \(id [0-9a-f-]+\)$", "", text))
    return texts


def assert_nothing_shown_twice(context: str) -> None:
    keys = [text_key(text) for text in block_lines(context)]
    for i, key in enumerate(keys):
        for other in keys[i + 1 :]:
            short, long = sorted((key, other), key=len)
            assert short not in long, context


# Each miss of issue #18 (commit ff54bbd, no key, no extra) through cortex_ingest:
# (user, assistant, a memory that must exist afterwards, its category, its source)
MISSES = [
    ("I'm Dave.", "Nice to meet you, Dave!", "I'm Dave.", "identity", "user"),
    (
        "Hi, I'm Wang Wei. Can you help me plan a trip to Kyoto?",
        "Of course! When are you going?",
        "I'm Wang Wei.",  # without its greeting (#29)
        "identity",
        "user",
    ),
    ("私は田中です", "よろしくお願いします。", "私は田中です", "identity", "user"),
    (
        "Remember that my daughter's birthday is on March 3rd.",
        "Got it.",
        "My daughter's birthday is on March 3rd.",  # without "Remember that" (#29)
        "fact",
        "user",
    ),
    ("我的猫叫咪咪。", "好可爱的名字！", "我的猫叫咪咪。", "relationship", "user"),
    ("以后回答请用中文。", "好的，以后用中文回答。", "以后回答请用中文。", "preference", "user"),
    (
        "I switched from Vim to Helix last week.",
        "Helix is nice.",
        "I switched from Vim to Helix last week.",
        "preference",
        "user",
    ),
    (
        "Can you recap the caching plan?",
        "We decided to use Redis for caching, with a 5 minute TTL.",
        "We decided to use Redis for caching, with a 5 minute TTL.",
        "decision",
        "assistant",
    ),
]


@pytest.mark.parametrize(("user", "assistant", "content", "category", "source"), MISSES)
async def test_each_everyday_statement_the_fast_channel_missed_is_now_kept(
    plain_client: Client,
    plain: Settings,
    user: str,
    assistant: str,
    content: str,
    category: str,
    source: str,
) -> None:
    result = await ingest(plain_client, user, assistant)

    stored = [(m["content"], m["category"], m["source"]) for m in result["fast"]]
    assert (content, category, source) in stored
    assert [c for c, _ in live(plain)] == [m["content"] for m in result["fast"]]  # no raw copy
    assert result["logged"] == 2 and result["queued"] is False


async def test_a_name_is_recalled_once_and_above_everything_else(plain_client: Client) -> None:
    await ingest(plain_client, "I'm Dave.", "Nice to meet you, Dave!")
    await ingest(plain_client, "I'm Dave. I work on the billing service.", "Noted, Dave.")

    found = await recall(plain_client, "Dave")

    assert found["memories"][0]["content"].startswith("I'm Dave.")
    assert_nothing_shown_twice(found["context"])


async def test_a_question_asked_again_is_answered_not_echoed(plain_client: Client) -> None:
    # found driving the prompt hook: the question asked in an earlier session came back first
    await ingest(plain_client, "Which database did we pick for billing?", "Let me check the notes.")
    await ingest(plain_client, "Ok.", "We picked PostgreSQL 16 for the billing database.")

    found = await recall(plain_client, "which database did we pick for billing?")

    said = [line["content"] for line in found["conversation"]]
    shown = said + [m["content"] for m in found["memories"]]
    assert "We picked PostgreSQL 16 for the billing database." in shown
    assert "Which database did we pick for billing?" not in said


async def test_a_statement_the_query_quotes_is_still_found(plain_client: Client) -> None:
    # only a question asked again is left out, not what the query repeats word for word
    await ingest(plain_client, "Which cache do we use?", "Redis 7 with a 10 minute TTL.")

    found = await recall(plain_client, "Redis 7 with a 10 minute TTL")

    said = [line["content"] for line in found["conversation"]]
    shown = said + [m["content"] for m in found["memories"]]
    assert "Redis 7 with a 10 minute TTL." in shown


async def test_switching_tools_supersedes_the_old_preference(plain_client: Client) -> None:
    old = (await ingest(plain_client, "I use Vim.", "Classic."))["fast"][0]

    new = (await ingest(plain_client, "I switched from Vim to Helix last week.", "Nice."))["fast"]

    assert new[0]["superseded_id"] == old["id"]
    found = await recall(plain_client, "editor Vim Helix")
    assert [m["content"] for m in found["memories"]] == ["I switched from Vim to Helix last week."]


async def test_switching_the_ci_named_by_its_kind_supersedes_the_old_one(
    plain_client: Client,
) -> None:
    # noticed trying the product: "the CI" was no thing a switch could name, nothing was stored
    old = (await ingest(plain_client, "Our CI uses Jenkins.", "OK."))["fast"][0]

    said = "we switched the CI from Jenkins to GitHub Actions last week."
    new = (await ingest(plain_client, said, "Nice."))["fast"]

    assert [m["content"] for m in new] == [
        "We switched the CI from Jenkins to GitHub Actions last week."
    ]
    assert new[0]["superseded_id"] == old["id"]


async def test_what_one_project_uses_replaces_nothing_of_another_s(plain_client: Client) -> None:
    # found trying the product: the billing API's switch to CircleCI superseded the mobile
    # app's GitHub Actions (slot uses:ci), and a recall in the mobile app found no CI at all
    async def said(message: str, project: str) -> dict[str, Any]:
        answer = await plain_client.call_tool(
            "cortex_ingest",
            {"user_message": message, "assistant_message": "OK.", "project": project},
        )
        return dict(data_of(answer)["fast"][0])

    mobile = await said("we switched the CI from Jenkins to GitHub Actions last month", "mobile")
    billing = await said("We switched the CI from Jenkins to CircleCI.", "billing")
    later = await said("Our CI uses Buildkite now.", "billing")

    assert billing["action"] == "created" and billing.get("superseded_id") is None
    assert later["superseded_id"] == billing["id"]
    found = await plain_client.call_tool(
        "cortex_recall", {"query": "which CI", "project": "mobile"}
    )
    assert mobile["id"] in str(found.structured_content)


async def test_a_project_s_change_within_one_flush_supersedes_what_it_said_before(
    plain_client: Client,
) -> None:
    # review of the per-project slots: a flush files what it stored under its project when it
    # ends, so its second statement must still find the first, not filed yet
    messages = [
        {"role": "user", "content": "Our CI uses Jenkins."},
        {"role": "assistant", "content": "OK."},
        {"role": "user", "content": "We switched the CI from Jenkins to CircleCI."},
        {"role": "assistant", "content": "Noted."},
    ]
    await plain_client.call_tool(
        "cortex_flush", {"messages": messages, "session_id": "f1", "project": "billing"}
    )

    found = await recall(plain_client, "which CI", project="billing")
    shown = [m["content"] for m in found["memories"]]
    assert "We switched the CI from Jenkins to CircleCI." in shown
    assert "Our CI uses Jenkins." not in shown


async def test_fifty_ingests_without_a_provider_leave_no_queue_and_a_complete_log(
    plain_client: Client, plain: Settings
) -> None:
    for i in range(50):
        await ingest(plain_client, f"Step {i}: the parser now handles case-{i}.", f"Done {i}.")

    stats = await read_json(plain_client, "cortex://stats")

    assert stats["extraction_queue"]["pending"] == 0
    assert stats["conversation_log"]["messages"] == 100
    assert stats["conversation_log"]["exchanges"] == 50
    rows = logged(plain)
    assert [content for _, role, content in rows if role == "user"] == [
        f"Step {i}: the parser now handles case-{i}." for i in range(50)
    ]
    assert live(plain) == []  # nothing raw among the memories


async def test_a_600_message_flush_without_an_llm_finds_every_user_message_afterwards(
    plain_client: Client, plain: Settings
) -> None:
    messages = []
    for i in range(300):
        messages.append(
            {"role": "user", "content": f"Turn {i}: the zq{i:03d}marker check fails. " + "x" * 60}
        )
        messages.append({"role": "assistant", "content": f"Looking at turn {i}. " + "y" * 300})
    result = data_of(await plain_client.call_tool("cortex_flush", {"messages": messages}))

    assert result["logged_messages"] == 600 and result["queued_messages"] == 0
    assert len(logged(plain)) == 600  # one row each: no message is cut
    for i in range(300):
        found = await recall(plain_client, f"zq{i:03d}marker")
        # Shown once: from the log, or in the session summary (first and last message).
        assert messages[2 * i]["content"] in found["context"], (i, found["context"])
        said = [hit["content"] for hit in found["conversation"]]
        assert said[:1] == [messages[2 * i]["content"]] or i in (0, 299)


async def test_an_assistant_quoting_recalled_memories_stores_no_second_copy(
    plain_client: Client, plain: Settings
) -> None:
    await remember(plain_client, "The user's name is Dave and he lives in Leeds")
    await remember(plain_client, "Dave prefers short answers without emojis")
    await ingest(plain_client, "We decided to use Redis for caching, with a 5 minute TTL.")
    block = (await recall(plain_client, "Dave Leeds answers Redis"))["context"]
    before = live(plain)

    await ingest(plain_client, "Sounds good.", f"Here is what I remember:\n{block}")

    assert len(before) == 3 and live(plain) == before
    again = await recall(plain_client, "Dave Leeds answers Redis")
    assert again["conversation"] == []
    assert_nothing_shown_twice(again["context"])
    for content, _ in before:
        assert again["context"].count(content) == 1


async def test_a_memory_and_the_message_it_came_from_are_never_both_shown(
    plain_client: Client,
) -> None:
    await ingest(
        plain_client,
        "I'm Dave. The quarterly numbers for Northwind look weak.",
        "Noted, Dave. Northwind revenue dropped 12% quarter on quarter.",
    )

    by_memory = await recall(plain_client, "Dave")
    by_both = await recall(plain_client, "Dave Northwind quarterly numbers")
    by_log = await recall(plain_client, "revenue dropped")

    # the memory answers all the question asks: it stands for the message it came from
    assert by_memory["memories"][0]["content"] == "I'm Dave."
    assert all("quarterly" not in hit["content"] for hit in by_memory["conversation"])
    # the message says more than the memory taken from it: it stands for the memory (#23)
    assert [m["content"] for m in by_both["memories"]] == []
    assert by_both["conversation"][0]["content"].startswith("I'm Dave. The quarterly")
    for found in (by_memory, by_both, by_log):
        assert_nothing_shown_twice(found["context"])
    assert [hit["role"] for hit in by_log["conversation"]] == ["assistant"]
    assert "Said in earlier conversations" in by_log["context"]


async def test_forget_hides_the_words_a_memory_came_from_and_restore_brings_them_back(
    plain_client: Client, plain: Settings
) -> None:
    stored = (await ingest(plain_client, "I'm Dave.", "Welcome, Dave from the Leeds office."))[
        "fast"
    ][0]
    assert (await recall(plain_client, "Leeds office"))["conversation"]

    data_of(await plain_client.call_tool("cortex_forget", {"memory_id": stored["id"]}))
    hidden = await recall(plain_client, "Leeds office")
    data_of(await plain_client.call_tool("cortex_restore", {"memory_id": stored["id"]}))
    shown = await recall(plain_client, "Leeds office")

    assert hidden["conversation"] == [] and "Leeds" not in hidden["context"]
    with inspect_database(plain.database_path) as conn:
        rows = conn.execute("select role, deleted_at, memory_ids from conversation_log").fetchall()
        mems = conn.execute("select content, deleted_at, superseded_by from memories").fetchall()
    assert [hit["role"] for hit in shown["conversation"]] == ["assistant"], (rows, mems, shown)


async def test_a_superseded_value_never_comes_back_through_the_log(plain_client: Client) -> None:
    await ingest(plain_client, "I live in Shanghai. I love the food there.", "Nice.")
    await ingest(plain_client, "Actually I moved to Hangzhou, I no longer live in Shanghai.", "OK")

    found = await recall(plain_client, "love the food")

    assert "I live in Shanghai" not in found["context"]


async def test_without_an_llm_the_agent_is_asked_once_to_save_what_patterns_did_not_take(
    plain_client: Client,
) -> None:
    untaken = await ingest(
        plain_client,
        "The Q3 report goes to the board on the 14th and Lisa owns the appendix.",
        "Understood.",
    )
    taken = await ingest(plain_client, "I'm Dave.", "Hi Dave.")
    small_talk = await ingest(plain_client, "Thanks!", "You're welcome.")
    # found trying the product: each of these asked the agent for a pointless cortex_remember
    chatter = [
        await ingest(plain_client, said, "Great!")
        for said in ("sounds good", "lol true", "thanks, that's all for today", "bye, talk later")
    ]
    short = await ingest(plain_client, "We ship Thursdays.", "OK.")  # short, but a fact

    assert untaken["note"] == AGENT_NOTE and untaken["skipped"] == "no LLM"
    assert taken["note"] is None and small_talk["note"] is None
    assert [result["note"] for result in chatter] == [None, None, None, None]
    assert short["note"] == AGENT_NOTE
    # What it adds to a call's result, counted as recall counts tokens: 19 (docs/benchmarks.md).
    assert estimate_tokens(json.dumps({"note": AGENT_NOTE})) <= 24


async def test_the_server_instructions_ask_the_agent_to_extract_when_no_llm_does(
    plain: Settings,
) -> None:
    async with Client(build_server(plain)) as client:
        instructions = client.instructions or ""
    assert "cortex_remember" in instructions and "no LLM" in instructions


@pytest.mark.sqlite_only  # a second store at another home: one PostgreSQL database here
async def test_the_log_is_not_memory_md_and_an_export_round_trip_makes_no_memory_of_it(
    plain_client: Client, plain: Settings, tmp_path: Path, clock: FrozenClock
) -> None:
    await ingest(plain_client, "I'm Dave.", "Welcome! The zebra-crossing sensor is on pin 7.")
    markdown = data_of(await plain_client.call_tool("cortex_lifecycle", {"action": "run"}))
    assert markdown is not None
    memory_md = (plain.home / "MEMORY.md").read_text(encoding="utf-8")
    async with open_engine(plain, clock) as engine:
        exported = await engine.export_memory("markdown")
    path = tmp_path / "export.md"
    path.write_text(exported, encoding="utf-8")
    other = Settings.model_validate({"home": tmp_path / "other", "embedding": {"provider": "none"}})
    async with open_engine(other, clock) as engine:
        await engine.import_memory(path)

    assert "zebra-crossing" not in memory_md and "zebra-crossing" not in exported
    assert [content for content, _ in live(other)] == ["I'm Dave."]


async def test_retention_erases_old_messages_and_keeping_is_the_default(
    cortex_home: Path, clock: FrozenClock
) -> None:
    keep = Settings.model_validate({"home": cortex_home, "embedding": {"provider": "none"}})
    async with open_engine(keep, clock) as engine:
        await engine.ingest("The zq-old note.", "OK.")
        clock.advance(days=400)
        assert await prune(engine.runtime) == 0
    week = keep.model_copy(
        update={"sieve": keep.sieve.model_copy(update={"conversation_retention_days": 7})}
    )
    async with open_engine(week, clock) as engine:
        await engine.ingest("The zq-new note.", "OK.")
        erased = await prune(engine.runtime)
        found = await engine.recall("zq-old zq-new")

    assert erased == 2
    assert [hit.content for hit in found.conversation] == ["The zq-new note."]


@hypothesis_settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    exchanges=st.lists(
        st.tuples(
            st.sampled_from(
                [
                    "I'm Dave.",
                    "I live in Leeds.",
                    "My cat is called Mimi.",
                    "The Leeds office opens at nine.",
                    "我叫王伟，住在上海。",
                    "私は田中です。",
                    "Thanks!",
                    "What's my name?",
                    "We decided to use Redis for caching.",
                ]
            ),
            st.sampled_from(["OK.", "quote", "Noted: Mimi the cat and the Leeds office."]),
        ),
        min_size=1,
        max_size=8,
    ),
    query=st.sampled_from(["Dave", "Leeds", "Mimi cat", "王伟 上海", "田中", "Redis caching"]),
)
async def test_no_context_block_ever_shows_the_same_text_twice(
    tmp_path_factory: pytest.TempPathFactory,
    exchanges: list[tuple[str, str]],
    query: str,
) -> None:
    home = tmp_path_factory.mktemp("property")
    settings = Settings.model_validate({"home": home, "embedding": {"provider": "none"}})
    async with open_engine(settings, FrozenClock()) as engine:
        for user, reply in exchanges:
            if reply == "quote":
                reply = "From memory:\n" + (await engine.recall(query)).context
            await engine.ingest(user, reply)
        found = await engine.recall(query)

    assert_nothing_shown_twice(found.context)
    assert len({text_key(hit.content) for hit in found.conversation}) == len(found.conversation)


async def test_whats_my_name_is_answered_by_the_name_not_the_cat_on_keywords_only(
    plain_client: Client,
) -> None:
    await ingest(plain_client, "I'm Dave.", "Hi Dave!")
    await ingest(plain_client, "My cat's name is Mimi.", "Cute!")

    for question in ("What's my name?", "我叫什么名字？", "私の名前は何ですか"):
        found = await recall(plain_client, question)
        assert found["memories"][0]["content"] == "I'm Dave.", question


async def test_a_relation_the_question_names_is_answered_before_the_others(
    plain_client: Client,
) -> None:
    # noticed trying the product: "what's my wife's name?" answered "My daughter is Mia." first
    # (every person slot newest first), and a name typed in lowercase was kept lowercase
    said = await ingest(plain_client, "i'm married to Sofia and we have a daughter, Mia.", "Nice!")
    name = await ingest(plain_client, "my name is carlos", "Hi!")

    assert [m["content"] for m in said["fast"]] == ["I'm married to Sofia.", "My daughter is Mia."]
    assert [m["content"] for m in name["fast"]] == ["My name is Carlos"]
    for question, first in [
        ("what's my wife's name?", "I'm married to Sofia."),
        ("who am I married to?", "I'm married to Sofia."),
        ("what is my daughter called?", "My daughter is Mia."),
        ("whats my daughters name", "My daughter is Mia."),
        ("What's my name?", "My name is Carlos"),
    ]:
        found = await recall(plain_client, question)
        assert found["memories"][0]["content"] == first, question


async def test_a_spouse_named_twice_is_one_memory(plain_client: Client) -> None:
    # found trying the product: "My wife is Priya." was stored beside "My spouse is Priya.", and
    # the session-start digest showed both
    married = (await ingest(plain_client, "I'm married to Priya.", "Congrats!"))["fast"][0]
    wife = (await ingest(plain_client, "my wife's name is Priya", "Nice."))["fast"][0]
    again = (await ingest(plain_client, "I am married to Priya.", "Yes."))["fast"]

    assert wife["superseded_id"] == married["id"]
    assert [(m["action"], m["id"]) for m in again] == [("duplicate", wife["id"])]
    found = await recall(plain_client, "who is my wife?")
    assert [m["content"] for m in found["memories"]][:1] == ["My wife's name is Priya"]


async def test_a_line_a_later_correction_replaced_is_not_shown_beside_it(
    plain_client: Client,
) -> None:
    # found trying the product: "what port is staging on again?" got the correction and,
    # beside it, the older line still saying 8080
    await ingest(plain_client, "staging runs on port 8080, the healthcheck is /healthz", "OK.")
    await ingest(plain_client, "The healthcheck of staging answers in 40 ms.", "Good.")
    said = "actually the staging port is 8443 not 8080, ops moved it behind tls"
    fixed = (await ingest(plain_client, said, "Noted."))["fast"]

    found = await recall(plain_client, "what port is staging on again? healthcheck")

    assert [m["content"] for m in fixed] == [
        "Actually the staging port is 8443 not 8080, ops moved it behind tls"
    ]
    shown = [m["content"] for m in found["memories"]]
    lines = [line["content"] for line in found["conversation"]]
    assert any("8443" in text for text in shown + lines)
    assert not any("port 8080" in line for line in lines), lines
    assert any("40 ms" in line for line in lines), lines  # what no correction touched stays


async def test_owed_extractions_drain_from_the_log_a_bounded_batch_a_pass(
    llm_settings: Settings, clock: FrozenClock, fake_openai: FakeOpenAI
) -> None:
    fake_openai.status = 500
    async with open_engine(llm_settings, clock, environ={}) as engine:
        for i in range(25):
            owed = await engine.ingest(f"The zq{i} service moved to the new cluster.", "OK.")
            assert owed.queued and owed.note is None  # a provider will retry: nothing asked
        fake_openai.status = 200
        fake_openai.default_reply = '{"memories": []}'
        try:
            first = await extract_backlog(engine.runtime)
            waiting = (await engine.stats())["extraction_queue"]["pending"]
            second = await extract_backlog(engine.runtime)
            after = (await engine.stats())["extraction_queue"]["pending"]
        finally:
            fake_openai.default_reply = "ok"

    assert (first, waiting, second, after) == (20, 5, 5, 0)


async def test_exchanges_logged_without_an_llm_are_extracted_once_a_provider_is_configured(
    plain: Settings, fake_openai: FakeOpenAI, clock: FrozenClock, sdks_imported: None
) -> None:
    async with open_engine(plain, clock, {}) as engine:
        for i in range(3):
            await engine.ingest(f"We benchmarked parser {i} on the zq{i}corpus.", "Noted.")
        assert (await engine.stats())["extraction_queue"]["waiting_for_an_llm"] == 3
        assert await extract_backlog(engine.runtime) == 0  # nothing can drain it: nothing is asked
    llm = {"provider": "openai", "base_url": fake_openai.url, "api_key": "test", "timeout_s": 5}
    later = Settings.model_validate(
        {"home": plain.home, "embedding": {"provider": "none"}, "llm": llm}
    )
    facts = ["Ada benchmarked the lexer", "Bob profiled the cache", "Cy rewrote the planner"]
    for fact in facts:  # unlike each other: no update judgement asks the LLM in between
        reply = {"memories": [{"content": fact, "category": "fact"}]}
        fake_openai.replies.append(json.dumps(reply))
    async with open_engine(later, clock, {}) as engine:
        assert await extract_backlog(engine.runtime) == 3
        stats = await engine.stats()

    assert stats["extraction_queue"]["waiting_for_an_llm"] == 0
    stored = {content for content, _ in live(plain)}
    assert set(facts) <= stored


async def test_a_line_naming_a_replaced_name_by_its_longer_form_is_not_shown(
    plain_client: Client,
) -> None:
    # found trying the product: "the billing DB is MySQL 8, not Postgres" came back with the
    # older line "for this repo the billing DB is PostgreSQL 14." beside it
    await ingest(plain_client, "for this repo the billing DB is PostgreSQL 14.", "OK.")
    said = "And the billing DB is MySQL 8, not Postgres, I misremembered"
    fixed = (await ingest(plain_client, said, "Thanks."))["fast"]

    found = await recall(plain_client, "which database does billing use?")

    assert [m["content"] for m in fixed] == [
        "The billing DB is MySQL 8, not Postgres, I misremembered."
    ]
    lines = [line["content"] for line in found["conversation"]]
    assert not any("PostgreSQL 14" in line for line in lines), lines


async def test_a_line_a_chinese_correction_replaced_is_not_shown_beside_it(
    plain_client: Client,
) -> None:
    # found re-testing (retest14 D3): after "不对，我们的数据库是PostgreSQL，不是MySQL" the
    # prompt hook still injected the older "我们的数据库是MySQL" line beside the correction
    await ingest(plain_client, "我们这个项目的数据库是MySQL，部署在阿里云上。", "好的。")
    said = "不对，我们的数据库是PostgreSQL，不是MySQL。"
    fixed = (await ingest(plain_client, said, "明白了。"))["fast"]

    found = await recall(plain_client, "我们的数据库是什么？")

    assert fixed, fixed
    shown = [m["content"] for m in found["memories"]]
    lines = [line["content"] for line in found["conversation"]]
    assert any("PostgreSQL" in text for text in shown + lines), (shown, lines)
    assert not any("MySQL，部署" in line for line in lines), lines


async def test_an_owed_extraction_is_dated_when_its_exchange_was_said(
    llm_settings: Settings, clock: FrozenClock, fake_openai: FakeOpenAI
) -> None:
    """Retest16: the background extraction of an exchange dated its working memories at the
    extraction, so a spooled exchange replayed days later landed on the replay's day."""
    said = clock.now - timedelta(days=3)
    fake_openai.status = 500
    async with open_engine(llm_settings, clock, environ={}) as engine:
        owed = await engine.ingest("We moved the zq7 service.", "OK.", said_at=said)
        assert owed.queued
        fake_openai.status = 200
        reply = {"memories": [{"content": "The zq7 service moved clusters", "category": "fact"}]}
        fake_openai.replies.append(json.dumps(reply))
        assert await extract_backlog(engine.runtime) == 1
        found = await engine.recall("zq7 service moved clusters")

    assert [m.created_at for m in found.memories if m.layer == "working"] == [said], found
