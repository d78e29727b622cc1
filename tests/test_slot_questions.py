"""Questions about a slot, however they are worded and in whichever language the memory is:
the English question finds the Chinese statement of the same slot (neither its words nor a
small embedder's vector reach it), "what do you remember about me?" gets who the user is, and
the text block the model reads holds what was said, not the user's own earlier questions."""

from typing import Any

import pytest
from mcp import Client

from tests.conftest import data_of, recall, remember

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]


def contents(found: dict[str, Any]) -> list[str]:
    return [m["content"] for m in found["memories"]]


async def test_an_english_question_finds_the_chinese_memory_of_its_slot(client: Client) -> None:
    """Tester 13 (D12): "what allergies do I have?" found nothing beside 我对花生过敏; "which
    database do we use?" and "which package manager do we use?" the wrong memory or none."""
    await remember(client, "我对花生过敏，团建订餐的时候记得提醒我。")
    await remember(client, "我们这个项目的数据库用的是MySQL，部署在阿里云上。", project="gamma")
    await remember(client, "We use pnpm, never npm, in this monorepo.", project="gamma")
    await remember(client, "I switched from VS Code to Cursor btw.")

    allergy = await recall(client, "what allergies do I have?")
    database = await recall(client, "which database do we use?", project="gamma")
    packages = await recall(client, "which package manager do we use?", project="gamma")

    assert contents(allergy)[:1] == ["我对花生过敏，团建订餐的时候记得提醒我。"], allergy
    assert "MySQL" in contents(database)[0], database
    assert "pnpm" in contents(packages)[0], packages


async def test_another_projects_tool_is_no_answer_to_which_one_we_use(client: Client) -> None:
    await remember(client, "我们这个项目的数据库用的是MySQL，部署在阿里云上。", project="gamma")

    found = await recall(client, "which database do we use?", project="alpha")

    assert not any("MySQL" in text for text in contents(found)), found


async def test_what_do_you_remember_about_me_gets_who_the_user_is(client: Client) -> None:
    """Tester 13 (D19): the most natural memory question got nothing."""
    await remember(client, "My name is Dana.")
    await remember(client, "I live in Lisbon.")

    found = await recall(client, "what do you remember about me?")

    assert {"My name is Dana.", "I live in Lisbon."} <= set(contents(found)), found
    assert all(m["slot_answer"] for m in found["memories"][:2]), found


@pytest.mark.parametrize(
    ("statement", "question", "answer"),
    [
        ("我住在上海。", "我现在住在哪里？", "上海"),
        ("我在字节跳动工作。", "我在哪家公司上班？", "字节跳动"),
    ],
)
async def test_a_chinese_question_with_a_time_word_asks_for_its_slot(
    client: Client, statement: str, question: str, answer: str
) -> None:
    """Tester 13 (D11): 现在 between 我 and 住, and 哪家公司, hid the slot asked about."""
    await remember(client, "我叫王小明。")
    await remember(client, statement)

    found = await recall(client, question)

    first = found["memories"][0]
    assert answer in first["content"] and first["slot_answer"], found


async def ingest(client: Client, user: str, reply: str, session: str) -> None:
    arguments = {"user_message": user, "assistant_message": reply, "session_id": session}
    data_of(await client.call_tool("cortex_ingest", arguments))


async def test_the_text_block_leaves_out_past_questions_the_structured_result_marks_them(
    client: Client,
) -> None:
    """Tester 13 (D5): "what is my name?" got eight of the user's own earlier questions in the
    text block, crowding out the answer; the structured result marked them `question`."""
    await ingest(client, "what's the staging database called?", "I don't know yet.", "one")
    await ingest(client, "which staging database do we use?", "Not sure.", "two")
    await ingest(client, "The staging database is called orca-7.", "Noted.", "three")

    found = await recall(client, "what is the staging database called?")

    assert "orca-7" in found["context"], found["context"]
    assert "?" not in found["context"].split("Said in earlier conversations")[-1], found["context"]
    said = found["conversation"]
    asking = [line["question"] for line in said]
    assert any(asking) and asking == sorted(asking), said  # statements first, questions last
