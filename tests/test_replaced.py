"""A statement that names what it replaces supersedes the memory naming it (found trying the
product: "the billing DB is MySQL 8, not Postgres" and "不对，我们的数据库是PostgreSQL，不是MySQL"
were stored beside the memory they correct, or not at all, and recall ranked the stale one
first; "Forget what I said about force-pushing, that rule no longer applies" left the rule
live). Real MCP sessions on both engines, key-less: cortex_ingest as the Stop hook sends it,
and cortex_remember as an agent calls it."""

import pytest
from mcp import Client

from cortex_mcp.config import Settings
from cortex_mcp.engine.language.naming import named_in
from tests.conftest import data_of, recall, remember
from tests.test_same_fact import live_contents

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]


async def ingest(client: Client, user: str) -> list[dict[str, object]]:
    arguments = {"user_message": user, "assistant_message": "OK."}
    return list(data_of(await client.call_tool("cortex_ingest", arguments))["fast"])


@pytest.mark.parametrize(
    ("before", "after", "stale"),
    [
        (
            "for this repo: the billing service runs on PostgreSQL 14",
            "no, I live in Munich now, not Berlin. And the billing DB is MySQL 8, not Postgres — "
            "I misremembered earlier",
            "PostgreSQL 14",
        ),
        (
            "this service targets Python 3.11",
            "no wait, we use Python 3.12 not 3.11",
            "targets Python 3.11",
        ),
        (
            "我们这个项目的数据库用的是MySQL，部署在阿里云上。",
            "你之前说我们用MySQL？不对，我们的数据库是PostgreSQL，不是MySQL。",
            "用的是MySQL",
        ),
        (
            "Remember: never force-push to main.",
            "Forget what I said about force-pushing, that rule no longer applies.",
            "Never force-push",
        ),
        (
            "记住：周五之前不要部署生产环境",
            "之前说的周五之前不要部署生产环境那条取消了，现在可以随时部署",
            "周五之前不要部署生产环境。",
        ),
    ],
)
async def test_what_a_user_says_is_replaced_is_no_longer_live(
    client: Client, settings: Settings, before: str, after: str, stale: str
) -> None:
    first = await ingest(client, before)
    assert first and stale in str(first[0]["content"]), first

    second = await ingest(client, after)

    assert first[0]["id"] in [m["superseded_id"] for m in second], second
    assert not [text for text in live_contents(settings) if stale in text]


async def test_an_agent_s_remembered_correction_replaces_the_value_it_names(
    client: Client, settings: Settings
) -> None:
    old = await remember(client, "For this repo: the billing service runs on PostgreSQL 14.")

    new = await remember(client, "Actually the billing service uses MySQL 8, not PostgreSQL")

    assert new["superseded_id"] == old["id"], new
    assert "PostgreSQL 14." not in " ".join(live_contents(settings))


@pytest.mark.parametrize(
    ("before", "after"),
    [
        # another person's value
        ("My sister lives in Paris.", "I live in Lyon, not Paris."),
        # nothing shared but the value
        ("The offsite is in Lisbon.", "My dog is called Rex, not Lisbon."),
        # itself already a correction away from that value
        ("We use MySQL 8, not Postgres.", "The billing DB is MySQL 8, not Postgres."),
        # the closest memory, which does not name the value replaced (retest14 N1)
        (
            "The metrics exporter listens on port 80801.",
            "Actually the admin console listens on port 9090, not 8080.",
        ),
    ],
)
@pytest.mark.parametrize("tool", ["cortex_ingest", "cortex_remember"])
async def test_a_named_value_replaces_nothing_else(
    client: Client, settings: Settings, before: str, after: str, tool: str
) -> None:
    await remember(client, before)

    if tool == "cortex_ingest":
        await ingest(client, after)
    else:
        await remember(client, after)

    assert before in live_contents(settings)


def test_the_values_and_topics_a_statement_names() -> None:
    assert named_in("We use Python 3.12 not 3.11.").values == ("3.11",)  # type: ignore[union-attr]
    assert named_in("我们的数据库是PostgreSQL，不是MySQL。").values == ("MySQL",)  # type: ignore[union-attr]
    assert named_in("Ignore the rule about squash merges.").topic == "squash merges"  # type: ignore[union-attr]
    assert named_in("I'm not sure about that.") is None
    assert named_in("It's not that hard.") is None


