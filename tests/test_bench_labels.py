"""The measurement helpers of #23: the fast channel's labelled set and the rule that finds a
LoCoMo evidence turn in what recall returns."""

import json
from pathlib import Path

import pytest

from bench.fast_labels import LABELS, LabelError, judge, load_labels
from bench.locomo_paths import TurnText, held_turns, holds, normalise

RECORD = {
    "kind": "fast_write",
    "conversation": "conv-26",
    "turns": ["D5:6"],
    "speaker": "Melanie",
    "text": "Melanie: I'm a big fan of pottery - the creativity and skill is awesome.",
    "category": "identity",
    "lasting_fact": True,
    "reason": "durable preference: pottery",
}


def test_the_labelled_set_is_large_enough_and_well_formed() -> None:
    labels = load_labels()
    writes = [label for label in labels if label.kind == "fast_write"]
    missed = [label for label in labels if label.kind == "missed_fact"]
    assert len(labels) >= 300
    assert len(missed) >= 100
    assert {label.lasting_fact for label in writes} == {True, False}
    keys = [(label.conversation, label.turns, normalise(label.text)) for label in labels]
    assert len(keys) == len(set(keys)), "a text is judged once per turn"
    assert {label.conversation for label in labels} == {
        "conv-26",
        "conv-30",
        "conv-41",
        "conv-42",
        "conv-43",
    }


def test_the_rules_are_written_beside_the_labels() -> None:
    rules = LABELS.with_suffix(".md").read_text(encoding="utf-8")
    assert "## The rules applied" in rules


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"lasting_fact": "yes"}, "line 2: field 'lasting_fact' must be a bool"),
        ({"kind": "guess"}, "line 2: field 'kind' must be one of fast_write, missed_fact"),
        ({"turns": []}, "line 2: field 'turns' must list one or more dialog ids"),
        ({"kind": "missed_fact", "lasting_fact": False}, "line 2: a missed_fact record is"),
    ],
)
def test_a_bad_record_is_named_by_line_and_field(
    tmp_path: Path, change: dict[str, object], message: str
) -> None:
    path = tmp_path / "labels.jsonl"
    lines = [json.dumps(RECORD), json.dumps({**RECORD, **change})]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(LabelError, match=message):
        load_labels(path)


def test_a_write_is_judged_by_its_turn_and_its_text(tmp_path: Path) -> None:
    missed = {
        **RECORD,
        "kind": "missed_fact",
        "turns": ["D3:14"],
        "text": "I'm lucky to have my husband and kids; they keep me motivated.",
    }
    path = tmp_path / "labels.jsonl"
    path.write_text(json.dumps(RECORD) + "\n" + json.dumps(missed) + "\n", encoding="utf-8")
    labels = load_labels(path)
    same = "melanie: I'm a big fan of pottery — the creativity and skill is awesome!"
    assert judge(labels, "conv-26", "D5:6", same) is labels[0]
    assert judge(labels, "conv-26", "D5:7", same) is None
    assert judge(labels, "conv-30", "D5:6", same) is None
    assert judge(labels, "conv-26", "D5:6", "I'm a big fan of pottery") is None
    assert judge(labels, "conv-26", "D3:14", "I'm lucky to have my husband and kids") is labels[1]
    assert judge(labels, "conv-26", "D3:14", "I'm lucky") is None


def test_an_evidence_turn_is_found_by_its_text_or_by_a_memory_taken_from_it() -> None:
    turn = TurnText("D1:1", normalise("I started a new job as a Financial Analyst last week."), "")
    turn = TurnText(turn.dia_id, turn.text, normalise("Andrew: " + turn.text))
    assert holds(normalise("Andrew: I started a new job as a financial analyst last week!"), turn)
    assert holds(normalise("I started a new job as a Financial Analyst"), turn)
    assert not holds(normalise("a new job"), turn)
    assert not holds(normalise("Andrew: I started a new hobby last week."), turn)


def test_a_short_turn_is_found_only_as_itself() -> None:
    short = TurnText("D2:2", normalise("Yes, I did."), normalise("Tim: Yes, I did."))
    long = TurnText("D2:3", normalise("We adopted a dog named Max."), normalise("Jo: We ..."))
    items = ["Tim: Yes, I did.", "Yes, I did. We adopted a dog named Max.", "Nothing here"]
    assert held_turns(items, [short, long]) == [["D2:2"], ["D2:3"], []]
