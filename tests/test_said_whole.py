"""What a user says of themselves is kept whole (found trying the product key-less, round
seventeen's re-test): a name with an abbreviation in it was cut at its full stop ("I work at J.P.
Morgan." stored "I work at J.P."); a statement that asks the listener back ("I live in Denver,
how about you?", 我住在北京你呢) stored nothing; a second son's name replaced the first's.

Real in-process MCP sessions, key-less: each message goes through `cortex_ingest` as the Stop
hook sends it."""

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from mcp import Client

from cortex_mcp.config import Settings
from cortex_mcp.engine.language.patterns import sentences_of, signal_sentences
from cortex_mcp.server import build_server
from tests.conftest import FrozenClock, data_of, inspect_database

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]


@pytest.fixture
def plain(cortex_home: Path) -> Settings:
    """A plain install without an LLM, searching by keywords only."""
    return Settings.model_validate({"home": cortex_home, "embedding": {"provider": "none"}})


@pytest.fixture
async def client(plain: Settings, clock: FrozenClock) -> AsyncIterator[Client]:
    async with Client(build_server(plain, clock)) as connected:
        yield connected


async def say(client: Client, *messages: str) -> None:
    for message in messages:
        arguments = {"user_message": message, "assistant_message": "Noted."}
        data_of(await client.call_tool("cortex_ingest", arguments))


def live(settings: Settings) -> list[tuple[str, str | None]]:
    """The live memories' texts and slot values."""
    with inspect_database(settings.database_path) as conn:
        rows = conn.execute(
            "select content, metadata from memories"
            " where deleted_at is null and superseded_by is null order by content"
        ).fetchall()
    return [(row[0], json.loads(row[1] or "{}").get("value")) for row in rows]


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        ("I live in St. Louis.", ["I live in St. Louis."]),
        ("I work at J.P. Morgan.", ["I work at J.P. Morgan."]),
        ("My doctor is Dr. Smith. He is kind.", ["My doctor is Dr. Smith.", "He is kind."]),
        ("I moved to L.A. Do you like it?", ["I moved to L.A.", "Do you like it?"]),
        ("I work at Acme Corp. Are you there?", ["I work at Acme Corp.", "Are you there?"]),
        ("We chose plan B. It is cheaper.", ["We chose plan B.", "It is cheaper."]),
        ("I moved to L.A.\nMorgan said hi.", ["I moved to L.A.", "Morgan said hi."]),
    ],
)
def test_a_sentence_goes_on_after_a_title_or_an_initial(text: str, sentences: list[str]) -> None:
    assert sentences_of(text) == sentences


@pytest.mark.parametrize(
    ("message", "kept"),
    [
        ("I live in Berlin, do you?", ["I live in Berlin."]),
        ("Me? I live in Denver, how about you?", ["I live in Denver."]),
        ("我住在北京你呢", ["我住在北京。"]),
        ("我住在北京，你呢？", ["我住在北京。"]),
        ("札幌に住んでいますが、あなたは？", ["札幌に住んでいます。"]),
        ("Do you live in Tokyo, and you?", []),
        ("Where do you live, and you?", []),
        ("東京に住んでいますか？", []),
    ],
)
def test_a_statement_asked_back_is_a_statement(message: str, kept: list[str]) -> None:
    assert signal_sentences(message) == kept


@pytest.mark.parametrize(
    ("messages", "values"),
    [
        (["I live in St. Louis."], ["St. Louis"]),
        (["I work at J.P. Morgan."], ["J.P. Morgan"]),
        (["Me? I live in Denver, how about you?"], ["Denver"]),
        (["我住在北京你呢"], ["北京"]),
        (["札幌に住んでいますが、あなたは？"], ["札幌"]),
    ],
)
async def test_a_fact_said_whole_is_stored_whole(
    client: Client, plain: Settings, messages: list[str], values: list[str]
) -> None:
    await say(client, *messages)
    assert [value for _, value in live(plain)] == values


@pytest.mark.parametrize(
    ("messages", "names"),
    [
        (["I have a son named Leo.", "I have a son named Max."], ["Leo", "Max"]),
        (["My daughter's name is Ana.", "My other daughter's name is Bea."], ["Ana", "Bea"]),
        (["我哥哥叫李明。", "我弟弟叫李亮。"], ["李亮", "李明"]),
        (["I have a cat named Tom.", "I have a cat named Jerry."], ["Jerry", "Tom"]),
        (["I have a son named Leo.", "I have a son named Leo."], ["Leo"]),
        # said as a correction, or of a relation one has one of, it replaces
        (["I have a son named Leo.", "Actually, my son's name is Leon."], ["Leon"]),
        (["My wife is called Anna.", "My wife is called Maria."], ["Maria"]),
    ],
)
async def test_a_second_child_or_pet_is_one_more(
    client: Client, plain: Settings, messages: list[str], names: list[str]
) -> None:
    await say(client, *messages)
    assert sorted(str(value) for _, value in live(plain)) == names