async def test_an_agent_s_one_memory_of_several_slots_replaces_each_old_value(
    client: Client, settings: Settings
) -> None:
    """Found trying the product: cortex_remember("I started a new job at BMW as a staff
    engineer") left "I work at Siemens." live (a memory of two slots held neither)."""
    workplace = await remember(client, "I work at Siemens.")
    role = await remember(client, "I work as a backend engineer.")

    new = await remember(client, "I started a new job at BMW as a staff engineer")

    assert new["action"] == "superseded" and new["superseded_id"] == workplace["id"], new
    live = live_contents(settings)
    assert workplace["content"] not in live and role["content"] not in live, live
    assert "I started a new job at BMW as a staff engineer" in live
    # found re-testing: the new memory held no slot, so "where do I work?" found nothing
    answer = await recall(client, "where do I work?")
    assert answer["memories"][0]["content"] == new["content"], answer["memories"]


async def test_an_agent_s_memory_of_two_slots_is_replaced_by_the_next_change(
    client: Client, settings: Settings
) -> None:
    """Found re-testing: "I work at Siemens as a backend engineer." held no slot, so a later
    job change replaced nothing and recall answered Siemens."""
    old = await remember(client, "I work at Siemens as a backend engineer.")

    new = await remember(client, "I started a new job at BMW as a staff engineer")

    assert new["superseded_id"] == old["id"], new
    assert old["content"] not in live_contents(settings)


async def test_an_agent_s_correction_in_a_project_replaces_that_project_s_value_only(
    client: Client, settings: Settings
) -> None:
    """Found re-testing: cortex_remember(..., project="alpha") of "Actually the billing service
    uses MySQL 8, not PostgreSQL" was "created" beside alpha's PostgreSQL (the proposal knew no
    project, so it looked among memories of none)."""
    alpha = await remember(
        client, "For this repo: the billing service runs on PostgreSQL 14.", project="alpha"
    )
    beta = await remember(client, "The billing service runs on PostgreSQL 15.", project="beta")

    new = await remember(
        client, "Actually the billing service uses MySQL 8, not PostgreSQL", project="alpha"
    )

    assert new["superseded_id"] == alpha["id"], new
    live = live_contents(settings)
    assert alpha["content"] not in live and beta["content"] in live, live


async def test_the_same_correction_in_another_project_replaces_that_project_s_value(
    client: Client, settings: Settings
) -> None:
    """Found in round twelve's last read: the same correction said in a second project was a
    duplicate of the first project's, so it reinforced that one and left the second project's
    old value live."""
    alpha = await remember(client, "The billing service runs on PostgreSQL 14.", project="alpha")
    beta = await remember(client, "The billing service runs on PostgreSQL 15.", project="beta")
    correction = "Actually the billing service uses MySQL 8, not PostgreSQL"
    first = await remember(client, correction, project="alpha")

    second = await remember(client, correction, project="beta")

    assert first["superseded_id"] == alpha["id"], first
    assert second["superseded_id"] == beta["id"], second
    live = live_contents(settings)
    assert alpha["content"] not in live and beta["content"] not in live, live
    # each project finds its own (retest14 D1: recall dropped the second copy of the same
    # text before the project's step, which then left the first project's out)
    for project, own in (("alpha", first), ("beta", second)):
        found = await recall(
            client, "which database does the billing service use?", project=project
        )
        assert own["id"] in [m["id"] for m in found["memories"]], (project, found)


async def test_a_replaced_name_of_four_letters_names_no_longer_word(
    client: Client, settings: Settings
) -> None:
    """Found re-testing (retest14 D2): "…in Kotlin, not Java" replaced the memory of the
    JavaScript frontend ("Java" began "JavaScript"); "not PostgreSQL" left "Postgres 14"."""
    frontend = await remember(client, "The shop frontend is written in JavaScript.")
    database = await remember(client, "The shop database is Postgres 14.")

    await remember(client, "Actually the shop backend is written in Kotlin, not Java.")
    await remember(client, "Actually the shop database is MySQL 8, not PostgreSQL.")

    live = live_contents(settings)
    assert frontend["content"] in live and database["content"] not in live, live
