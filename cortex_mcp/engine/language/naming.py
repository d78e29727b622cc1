"""Whether a text names a value: the one rule by which a correction's old value ("…, not
Postgres", "not 8080") finds the memory that holds it (`ingest.replaced`) and the log lines
recall leaves out once it is corrected (`recall.corrected`), and what a statement says it
replaces ("…, not Postgres", "…，不是MySQL") or takes back ("Forget what I said about…")."""

import re
from dataclasses import dataclass
from functools import lru_cache

PREFIX_CHARS = 5
"""A name this long names a word it begins, and a word of this length or more that begins it:
"Postgres" names "PostgreSQL 14" and "PostgreSQL" names "Postgres 14"; "Java" (four letters)
does not name "JavaScript" (found re-testing: "…in Kotlin, not Java" replaced a memory of the
JavaScript frontend)."""
_CJK = re.compile(r"[\u4e00-\u9fff]")


def names(text: str, value: str) -> bool:
    """True when `text` names `value` (any case): a CJK value anywhere; a number as a whole
    number ("8080" is not "80801", "3.11" is not "3.11.4"); a name as a whole word, or, when
    it is at least PREFIX_CHARS long, as the start of a word or by a word of PREFIX_CHARS or
    more that it starts with."""
    if not value:
        return False
    if _CJK.search(value):
        return value in text
    forms, runs_on = _forms(value)
    start = 0
    while (found := forms.search(text, start)) is not None:
        begin, end = found.span()
        if _a_word_of_its_own(text, begin, end, runs_on and found.lastgroup == "value"):
            return True
        start = begin + 1
    return False


@lru_cache(maxsize=1024)
def _forms(value: str) -> tuple[re.Pattern[str], bool]:
    """`value` and, for a name of PREFIX_CHARS letters or more, its beginnings down to
    PREFIX_CHARS, longest first, in any case; and whether the value may run on into a longer
    word. The word edges are checked apart (`_a_word_of_its_own`): a pattern holding the
    alphabets' letter class took 12-19 ms to compile, once for every new value a correction
    named, on the write path and in recall."""
    long = len(value) >= PREFIX_CHARS and not value[:1].isdigit()
    shorter = range(len(value) - 1, PREFIX_CHARS - 1, -1) if long and value.isalpha() else ()
    alternatives = [f"(?P<value>{re.escape(value)})", *(re.escape(value[:n]) for n in shorter)]
    return re.compile("|".join(alternatives), re.IGNORECASE), long


def _a_word_of_its_own(text: str, begin: int, end: int, runs_on: bool) -> bool:
    """True when text[begin:end] starts a word (no letter or dot before it) and ends one (no
    letter after it, with `runs_on` after the rest of its word's letters), and no number
    follows it ("8080" in "80801" or "8080.5", "3.11" in "3.11.4")."""
    if begin and (text[begin - 1] == "." or _letter(text[begin - 1])):
        return False
    if runs_on:
        while end < len(text) and _letter(text[end]):
            end += 1
    elif end < len(text) and _letter(text[end]):
        return False
    return _NUMBER_NEXT.match(text, end) is None


def _letter(char: str) -> bool:
    """A word character of an alphabet (a letter, digit or underscore, not Chinese, Japanese
    or Korean): a Latin value is a word of its own beside CJK ("我们的数据库是MySQL" names
    "MySQL")."""
    return (char.isalnum() or char == "_") and not any(
        low <= char <= high for low, high in _CJK_BLOCKS
    )


_CJK_BLOCKS = (("\u3040", "\u30ff"), ("\u3400", "\u9fff"), ("\uac00", "\ud7af"))
_NUMBER_NEXT = re.compile(r"[.:/-]?\d")


_VALUE = r"(?:[\w.:/-]*\d[\w.:/-]*|[A-Z][\w.+#-]*(?: [A-Z][\w.+#-]*)?|npm|pnpm|yarn|pip|uv|bun)"
_REJECTED = re.compile(
    rf"(?:,|\b(?:and|but))?\s*\b(?:not|instead of|rather than|isn'?t|is not)\s+"
    rf"(?:the |on |in |at |port |version )?(?P<en>{_VALUE})(?=[\s.,;:!?)—–-]|$)"
    r"|(?:而)?不是\s*(?P<zh>[A-Za-z0-9][\w.+#-]*|[\u4e00-\u9fff]{2,8}?)(?=[，,。！!；;]|$)"
)
_REVOKED = re.compile(
    r"(?i)\b(?:forget|ignore|disregard|scratch|drop)\s+(?:what I said|what I told you|the rule|"
    r"that rule|my rule|the thing I said)\s+(?:about|on|regarding)\s+(?P<en>[^,.;!?]{2,60})"
    r"|(?:之前|刚才|上次)(?:说|定|讲)的(?P<zh>[^，。！!]{2,40}?)(?:那条|这条|那个|的规则)"
    r"[^，。]{0,4}(?:取消|作废|不算|不用)"
)


@dataclass(frozen=True)
class Named:
    """What a statement says it replaces: old values, or the topic of a rule taken back."""

    values: tuple[str, ...]
    topic: str = ""


