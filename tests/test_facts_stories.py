"""Facts stay true without an LLM (#24): the user stories of the issue, told over stdio to a
real server subprocess across three launches, with no API key. Whose fact it is, one memory
per fact, changes that supersede, everyday facts and rules, each checked in recall, in
cortex://core and in MEMORY.md."""

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from tests.conftest import data_of, read_text
from tests.servers import STARTUP_TIMEOUT_S, stdio_server

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]

PEOPLE = (
    ["我住在成都，是一名护士。"],
    [
        "我妈妈现在住在重庆。",
        "実は、母は大阪に住んでいます。",
        "My mom lives in Chicago now.",
        "其实我已经搬到深圳了，不住成都了。",
    ],
)
CHANGES = (
    ["I work as a data engineer.", "My project uses Python 3.10."],
    [
        "I switched jobs: I now work at Initech as a platform engineer.",
        "We upgraded the project to Python 3.12.",
    ],
)
EVERYDAY = [
    "I have a corgi named Biscuit.",
    "I'm allergic to peanuts.",
    "我不吃辣。",
    "Please always use metric units.",
    "Please answer in keigo.",
    "Tests must always live under the tests/ directory.",
    "测试文件必须放在 tests/ 目录下。",
    "禁止使用 jest。",
    "We went with Grafana for the ops dashboards, Kibana was too heavy.",
]


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    return data_of(await client.call_tool(tool, arguments))


async def tell(client: Client, message: str) -> list[dict[str, Any]]:
    answer = await call(client, "cortex_ingest", user_message=message, assistant_message="OK.")
    return list(answer["fast"])


def section(markdown: str, heading: str) -> str:
    _, _, rest = markdown.partition(f"## {heading}\n")
    return rest.split("\n## ")[0]


async def three_launches(
    home: Path, first: list[str], second: list[str], questions: list[str]
) -> tuple[dict[str, list[dict[str, Any]]], list[dict[str, Any]], str, str]:
    """Tell `first` in one launch, `second` in the next; ask in the third: what each message
    stored, the recall answers, cortex://core and MEMORY.md."""
    server = stdio_server(home, CORTEX_LIFECYCLE__ENABLED="false")
    said: dict[str, list[dict[str, Any]]] = {}
    with anyio.fail_after(6 * STARTUP_TIMEOUT_S):
        async with Client(server) as first_launch:
            for message in first:
                said[message] = await tell(first_launch, message)
        async with Client(server) as second_launch:
            for message in second:
                said[message] = await tell(second_launch, message)
        async with Client(server) as third_launch:
            answers = [await call(third_launch, "cortex_recall", query=q) for q in questions]
            core = await read_text(third_launch, "cortex://core")
    return said, answers, core, (home / "MEMORY.md").read_text(encoding="utf-8")


async def test_whose_fact_and_one_memory_per_fact_across_three_launches(
    cortex_home: Path,
) -> None:
    first, second = PEOPLE
    said, answers, core, _ = await three_launches(
        cortex_home, first, second, ["我住在哪里？", "Where do I live now?", "我是做什么工作的？"]
    )
    home_zh, home_en, job_zh = answers
    who = section(core, "Who the user is")

    # Someone else's fact never supersedes the user's: it is the mother's own, and a newer
    # value of hers supersedes hers (妈妈, 母 and mom are one mother).
    mother = [said[message][0] for message in second[:3]]
    assert [m["category"] for m in mother] == ["relationship"] * 3
    assert [m["superseded_id"] for m in mother] == [None, mother[0]["id"], mother[1]["id"]]
    assert "Chicago" in section(core, "People, organisations and things")
    assert "重庆" not in who and "大阪" not in who and "Chicago" not in who
    # A second fact of the sentence survives the change of the first.
    home, nurse = said[first[0]]
    (moved,) = said[second[3]]
    assert moved["superseded_id"] == home["id"]
    assert "深圳" in home_zh["memories"][0]["content"]
    assert "深圳" in home_en["memories"][0]["content"]
    assert any(m["id"] == nurse["id"] for m in job_zh["memories"])
    assert "护士" in who and "深圳" in who and "我住在成都。" not in core


async def test_changes_supersede_and_everyday_facts_are_kept_across_three_launches(
    cortex_home: Path,
) -> None:
    first, second = CHANGES
    said, answers, core, memory_md = await three_launches(
        cortex_home, first, second + EVERYDAY, ["What is my job?"]
    )
    (job_en,) = answers

    # A change of job supersedes the role; the workplace is set.
    (data_engineer,) = said[first[0]]
    workplace, role = said[second[0]]
    assert role["superseded_id"] == data_engineer["id"] and "Initech" in workplace["content"]
    assert "data engineer" not in core and "platform engineer" in job_en["context"]
    # A change outside the slots supersedes too.
    (old_python,) = said[first[1]]
    (new_python,) = said[second[1]]
    assert new_python["superseded_id"] == old_python["id"]
    assert "3.10" not in core and "3.12" in core
    # Everyday facts, rules and decisions are kept, rules in their own MEMORY.md section.
    for message in EVERYDAY:
        assert [m["action"] for m in said[message]] == ["created"], message
    rules = section(memory_md, "Rules and conventions")
    assert "tests/ directory" in rules and "测试文件必须" in rules and "禁止使用 jest" in rules
    assert "Grafana" in section(memory_md, "Decisions")


async def test_a_new_job_told_beside_a_preference_is_found_and_supersedes_the_old_one(
    cortex_home: Path,
) -> None:
    """Found trying the product as a user (round five): "Where do I work now?" found nothing
    once the new job came in one message with a preference, because only the preference became
    a memory and the message's meaning was split between the two."""
    said, answers, core, _ = await three_launches(
        cortex_home,
        ["I work at Acme as a data engineer."],
        [
            "I just started a new job as a financial analyst at Globex last week. "
            "Also, I prefer tea over coffee."
        ],
        ["Where do I work now?", "What is my job?"],
    )
    workplace, job = answers

    old = {m["id"] for m in said["I work at Acme as a data engineer."]}
    new = said[next(iter(said.keys() - {"I work at Acme as a data engineer."}))]
    assert {m["superseded_id"] for m in new} >= old and len(old) == 2
    assert "Globex" in " ".join(m["content"] for m in workplace["memories"][:2])
    assert "financial analyst" in " ".join(m["content"] for m in job["memories"][:2])
    assert not any("Acme" in m["content"] for m in workplace["memories"] + job["memories"])
    assert "Acme" not in core and "Globex" in core and "tea over coffee" in core


async def test_hired_elsewhere_as_another_role_supersedes_workplace_and_role(
    cortex_home: Path,
) -> None:
    """Found trying the product as a user (round six): "I got hired at Initech as a data
    scientist" replaced the workplace but left "I work as a financial analyst." standing."""
    first = "I just started a new job as a financial analyst at Globex last week."
    second = "Actually I left Globex, I got hired at Initech as a data scientist."
    said, answers, core, _ = await three_launches(
        cortex_home, [first], [second], ["What is my job?"]
    )
    (job,) = answers

    assert {m["superseded_id"] for m in said[second]} == {m["id"] for m in said[first]}
    assert "data scientist" in job["memories"][0]["content"]
    assert not any("financial analyst" in m["content"] for m in job["memories"])
    assert "financial analyst" not in core and "Globex." not in core
