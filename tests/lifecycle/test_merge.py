"""Merge: near-duplicate core memories collapse into one, with the others in its chain."""

import json
from datetime import timedelta

import pytest

from cortex_mcp.config import LifecycleSettings
from cortex_mcp.engine.facade import Engine
from cortex_mcp.engine.lifecycle import run_lifecycle
from cortex_mcp.engine.lifecycle.merge import plan_merges
from cortex_mcp.engine.lifecycle.plan import State
from cortex_mcp.engine.lifecycle.similarity import PROBE, signature, similar_pairs
from cortex_mcp.models import Category, Layer, Memory
from cortex_mcp.search.facts import same_statement
from cortex_mcp.search.tokenize import jaccard
from cortex_mcp.store import memories as rows
from tests.conftest import FrozenClock
from tests.fakes import FakeOpenAI
from tests.lifecycle.conftest import live, memory, plant, stored

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]

FACTS = [
    [
        "Harry stores his investment spreadsheet in the shared Google Drive folder",
        "Harry keeps his investment workbook in the shared Google Drive folder",
        "Harry keeps his investment spreadsheet in the common Google Drive folder",
        "Harry keeps his investment spreadsheet in the shared Google Drive directory",
        "Harry keeps the investment spreadsheet in a shared Google Drive folder today",
        "Harry keeps his investment spreadsheet in the shared Google Drive folder",
    ],
    [
        "The staging server uses Ubuntu 24.04 on an Oracle Cloud ARM instance",
        "The staging machine runs Ubuntu 24.04 on an Oracle Cloud ARM instance",
        "The staging server runs Ubuntu 24.04 on one Oracle Cloud ARM host",
        "Our staging server runs Ubuntu 24.04 on an Oracle Cloud ARM instance now",
        "The staging server runs Ubuntu 24.04 on the Oracle Cloud ARM instance today",
        "The staging server runs Ubuntu 24.04 on an Oracle Cloud ARM instance",
    ],
    [
        "品川区の1LDK物件の表面利回りは約5パーセントです",
        "品川区の1LDK物件の表面利回りは5パーセントと聞いた",
        "品川区の1LDK物件の表面利回りはおよそ5パーセント",
        "品川区の1LDK物件では表面利回りは5パーセント",
        "品川区の1LDK物件の表面利回りは5パーセントだ",
        "品川区の1LDK物件の表面利回りは5パーセント",
    ],
    [
        "Weekly team sync happens each Tuesday at ten in the Berlin office",
        "Weekly team meeting happens every Tuesday at ten in the Berlin office",
        "Weekly team sync takes place every Tuesday at ten in the Berlin office",
        "Weekly team sync happens every Tuesday at ten in our Berlin office",
        "The weekly team sync happens every Tuesday at ten at the Berlin office",
        "Weekly team sync happens every Tuesday at ten in the Berlin office",
    ],
    [
        "Mia likes oat milk flat whites from the corner cafe near Alexanderplatz",
        "Mia prefers oat milk flat whites from that corner cafe near Alexanderplatz",
        "Mia prefers oat milk flat whites from the corner coffeehouse near Alexanderplatz",
        "Mia prefers oatmilk flat whites from the corner cafe near Alexanderplatz",
        "Mia prefers oat milk flat whites from the small corner cafe near Alexanderplatz",
        "Mia prefers oat milk flat whites from the corner cafe near Alexanderplatz",
    ],
]
"""Five facts, six statements each; the last is the newest and every other statement is at
least 0.7 alike to it (though two older ones may be only 0.58 alike to each other)."""


def dated(clock: FrozenClock, facts: list[list[str]]) -> list[list[Memory]]:
    """Each fact's statements written an hour apart, fact k on day k."""
    start = clock.now - timedelta(days=10)
    return [
        [
            memory(text, created=start + timedelta(days=k, hours=h), importance=0.5 + h / 20)
            for h, text in enumerate(texts)
        ]
        for k, texts in enumerate(facts)
    ]


def paraphrases(clock: FrozenClock) -> list[list[Memory]]:
    """Six statements of each fact, written an hour apart; fact k on day k."""
    return dated(clock, FACTS)


def test_the_paraphrases_share_most_terms_and_the_facts_do_not():
    for texts in FACTS:
        newest = signature(texts[-1])
        assert all(jaccard(signature(t), newest) >= 0.7 for t in texts), texts
    firsts = [signature(texts[0]) for texts in FACTS]
    assert all(jaccard(a, b) < 0.2 for i, a in enumerate(firsts) for b in firsts[i + 1 :])


RESTATEMENTS = [
    [
        "I prefer dark mode in my editor",
        "The user prefers dark mode in the editor.",
        "I really prefer dark mode in my editor!",
    ],
    ["我很喜欢喝咖啡", "我喜欢喝咖啡。", "我非常喜欢喝咖啡！"],
    [
        "品川区の1LDK物件の表面利回りは5パーセント",
        "品川区の1LDK物件の表面利回りも5パーセント。",
        "品川区の1LDK物件の表面利回りは5パーセント！",
    ],
    [
        "Harry keeps his investment spreadsheet in the shared Google Drive folder",
        "Harry keeps his investment spreadsheets in the shared Google Drive folder.",
        "harry keeps the investment spreadsheet in a shared google drive folder",
    ],
]
"""Four facts, each said three times in other function words, case, punctuation or inflection."""