@pytest.mark.parametrize(
    ("messages", "kept"),
    [
        (["I work at Stripe.", "I left Stripe and now work at OpenAI."], [1]),
        (["I work at Stripe.", "I left Stripe."], [1]),
        (["I work at Stripe.", "I quit my job at Stripe last week."], [1]),
        (["我在腾讯工作。", "我不在腾讯工作了，现在在阿里巴巴。"], [1]),
        (["我在百度工作。", "我从百度离职了。"], [1]),
        (["トヨタで働いています。", "トヨタを辞めました。"], [1]),
        (["I work at Siemens.", "I left Siemens and joined BMW."], [1]),
        # an employer the user does not work at: nothing is replaced
        (["I work at Stripe.", "I left Google."], [0, 1]),
        (["I live in Paris.", "I left Paris yesterday."], [0, 1]),
    ],
)
async def test_an_employer_left_is_no_longer_the_workplace(
    client: Client, plain: Settings, messages: list[str], kept: list[int]
) -> None:
    """Found trying the product: "I left Stripe and now work at OpenAI." and 我从百度离职了
    left the old workplace live; "I left Stripe." stored nothing."""
    await say(client, *messages)
    assert sorted(text for text, _ in live(plain)) == sorted(messages[i] for i in kept)


@pytest.mark.parametrize(
    ("message", "values"),
    [
        ("I live in Boston and work at Acme.", ["Boston", "Acme"]),
        ("I work at Acme and love it.", ["Acme"]),
        ("I work at Acme and I like it.", ["Acme"]),
        ("I joined Procter and Gamble last year.", ["Procter and Gamble"]),
    ],
)
async def test_a_workplace_said_with_and_is_read_whole(
    client: Client, plain: Settings, message: str, values: list[str]
) -> None:
    """Found trying the product: "I live in Boston and work at Acme." set no workplace, and
    "I work at Acme and love it." the workplace "Acme and"."""
    await say(client, message)
    assert sorted(str(value) for _, value in live(plain)) == sorted(values)


async def test_an_employer_left_is_a_relation_of_its_own(client: Client, plain: Settings) -> None:
    """The graph: "works at" ends and "left" begins (the review of this change: it recorded
    "workplace birthday")."""
    await say(client, "I work at Stripe.", "I left Stripe.")
    with inspect_database(plain.database_path) as conn:
        rows = conn.execute(
            "select predicate, object, valid_to is null from relations order by predicate"
        ).fetchall()
    assert [tuple(row) for row in rows] == [("left", "Stripe", 1), ("works at", "Stripe", 0)]


# The second re-test of this round's fixes (/tmp/rt18b): each regression and gap it found.


@pytest.mark.parametrize(
    ("message", "kept"),
    [
        ("I work at Apple Inc. Got any tips for my first week?", ["I work at Apple Inc."]),
        ("I live in Washington D.C. Recommend a museum?", ["I live in Washington D.C."]),
        ("我搬到深圳了，你去过深圳吗？", ["我搬到深圳了。"]),
        ("我住在哪里，你知道吗？", []),
        ("你住在北京吗你呢", []),
    ],
)
def test_a_statement_before_a_question_stays_a_statement(message: str, kept: list[str]) -> None:
    assert signal_sentences(message) == kept


@pytest.mark.parametrize(
    ("messages", "kept"),
    [
        (["I work at Stripe.", "I left Stripe early today."], [0]),
        (["I work at Stripe.", "I left Stripe for lunch."], [0]),
        (["トヨタで働いています。", "トヨタを辞めたいです。"], [0]),
        (["トヨタで働いています。", "トヨタを辞めていません。"], [0]),
        (["トヨタで働いています。", "トヨタを辞めたら、旅行したい。"], [0]),
        (["I work at Stripe Inc.", "I left Stripe."], [1]),
        (["I work at Stripe.", "I left Stripe.", "I work at Stripe again."], [2]),
    ],
)
async def test_leaving_for_the_day_or_wishing_to_leaves_the_workplace(
    client: Client, plain: Settings, messages: list[str], kept: list[int]
) -> None:
    await say(client, *messages)
    assert sorted(text for text, _ in live(plain)) == sorted(messages[i] for i in kept)


async def test_an_employer_left_that_was_never_held_is_no_core_fact(
    client: Client, plain: Settings
) -> None:
    """ "I left Paris yesterday." and タバコを辞めました (quit smoking) were core identity."""
    await say(client, "I left Paris yesterday.", "タバコを辞めました。")
    with inspect_database(plain.database_path) as conn:
        layers = conn.execute(
            "select distinct layer from memories where deleted_at is null"
        ).fetchall()
    assert [row[0] for row in layers] in ([], ["working"])


@pytest.mark.parametrize(
    ("messages", "names"),
    [
        (
            ["I have a son named Leo.", "I have a son named Max.",
             "Actually my son's name is Sam, not Leo."],
            ["Max", "Sam"],
        ),
        (["I have a son named Leo.", "Actually, my younger son is Max."], ["Leo", "Max"]),
        (["I have a son named Leo.", "I also have a son named Max."], ["Leo", "Max"]),
        (["My dog is called Rex.", "My other dog is called Max."], ["Max", "Rex"]),
    ],
)  # fmt: skip
async def test_a_correction_replaces_the_child_it_names(
    client: Client, plain: Settings, messages: list[str], names: list[str]
) -> None:
    await say(client, *messages)
    assert sorted(str(value) for _, value in live(plain)) == names


@pytest.mark.parametrize(
    ("message", "values"),
    [
        ("I live in Boston with my wife and work at Acme.", ["Acme", "Boston"]),
        ("I work at Acme with my brother and live in Boston.", ["Acme", "Boston"]),
        ("I work at Acme and live in Boston.", ["Acme", "Boston"]),
        ("I work at Acme and Bob works at Google.", ["Acme"]),
        ("I live in L.A.", ["L.A"]),
        ("My wife is Mrs. Jane Doe.", ["Jane Doe"]),
        ("我住在哪里", []),
    ],
)
async def test_each_value_goes_to_its_own_person(
    client: Client, plain: Settings, message: str, values: list[str]
) -> None:
    """ "I live in Boston with my wife and work at Acme." gave the wife the workplace (and then,
    round seventeen, no one)."""
    await say(client, message)
    assert sorted(str(value) for _, value in live(plain)) == sorted(values)
    assert not [text for text, _ in live(plain) if "wife works" in text]


