"""Facts stay true without an LLM (#24): the labelled set of tests/data/facts_labelled.json —
whose fact it is (the user, a related or a named person), one memory per fact, job and
attribute changes, everyday facts, rules and reported decisions, with chit-chat negatives — in
English, Chinese and Japanese, read by the fast channel as a user's message is.

Each case lists every fact the sentence states as (subject, attribute, value), or a rule /
decision signal; a negative lists none. Precision counts every fact read that the label does not
hold (a wrong one could supersede a true memory); both are asserted as floors."""

import json
from pathlib import Path
from typing import Any

import pytest

from cortex_mcp.engine.ingest.fast import fast_statements
from cortex_mcp.engine.language.slots import Slot, find_slots
from cortex_mcp.engine.language.triples import Triple, slot_triple

DATA = Path(__file__).parent.parent / "data" / "facts_labelled.json"
CASES: dict[str, list[dict[str, Any]]] = json.loads(DATA.read_text(encoding="utf-8"))
SIGNALS = ("rule", "decision")
PRECISION_FLOOR = 0.95
RECALL_FLOOR = 0.9

Fact = tuple[str, ...]


def read_facts(text: str, language: str) -> set[Fact]:
    """What the fast channel records of one message: its slots, and its rule or decision."""
    found: set[Fact] = set()
    for proposal in fast_statements(text):
        if proposal.slot is not None:
            slot = proposal.slot
            found.add((slot.subject, slot.predicate, slot.key))
        elif proposal.extra.get("signal") in SIGNALS:
            found.add(("signal", str(proposal.extra["signal"])))
    return found


def labelled(fact: list[str], language: str) -> Fact:
    if fact[0] == "signal":
        return ("signal", fact[1])
    subject, predicate, value = fact
    return (subject, predicate, Slot(subject, predicate, value, language).key)


def score(language: str) -> tuple[float, float, list[str]]:
    hits = extra = missed = 0
    wrong: list[str] = []
    for case in CASES[language]:
        text = str(case["text"])
        facts = case["facts"]
        assert isinstance(facts, list)
        expected = {labelled(f, language) for f in facts}
        found = read_facts(text, language)
        hits += len(found & expected)
        extra += len(found - expected)
        missed += len(expected - found)
        if found != expected:
            wrong.append(f"{text}: extra {found - expected}, missed {expected - found}")
    return hits / max(1, hits + extra), hits / max(1, hits + missed), wrong


@pytest.mark.parametrize("language", ["en", "zh", "ja"])
def test_each_language_has_sixty_cases_with_negatives(language: str) -> None:
    cases = CASES[language]
    negatives = [c for c in cases if not c["facts"]]
    others = [
        c for c in cases if any(f[0] not in ("user", "signal", "project") for f in c["facts"])
    ]
    assert len(cases) >= 60
    assert len(negatives) >= 12
    assert len(others) >= 6  # facts of a related or named person


@pytest.mark.parametrize("language", ["en", "zh", "ja"])
def test_the_fast_channel_reads_whose_fact_it_is_with_precision(language: str) -> None:
    precision, recall, wrong = score(language)

    assert precision >= PRECISION_FLOOR, wrong
    assert recall >= RECALL_FLOOR, wrong


@pytest.mark.parametrize(
    "sentence",
    ["我妈妈现在住在重庆。", "実は、母は大阪に住んでいます。", "My mom lives in Chicago now."],
)
def test_another_persons_fact_never_sets_a_user_slot_nor_cuts_a_word(sentence: str) -> None:
    slots = [p.slot for p in fast_statements(sentence) if p.slot is not None]

    assert slots and all(s.subject != "user" for s in slots)
    assert all(s.value in sentence and "现" not in s.value for s in slots)  # not "我妈妈现"


def test_a_sentence_of_several_facts_is_one_memory_each_with_the_sentence_as_context() -> None:
    sentence = "我住在成都，是一名护士。"

    proposals = fast_statements(sentence)

    assert [(p.slot.predicate if p.slot else None) for p in proposals] == ["home", "role"]
    assert all(p.extra["context"] == sentence for p in proposals)


@pytest.mark.parametrize(
    ("sentence", "triple"),
    [
        ("我妈妈现在住在重庆。", ("user's mother", "lives in", "重庆")),
        ("My colleague Tom works at Initech.", ("Tom", "works at", "Initech")),
        ("We upgraded the project to Python 3.12.", ("project", "uses", "Python 3.12")),
        ("I'm allergic to peanuts.", ("user", "allergic to", "peanuts")),
    ],
)
def test_the_entity_graph_gets_the_right_subject(
    sentence: str, triple: tuple[str, str, str]
) -> None:
    (slot,) = find_slots(sentence)

    assert slot_triple(slot) == Triple(*triple)
