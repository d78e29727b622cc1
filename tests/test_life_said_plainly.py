"""Life as people tell it (round twenty-one's key-less re-test, rt22): typed all in lower case
("i live in austin"), a move said of "we", a pet that died, a divorce. Each left the old fact
live, or stored the new one with no slot a later change could replace.

Real in-process MCP sessions, key-less: each message goes through `cortex_ingest` as the Stop
hook sends it."""

import json

import pytest
from mcp import Client

from cortex_mcp.config import Settings
from cortex_mcp.engine.language.lowercase import names_capitalised
from cortex_mcp.engine.language.slots import find_slots
from tests.conftest import data_of, inspect_database, say

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]


def core(settings: Settings) -> list[tuple[str, str | None]]:
    """The live core memories' texts and slots ("predicate=value"), by text."""
    with inspect_database(settings.database_path) as conn:
        rows = conn.execute(
            "select content, metadata from memories where layer = 'core'"
            " and deleted_at is null and superseded_by is null order by content"
        ).fetchall()
    slots = [json.loads(row[1] or "{}") for row in rows]
    return [
        (row[0], f"{slot['predicate']}={slot['value']}" if "predicate" in slot else None)
        for row, slot in zip(rows, slots, strict=True)
    ]


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("my name is sam and i live in austin", "my name is Sam and i live in Austin"),
        ("Actually i live in dallas, not austin", "Actually i live in Dallas, not Austin"),
        ("actually i live in dallas, not austin", "actually i live in Dallas, not Austin"),
        ("i work at google as an engineer", "i work at Google as an engineer"),
        ("my dog's name is rex", "my dog's name is Rex"),
        ("i'm from new york city now", "i'm from New York City now"),
        ("i live in san francisco with my wife", "i live in San Francisco with my wife"),
        ("i live in a small town", "i live in a small town"),
        ("i work at home", "i work at home"),
        ("i'm new here", "i'm new here"),
        ("i'm tired", "i'm tired"),
        ("My son is sick", "My son is sick"),
        ("i'm sam", "i'm sam"),
        ("It's blue, not red.", "It's blue, not red."),
        ("I live in Austin with Tom", "I live in Austin with Tom"),
    ],
)
def test_what_a_fact_names_is_capitalised_when_typed_in_lower_case(typed: str, read: str) -> None:
    assert names_capitalised(typed) == read


@pytest.mark.parametrize(
    ("messages", "now"),
    [
        (["i live in austin"], [("I live in Austin", "home=Austin")]),
        (["i work at google"], [("I work at Google", "workplace=Google")]),
        (["my dog's name is rex"], [("My dog's name is Rex", "pet:dog=Rex")]),
        (
            ["my name is sam and i live in austin", "actually i live in dallas, not austin"],
            [("Actually I live in Dallas, not Austin", "home=Dallas"),
             ("My name is Sam.", "name=Sam")],
        ),
    ],
)  # fmt: skip
async def test_facts_typed_in_lower_case_are_slots(
    plain_client: Client, plain: Settings, messages: list[str], now: list[tuple[str, str]]
) -> None:
    """Found re-testing: "i live in austin" had no slot, and "actually i live in dallas, not
    austin" then replaced the whole introduction, the name with it."""
    await say(plain_client, *messages)
    assert core(plain) == now


@pytest.mark.parametrize(
    ("said", "slots"),
    [
        ("We moved to Denver last month.", [("home", "Denver")]),
        ("We just moved to Denver!", [("home", "Denver")]),
        ("We live in Austin with our two kids.", [("home", "Austin")]),
        ("I moved to Vercel last month.", [("uses:cloud", "Vercel")]),
        ("We moved to Kubernetes.", [("uses:orchestrator", "Kubernetes")]),
        ("My dog Rex died last week.", [("gone:pet:dog", "Rex")]),
        ("We had to put down our dog Rex.", [("gone:pet:dog", "Rex")]),
        ("Sadly Rex passed away yesterday.", [("gone:named", "Rex")]),
        ("Anna and I got divorced last year.", [("gone:person:spouse", "Anna")]),
        ("My dog almost died.", []),
        ("My dog Rex didn't die.", []),
    ],
)
def test_a_move_of_ours_and_a_loss_are_read(said: str, slots: list[tuple[str, str]]) -> None:
    """ "We moved to Denver" left home=Austin (found re-testing); "I moved to Vercel" was a
    home."""
    assert [(slot.predicate, slot.value) for slot in find_slots(said)] == slots