# The third re-test (/tmp/rt18c): regressions of the fixes above.


@pytest.mark.parametrize(
    ("message", "kept"),
    [
        ("我住在北京，谁都知道。", ["我住在北京，谁都知道。"]),
        (
            "誰にも言ってないけど、トヨタで働いています。",
            ["誰にも言ってないけど、トヨタで働いています。"],
        ),
        ("我住在哪里", []),
        ("Is it true that I work at Acme Corp. now?", []),
        ("你说我住在北京，你确定吗？", []),
    ],
)
def test_a_question_word_asks_only_where_it_ends_the_clause(message: str, kept: list[str]) -> None:
    assert signal_sentences(message) == kept


@pytest.mark.parametrize(
    ("messages", "kept"),
    [
        (["I work at Stripe.", "I finally quit Stripe today."], [1]),
        (["I work at Stripe.", "I left Stripe for a startup."], [1]),
        (["I work at Stripe.", "I left Stripe to go back to school."], [1]),
        (["トヨタで働いています。", "トヨタを辞めたけど、まだ友達がいます。"], [1]),
        (["I live in Boston.", "I moved to Q.A. last month."], [0]),
        (["I live in Boston.", "I moved to the U.S. team."], [0]),
    ],
)
async def test_a_job_left_any_way_retires_it_and_a_team_is_no_home(
    client: Client, plain: Settings, messages: list[str], kept: list[int]
) -> None:
    await say(client, *messages)
    assert sorted(text for text, _ in live(plain) if text in messages) == sorted(
        messages[i] for i in kept
    )


@pytest.mark.parametrize(
    ("messages", "names"),
    [
        (["I have a son named Leo.", "Actually my older son's name is Sam, not Leo."], ["Sam"]),
        (["My son's name is Leo.", "Second correction: my son's name is Theo."], ["Theo"]),
        (
            ["My daughter's name is Ana.", "My other daughter's name is Bea.",
             "Correction: my other daughter's name is Bia."],
            ["Ana", "Bia"],
        ),
    ],
)  # fmt: skip
async def test_a_correction_with_a_qualifier_still_replaces(
    client: Client, plain: Settings, messages: list[str], names: list[str]
) -> None:
    await say(client, *messages)
    assert sorted(str(value) for _, value in live(plain)) == names


@pytest.mark.parametrize(
    ("messages", "slots"),
    [
        (["I have two sons, Leo and Max."], ["person:son=Leo", "person:son=Max"]),
        (
            ["I have three daughters: Ann, Bea and Cy."],
            ["person:daughter=Ann", "person:daughter=Bea", "person:daughter=Cy"],
        ),
        (["I have a daughter, Mia, and a son, Leo."], ["person:daughter=Mia", "person:son=Leo"]),
        (["我有两个儿子，小明和小亮。"], ["person:son=小亮", "person:son=小明"]),
        (["我儿子叫小明。", "我还有一个儿子叫小亮。"], ["person:son=小亮", "person:son=小明"]),
        (
            ["I have a son named Leo.", "I have two sons, Leo and Max."],
            ["person:son=Leo", "person:son=Max"],
        ),
        (["My son Leo just turned 5."], ["person:son=Leo"]),
        (["My brother Tom and I went hiking."], ["person:brother=Tom"]),
        (["My name is 李雷."], ["name=李雷"]),
        (["我在腾讯工作。", "我不在腾讯工作了，现在加入了阿里巴巴。"], ["workplace=阿里巴巴"]),
        (
            ["トヨタで働いています。", "トヨタを辞めて、ソニーに入社しました。"],
            ["workplace=ソニー"],
        ),
        (["I work at Stripe.", "I wish I left Stripe years ago."], ["workplace=Stripe"]),
        (["I wish I lived in Paris."], []),
        (
            ["I work at Stripe.", "I left Stripe.", "I work at Google.", "I work at Stripe again."],
            ["workplace=Stripe"],
        ),
        (
            [
                "息子の名前はケンです。",
                "もう一人の息子の名前はタロウです。",
                "すみません、息子の名前はケンではなくリョウです。",
            ],
            ["person:son=タロウ", "person:son=リョウ"],
        ),
        (["東京に住んでいます。", "すみません、東京ではなく大阪に住んでいます。"], ["home=大阪"]),
        # nothing to read: no names, and home is no employer
        (["I have two sons and I love them."], []),
        (["我辞职了，现在在家。"], []),
    ],
)
async def test_what_round_seventeen_left_open_is_read(
    client: Client, plain: Settings, messages: list[str], slots: list[str]
) -> None:
    """Round seventeen's re-tests, left open then: "I have two sons, Leo and Max." and 我还有一
    个儿子叫小亮 stored nothing; 我不在腾讯工作了，现在加入了阿里巴巴 set no new employer; "I
    wish I left Stripe years ago." retired the workplace; "I left Stripe." stayed live beside
    "I work at Stripe again." after a job elsewhere;
    息子の名前はケンではなくリョウです set no son (and then replaced the other son), and
    東京ではなく大阪に住んでいます the home "なく大阪"."""
    await say(client, *messages)
    assert held(plain) == sorted(slots)


