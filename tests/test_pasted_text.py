"""Text the user pastes for the assistant to work on is not what the user says of themselves
(found trying the product key-less): "Reply to this customer email for me:" and the email
stored "I'm John Smith and I live in Dallas." as who the user is and "I prefer email
contact."; a fenced "my name is Bob" stored the name; "Here's the log: I live in /var/log and
I work at startup" was stored as identity.

Real in-process MCP sessions, key-less: each message goes through `cortex_ingest` as the Stop
hook sends it; the conversation log still keeps the whole message."""

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from cortex_mcp.config import Settings
from cortex_mcp.server import build_server
from tests.conftest import FrozenClock, data_of, inspect_database
from tests.test_said_whole import held, live, say

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]


@pytest.fixture
def plain(cortex_home: Path) -> Settings:
    """A plain install without an LLM, searching by keywords only."""
    return Settings.model_validate({"home": cortex_home, "embedding": {"provider": "none"}})


@pytest.fixture
async def client(plain: Settings, clock: FrozenClock) -> AsyncIterator[Client]:
    async with Client(build_server(plain, clock)) as connected:
        yield connected


EMAIL = (
    "Reply to this customer email for me:\n\nHi, I'm John Smith and I live in Dallas. My wife"
    " Karen says the order #1234 never arrived. I prefer email contact.\n\nThanks"
)


@pytest.mark.parametrize(
    "message",
    [
        EMAIL,
        "```\nmy name is Bob\n```",
        "Here's the log: I live in /var/log and I work at startup",
        "Translate to Chinese: I live in Dallas.",
        "Karen wrote:\nI'm vegetarian and I live in Dallas.",
        "帮我回复这封邮件：\n\n你好，我叫王伟，住在上海。我喜欢用邮件联系。",
        "以下のメールに返信して：\n\n田中です。大阪に住んでいます。",
        # round twenty's re-tests (rt21)
        "---------- Forwarded message ---------\nFrom: Bob Smith\nHi Priya, my name is Bob and I"
        " live in Austin. My wife is Carol.\n\nCan you summarize this?",
        "From: carol@example.com\nSubject: hello\n\nMy name is Carol and I live in Lyon.",
        "Write a short story that starts with: My name is Bob and I live in Austin.",
        "Bob (Slack, 10:42): my name is Bob and I live in Austin lol",
        "[10:42] Bob: my name is Bob and I live in Austin",
        "Fix the grammar: my name are Bob and I lives in Austin. My wife is Carol.",
        "Can you see why this keeps failing?\n2024-05-01T12:00:00Z WARN [svc] I live in"
        " /var/lib/app0, retrying\nERROR [svc] my name is root",
        "Tom said my wife is Anna, which is wrong.",
    ],
)
async def test_pasted_text_is_not_stored_as_the_users(
    client: Client, plain: Settings, message: str
) -> None:
    await say(client, message)
    assert live(plain) == []


async def test_the_conversation_log_keeps_the_whole_pasted_message(
    client: Client, plain: Settings
) -> None:
    await say(client, EMAIL)
    with inspect_database(plain.database_path) as conn:
        said = [row[0] for row in conn.execute("select content from conversation_log")]
    assert EMAIL in said


@pytest.mark.parametrize(
    ("message", "value"),
    [
        ("Note: I live in Dallas.", "Dallas"),
        ("Quick update: I moved to Dallas.", "Dallas"),
        ("Two things: I'm vegetarian and I live in Dallas.", "Dallas"),
        ("Fix this error:\n```\nmy name is Bob\n```\nBy the way, I live in Dallas.", "Dallas"),
        ("更正一下：我住在上海。", "上海"),
        ("追記：私は大阪に住んでいます。", "大阪"),
        ("Quick update (10:42): I moved to Dallas.", "Dallas"),
        ("From now on, my name is Dana and I live in Dallas.", "Dallas"),
        ("From: me. I live in Dallas.", "Dallas"),
        # a level alone is the user's emphasis, not a log line (rt21b)
        ("WARNING: I'm severely allergic to peanuts, never suggest recipes with them.", "peanuts"),
        ("INFO: my name is Dana and I work at Acme.", "Acme"),
        ("[INFO] I live in Dallas.", "Dallas"),
        # what the user adds after a forwarded email, and the user's own draft (rt21c)
        (
            "---------- Forwarded message ---------\nFrom: Bob Lee <bob@acme.com>\nSubject: x\n\n"
            "Hi all, I live in Portland.\n\nCan you summarize this? By the way, I live in Dallas.",
            "Dallas",
        ),
        (
            "From: Dana\nTo: Support\nSubject: account\n\nHi, I'm Dana and I live in Dallas.",
            "Dallas",
        ),
    ],
)
async def test_the_users_own_words_after_a_colon_are_still_read(
    client: Client, plain: Settings, message: str, value: str
) -> None:
    await say(client, message)
    assert value in [value for _, value in live(plain)]


@pytest.mark.parametrize(
    ("arguments"),
    [
        {
            "user_message": "What does this say?",
            "tool_calls": [{"name": "Read", "input": {"path": "bio.txt"},
                            "result": "I'm John Smith and I live in Dallas."}],
        },
        {"user_message": "Translate to Chinese: 'I live in Dallas.'"},
        {"user_message": "> I'm John Smith and I live in Dallas.\nCan you answer this ticket?"},
    ],
)  # fmt: skip
async def test_a_tool_result_a_quoted_text_and_a_quote_stay_unread(
    client: Client, plain: Settings, arguments: dict[str, Any]
) -> None:
    data_of(await client.call_tool("cortex_ingest", arguments | {"assistant_message": "Done."}))
    assert live(plain) == []


