"""The relevance floor (#23): recall answers nothing rather than something unrelated; and the
fusion of memories and log messages, on real dialogue.

The dialogue is the start of LoCoMo dev conversation conv-26 (session 1, 8 May 2023), sent
through `cortex_ingest` two turns an exchange as bench/locomo_paths.py does; the foreign
questions are conv-30's, asked of this store (the floor figure of docs/benchmarks.md). Real
MCP sessions on real SQLite files, keyword search only (a plain install without vectors)."""

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import Engine, open_engine
from cortex_mcp.engine.recall.block import CONTEXT_EMPTY
from cortex_mcp.models import RememberResult
from cortex_mcp.server import build_server
from tests.conftest import FrozenClock, data_of, recall, remember

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]

SESSION = [
    "Caroline: Hey Mel! Good to see you! How have you been?",
    "Melanie: Hey Caroline! Good to see you! I'm swamped with the kids & work. What's up with"
    " you? Anything new?",
    "Caroline: I went to a LGBTQ support group yesterday and it was so powerful.",
    "Melanie: Wow, that's cool, Caroline! What happened that was so awesome? Did you hear any"
    " inspiring stories?",
    "Caroline: The transgender stories were so inspiring! I was so happy and thankful for all"
    " the support.",
    "Melanie: Wow, love that painting! So cool you found such a helpful group. What's it done"
    " for you?",
    "Caroline: The support group has made me feel accepted and given me courage to embrace myself.",
    "Melanie: That's really cool. You've got guts. What now?",
    "Caroline: Gonna continue my edu and check out career options, which is pretty exciting!",
    "Melanie: Wow, Caroline! What kinda jobs are you thinkin' of? Anything that stands out?",
    "Caroline: I'm keen on counseling or working in mental health - I'd love to support those"
    " with similar issues.",
    "Melanie: You'd be a great counselor! Your empathy and understanding will really help the"
    " people you work with. By the way, take a look at this.",
]
OWN = {  # conv-26's questions whose evidence is in this session → an evidence turn
    "When did Caroline go to the LGBTQ support group?": SESSION[2],
    "What LGBTQ+ events has Caroline participated in?": SESSION[2],
    "What is Caroline's identity?": SESSION[4],
}
FOREIGN = [  # conv-30's questions (Jon and Gina): nothing of this store answers them. (Not
    # "When Jon has lost his job as a banker?": "kinda jobs" holds a quarter of it, and a
    # quarter passes the floor: a higher one cost recall on the dev set.)
    "When Gina has lost her job at Door Dash?",
    "What do Jon and Gina both have in common?",
    "Why did Jon decide to start his dance studio?",
]


@pytest.fixture
def plain(cortex_home: Path) -> Settings:
    return Settings.model_validate({"home": cortex_home, "embedding": {"provider": "none"}})


@pytest.fixture
def local(cortex_home: Path) -> Settings:
    """The local embedder, no LLM."""
    return Settings.model_validate(
        {
            "home": cortex_home,
            "llm": {"provider": "none"},
            "embedding": {"provider": "local", "timeout_s": 300},
        }
    )


@pytest.fixture
async def said(plain: Settings) -> AsyncIterator[Client]:
    """conv-26's first session, sent through cortex_ingest on its own day."""
    clock = FrozenClock(datetime(2023, 5, 8, 13, 56, tzinfo=UTC))
    async with Client(build_server(plain, clock)) as client:
        for start in range(0, len(SESSION), 2):
            arguments = {
                "user_message": SESSION[start],
                "assistant_message": SESSION[start + 1],
                "session_id": "conv-26-session-1",
            }
            data_of(await client.call_tool("cortex_ingest", arguments))
        yield client


async def embedded(engine: Engine, *texts: str) -> list[RememberResult]:
    """Remember each text, then embed them all (the back-fill to its end)."""
    stored = [await engine.remember(text) for text in texts]
    while await engine.vectors.backfill():
        pass
    return stored


def texts(found: dict[str, Any]) -> list[str]:
    """What an answer shows, memories and log lines, in the order of their scores."""
    items = [*found["memories"], *found["conversation"]]
    return [item["content"] for item in sorted(items, key=lambda item: -item["score"])]


async def test_questions_about_other_people_get_nothing_from_this_conversation(
    said: Client,
) -> None:
    for question in FOREIGN:
        found = await recall(said, question)
        assert found["memories"] == [] and found["conversation"] == [], question
        assert found["context"] == CONTEXT_EMPTY


async def test_its_own_questions_still_find_the_turn_that_answers_in_the_first_three(
    said: Client,
) -> None:
    for question, evidence in OWN.items():
        found = await recall(said, question)
        assert evidence in texts(found)[:3], question


async def test_an_unrelated_question_to_a_store_with_relevant_memories_gets_nothing(
    plain: Settings, clock: FrozenClock
) -> None:
    async with Client(build_server(plain, clock)) as client:
        for text in (
            "My dog Rex loves the beach at Whitby.",
            "I work as a nurse at the city hospital.",
            "We decided to use PostgreSQL for the billing service.",
        ):
            await remember(client, text)

        unrelated = await recall(client, "Which beach hotel did Caroline book for the conference?")
        related = await recall(client, "Where does my dog like to go?")

    assert unrelated["memories"] == [] and unrelated["context"] == CONTEXT_EMPTY
    assert related["memories"][0]["content"] == "My dog Rex loves the beach at Whitby."


