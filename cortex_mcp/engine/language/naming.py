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


_VALUE = (
    r"(?:[\w.:/-]*\d[\w.:/-]*|[A-Z][\w.+#-]*(?: (?:of (?:the )?|de |& )?[A-Z][\w.+#-]*)?"
    r"|npm|pnpm|yarn|pip|uv|bun)"
)
"""A value a correction names: with a number, or one or two capitalised words ("Bank of
America", "Bank of the West": found re-testing, "Bank" alone named nothing held whole)."""
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


def rejected_beside(text: str, value: str) -> tuple[str, ...]:
    """The values `text` says `value` takes the place of, right after it ("a dog named Max,
    not Rex" of Max: Rex; "allergic to tree nuts, not peanuts" of tree nuts: peanuts), in any
    case: found re-testing, a fact restated with its new value left the old one live."""
    if not value:
        return ()
    return tuple(
        found["old"] for found in _rejected_after(value).finditer(text) if found["old"].strip()
    )


@lru_cache(maxsize=256)
def _rejected_after(value: str) -> re.Pattern[str]:
    return re.compile(
        rf"(?<![\w-]){re.escape(value)},? not (?:the |an? )?"
        r"(?P<old>[\w'’-]+(?: [\w'’-]+){0,2}?)(?=[.,;!?]|$)",
        re.IGNORECASE,
    )


def named_with(text: str, value: str | None, context: str = "") -> Named | None:
    """`named_in(text)`, with the values said replaced right after `value` in `context` (the
    sentence a fact of several was read from) or in `text`."""
    named = named_in(text)
    beside = rejected_beside(f"{text}\n{context}", value) if value else ()
    if not beside:
        return named
    if named is None:
        return Named(beside)
    return Named(tuple(dict.fromkeys((*named.values, *beside))), named.topic)


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
    """`value` as written, in any case, as words of its own ("Maya" not in "Mayan"); a
    Chinese or Japanese one wherever it stands (住在北京: no space sets a word apart)."""
    if _CJK.search(value):
        return re.compile(re.escape(value))
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


_A_WORD_OF_A_NAME = r"(?:[A-Z][\w&'’.-]*|\d[\d.:]*)"
_SAID_OVER = re.compile(
    rf"(?<=\w )(?P<old>{_A_WORD_OF_A_NAME}(?: {_A_WORD_OF_A_NAME}){{0,2}})"
    r"(?:,\s*|\s+[-–—]\s+|\s+)(?i:sorry|i mean|i meant|er|erm|uh|um|oops|no|wait)[,:]?\s+"
    rf"(?P<new>{_A_WORD_OF_A_NAME}(?: {_A_WORD_OF_A_NAME}){{0,2}}?)"
    r"(?:,?\s+(?i:not)\s+(?P=old))?(?=\s*[.,;!?]|$)"
)


def said_over(sentence: str) -> str:
    """A sentence that corrects itself as it goes, with the value it was corrected to: "I work
    at Google, sorry, Meta, not Google." is "I work at Meta." (found re-testing: Google was
    stored, with the whole sentence). The value follows a word of the sentence: "Sorry, I
    meant Marc" starts a correction, it corrects no word said."""
    return _SAID_OVER.sub(lambda found: found["new"], sentence)


def corrections_apart(sentence: str) -> list[str]:
    """A sentence of several bare corrections as one sentence each ("Sorry, it's Dallas, not
    Austin, and Meta, not Google." gives two: found re-testing, it was stored whole and both
    old values stayed); any other sentence as it is."""
    parts = _AND_NEXT.split(sentence)
    if len(parts) < 2 or not all(BARE_CORRECTION.match(part) for part in parts):
        return [sentence]
    end = sentence.rstrip()[-1:] if sentence.rstrip()[-1:] in ".!?" else "."
    return [part.rstrip(" .!?") + end for part in parts]


_AND_NEXT = re.compile(r"(?:,\s*|\s+)(?:and|&)\s+|\s*;\s*")


def cased_as(new: str, held: str, first_word: bool) -> str:
    """A correction's new value in the case of the value it replaces as held: "mia" for "Maya"
    is "Mia" (found re-testing: "My daughter is mia, not maya."); "Coffee" for "tea" is
    "coffee" when its capital is only the correction's first letter (`first_word`)."""
    if held[:1].isupper() and new.islower():
        return " ".join(word[:1].upper() + word[1:] for word in new.split(" "))
    if first_word and held.islower() and " " not in new and new[1:].islower():
        return new.lower()
    return new