@pytest.mark.parametrize(
    ("message", "slots"),
    [
        ("Mom wrote: call me. I live in Oslo and my son is Leo.", ["home=Oslo", "person:son=Leo"]),
        ("My boss wrote: great job. Anyway, I live in Oslo.", ["home=Oslo"]),
        ('My wife said: "let\'s move to Bergen". I live in Oslo.', ["home=Oslo"]),
        ("Tom said: I'm not coming. My wife is Anna by the way.", ["person:wife=Anna"]),
        ("Here's the log:\nERROR 500 at /api\n\nUnrelated, I moved to Dallas.", ["home=Dallas"]),
        ("Reply to this email for me:\n\nHi Sam, see you Monday.\n\n---\n"
         "Also unrelated, I moved to Dallas last week.", ["home=Dallas"]),
        ("他说：我住在北京。我住在上海。", ["home=上海"]),
        # the fourth re-test (rt20d): a paragraph after a log
        ("Here's the log:\nERROR db timeout\n\nAlso, my name is Priya.", ["name=Priya"]),
        # the sixth re-test (rt20f): after a greeted quote's paragraph, after an error message
        ("Mom texted: hey, call me when you land.\n\nI live in Berlin now.", ["home=Berlin"]),
        ("Here's the error message:\nERROR db timeout\n\nAlso, my name is Priya.",
         ["name=Priya"]),
    ],
)  # fmt: skip
async def test_the_users_own_words_after_a_quote_are_read(
    client: Client, plain: Settings, message: str, slots: list[str]
) -> None:
    """Found re-testing (rt20b): everything after a lead-in was left unread, the user's own
    sentences after what someone said, or after "By the way" below a pasted log, too."""
    await say(client, message)
    assert held(plain) == sorted(slots)


@pytest.mark.parametrize(
    "message",
    [
        "Reply to this email for me:\n\nHi,\n\nI'm John Smith and I live in Dallas. I'd like a "
        "refund.\n\nAlso, I work at Acme Corp and my wife is Sarah.\n\nThanks,\nJohn",
        "Can you summarize this email:\n\nHey Sam,\n\nThe launch slipped again.\n\nAnyway, I "
        "moved to Denver last month.",
        "Reply to this customer email:\n\nHello,\n\nThanks for the order.\n\nP.S. I moved to "
        "Seattle.",
        "帮我回复这封邮件：\n\n你好，我叫王强，住在上海。\n\n另外，我在腾讯工作。",
        "Karen wrote: Hi! I'm Karen Lee and I live in Austin.",
        "Karen wrote: Hello there. My name is Karen and I work at Globex.",
        # the fifth re-test (rt20e)
        "My landlord wrote: Hi! I'm Bob Smith and I live in Austin. Rent is due Friday.",
        "Karen wrote: Hi!\nI'm Karen Lee and I live in Austin. I work at Dell.",
        "Here's the email from a customer about the crash:\nHello,\nThe app crashed again."
        "\n\nAlso, I live in Toronto and my name is Jane Doe.\nThanks",
    ],
)
async def test_an_email_s_own_paragraphs_and_greeting_stay_pasted(
    client: Client, plain: Settings, message: str
) -> None:
    """Found re-testing (rt20c): a pasted email's paragraph beginning "Also," / "Anyway," /
    "P.S." / 另外 was read as the user's, and so was a quote after its greeting."""
    await say(client, message)
    assert held(plain) == []


@pytest.mark.parametrize(
    ("message", "slots"),
    [
        # the twenty-second round's re-test (rt22): someone else's words on a lead-in's line
        ("Roleplay as a pirate. You say: 'I'm Captain Jack, I live in Tortuga.'", []),
        ("My friend wrote: I just moved to Denver and started at Netflix. My name is Rob.", []),
        ("My coworker sent this: I'm moving to Denver next month and my wife Kate is thrilled."
         " How should I respond?", []),
        ("He told me: My name is Bond, James Bond. I live in London.", []),
        ('My son wrote this for school: "My name is Leo. I love dinosaurs." Can you check it?'
         " I live in Oslo by the way.", ["home=Oslo"]),
        # a pasted conversation: its speakers' lines, the user's "me:" ones read
        ("User: My name is Kevin.\nAssistant: Hi Kevin!\nUser: I live in Miami.\n\nThat's a"
         " transcript from our support bot. Why did it fail?", []),
        ("Bob: I live in Denver\nAlice: I work at Amazon\nme: I live in Austin", ["home=Austin"]),
        # and the user's own words below a log, or after a quoted paste on its line
        ("Here's the log:\n2024-05-01 10:00:01 INFO started\nWhat does it mean? By the way I"
         " work at Stripe.", ["workplace=Stripe"]),
        ('Tom said "I live in Berlin." I live in Munich.', ["home=Munich"]),
        ('Fix the grammar: "Their going to the store." Also, I live in Austin.', ["home=Austin"]),
    ],
)  # fmt: skip
async def test_someone_elses_words_stay_theirs_and_the_users_are_read(
    client: Client, plain: Settings, message: str, slots: list[str]
) -> None:
    """Found re-testing key-less (rt22): what a friend wrote, a coworker sent or a role says
    was stored as the user's name, home or wife; a quoted sentence to fix hid the user's home."""
    await say(client, message)
    assert held(plain) == sorted(slots)