async def test_with_the_floor_off_the_same_question_gets_the_nearest_memory(
    cortex_home: Path, clock: FrozenClock
) -> None:
    settings = Settings.model_validate(
        {"home": cortex_home, "embedding": {"provider": "none"}, "search": {"floor_coverage": 0}}
    )
    async with Client(build_server(settings, clock)) as client:
        await remember(client, "My dog Rex loves the beach at Whitby.")
        found = await recall(client, "Which beach hotel did Caroline book for the conference?")

    assert [m["content"] for m in found["memories"]] == ["My dog Rex loves the beach at Whitby."]


ACKNOWLEDGED = [
    ("For this repo we decided to use pytest, not unittest.", "Got it."),
    ("Our pytest fixtures live in tests/conftest.py.", "Noted!"),
    ("我们的 pytest 配置在 pyproject.toml 里。", "好的。"),
]


async def test_an_acknowledgement_is_never_shown_for_a_question_it_shares_no_word_with(
    local: Settings, clock: FrozenClock
) -> None:
    """Found trying the product with the local model: "which test framework do we use?"
    answered the decision, then the assistant's "Got it.", "Ha, siblings!" and "哈哈。" from the
    log (their vectors sit near any question: "Got it." 0.789). A line of under three words
    that shares no word with the question says nothing to it."""
    async with open_engine(local, clock, {}) as engine:
        for user, reply in ACKNOWLEDGED:
            await engine.ingest(user, reply)
        while await engine.vectors.backfill():
            pass
        found = await engine.recall("which test framework do we use?", max_results=10)
        asked = await engine.recall("Did you say noted?", max_results=10)

    shown = [m.content for m in found.memories] + [hit.content for hit in found.conversation]
    assert "For this repo we decided to use pytest, not unittest." in shown
    assert not {reply for _, reply in ACKNOWLEDGED} & set(shown), shown
    assert "Noted!" in [hit.content for hit in asked.conversation], "it shares a word: it shows"


async def test_a_memory_only_its_vector_found_under_the_floor_does_not_pad_the_answer(
    local: Settings, clock: FrozenClock
) -> None:
    """Found trying the product with the local model: "which test framework do we use?"
    answered the pytest decision, then "I work as a data analyst.", "I work at Globex." and "I
    live in Berlin." (cosines 0.79 and under: the nearest of unrelated things)."""
    async with open_engine(local, clock, {}) as engine:
        await embedded(
            engine,
            "For this repo we decided to use pytest, not unittest.",
            "I live in Berlin.",
            "I work at Globex.",
            "I work as a data analyst.",
        )
        found = await engine.recall("which test framework do we use?", max_results=10)
        where = await engine.recall("Which city do I live in?", max_results=10)

    assert [m.content for m in found.memories] == [
        "For this repo we decided to use pytest, not unittest."
    ]
    assert where.memories[0].content == "I live in Berlin."


async def test_a_question_worded_unlike_every_memory_keeps_its_nearest_under_the_floor(
    local: Settings, clock: FrozenClock
) -> None:
    """Found by the natural questions (a CI run): "any foods I must avoid?" shares no word with
    "I'm allergic to peanuts." (cosine 0.8097, just under the floor), and the answer stood on
    "Please keep answers short, no emojis." (0.834), so the per-memory floor dropped the one
    memory that answers. Only beside what the question's own words found is a memory under the
    floor the nearest of unrelated things."""
    async with open_engine(local, clock, {}) as engine:
        await embedded(
            engine,
            "I'm allergic to peanuts.",
            "Please keep answers short, no emojis.",
            "I work as a nurse at the city hospital.",
            "The Wi-Fi password rotates monthly.",
        )
        found = await engine.recall("any foods I must avoid?", max_results=3)

    assert "I'm allergic to peanuts." in [m.content for m in found.memories]


async def test_only_what_the_question_asked_for_gains_a_recall_count(
    local: Settings, clock: FrozenClock
) -> None:
    """Found by the natural questions (a CI run that failed one time in five): a memory near
    every question ("以后回答请用中文。") padded each answer, gained a recall count from each
    (access boost 1.5 after ten), and then outranked the memory that answered
    ("服务器部署在新加坡的阿里云上。" for 我们的机器放在哪里). A memory only its vector found
    gains no count; one the question's words found does."""
    async with open_engine(local, clock, {}) as engine:
        instruction, asked, *_ = await embedded(
            engine,
            "以后回答请用中文。",
            "我们决定用PostgreSQL，不用MongoDB。",
            "我住在杭州。",
            "我在腾讯做后端开发。",
            "我的猫叫咪咪。",
        )
        padded = 0
        questions = ("我们的机器放在哪里", "我们用什么数据库", "我们的项目叫什么", "我们周几开会")
        for question in questions:
            found = await engine.recall(question, max_results=3)
            padded += instruction.id in [m.id for m in found.memories]
        debug = await engine.search_debug("我们 以后回答请用中文")

    counts = {hit.memory.id: hit.memory.access_count for hit in debug.candidates}
    assert padded >= 2, "the instruction must pad answers for this test to say anything"
    assert counts[instruction.id] == 0
    assert counts[asked.id] == 4