def restatements(clock: FrozenClock) -> list[list[Memory]]:
    return dated(clock, RESTATEMENTS)


async def test_without_an_llm_paraphrases_in_other_words_stay_apart(
    engine: Engine, clock: FrozenClock
):
    groups = paraphrases(clock)
    await plant(engine, *[m for group in groups for m in group])

    report = await run_lifecycle(engine.runtime)

    survivors = await live(engine, Layer.CORE)
    by_id = {m.id: m for group in groups for m in group}
    for merge in report.merged:  # only "our"/"the", "now", "では"/"の" told these apart
        assert merge.by == "same statement"
        assert all(
            same_statement(by_id[i].content, by_id[merge.into].content) for i in merge.merged
        )
    assert len(survivors) == 30 - sum(len(m.merged) for m in report.merged) == 25
    assert {m.id for m in groups[0]} <= {m.id for m in survivors}  # stores / keeps / workbook
    assert not any(
        same_statement(a.content, b.content)
        for i, a in enumerate(survivors)
        for b in survivors[i + 1 :]
        if a.category == b.category
    )


async def test_without_an_llm_the_same_statement_said_again_merges_and_keeps_the_chain(
    engine: Engine, clock: FrozenClock
):
    groups = restatements(clock)
    other_words = paraphrases(clock)[0][:5]  # Harry's stores / keeps / workbook / common
    await plant(engine, *[m for group in groups for m in group], *other_words)

    report = await run_lifecycle(engine.runtime)

    survivors = await live(engine, Layer.CORE)
    assert len(survivors) == len(groups) + len(other_words)
    assert len(report.merged) == 4 and {m.by for m in report.merged} == {"same statement"}
    for group in groups:
        newest = await stored(engine, group[-1].id)
        assert newest.importance == max(m.importance for m in group)
        assert sorted(newest.metadata["merged_from"]) == sorted(m.id for m in group[:-1])
        for older in group[:-1]:
            assert (await stored(engine, older.id)).superseded_by == newest.id
        async with engine.db.read() as conn:
            chain = await rows.supersede_chain(conn, newest.id)
        assert {m.id for m in chain} == {m.id for m in group}


DIFFERENT_PEOPLE = [
    "Isaac Nelson is allergic to bee stings; carry the medication kit when visiting.",
    "Isaac Baker is allergic to bee stings; carry the medication kit when visiting.",
    "张子涵对花生过敏，聚餐时要注意。",
    "王子涵对花生过敏，聚餐时要注意。",
    "The budget for the Shinagawa apartment purchase is 50M yen total",
    "The budget for the Shinagawa apartment purchase is 30M yen total",
]


async def test_without_an_llm_a_different_name_or_number_never_merges(
    engine: Engine, clock: FrozenClock
):
    when = clock.now - timedelta(days=3)
    await plant(
        engine,
        *[memory(t, created=when + timedelta(minutes=i)) for i, t in enumerate(DIFFERENT_PEOPLE)],
    )

    report = await run_lifecycle(engine.runtime)

    assert report.merged == [] and len(await live(engine, Layer.CORE)) == len(DIFFERENT_PEOPLE)


async def test_an_llm_merge_of_different_people_is_refused_and_logged(
    llm_engine: Engine, fake_openai: FakeOpenAI, clock: FrozenClock
):
    when = clock.now - timedelta(days=3)
    nelson = memory(DIFFERENT_PEOPLE[0], created=when)
    baker = memory(DIFFERENT_PEOPLE[1], created=when + timedelta(hours=1))
    await plant(llm_engine, nelson, baker)
    fake_openai.replies.append(json.dumps({"merge": [1, 2], "content": DIFFERENT_PEOPLE[1]}))

    report = await run_lifecycle(llm_engine.runtime)

    assert report.llm_calls == 1 and report.merged == []
    assert report.merges_refused == [nelson.id]
    assert {m.id for m in await live(llm_engine, Layer.CORE)} == {nelson.id, baker.id}
    async with llm_engine.db.read() as conn:
        logged = await conn.fetch_all(
            "select details from lifecycle_log where action = 'merge_refused'"
        )
    assert [json.loads(row[0])["refused"] for row in logged] == [[nelson.id]]


async def test_every_merge_is_logged_with_before_and_after(engine: Engine, clock: FrozenClock):
    group = restatements(clock)[0]
    await plant(engine, *group)

    await run_lifecycle(engine.runtime)

    async with engine.db.read() as conn:
        logged = await conn.fetch_all(
            "select memory_ids, details from lifecycle_log where action = 'merge'"
        )
    ((ids, details),) = logged
    details = json.loads(details)
    assert set(json.loads(ids)) == {m.id for m in group}
    assert [m["content"] for m in details["before"]] == [m.content for m in group]
    assert details["after"]["id"] == group[-1].id and details["by"] == "same statement"