def given_for(text: str, old: str) -> str | None:
    """The value `text` gives in place of `old` ("X, not OLD"): the capitalised words or the
    number before it ("It's New Jersey, not New York." gives "New Jersey"; "Sorry, it's 10,
    not 9." gives "10"), without the words that lead up to it; None when it gives none."""
    if _CJK.search(old):
        given = _GIVEN_ZH.search(text)
        return given["new"] if given is not None and given["old"] == old else None
    found = re.search(rf"{_GIVEN},? (?:and )?not {re.escape(old)}(?![\w'-])", text)
    if found is None:
        return None
    words = found["new"].split()
    while words and words[0].casefold().replace("’", "'") in _LEADING_UP:
        words.pop(0)
    if not words or words[-1].casefold() == old.casefold():
        return None
    place = _A_PLACE_BEFORE.search(text, 0, found.start("new"))
    if place is not None and place["place"].casefold() == old.casefold():
        words = [f"{place['place']},", *words]  # "Portland, Maine, not Portland, Oregon"
    return " ".join(words)


_A_PLACE_BEFORE = re.compile(r"(?P<place>[A-Z][\w'’-]*(?: [A-Z][\w'’-]*)?), $")
"""The place a new value says more of ("Portland, Maine" for "Portland"): found re-testing,
"I live in Maine, not Portland." said the user does not live in Portland."""


_NO_VALUE = (
    r"(?!(?:i|me|my|we|us|you|he|him|she|her|they|them|it|this|that|these|those|here|there|now|"
    r"yet|really|quite|exactly|always|never|just|so|too|one|both|either|neither|not|very|still|"
    r"also|pretty|kind|sort|only|even|to|a|an|the|whatever|anything|something|nothing|everything|"
    r"fine|ok|okay|sure|important|no|nope|sorry|oops|oh|wait|actually|well|correction|ah|hmm|yes|"
    r"yeah|yep)\b)"
)
"""Words that are no value corrected: "Me, not you.", "That, not this.", "It's just not right."
correct nothing held; nor does "Sorry, not Austin." (found re-testing: home "Sorry")."""
_A_VALUE_ALONE = r"(?=(?-i:[A-Z0-9][^\s,]*(?:\s+[A-Z0-9][^\s,]*){0,3}),?\s+not\s)"
"""Where no "it's" leads: capitalised words or numbers, up to four, before ", not" ("Yes
Boston, not Austin.", "Correction: Meta, not Google.", "Coffee, not tea."; not "Alice uses
Postgres, not MySQL.", a statement of its own)."""
_LEAD = (
    r"(?:no|nope|sorry|oops|oh|wait|actually|well|correction|ah|hmm|yes|yeah|yep|typo|ugh|lol"
    r"|my bad|my fault|i mean|i meant|damn autocorrect|autocorrect)\W+"
)
_A_SHORT_VALUE = r"(?=[^\s,]+(?:\s+[^\s,]+)?,\s+not\s)"
"""After a word that marks a correction, any value of a word or two: "Sorry, shellfish, not
peanuts." (found re-testing: the allergy was kept)."""
BARE_CORRECTION = re.compile(
    rf"(?i)^\W*(?:{_LEAD})*(?:(?:it|that)['’]s\s+(?:spelled\s+|spelt\s+|called\s+|named\s+)?"
    rf"|{_A_VALUE_ALONE}|(?<=\W){_A_SHORT_VALUE})"
    rf"{_NO_VALUE}"
    r"(?P<new>[^,\s]{1,40}(?=\s+not\s)|[^,]{1,40}?(?=,))(?P<comma>,)?\s+not\s+"
    rf"{_NO_VALUE}(?P<old>(?(comma)[^,.!?]{{1,40}}?|[^,.!?\s]{{1,40}}))"
    r"(?:\s+(?:today|tonight|tomorrow|then|now|either|again|this \w+|next \w+))?\s*[.!?]*$"
)
"""A correction that says only "it's X, not Y" or "X, not Y", the values as written between:
what it corrects is a memory naming Y, or what was said just before ("Oh wait, it's Friday, not
Monday today."); when no live memory names Y, it is no lasting fact and goes to working memory,
not core (found re-testing: such remarks crowded core). "Yes Boston, not Austin." and "sorry,
it's max not rex" were not read as corrections (found re-testing)."""
_GIVEN = r"(?<![\w'’-])(?P<new>(?:[A-Z][\w'’-]*|\d[\d.:]*)(?: (?:[A-Z][\w'’-]*|\d[\d.:]*)){0,3})"
_GIVEN_ZH = re.compile(
    r"(?:是在|是|在|叫|用)(?P<new>[\u4e00-\u9fffA-Za-z0-9]{1,12}?)[，,]?\s*(?:而)?不是\s*"
    r"(?P<old>[\u4e00-\u9fffA-Za-z0-9]{1,12}?)(?=[，,。！!；;]|$)"
)
"""The value a Chinese correction gives ("不对，是上海，不是北京。": 上海 for 北京)."""
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
     "their", "called", "named", "spelled", "spelt", "misspelled", "not", "s", "that",
     "mistyped", "typed", "wrote", "earlier", "before", "wrong", "mistake", "spelling", "got"]
)  # fmt: skip
"""What a correction of a name says besides the two names."""