@pytest.mark.parametrize(
    ("messages", "now"),
    [
        (["I live in Austin.", "We moved to Denver last month."],
         [("We moved to Denver last month.", "home=Denver")]),
        (["I have a dog named Rex.", "My dog Rex died last week."],
         [("My dog Rex died last week.", "gone:pet:dog=Rex")]),
        (["I have a dog named Rex and a cat named Luna.", "Sadly Rex passed away yesterday."],
         [("My cat is called Luna.", "pet:cat=Luna"),
          ("Sadly Rex passed away yesterday.", "gone:named=Rex")]),
        (["I have a dog named Rex.", "My dog died."], [("My dog Rex died.", "gone:pet:dog=Rex")]),
        (["My wife is Anna.", "Anna and I got divorced last year."],
         [("Anna and I got divorced last year.", "gone:person:spouse=Anna")]),
        # not held: nothing replaced, nothing in core
        (["I have a dog named Rex.", "Queen Elizabeth died in 2022."],
         [("I have a dog named Rex.", "pet:dog=Rex")]),
        (["I have a dog named Rex.", "My dog Max died."],
         [("I have a dog named Rex.", "pet:dog=Rex")]),
    ],
)  # fmt: skip
async def test_a_pet_or_a_person_gone_is_no_longer_held(
    plain_client: Client, plain: Settings, messages: list[str], now: list[tuple[str, str]]
) -> None:
    """Found re-testing: "My dog Rex died last week." and "Anna and I got divorced last year."
    left "I have a dog named Rex." and "My wife is Anna." live."""
    await say(plain_client, *messages)
    assert core(plain) == now


async def test_a_memory_saying_more_stays_when_one_of_it_is_gone(
    plain_client: Client, plain: Settings
) -> None:
    """The wife and the son are no less there when the dog died."""
    said = "My wife Anna and I have a son, Tom, and a dog named Rex."
    data_of(await plain_client.call_tool("cortex_remember", {"content": said}))
    await say(plain_client, "My dog died.")
    assert [text for text, _ in core(plain)] == [said]


@pytest.mark.parametrize(
    ("messages", "now"),
    [
        # the re-test of this change (rt22b)
        (["I live in Austin.", "We moved to Slack."], [("I live in Austin.", "home=Austin")]),
        (["i moved to vim"], []),
        (["i work at bank of america"],
         [("I work at Bank of America", "workplace=Bank of America")]),
        (["i live in st. louis"], [("I live in St. Louis", "home=St. Louis")]),
        (["i work for myself"], [("I work for myself", None)]),
        (["I have a dog named Rex.", "Rex died in my Minecraft world."],
         [("I have a dog named Rex.", "pet:dog=Rex")]),
        (["I have a dog named Rex.", "I dreamed my dog Rex died."],
         [("I have a dog named Rex.", "pet:dog=Rex")]),
        (["My uncle is Bob.", "My other uncle is Jim."],
         [("My other uncle is Jim.", "person:uncle=Jim"),
          ("My uncle is Bob.", "person:uncle=Bob")]),
        (["My father is John.", "My dad died in March."],
         [("My dad John died in March.", "gone:person:father=John")]),
        (["I have a dog named Rex.", "My uncle's name is Rex.", "Rex died last week."],
         [("I have a dog named Rex.", "pet:dog=Rex"),
          ("My uncle's name is Rex.", "person:uncle=Rex")]),
        (["My fiancé is Mark."], [("My fiancé is Mark.", "person:fiance=Mark")]),
        (["I have a dog named Rex.", "Rex is no longer with us."],
         [("Rex is no longer with us.", "gone:named=Rex")]),
        (["I'm engaged to Sarah."], [("I'm engaged to Sarah.", "person:fiance=Sarah")]),
        (["I married Beth last year."], [("I married Beth last year.", "person:spouse=Beth")]),
    ],
)  # fmt: skip
async def test_what_the_retest_of_this_change_found(
    plain_client: Client, plain: Settings, messages: list[str], now: list[tuple[str, str | None]]
) -> None:
    """Found re-testing (rt22b): a tool or a workplace read as a home or a name cut short, a
    death in a game or a dream, a second uncle replacing the first, a name lost with the one
    who died, a name two of the user's hold, a fiancé and a marriage never read."""
    await say(plain_client, *messages)
    assert core(plain) == now