def held(settings: Settings) -> list[str]:
    """The slots the live memories hold, as "predicate=value"."""
    with inspect_database(settings.database_path) as conn:
        rows = conn.execute(
            "select metadata from memories where deleted_at is null and superseded_by is null"
        ).fetchall()
    slots = [json.loads(row[0] or "{}") for row in rows]
    return sorted(f"{s['predicate']}={s['value']}" for s in slots if s.get("predicate"))


# The fourth re-test (/tmp/rt19, of the change above): what its rules read wrongly or missed.


@pytest.mark.parametrize(
    ("messages", "slots"),
    [
        # a day, a gift or a film after "my <relation>" is no name
        (["My mom's name is Linda.", "I called my mom Sunday and she sounded fine."],
         ["person:mother=Linda"]),
        (["My boss is Mike.", "I'll ask my boss Monday and get back to you."],
         ["person:manager=Mike"]),
        (["My wife is Sarah.", "I bought my wife Apple AirPods and she loves them."],
         ["person:wife=Sarah"]),
        (["My son is Leo.", "I gave my son Lego and he went wild."], ["person:son=Leo"]),
        (["My sister is Ann.", "I texted my sister Happy Birthday."], ["person:sister=Ann"]),
        (["My wife is Sarah.", "I told my wife Saturday was fine."], ["person:wife=Sarah"]),
        # words of a clause listed after "我有两个…" are no names
        (["我有两个女儿，都很可爱，也很聪明。"], []),
        (["我有两个儿子，老大八岁，老二五岁。"], []),
        (["我有三个哥哥，分别在北京、上海和广州工作。"], []),
        (["我有两个妹妹，在上海和杭州。"], []),
        (["我有2个儿子，Tom和Jerry，都很调皮。"], ["person:son=Jerry", "person:son=Tom"]),
        # where one is after leaving a job is no employer
        (["我在腾讯工作。", "我从腾讯离职了，现在在北京。"], ["left:workplace=腾讯"]),
        (["我在腾讯工作。", "我辞职了，现在在准备考研。"], ["workplace=腾讯"]),
        (["私は東京に住んでいます。", "会社を辞めて、大阪に移りました。"], ["home=東京"]),
        (["トヨタで働いています。", "トヨタを辞めて、ジムに入りました。"], ["workplace=トヨタ"]),
        # a wish opens its own clause only
        (["My name is Dana, and I wish I could sleep more."], ["name=Dana"]),
        (["I work at Stripe.", "I wish I had more time, but I work at Google now."],
         ["workplace=Google"]),
        (["I work at Stripe.", "Pretend I work at Google."], ["workplace=Stripe"]),
        # back at an employer left before the last one left
        (["I work at Stripe.", "I left Stripe.", "I joined Google.", "I left Google.",
          "I work at Stripe again."],
         ["left:workplace=Google", "workplace=Stripe"]),
        (["I work at Stripe.", "I left Stripe a review on Glassdoor."], ["workplace=Stripe"]),
        (["I work at Stripe.", "I left Stripe a year ago."], ["left:workplace=Stripe"]),
        # more ways of naming several
        (["I have two sons, Leo and Max, and a daughter, Mia."],
         ["person:daughter=Mia", "person:son=Leo", "person:son=Max"]),
        (["I have a son, Leo, and another son, Max."], ["person:son=Leo", "person:son=Max"]),
        (["My son Leo and my daughter Mia love soccer."],
         ["person:daughter=Mia", "person:son=Leo"]),
        (["My sons Leo and Max are twins."], ["person:son=Leo", "person:son=Max"]),
        (["I have two cats, Milo and Luna."], ["pet:cat=Luna", "pet:cat=Milo"]),
        (["我有两只猫，咪咪和花花。"], ["pet:cat=咪咪", "pet:cat=花花"]),
        (["我有一个儿子叫小明，还有一个女儿叫小红。"], ["person:daughter=小红", "person:son=小明"]),
        # a name in Chinese or Japanese, without the particle after it
        (["Call me 小王吧"], ["name=小王"]),
        (["My name is 山田太郎です."], ["name=山田太郎"]),
        (["My mother's name is 王芳."], ["person:mother=王芳"]),
    ],
)  # fmt: skip
async def test_what_the_fourth_retest_found(
    client: Client, plain: Settings, messages: list[str], slots: list[str]
) -> None:
    await say(client, *messages)
    assert held(plain) == sorted(slots)


@pytest.mark.parametrize(
    ("messages", "kept"),
    [
        (["I have two sons, Leo and Max.", "My son Leo just turned 5."],
         "My son Leo just turned 5."),
        (["My wife is Sarah.", "My wife Sarah just got promoted to VP of Engineering."],
         "My wife Sarah just got promoted to VP of Engineering."),
    ],
)  # fmt: skip
async def test_a_relation_named_again_with_news_keeps_the_news(
    client: Client, plain: Settings, messages: list[str], kept: str
) -> None:
    """ "My son Leo just turned 5." after the sons were named was taken for the same fact:
    nothing kept, and recall no longer showed the line."""
    await say(client, *messages)
    assert kept in [text for text, _ in live(plain)]
    found = data_of(await client.call_tool("cortex_recall", {"query": kept}))
    assert kept in found["context"]


