"""The same-fact guard a paraphrase must pass before two memories may merge on meaning alone.

Vectors say when two statements mean nearly the same; they do not tell "I live in Berlin" from
"I live in Munich" (cosine 0.9+ with e5). So a vector match merges only when the two also agree
on everything that makes a fact distinct: whom it is about, the names, products, numbers and
quantities it states, and whether it is negated. Where a word of one is replaced by another in
the other (東京 / 大阪, 绿茶 / 红茶, dark / light) they are two facts; where one only adds or
drops words around the same anchors ("Staging runs on PostgreSQL 16" / "Our staging database
is PostgreSQL 16") they may be one.
"""

import re
import unicodedata
from difflib import SequenceMatcher

from cortex_mcp.engine.language.subjects import UNKNOWN_KEY, USER_KEY, first_subject
from cortex_mcp.search.facts import (
    NOT,
    content_tokens,
    fact_tokens,
    is_function_token,
    proper_names,
)
from cortex_mcp.search.tokenize import numbers_of

PARAPHRASE_SIMILARITY = 0.93
"""Cosine (multilingual-e5-small) from which a guarded pair is one fact said twice: chosen on
tests/data/paraphrases.py (bench/paraphrase.py reports the rates at it)."""

_NUMBER_WORDS = {
    "once": "1", "one": "1", "twice": "2", "two": "2", "thrice": "3", "three": "3",
    "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10",
    "一": "1", "两": "2", "二": "2", "三": "3", "四": "4", "五": "5", "六": "6", "七": "7",
    "八": "8", "九": "9", "十": "10", "半": "0.5",
}  # fmt: skip
_EN_NUMBER = re.compile(r"(?i)\b(" + "|".join(k for k in _NUMBER_WORDS if k.isascii()) + r")\b")
_CJK_COUNT = re.compile(r"([一两二三四五六七八九十半])(?=[次个只位岁年天周月回人本台件点号日])")
_JA_NEGATION = re.compile(r"ません|ない|なかった|ず[、。に]|ぬ|だめ|ダメ|無理")
_EN_ANTONYMS = re.compile(r"(?i)\b(dis|un|in|im)(like|happy|able|possible)\b")
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9+#.\-]*[A-Za-z0-9+#]|[A-Za-z]")
_KATAKANA_RUN = re.compile(r"[\u30a0-\u30ffー]{2,}")


def quantities(text: str) -> frozenset[str]:
    """The numbers a statement states, in digits or in words (twice, 三次, 週3回)."""
    found = set(numbers_of(text))
    found |= {_NUMBER_WORDS[w.lower()] for w in _EN_NUMBER.findall(text)}
    found |= {_NUMBER_WORDS[c] for c in _CJK_COUNT.findall(text)}
    return frozenset(found)


def negated(text: str) -> bool:
    """Whether the statement is negated (an odd number of negations)."""
    count = sum(1 for t in fact_tokens(text) if t == NOT)
    count += len(_JA_NEGATION.findall(text)) + len(_EN_ANTONYMS.findall(text))
    return count % 2 == 1


def anchors(text: str) -> frozenset[str]:
    """What a fact is anchored on: names, Latin words inside CJK text (Grafana, Rust),
    katakana words (ダークモード, ポチ)."""
    text = unicodedata.normalize("NFKC", text)
    found = {n.lower() for n in proper_names(text)}
    if re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", text):
        found |= {w.lower() for w in _LATIN_WORD.findall(text)}
    found |= set(_KATAKANA_RUN.findall(text))
    return frozenset(found)


def _contained(mine: frozenset[str], other: str) -> bool:
    lowered = unicodedata.normalize("NFKC", other).lower()
    return all(anchor in lowered for anchor in mine)


def _substituted(first: str, second: str) -> bool:
    """A content word of one replaced by another content word in the other."""
    a, b = fact_tokens(first), fact_tokens(second)
    for op, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op != "replace":
            continue
        left = [t for t in a[i1:i2] if not is_function_token(t)]
        right = [t for t in b[j1:j2] if not is_function_token(t)]
        if left and right:
            return True
    return False


def _swapped(first: str, second: str) -> bool:
    """The same content words in another order where that may swap roles: two names
    ("Tom helps Ann" / "Ann helps Tom"), or CJK text, where names are not told from words
    (张三喜欢李四 / 李四喜欢张三). "Berlin is where I live" only reorders."""
    a, b = content_tokens(first), content_tokens(second)
    if a == b or sorted(a) != sorted(b):
        return False
    cjk = re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", first) is not None
    return cjk or len(proper_names(first)) >= 2


def _subjects_differ(first: str, second: str) -> bool:
    """About different people: the user and "we" / "our" (no single subject) may be one."""
    keys = {first_subject(first).key, first_subject(second).key}
    return len(keys) > 1 and keys != {USER_KEY, UNKNOWN_KEY}


_SPEAKER = re.compile(r"^\s*([A-Z][\w'.-]{0,30}(?: [A-Z][\w'.-]{0,30})?)\s*[:：]\s")
"""A line of dialogue's speaker label ("Jon: Thanks!")."""
_QUESTION = re.compile(r"[?？]\s*$")


def _speakers_differ(first: str, second: str) -> bool:
    """Two lines of dialogue said by different people ("Melanie: …" / "Caroline: …", #23)."""
    a, b = _SPEAKER.match(first), _SPEAKER.match(second)
    return a is not None and b is not None and a.group(1).casefold() != b.group(1).casefold()


def refuses(first: str, second: str) -> str | None:
    """Why two statements cannot be one fact however alike they read, or None when they may."""
    if _QUESTION.search(first) or _QUESTION.search(second):
        return "a question states no fact"
    if _speakers_differ(first, second):
        return "different speaker"
    if quantities(first) != quantities(second):
        return "different number"
    if negated(first) != negated(second):
        return "negation differs"
    if _subjects_differ(first, second):
        return "different subject"
    mine, theirs = anchors(first), anchors(second)
    if not (_contained(mine, second) or _contained(theirs, first)):
        return "different name"
    if _swapped(first, second):
        return "roles swapped"
    if _substituted(first, second):
        return "a word replaced by another"
    return None