@pytest.mark.parametrize(
    ("messages", "now"),
    [
        # the third re-test (rt22c): a way of speaking is no death, a task shared out no
        # parting, a death said with commas names no pet again, an adjective is no name ...
        (["My mom is Lisa.", "My mom died a little inside when she saw it."],
         [("My mom is Lisa.", "person:mother=Lisa")]),
        (["My dad is Tom.", "My dad died laughing at that joke."],
         [("My dad is Tom.", "person:father=Tom")]),
        (["My mom is Lisa.", "My mom died her hair red."],
         [("My mom is Lisa.", "person:mother=Lisa")]),
        (["My wife is Anna.", "Anna and I split up the chores."],
         [("My wife is Anna.", "person:wife=Anna")]),
        (["My dog is named Rex.", "My dog, Rex, died."],
         [("My dog, Rex, died.", "gone:pet:dog=Rex")]),
        (["My name is long and hard to spell."], []),
        (["My wife is Anna.", "Anna and I broke up a fight at the bar."],
         [("My wife is Anna.", "person:wife=Anna")]),
        (["My girlfriend is Zoe.", "Zoe and I broke up a few weeks ago."],
         [("Zoe and I broke up a few weeks ago.", "gone:person:spouse=Zoe")]),
        (["My wife is Anna.", "My ex-wife Anna called."],
         [("My ex-wife Anna called.", "gone:person:spouse=Anna")]),
        (["I have a dog named Rex.", "Our dog Rex died."],
         [("Our dog Rex died.", "gone:pet:dog=Rex")]),
        (["I have a dog named Rex.", "We had to put our dog Rex down."],
         [("We had to put our dog Rex down.", "gone:pet:dog=Rex")]),
        # ... and two people speaking in a pasted chat are neither the user
        (["Bob: I'm allergic to shellfish.\nAlice: my cat is Tom."], []),
        (["bob: I work at Amazon.\nalice: I live in Seattle."], []),
        (["Can you summarize this chat?\nBob: I live in Chicago.\nAlice: I work at IBM."], []),
        (["My sister: I'm allergic to nuts.\nMe: I'm allergic to dairy."],
         [("Me: I'm allergic to dairy.", "allergy:dairy=dairy")]),
        (["Note: I live in Dallas.\nUpdate: I work at Acme."],
         [("I live in Dallas.", "home=Dallas"), ("I work at Acme.", "workplace=Acme")]),
    ],
)  # fmt: skip
async def test_what_the_third_retest_found(
    plain_client: Client, plain: Settings, messages: list[str], now: list[tuple[str, str | None]]
) -> None:
    await say(plain_client, *messages)
    assert core(plain) == now