@pytest.mark.parametrize(
    ("messages", "slots"),
    [
        # a relation named beside its name after a lead-in or a verb that gives it nothing
        (["So my son Leo is 5."], ["person:son=Leo"]),
        (["Btw my dog Bruno is a beagle."], ["pet:dog=Bruno"]),
        (["Honestly my cat Mochi is the best."], ["pet:cat=Mochi"]),
        (["I think my son Leo is sick."], ["person:son=Leo"]),
        (["My daughter May is 3."], ["person:daughter=May"]),
        (["My son is Leo.", "I showed my son Frozen and he loved it."], ["person:son=Leo"]),
        # not leaving: a time of day, something left for them
        (["I work at Stripe.", "I left Stripe at 6pm."], ["workplace=Stripe"]),
        (["I work at Stripe.", "I left Stripe feedback."], ["workplace=Stripe"]),
        (["大阪に住んでいます。", "やっぱり大阪に住んでいるのが一番です。"], ["home=大阪"]),
    ],
)
async def test_what_the_fifth_retest_found(
    client: Client, plain: Settings, messages: list[str], slots: list[str]
) -> None:
    """The fourth re-test's fix read a relation's name only at a clause's start: "So my son Leo
    is 5.", "Honestly my cat Mochi is the best." and "My daughter May is 3." named no one (the fifth
    re-test, /tmp/rt19b); "I left Stripe at 6pm." retired the workplace, and やっぱり大阪に…
    set the home "やっぱり大阪"."""
    await say(client, *messages)
    assert held(plain) == sorted(slots)


@pytest.mark.parametrize(
    "said",
    [
        "I'm buying my wife AirPods.",
        "I purchased my wife Apple AirPods.",
        "Bought my wife AirPods.",
        "Dinner with my wife Christmas Eve.",
        "I proposed to my wife Valentine's Day.",
        "I reminded my wife I've got a meeting.",
        "After dinner with my wife, Jake went home.",
        "I love my wife, Netflix and pizza.",
        "I convinced my wife Tesla is a good buy.",
        "I took my wife Paris.",
    ],
)
async def test_what_follows_my_wife_as_an_object_is_not_her_name(
    client: Client, plain: Settings, said: str
) -> None:
    """The sixth re-test (/tmp/rt19c): with the name read after any verb but a listed few, each
    of these replaced the wife's name held ("I'm buying my wife AirPods." made her AirPods)."""
    await say(client, "My wife is Anna.", said)
    assert held(plain) == ["person:wife=Anna"]


@pytest.mark.parametrize(
    ("said", "slots"),
    [
        ("I left Stripe at 26 to start my own company.", ["left:workplace=Stripe"]),
        ("I left Stripe two hours ago.", ["workplace=Stripe"]),
        ("I left Stripe my laptop.", ["workplace=Stripe"]),
    ],
)
async def test_an_age_is_no_time_of_day(
    client: Client, plain: Settings, said: str, slots: list[str]
) -> None:
    """ "I left Stripe at 26 …" was read as leaving for the day once "at 6pm" was."""
    await say(client, "I work at Stripe.", said)
    assert held(plain) == slots


async def test_a_name_said_in_passing_replaces_no_name_held(
    client: Client, plain: Settings
) -> None:
    """Where a name beside a relation is still misread, it must not take the place of the name
    the user stated: only "My wife is Beth." (or a correction) replaces Anna."""
    await say(client, "My wife is Anna.", "So my wife Beth just got promoted.")
    assert "person:wife=Anna" in held(plain)
    assert "My wife Beth just got promoted." in [text for text, _ in live(plain)]
    await say(client, "My wife is Beth.")
    assert "person:wife=Beth" in held(plain) and "person:wife=Anna" not in held(plain)


@pytest.mark.parametrize(
    ("messages", "slots"),
    [
        (["I play golf with my dad Sundays.", "And my dad Mark loves it."], ["person:father=Mark"]),
        (["I'm having brunch with my mom Mother's Day."], []),
        # a name said in passing replaces one said in passing
        (["My girlfriend Anna and I broke up.", "My girlfriend Beth and I just moved in together."],
         ["person:girlfriend=Beth"]),
        (["My wife is Anna.", "Sorry, I meant my wife Beth, not Anna."], ["person:wife=Beth"]),
        (["I work at Stripe.", "I left Stripe at 5 today."], ["workplace=Stripe"]),
        (["I work at Stripe.", "I left Stripe after 8 years."], ["left:workplace=Stripe"]),
    ],
)  # fmt: skip
async def test_what_the_seventh_retest_found(
    client: Client, plain: Settings, messages: list[str], slots: list[str]
) -> None:
    """The seventh re-test (/tmp/rt19d): a wrong name read in passing ("my dad Sundays") could
    not be replaced by a true one said the same way, nor by "I meant my wife Beth, not Anna";
    "I left Stripe at 5 today." ended the job and "… after 8 years." did not."""
    await say(client, *messages)
    assert held(plain) == sorted(slots)


@pytest.mark.parametrize(
    ("messages", "slots"),
    [
        (["My wife is Anna.", "We got divorced. My new wife is Beth."], ["person:wife=Beth"]),
        (["My boss is Karen.", "My new boss is Dave."], ["person:manager=Dave"]),
        (["I work at Stripe.", "I left Stripe at five to pick up my kid."], ["workplace=Stripe"]),
        (["I work at Stripe.", "I left Stripe half an hour ago."], ["workplace=Stripe"]),
        (["やっぱ大阪に住んでる。"], ["home=大阪"]),
        (["結局大阪に住んでいます。"], ["home=大阪"]),
    ],
)
async def test_what_the_seventh_retest_left_open_is_read(
    client: Client, plain: Settings, messages: list[str], slots: list[str]
) -> None:
    """Left open by the seventh re-test: "My new wife is Beth." stored nothing, an hour said in
    words ended the job, and やっぱ / 結局 stayed in the home."""
    await say(client, *messages)
    assert held(plain) == sorted(slots)