async def test_different_agents_and_categories_never_merge(engine: Engine, clock: FrozenClock):
    text = FACTS[0][0]
    when = clock.now - timedelta(days=1)
    mine = memory(text, created=when)
    theirs = memory(text + " too", created=when, agent_id="other")
    decision = memory(text + " now", created=when, category=Category.DECISION)
    await plant(engine, mine, theirs, decision)

    report = await run_lifecycle(engine.runtime)

    assert report.merged == []


async def test_an_llm_resolves_each_cluster_in_one_call_and_writes_the_merged_fact(
    llm_engine: Engine, fake_openai: FakeOpenAI, clock: FrozenClock
):
    groups = paraphrases(clock)
    await plant(llm_engine, *[m for group in groups for m in group])
    for k in reversed(range(5)):  # clusters are resolved newest first
        fake_openai.replies.append(
            json.dumps({"merge": [1, 2, 3, 4, 5, 6], "content": f"fact {k}"})
        )

    report = await run_lifecycle(llm_engine.runtime)

    assert report.llm_calls == 5 and len(fake_openai.requests) == 5
    merged = sorted((m.content, m.source) for m in await live(llm_engine, Layer.CORE))
    assert merged == [(f"fact {k}", "lifecycle") for k in range(5)]
    for group, merge in zip(reversed(groups), report.merged, strict=True):
        assert merge.by == "llm" and sorted(merge.merged) == sorted(m.id for m in group)
        for original in group:
            assert (await stored(llm_engine, original.id)).superseded_by == merge.into
    prompt = fake_openai.requests[0].body["messages"][1]["content"]
    assert "[1] " + groups[4][0].content in prompt and "[6] " + groups[4][5].content in prompt


async def test_an_llm_that_keeps_them_apart_merges_nothing(
    llm_engine: Engine, fake_openai: FakeOpenAI, clock: FrozenClock
):
    await plant(llm_engine, *paraphrases(clock)[0])
    fake_openai.replies.append('{"merge": [], "content": ""}')

    report = await run_lifecycle(llm_engine.runtime)

    assert report.merged == [] and len(await live(llm_engine, Layer.CORE)) == 6


async def test_an_unreachable_llm_falls_back_to_merging_only_the_same_statement(
    llm_engine: Engine, fake_openai: FakeOpenAI, clock: FrozenClock
):
    group = restatements(clock)[3]
    other_words = memory(FACTS[0][0], created=group[0].created_at - timedelta(hours=1))
    await plant(llm_engine, other_words, *group)
    fake_openai.status = 500

    report = await run_lifecycle(llm_engine.runtime)

    assert [(m.into, m.by) for m in report.merged] == [(group[-1].id, "same statement")]
    assert sorted(report.merged[0].merged) == sorted(m.id for m in group[:-1])


async def test_a_merge_callable_sees_only_small_clusters_and_can_pick_members(
    clock: FrozenClock,
):
    groups = paraphrases(clock)
    state = State([m for group in groups for m in group], clock.now)
    prompts: list[str] = []

    async def ask(system: str, prompt: str) -> str | None:
        prompts.append(prompt)
        return '{"merge": [5, 6], "content": "the two newest, merged"}'

    changes, examined = await plan_merges(state, LifecycleSettings(), ask, 8000)

    assert len(prompts) == 5 and len(changes) == 5
    assert all(c.inserts[0].content == "the two newest, merged" for c in changes)
    assert len(state.in_layer(Layer.CORE)) == 5 * 4 + 5
    assert examined < 30 * 29 / 2


def test_candidate_pairs_grow_linearly_not_quadratically():
    def examined(n: int) -> int:
        texts = [f"note {i} about topic{i % 7} and item{i % 5}" for i in range(n)]
        return similar_pairs([signature(t) for t in texts], [None] * n, 0.7).examined

    small, large = examined(1_000), examined(4_000)

    assert large <= 4_000 * 2 * PROBE  # at most |prefix| × PROBE candidates per memory
    assert large < 4.5 * small  # n² would be 16×, n·log n about 4.8×


async def test_the_llm_is_shown_the_subject_and_attribute_of_a_slot_memory(clock: FrozenClock):
    when = clock.now - timedelta(days=2)
    slot = {"subject": "user", "predicate": "home", "value": "Lisbon"}
    older = memory("I live in Lisbon, Portugal.", created=when, metadata=slot)
    newer = memory(
        "I live in Lisbon, Portugal, still.", created=when + timedelta(hours=1), metadata=slot
    )
    prompts: list[str] = []

    async def ask(system: str, prompt: str) -> str | None:
        prompts.append(prompt)
        return '{"merge": [], "content": ""}'

    await plan_merges(State([older, newer], clock.now), LifecycleSettings(), ask, 8000)

    assert prompts and "(subject: user, attribute: home)" in prompts[0]