@pytest.mark.parametrize(
    ("messages", "now"),
    [
        # the fourth re-test (rt22d), a first week over stdio
        (["I live in Portland.",
          "Can you help me reply to this email from a vendor?\n\n---\nHi Daniel,\nI'm Karen Liu."
          " I live in Seattle and I'm allergic to cats. My husband is Greg.\nBest, Karen\n---"],
         [("I live in Portland.", "home=Portland")]),
        (["My wife is Sarha and we have two kids, Maya (7) and Theo (4)."],
         [("My child is Maya.", "person:child=Maya"), ("My child is Theo.", "person:child=Theo"),
          ("My wife is Sarha.", "person:wife=Sarha")]),
        (["My wife is Sarha.", "Oops, I mistyped my wife's name earlier: it's Sarah, not Sarha."],
         [("Oops, I mistyped my wife's name earlier: it's Sarah, not Sarha.",
           "person:wife=Sarah")]),
        (["I'm allergic to penicillin, so keep that in mind if I ever ask about recipes."],
         [("I'm allergic to penicillin, so keep that in mind if I ever ask about recipes.",
           "allergy:penicillin=penicillin")]),
        (["If I lived in Paris, I would work at Google."], []),
        (["I have a cat named Pepper.", "Sad news: Pepper died last night. She was 14."],
         [("Sad news: Pepper died last night.", "gone:named=Pepper")]),
        (["I work at Acme Logistics.", "also i left acme logistics, started at globex today"],
         [("I left Acme Logistics, started at Globex today.", "left:workplace=Acme Logistics")]),
    ],
)  # fmt: skip
async def test_what_the_fourth_retest_found(
    plain_client: Client, plain: Settings, messages: list[str], now: list[tuple[str, str | None]]
) -> None:
    await say(plain_client, *messages)
    assert core(plain) == now


async def test_a_fact_said_again_keeps_what_else_its_memory_says(
    plain_client: Client, plain: Settings
) -> None:
    """rt22d: "My wife's name is Sarah." replaced an agent's whole memory of the family, and
    the children with it."""
    said = "My wife is Sarha and we have two kids, Maya (7) and Theo (4)."
    data_of(await plain_client.call_tool("cortex_remember", {"content": said}))
    await say(plain_client, "My wife's name is Sarah.")
    assert core(plain) == [
        ("My wife is Sarah and we have two kids, Maya (7) and Theo (4).", "person:wife=Sarah")
    ]


@pytest.mark.parametrize(
    ("messages", "now"),
    [
        # the fifth re-test (rt22e): a clause opening with "if" keeps the next clause's fact, a
        # dream is no death, a request about the user's own text keeps it, a letter ends with
        # its sign-off, a correction two messages after a flight corrects the flight
        (["If I'm honest, I work at Google."],
         [("If I'm honest, I work at Google.", "workplace=Google")]),
        (["If I moved to Denver I would be happy."], []),
        (["My wife is Sarah.", "Weird dream last night: Sarah died and I was alone."],
         [("My wife is Sarah.", "person:wife=Sarah")]),
        (["Can you explain this?\n\nI work at Google and my manager keeps asking me to work"
          " weekends. Is that legal?"],
         [("I work at Google and my manager keeps asking me to work weekends.",
           "workplace=Google")]),
        (["Can you help me reply to this email?\n\nHi Tom, I'm moving to Denver next month.\n"
          "Best, Alex\n\nFor context, I work at Stripe and Tom is my manager."],
         [("For context, I work at Stripe and Tom is my manager.", "workplace=Stripe")]),
        (["I live in Austin.", "Book the flight to Austin for Friday.", "Thanks.",
          "Nope, Dallas, not Austin."], [("I live in Austin.", "home=Austin")]),
        (["My wife is Sarha and we have two kids, Maya (7) and Theo (4).", "My wife is Beth."],
         [("My child is Maya.", "person:child=Maya"), ("My child is Theo.", "person:child=Theo"),
          ("My wife is Beth.", "person:wife=Beth")]),
    ],
)  # fmt: skip
async def test_what_the_fifth_retest_found(
    plain_client: Client, plain: Settings, messages: list[str], now: list[tuple[str, str | None]]
) -> None:
    await say(plain_client, *messages)
    assert core(plain) == now


async def test_another_value_said_again_carries_nothing_over(
    plain_client: Client, plain: Settings
) -> None:
    """rt22e: "I work at Stripe." kept "as a PM on the Maps team" from the memory of Google."""
    said = "I work at Google as a PM on the Maps team, mostly on routing."
    data_of(await plain_client.call_tool("cortex_remember", {"content": said}))
    await say(plain_client, "I work at Stripe.")
    assert core(plain) == [("I work at Stripe.", "workplace=Stripe")]
