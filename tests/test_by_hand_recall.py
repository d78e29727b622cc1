"""Recall of turns stored by hand (#23): findings from LoCoMo dev conversations stored turn by
turn with `cortex_remember`, each a short excerpt of the real dialogue.

Real in-process MCP sessions on real SQLite files (and PostgreSQL), no LLM; the ranking test
with the local embedder, as the bench stores them."""

from pathlib import Path

import pytest
from mcp import Client

from cortex_mcp.config import Settings
from cortex_mcp.engine.host import EngineHost
from cortex_mcp.engine.language.patterns import _ENDS_ASKING, ends_asking
from cortex_mcp.server import build_server
from tests.conftest import FrozenClock, recall, remember
from tests.engine.test_paraphrases import needs_vectors, passes
from tests.test_same_fact import live_contents

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]

# conv-42, D8:18 and D20:10: the second holds the answer to "Why is Joanna experimenting with
# dairy-free options in her dessert recipes?"; both state the diet slot "lactose intolerant".
LACTOSE = "Joanna: Sure! I'm lactose intolerant, so I'll just need the dairy-free recipe!"
SAYS_MORE = (
    "Joanna: Yeah, since I'm lactose intolerant I'm trying out dairy-free options like coconut"
    " or almond milk instead. It's been a fun challenge seeing how to make yummy treats that suit"
    " everyone's diets. I even made these dairy-free chocolate coconut cupcakes with raspberry"
    " frosting."
)

# conv-26, D12:3-D12:7: Caroline's question outranked Melanie's answer for "Why did Melanie
# choose to use colors and patterns in her pottery project?"
POTTERY = [
    "Caroline: Sure thing, Melanie! Can't wait to see your pottery project.  I'm happy you found"
    " something that makes you happy. Show me when you can!",
    "Melanie: Here it is. Pretty proud of it! It was a great experience. Thoughts?",
    "Caroline: That bowl is awesome, Mel! What gave you the idea for all the colors and patterns?",
    "Melanie: Thanks, Caroline! I'm obsessed with those, so I made something to catch the eye and"
    " make people smile. Plus, painting helps me express my feelings and be creative. Each stroke"
    " carries a part of me.",
    "Caroline: That's amazing! You put so much effort and passion into it. Your creativity really"
    " shines. Seeing how art can be a source of self-expression and growth is truly inspiring."
    " You're killing it!",
]


async def test_a_turn_that_says_more_than_its_slot_value_is_kept(
    client: Client, settings: Settings
) -> None:
    first = await remember(client, LACTOSE)

    second = await remember(client, SAYS_MORE)

    assert second["action"] == "created", second
    assert second["id"] != first["id"]
    assert {LACTOSE, SAYS_MORE} <= set(live_contents(settings))
    found = await recall(
        client, "Why is Joanna experimenting with dairy-free options in her dessert recipes?"
    )
    assert SAYS_MORE in [m["content"] for m in found["memories"]]


async def test_the_same_slot_value_in_a_few_more_words_is_still_a_duplicate(
    client: Client, settings: Settings
) -> None:
    first = await remember(client, LACTOSE)

    again = await remember(client, "Joanna: Sure! I'm lactose intolerant, so just the recipe!")

    assert again["action"] == "duplicate" and again["id"] == first["id"], again
    assert live_contents(settings) == [LACTOSE]


async def test_one_sentence_that_restates_a_slot_value_in_more_words_is_a_duplicate(
    client: Client, settings: Settings
) -> None:
    # tests/data/paraphrases.json: a restatement, not more said (bench/paraphrase.py counts it).
    first = await remember(client, "I'm a vegetarian.")

    again = await remember(client, "I am vegetarian and eat no meat.")

    assert again["action"] == "duplicate" and again["id"] == first["id"], again
    assert live_contents(settings) == ["I'm a vegetarian."]


@needs_vectors
async def test_an_answer_ranks_above_the_question_it_answers(
    cortex_home: Path, clock: FrozenClock
) -> None:
    settings = Settings.model_validate({"home": cortex_home, "embedding": {"provider": "local"}})
    host = EngineHost(settings, clock)
    async with Client(build_server(settings, clock, host=host)) as client:
        for index, turn in enumerate(POTTERY):
            around = POTTERY[max(0, index - 2) : index] + POTTERY[index + 1 : index + 3]
            await remember(client, turn, context="\n".join(around))
        await passes(host, 2)  # embedded

        found = await recall(
            client, "Why did Melanie choose to use colors and patterns in her pottery project?"
        )

    order = [m["content"] for m in found["memories"]]
    assert order.index(POTTERY[3]) < order.index(POTTERY[2]), order


@pytest.mark.parametrize(
    ("text", "asks"),
    [
        ("Caroline: Cool! What did it look like?", True),
        ("你去过北京吗？", True),
        ("東京に行きましたか。", True),
        ("What?! No way, I love that place.", False),
        ("我不知道该说什么", False),
        ("ベジタリアンです。", False),
    ],
)
def test_a_text_ending_on_a_question_is_told_apart(text: str, asks: bool) -> None:
    assert ends_asking(text) is asks


def test_the_quick_check_before_the_pattern_changes_no_answer() -> None:
    """`ends_asking` looks at the last signs before it scans the text: on every ending the
    pattern knows, with spaces, full stops and line breaks around it, it answers as the
    pattern alone does."""
    bodies = ["", "I moved", "你去过北京", "東京に行きました", "What?! No", "x?"]
    endings = ["", "?", "？", "吗", "嗎", "か", "ですか", "ませんか", "です", "。", ".", "?.", "!"]
    spaces = ["", " ", "  \n", "\u3000", "\t "]
    texts = [
        body + inner + ending + between + stop + after
        for body in bodies
        for inner in spaces[:2]
        for ending in endings
        for between in spaces
        for stop in ["", "。", ".", "..", "?"]
        for after in spaces
    ]
    answers = {text: bool(_ENDS_ASKING.search(text)) for text in texts}

    assert {text: ends_asking(text) for text in texts} == answers
    assert 0 < sum(answers.values()) < len(texts)  # both answers are among them


async def test_an_actually_after_a_yes_corrects_nothing(client: Client, settings: Settings) -> None:
    # conv-42, D1:3 and D6:7: the first is the evidence of "How many tournaments has Nate won?";
    # "Yeah actually" agrees and goes on, it does not replace it.
    won = (
        "Nate: Hey Joanna! That's cool! I won my first video game tournament last week - so"
        " exciting!"
    )
    again = (
        "Nate: Yeah actually - I'm currently participating in the video game tournament again"
        " and it's INTENSE! There's so much adrenaline flowing."
    )
    first = await remember(client, won)

    second = await remember(client, again)

    assert second["action"] == "created" and second["id"] != first["id"], second
    assert {won, again} <= set(live_contents(settings))
