"""Which words a prompt and a line to inject share: the hook's relevance filter beside recall's
floor. Standard library only (the prompt hook's hot path)."""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time
if TYPE_CHECKING:
    from typing import Any

STOP_TEXT = """
    the and for are was were you your our with that this what which when where who how why
    does did can could should would will about from into have has had not but use its all
    is it to of in on at we do an or be as by if so no my me up us i'm
"""
STOP_WORDS = frozenset(STOP_TEXT.split())
STRONG_MARGIN = 0.1
"""The memory recall ranked first, this far above the relevance floor, needs fewer shared words
(`strongly_first`)."""


def content_words(text: str) -> set[str]:
    """The words that carry meaning: Latin words of 2+ letters minus stop words (a plural's
    "s" dropped), and each pair of adjacent CJK characters."""
    words: set[str] = set()
    latin: list[str] = []
    previous = ""
    for ch in text.lower() + " ":
        if ord(ch) >= 0x2E80 and ch.isalnum():
            if previous:
                words.add(previous + ch)
            previous = ch
            continue
        previous = ""
        if ch.isalnum():
            latin.append(ch)
        elif latin:
            word = "".join(latin)
            latin = []
            if len(word) >= 2 and word not in STOP_WORDS:
                words.add(word[:-1] if len(word) > 3 and word.endswith("s") else word)
    return words


def names_in(text: str) -> set[str]:
    """The content words `text` writes as a name: capitalised ("Jon", "Gina"), not opening a
    sentence, and not an acronym or a product's own spelling ("CI", "GitHub"). Two speakers'
    names are in every line of their conversation, so a logged line sharing only names says
    nothing; a memory may (a product is capitalised too: "do we still use Kafka?")."""
    names: set[str] = set()
    opening = True
    for word in text.split():
        bare = word.strip("\"'()[]{},;:!?.")
        if bare[:1].isupper() and bare[1:].islower() and bare.isalpha() and not opening:
            names |= content_words(bare)
        opening = word.endswith((".", "?", "!"))
    return names


def strongly_first(hit: dict[str, Any], asked: set[str], floor: float) -> bool:
    """True for the memory recall ranked first when it scores STRONG_MARGIN above the floor and
    holds at least one, and a third, of the prompt's content words: "which database did we
    pick for billing?" shares only "billing" with "Let's use PostgreSQL for the billing
    service.", its best answer. (A plain top hit scores about the floor, and an unrelated one
    that recall ranked first shares one word of a longer prompt: "build", "job", "make".)"""
    shared = len(asked & content_words(str(hit.get("content", ""))))
    return float(hit.get("score", 0)) >= floor + STRONG_MARGIN and 0 < len(asked) <= 3 * shared
