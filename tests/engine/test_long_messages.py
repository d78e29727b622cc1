"""A long message costs the fast channel work in proportion to its length: "I have a dog named
Rex, " said 600 times in one sentence took 6.4 s (each match re-read the sentence from its start
for its subject and its clause), and 2,000 lines of "I work at Acme" took 5 s to ingest (a
write for each). Counted, not timed: the characters the subject and clause patterns scan, and
the statements proposed."""

import itertools
import re
from collections.abc import Iterator
from typing import Any

import pytest

from cortex_mcp.engine.ingest import fast
from cortex_mcp.engine.ingest.fast import MOST_PER_MESSAGE, fast_statements
from cortex_mcp.engine.language import slot_patterns_en, slots, subjects
from cortex_mcp.engine.language.pasted import own_words
from cortex_mcp.engine.language.slots import find_slots


class CountingPattern:
    """A compiled pattern that counts the characters its `finditer` calls scan."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.scanned = 0

    def finditer(self, text: str, pos: int = 0, endpos: int | None = None) -> Iterator[Any]:
        end = len(text) if endpos is None else endpos
        self.scanned += end - pos
        return self.pattern.finditer(text, pos, end)

    def search(self, text: str, pos: int = 0, endpos: int | None = None) -> Any:
        end = len(text) if endpos is None else endpos
        self.scanned += end - pos
        return self.pattern.search(text, pos, end)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.pattern, name)


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, CountingPattern]:
    """The patterns read around each match (its subject, its clause, whether it is wished or
    asked), counting what they scan (caches emptied)."""
    for module in (slots, subjects):
        for cached in vars(module).values():
            if hasattr(cached, "cache_clear") and callable(cached.cache_clear):
                cached.cache_clear()
    counting = {
        "mentions": CountingPattern(subjects._MENTION),
        "breaks": CountingPattern(slots._CLAUSE_BREAK),
        "wishes": CountingPattern(slots._SUPPOSED),
        "clause ends": CountingPattern(slots._CLAUSE_END_CJK),
    }
    monkeypatch.setattr(subjects, "_MENTION", counting["mentions"])
    monkeypatch.setattr(slots, "_CLAUSE_BREAK", counting["breaks"])
    monkeypatch.setattr(slots, "_SUPPOSED", counting["wishes"])
    monkeypatch.setattr(slots.asks_there, "__defaults__", (counting["clause ends"],))
    return counting


@pytest.mark.parametrize(
    ("unit", "repeats"),
    [
        ("I have a dog named Rex, ", 600),
        ("We have a cat named Tom and ", 600),
        ("my wife Anna lives in Paris and ", 600),
        # found re-testing: with no clause break, each match read to the sentence's end
        ("(my son is Leo ", 1000),
        ("名前は田中です東京に住んでいます", 1000),
        ("我的女儿叫玛雅我住在北京我的儿子叫小明", 800),
    ],
)
def test_a_long_sentence_is_scanned_a_few_times_not_once_per_match(
    counted: dict[str, CountingPattern], unit: str, repeats: int
) -> None:
    sentence = unit * repeats
    found = find_slots(sentence)
    assert found, "the sentence's facts are still read"
    for name, pattern in counted.items():
        assert pattern.scanned <= 12 * len(sentence), (name, pattern.scanned)


def test_no_slot_pattern_runs_on_unbounded_to_find_what_ends_it() -> None:
    """ "[\\w .-]+?から" tried at each character of a Japanese text with no から read to its end:
    13.7 s for 32,000 characters (found re-testing). A run before a fixed word is bounded."""
    lazy_runs = re.compile(r"(?:\[[^\]]*\]|\.)[+*]\?")
    unbounded = [
        p.pattern.pattern for p in slots.SLOT_PATTERNS if lazy_runs.search(p.pattern.pattern)
    ]
    assert unbounded == []


def test_a_long_sentence_reads_what_its_short_form_reads() -> None:
    assert find_slots("I have a dog named Rex, " * 600) == find_slots("I have a dog named Rex, ")
    long_one = "my wife Anna lives in Paris and " * 300 + "I live in Lyon."
    short_one = "my wife Anna lives in Paris and I live in Lyon."
    assert find_slots(long_one) == find_slots(short_one)
    assert ("home", "Lyon") in {(s.predicate, s.value) for s in find_slots(long_one)}


def test_the_subject_before_any_point_is_the_one_a_read_from_the_start_finds() -> None:
    """Every cut of a long sentence mixing mentions (relations, names, he / she, 我们, 田中さん)
    far apart and close together: the same subject as a scan of the cut from its start."""
    pieces = [
        "My sister, who is a nurse and ", "really " * 30, "my wife Anna and I ", "he said ",
        "Tom's brother ", "我妈妈和我们", "田中さんは", "my boss ", "and so on " * 12, "I ",
    ]  # fmt: skip
    sentence = "".join(pieces) * 3

    def scanned_from_the_start(end: int) -> subjects.Subject:
        found = subjects.USER
        for match in subjects._MENTION.finditer(sentence[:end]):
            found = subjects.mentioned(match)
        return found

    for end in range(len(sentence) + 1):
        assert subjects.subject_before(sentence, end) == scanned_from_the_start(end), end


def test_a_statement_said_again_and_again_is_proposed_once() -> None:
    proposals = fast_statements("I work at Acme.\n" * 2000)
    assert [p.content for p in proposals] == ["I work at Acme."]


def test_a_message_of_hundreds_of_statements_proposes_its_first_few(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    read: list[str] = []
    statements = fast._sentence_statements

    def reading(sentence: str, around: Any) -> Any:
        read.append(sentence)
        return statements(sentence, around)

    monkeypatch.setattr(fast, "_sentence_statements", reading)
    names = [f"{a}{b}o" for a, b in itertools.product("BDFKLMNPRST", "aeiu")] * 50
    message = "".join(f"I have a dog named {name}.\n" for name in names)
    proposals = fast_statements(message)
    assert [p.content for p in proposals] == [
        f"I have a dog named {name}." for name in names[:MOST_PER_MESSAGE]
    ]
    assert len(read) == MOST_PER_MESSAGE, "the rest of the message is not read for statements"


def test_a_fact_after_repeats_of_another_is_still_read() -> None:
    proposals = fast_statements("I work at Acme.\n" * 40 + "My name is Dana.")
    assert [p.content for p in proposals] == ["I work at Acme.", "My name is Dana."]


@pytest.mark.parametrize(
    "message",
    ["A" * 2000 + ": x\nB: y", "Tom said to " + "the " * 2000 + ': "x." y', "A" * 12000 + "说"],
)
def test_a_long_word_before_a_colon_or_a_saying_is_read_as_the_users(message: str) -> None:
    """A word of 2,000 capitals before a colon took 40 s to tell from a timed chat line, each
    capital a sender's word of its own (`pasted._CHAT_LINE`), and a lead-in's Latin name before
    说 was tried from each of its letters (found re-testing pasted text's speed; timed in
    `python -m bench.long_messages`, "one long capitalised word"). Neither is a pasted part."""
    assert own_words(message).strip() == message.strip()


def test_no_slot_pattern_starts_with_a_name_at_any_letter() -> None:
    """ "Anna and I got divorced": a pattern starting with a name, tried at every letter of
    one long capitalised word, read the rest of it each time (15.8 s for 31,000 characters,
    found timing this change); a name that starts a pattern starts a word."""
    name = slot_patterns_en._NAME
    unanchored = [
        p.pattern.pattern for p in slots.SLOT_PATTERNS if p.pattern.pattern.startswith(name)
    ]
    assert unanchored == []