# Round nineteen's key-less re-test (/tmp/rt20): one fact replaced took the others said with it,
# and a new name given in place of an old one replaced nothing.


@pytest.mark.parametrize(
    ("messages", "slots"),
    [
        (["My wife's name is Priya and we have two kids, Maya and Leo.",
          "Actually, my daughter's name is Mia, not Maya."],
         ["person:child=Leo", "person:daughter=Mia", "person:wife=Priya"]),
        (["I'm Olga and I live in Riga.", "I moved to Tallinn."], ["home=Tallinn", "name=Olga"]),
        (["私は田中で、東京に住んでいます。", "大阪に引っ越しました。"],
         ["home=大阪", "name=田中"]),
        (["I have two kids, Maya and Leo."], ["person:child=Leo", "person:child=Maya"]),
        (["My children are Ann and Bo."], ["person:child=Ann", "person:child=Bo"]),
        (["My sons are Leo and Max."], ["person:son=Leo", "person:son=Max"]),
        # a new name given in place of the one held
        (["My daughter is Maya.", "Sorry, I meant Mia, not Maya."], ["person:daughter=Mia"]),
        (["My son is Leo.", "Sorry, I meant Leon, not Leo."], ["person:son=Leon"]),
        (["My dog is Rex.", "Correction: the dog is called Max, not Rex."], ["pet:dog=Max"]),
        (["My name is Jon.", "I meant John, not Jon."], ["name=John"]),
        # ... but not another person's, nor a name said of something else, nor a day (rt20b)
        (["My daughter is Maya.", "My sister is Mia, not Maya."],
         ["person:daughter=Maya", "person:sister=Mia"]),
        (["My wife is Anna.", "In the email draft, it's Hanna, not Anna — she's the client."],
         ["person:wife=Anna"]),
        (["My son is Leo.", "Fix the typo in the README: it's Leon, not Leo."],
         ["person:son=Leo"]),
        (["My daughter is April.", "Sorry, I meant May, not April."], ["person:daughter=April"]),
        (["My son is Jack.", "I meant Tuesday, not Jack."], ["person:son=Jack"]),
        # the third re-test (rt20c)
        (["My daughter is Maya.", "My name is Mia, not Maya."],
         ["name=Mia", "person:daughter=Maya"]),
        (["I live in Austin.", "Sorry, I meant Boston, not Austin."], ["home=Boston"]),
        (["We use Postgres for billing.", "Actually billing is on MySQL, not Postgres."],
         ["uses:database=MySQL"]),
        (["I have a dog named Rex and a cat named Tom.",
          "Correction: the dog is called Max, not Rex."], ["pet:cat=Tom", "pet:dog=Max"]),
        # the fourth re-test (rt20d)
        (["I have a dog named Rex, a cat named Tom and a parrot named Kiwi."],
         ["pet:cat=Tom", "pet:dog=Rex", "pet:parrot=Kiwi"]),
        (["I have a neighbor who owns a dog named Rex and a cat named Tom."], []),
        # the fifth re-test (rt20e)
        (["I have two cats and a dog named Rex."], ["pet:dog=Rex"]),
        (["I have a dog, Rex, and a cat named Tom."], ["pet:cat=Tom"]),
        (["I have a dog named Rex and a cat named Tom and a parrot named Kiwi."],
         ["pet:cat=Tom", "pet:dog=Rex", "pet:parrot=Kiwi"]),
        # round nineteen's note: "it's X, not Y" was never stored; two relations in one
        # sentence read only the first
        (["My wife's name is Priya and we have two kids, Maya and Leo.", "No, it's Mia, not Maya."],
         ["person:child=Leo", "person:child=Mia", "person:wife=Priya"]),
        (["My son is Leo.", "That's Leon, not Leo."], ["person:son=Leon"]),
        (["My daughter is Maya and my son is Leo."], ["person:daughter=Maya", "person:son=Leo"]),
        (["My wife Anna and I have a son, Tom, and a dog named Rex.",
          "Correction: the dog is called Max, not Rex."],
         ["person:son=Tom", "person:wife=Anna", "pet:dog=Max"]),
    ],
)  # fmt: skip
async def test_one_fact_replaced_leaves_the_others(
    client: Client, plain: Settings, messages: list[str], slots: list[str]
) -> None:
    """ "Actually, my daughter's name is Mia, not Maya." replaced the memory holding the wife
    and both children whole, "I moved to Tallinn." took the name said with the old home; "Sorry,
    I meant Mia, not Maya." was stored beside the daughter Maya, who still answered."""
    await say(client, *messages)
    assert held(plain) == sorted(slots)


@pytest.mark.parametrize(
    ("messages", "stored", "words"),
    [
        (["My daughter is Maya.", "Sorry, I meant Mia, not Maya."],
         "My daughter is Mia, not Maya.", "Maya"),
        (["I live in Austin.", "No, it's Boston, not Austin."], "I live in Boston, not Austin.",
         "Austin"),
    ],
)  # fmt: skip
async def test_a_bare_new_name_is_stored_as_what_it_now_says(
    client: Client, plain: Settings, messages: list[str], stored: str, words: str
) -> None:
    """ "It's Mia, not Maya." alone says nothing of whose name it is: the memory that takes the
    daughter's slot reads as the fact, and the old name still finds it."""
    await say(client, *messages)
    assert [text for text, _ in live(plain)] == [stored]
    answer = data_of(await client.call_tool("cortex_recall", {"query": words}))
    assert [m["content"] for m in answer["memories"]][:1] == [stored]