def named_in(text: str) -> Named | None:
    """The values `text` says are replaced and the topic it revokes; None when it names none."""
    values = tuple(
        (found["en"] or found["zh"]).rstrip(".,:;-") for found in _REJECTED.finditer(text)
    )
    bare = BARE_CORRECTION.match(text)
    if bare is not None and not values:  # "Oops, it's tree nuts, not peanuts."
        values = (bare["old"].strip(),)
    revoked = _REVOKED.search(text)
    topic = (revoked["en"] or revoked["zh"]).strip() if revoked else ""
    if not values and not topic:
        return None
    return Named(tuple(v for v in values if v), topic)


def renamed(text: str, old: str, about: frozenset[str] | None = frozenset()) -> str | None:
    """The name `text` gives in place of the name `old`, when that is all it says ("Sorry, I
    meant Mia, not Maya.", "Correction: the dog is called Max, not Rex.", "It's John Smyth, not
    John Smith."; `about`: the words naming whose name it is, "dog"; None: any sentence,
    "billing is on MySQL, not Postgres"); None when it gives none, or says more ("In the email
    draft, it's Hanna, not Anna", "Fix the typo in the README: it's Leon, not Leo": found
    re-testing, each replaced a wife's or a son's name), or what it gives is a day, a month or
    a number ("Sorry, I meant May, not April.")."""
    new = given_for(text, old)
    if new is None or new[:1].isdigit() or _WHEN.fullmatch(new):
        return None
    if about is None:  # what a project uses: the sentence may say what it is for
        return new
    found = re.search(rf"{re.escape(new)},? (?:and )?not {re.escape(old)}(?![\w'-])", text)
    if found is None:
        return None
    rest = text[: found.start()] + " " + text[found.end() :]
    return new if said_words(rest) <= _AROUND_A_NAME | about else None


def as_a_word(value: str) -> re.Pattern[str]:
    """`value` as written, in any case, as words of its own ("Maya" not in "Mayan")."""
    return re.compile(rf"(?<![\w-]){re.escape(value)}(?![\w-])", re.IGNORECASE)


def said_words(text: str) -> set[str]:
    """The lower-case words of a text, without a possessive "'s"."""
    return {word.removesuffix("'s") for word in re.findall(r"[a-z']+", text.casefold())}


def corrected_values(text: str, bare: bool = True) -> tuple[str, str | None] | None:
    """The value a correction replaces and the value it gives: as written in "it's X, not Y"
    (`bare`), else the one value it names and the words before it (None when it gives none);
    None when it names no single value."""
    found = BARE_CORRECTION.match(text) if bare else None
    if found is not None:
        return found["old"].strip(), found["new"].strip()
    named = named_in(text)
    if named is None or len(named.values) != 1:
        return None
    return named.values[0], given_for(text, named.values[0])


def given_for(text: str, old: str) -> str | None:
    """The value `text` gives in place of `old` ("X, not OLD"): the capitalised words or the
    number before it ("It's New Jersey, not New York." gives "New Jersey"; "Sorry, it's 10,
    not 9." gives "10"), without the words that lead up to it; None when it gives none."""
    found = re.search(rf"{_GIVEN},? (?:and )?not {re.escape(old)}(?![\w'-])", text)
    if found is None:
        return None
    words = found["new"].split()
    while words and words[0].casefold().replace("’", "'") in _LEADING_UP:
        words.pop(0)
    return " ".join(words) if words and words[-1].casefold() != old.casefold() else None


BARE_CORRECTION = re.compile(
    r"(?i)^\W*(?:(?:no|nope|sorry|oops|oh|wait|actually|well|correction|ah|hmm)\W+)*"
    r"(?:it|that)['’]s\s+(?P<new>[^,]{1,40}?),?\s+not\s+(?P<old>[^,.!?]{1,40}?)"
    r"(?:\s+(?:today|tonight|tomorrow|then|now|either|again|this \w+|next \w+))?\s*[.!?]*$"
)
"""A correction that says only "it's X, not Y", the values as written between: what it
corrects is a memory naming Y, or what was said just before ("Oh wait, it's Friday, not Monday
today."); when no live memory names Y, it is no lasting fact and goes to working memory, not
core (found re-testing: such remarks crowded core)."""
_GIVEN = r"(?<![\w'’-])(?P<new>(?:[A-Z][\w'’-]*|\d[\d.:]*)(?: (?:[A-Z][\w'’-]*|\d[\d.:]*)){0,3})"
_LEADING_UP = frozenset(
    ["it's", "its", "it", "that's", "that", "this", "i", "i'm", "actually", "sorry", "no",
     "nope", "oops", "oh", "correction", "wait", "yes", "yeah", "well", "so", "and", "but", "ok",
     "okay", "meant", "mean", "the", "my"]
)  # fmt: skip


_WHEN = re.compile(
    r"(?i)(?:mon|tues|wednes|thurs|fri|satur|sun)day|january|february|march|april|may|june|july|"
    r"august|september|october|november|december|today|tomorrow|yesterday"
)
_AROUND_A_NAME = frozenset(
    ["sorry", "oops", "typo", "actually", "i", "meant", "mean", "it", "it's", "its", "is", "was",
     "no", "wait", "correction", "correct", "my", "bad", "the", "name", "names", "her", "his",
     "their", "called", "named", "spelled", "spelt", "misspelled", "not", "s", "that"]
)  # fmt: skip
"""What a correction of a name says besides the two names."""