@pytest.mark.parametrize(
    ("remembered", "messages", "texts"),
    [
        ("My wife Anna and I have a son, Tom, and a dog named Rex.",
         ["Correction: the dog is called Max, not Rex."],
         ["My wife Anna and I have a son, Tom, and a dog named Max, not Rex."]),
        ("Our staging server runs Ubuntu and lives in Frankfurt.",
         ["Correction: staging lives in Dublin, not Frankfurt."],
         ["Our staging server runs Ubuntu and lives in Dublin, not Frankfurt."]),
        # two values in the memory: which one is meant is not known, so it is replaced whole
        ("The API is written in Python and the workers in Python too.",
         ["Actually the API is written in Go, not Python."],
         ["Actually the API is written in Go, not Python."]),
        (None, ["My daughter is Maya.", "Sorry, I meant Mia, not Maya.",
                "Sorry, I meant Mia, not Maya."], ["My daughter is Mia, not Maya."]),
        (None, ["My daughter is Maya.", "Sorry, I meant Mia, not Maya.",
                "Actually it's Mila, not Mia."], ["My daughter is Mila, not Mia."]),
        # the re-test of this change (rt21): a value of several words, a day, a number
        (None, ["I live in New York.", "It's New Jersey, not New York."],
         ["I live in New Jersey, not New York."]),
        ("Our office is in New York and has 40 people.",
         ["Actually, it's New Jersey, not New York."],
         ["Our office is in New Jersey, not New York, and has 40 people."]),
        ("The team lunch is on Monday.", ["It's Friday, not Monday."],
         ["The team lunch is on Friday, not Monday."]),
        ("My flight is at 9 am on Tuesday.", ["Sorry, it's 10, not 9."],
         ["My flight is at 10 am on Tuesday."]),
        # ... and whose it is: another person's, or one of two holding the name
        (None, ["My dog is called Rex.", "My neighbor's dog is Max, not Rex — they look alike."],
         ["My dog is called Rex.", "My neighbor's dog is Max, not Rex — they look alike."]),
        (None, ["I have a dog named Rex and a cat named Rex.", "It's Max, not Rex."],
         ["It's Max, not Rex.", "My cat is called Rex.", "My dog is called Rex."]),
        (None, ["My wife is Anna.", "My sister is Anna.", "It's Hannah, not Anna."],
         ["It's Hannah, not Anna.", "My sister is Anna.", "My wife is Anna."]),
        (None, ["My boss is Mark.", "I have a cat named Mark.", "Sorry, I meant Marc, not Mark."],
         ["I have a cat named Mark.", "My boss is Mark.", "Sorry, I meant Marc, not Mark."]),
        # the second re-test (rt21b): a value inside a longer name, a number with its unit,
        # the slot's value said with the number, a correction of its own message
        ("I work at Bank of America in Charlotte.", ["It's Europe, not America."],
         ["I work at Bank of America in Charlotte.", "It's Europe, not America."]),
        ("Our kids go to Lincoln Elementary.", ["Our kids' school is Jefferson, not Lincoln."],
         ["Our kids go to Lincoln Elementary.", "Our kids' school is Jefferson, not Lincoln."]),
        ("My raise was 5% this year.", ["Sorry, it's 6, not 5."], ["My raise was 6% this year."]),
        ("The team lunch is on Monday.",
         ["My dentist is on Monday. Oh no, it's Tuesday, not Monday."],
         ["Oh no, it's Tuesday, not Monday.", "The team lunch is on Monday."]),
        (None, ["My boss is John Smith.", "It's John Smyth, not John Smith."],
         ["My boss is John Smyth, not John Smith."]),
        # the third re-test (rt21c): "it's X, not Y" takes its values as written; a memory it
        # cannot say again is left as it is, never replaced by the bare words
        ("My flight is at 9 am on Tuesday.", ["It's 10 am, not 9 am."],
         ["My flight is at 10 am on Tuesday."]),
        ("My meeting with Jordan is at 3 pm and my call with Sam is at 4 pm.",
         ["It's 5 pm, not 4 pm."],
         ["My meeting with Jordan is at 3 pm and my call with Sam is at 5 pm."]),
        ("I have 2 kids and 2 dogs.", ["It's 3, not 2."],
         ["I have 2 kids and 2 dogs.", "It's 3, not 2."]),
        ("I'm allergic to peanuts.", ["Sorry, it's shellfish, not peanuts."],
         ["I'm allergic to shellfish, not peanuts."]),
        ("I love red wine.", ["It's blue, not red."], ["I love red wine.", "It's blue, not red."]),
        ("I'm vegetarian and my wife is vegan.", ["It's pescatarian, not vegetarian."],
         ["I'm pescatarian, not vegetarian, and my wife is vegan."]),
        ("I work 2 days from home.", ["It's 3 days, not 2."], ["I work 3 days from home."]),
        ("My meeting with May is on Friday.", ["It's June, not May."],
         ["It's June, not May.", "My meeting with May is on Friday."]),
        (None, ["I live in Austin. Wait, it's Dallas, not Austin."], ["I live in Dallas."]),
        # a correction of a statement of its own message, in the other forms (last read)
        (None, ["I live in Austin. Actually I live in Dallas, not Austin."], ["I live in Dallas."]),
        (None, ["I work at Google. Sorry, I meant Meta, not Google."], ["I work at Meta."]),
        (None, ["My daughter is Maya. Sorry, I meant Mia, not Maya."], ["My daughter is Mia."]),
        (None, ["I'm allergic to peanuts.", "Oops, it's tree nuts, not peanuts."],
         ["I'm allergic to tree nuts, not peanuts."]),
    ],
)  # fmt: skip
async def test_a_correction_of_one_word_keeps_the_rest_of_the_memory(
    client: Client, plain: Settings, remembered: str | None, messages: list[str], texts: list[str]
) -> None:
    """A memory holding more than the value a correction replaces (stored whole by an agent:
    "My wife Anna and I have a son, Tom, and a dog named Rex.") was kept beside the correction,
    stale name and all, or replaced by the correction's words, losing the rest (round
    nineteen's note). It is said again with the one word changed; said again, the correction
    is a restatement, and a second correction replaces the first's word."""
    if remembered is not None:
        data_of(await client.call_tool("cortex_remember", {"content": remembered}))
    await say(client, *messages)
    assert [text for text, _ in live(plain)] == texts


async def test_a_bare_correction_of_nothing_held_is_no_core_memory(
    client: Client, plain: Settings
) -> None:
    """ "Oh wait, it's Friday, not Monday today." corrects what was just said, nothing held:
    it is kept in working memory, not in core (found re-testing: such remarks crowded core)."""
    await say(client, "Oh wait, it's Friday, not Monday today.")
    with inspect_database(plain.database_path) as conn:
        layers = conn.execute("select layer from memories where deleted_at is null").fetchall()
    assert [row[0] for row in layers] == ["working"]


@pytest.mark.parametrize(
    "correction",
    [
        "It's decided: we're going with Postgres for the billing service.",
        "It's MySQL 8, not Postgres, for the billing DB.",
        "It's 4pm, not 3pm.",
    ],
)
async def test_a_correction_that_says_more_or_names_a_held_value_stays_in_core(
    client: Client, plain: Settings, correction: str
) -> None:
    """Only "it's X, not Y" and nothing more, naming nothing held, goes to working memory
    (found re-testing: "It's decided: …" and corrections of held values went there too)."""
    data_of(await client.call_tool("cortex_remember", {"content": "The sync is at 3pm."}))
    await say(client, correction)
    with inspect_database(plain.database_path) as conn:
        layers = conn.execute(
            "select layer from memories where deleted_at is null and superseded_by is null"
        ).fetchall()
    assert "working" not in [row[0] for row in layers]


async def test_an_allergy_corrected_in_its_own_message_is_held_as_the_new_one(
    client: Client, plain: Settings
) -> None:
    """The slot said again with the new value keys it by that value (allergy:shellfish)."""
    await say(client, "I'm allergic to peanuts. Sorry, it's shellfish, not peanuts.")
    assert held(plain) == ["allergy:shellfish=shellfish"]


async def test_a_number_corrected_changes_the_slot_value_too(
    client: Client, plain: Settings
) -> None:
    """ "We run Postgres 15 in production." then "It's 16, not 15.": the text said 16, the slot
    still Postgres 15 (found re-testing)."""
    said = "We run Postgres 15 in production."
    data_of(await client.call_tool("cortex_remember", {"content": said}))
    await say(client, "It's 16, not 15.")
    assert live(plain) == [("We run Postgres 16 in production.", "Postgres 16")]


async def test_an_introduction_of_many_facts_keeps_them_all(
    client: Client, plain: Settings
) -> None:
    """Seventeen facts in one message: the last was dropped by a cap of 16 (found re-testing)."""
    facts = [
        "My name is Dana.", "I live in Oslo.", "I work at Equinor.", "My wife is Kari.",
        "My son is Leo.", "My daughter is Mia.", "I have a dog named Rex.",
        "I have a cat named Tom.", "My mother is Eva.", "My father is Raj.", "My brother is Ole.",
        "My sister is Ida.", "I use Neovim.", "Please answer in English.",
        "I'm allergic to peanuts.", "I'm a data engineer.", "I'm allergic to penicillin.",
    ]  # fmt: skip
    await say(client, " ".join(facts))
    assert "allergy:penicillin=penicillin" in held(plain)
    assert len(held(plain)) == len(facts)


async def test_pasted_log_lines_are_not_the_user_and_use_up_nothing(
    client: Client, plain: Settings
) -> None:
    """Twenty log lines ("… WARN [svc] I live in /var/lib/app0, retrying") became core memories
    and, past the cap, cost the user's own name and son said after them (found re-testing)."""
    lines = "".join(
        f"2024-05-01T12:00:{n:02d}Z WARN [svc] I live in /var/lib/app{n}, retrying\n"
        for n in range(20)
    )
    await say(client, f"Can you see why this keeps failing?\n{lines}\nAlso, my name is Priya "
              "and my son is Leo.")  # fmt: skip
    assert held(plain) == ["name=Priya", "person:son=Leo"]
    assert not any("/var/lib" in text for text, _ in live(plain))


@pytest.mark.parametrize(
    ("said", "question", "found"),
    [
        (["We also have a dog named Biscuit."], "do I have any pets?", ["Biscuit"]),
        (["I have two kids, Maya and Leo."], "what are my kids' names?", ["Maya", "Leo"]),
    ],
)
async def test_a_question_in_other_words_finds_the_relation(
    client: Client, said: list[str], question: str, found: list[str]
) -> None:
    """Found re-testing (rt20): "do I have any pets?" found nothing with "We also have a dog
    named Biscuit." stored (keywords only), and the children read as such are asked for as
    kids."""
    await say(client, *said)
    answer = data_of(await client.call_tool("cortex_recall", {"query": question}))
    shown = " ".join(m["content"] for m in answer["memories"][: len(found)])
    assert all(name in shown for name in found), answer["memories"]
