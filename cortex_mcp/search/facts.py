"""Same fact or a different fact: the one definition every de-duplication decision uses.

Two statements say the same thing only when, once case, punctuation, inflection, function
words, intensifiers and the way the user is referred to ("I", "the user", 我, 私) are set aside,
they are made of the same content words in the same roles. A word one of them adds, drops or
replaces — a different person, place, organisation, product, date, number or quantity, in any
script — makes a different fact, however much else they share. Without an LLM this is the
whole rule; with one it is the guard the LLM's answers must pass (`names_differ`).

Words are compared as a sequence (Latin words stemmed, CJK by character), so a swap of roles
("张三喜欢李四" / "李四喜欢张三") is a replacement, not a match.
"""

import re
import unicodedata
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache

from cortex_mcp.search.query import MONTH_NAMES
from cortex_mcp.search.snowball import snowball
from cortex_mcp.search.tokenize import ENGLISH_STOPWORDS, is_cjk, numbers_of, pieces_of

SELF = "<self>"
NOT = "<not>"

_SELF_WORDS = frozenset(["i", "me", "my", "mine", "myself", "user", "users"])
_NEGATIONS = frozenset(["no", "not", "never", "nor", "none", "nothing", "t"])
_CONTRACTED_NOT = frozenset(
    ["don", "doesn", "didn", "isn", "aren", "wasn", "weren", "cannot", "shouldn"]
)
_SOFT_WORDS = frozenset(
    [
        "really",
        "very",
        "quite",
        "truly",
        "definitely",
        "certainly",
        "indeed",
        "actually",
        "currently",
        "now",
        "still",
        "always",
        "usually",
        "generally",
        "please",
        "also",
        "m",
        "ve",
        "ll",
        "re",
        "d",
        "that",
        "which",
        "one",
    ]
)
ENGLISH_FUNCTION_WORDS = (ENGLISH_STOPWORDS | _SOFT_WORDS) - _NEGATIONS - _CONTRACTED_NOT
"""Words that never make two statements different facts."""

CJK_FUNCTION_CHARACTERS = frozenset("的地得了很也都呢吧啊呀嘛哦着真挺们はがをにでともへねよの")
"""Chinese particles and intensifiers, Japanese case particles: never a fact of their own."""

_CJK_FUNCTION_WORDS = re.compile(r"非常|特别|真的|其实|一直|总是|现在|目前|とても|本当に")
_CJK_USER = re.compile(r"ユーザー|用户")
_CJK_SELF = frozenset("我私僕俺")
_CJK_NEGATIONS = frozenset("不没無未否非")

_stemmer = snowball("english")


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return str(_stemmer.stemWord(word))


def _word_token(word: str) -> str:
    if word in _SELF_WORDS:
        return SELF
    if word in _NEGATIONS or word in _CONTRACTED_NOT:
        return NOT
    if word in ENGLISH_FUNCTION_WORDS or word.isdigit():
        return word
    return _stem(word)


def _cjk_tokens(run: str) -> list[str]:
    run = _CJK_USER.sub("我", _CJK_FUNCTION_WORDS.sub("", run))
    return [SELF if c in _CJK_SELF else NOT if c in _CJK_NEGATIONS else c for c in run]


def fact_tokens(text: str) -> list[str]:
    """The statement as a sequence of comparable tokens: stemmed lowercase words, CJK
    characters, numbers, and SELF / NOT for the user and for negation ("don't" is one NOT)."""
    tokens: list[str] = []
    for piece in pieces_of(text):
        for token in _cjk_tokens(piece) if is_cjk(piece) else [_word_token(piece)]:
            if not (token == NOT and tokens and tokens[-1] == NOT):
                tokens.append(token)
    return tokens


_FUNCTION_TOKENS = frozenset(
    [
        SELF,
        *(c for c in CJK_FUNCTION_CHARACTERS if is_cjk(c)),
        *(w for w in ENGLISH_FUNCTION_WORDS if not (len(w) == 1 and is_cjk(w))),
    ]
)
"""Every function token in one set: a single CJK character is one only when it is a CJK
function character, any other token only when it is an English function word."""


def is_function_token(token: str) -> bool:
    """True for a token that never makes a fact of its own (SELF included: "I prefer X" and
    "the user prefers X" are one fact; a third person instead of SELF is a content word)."""
    return token in _FUNCTION_TOKENS


def content_tokens(text: str) -> list[str]:
    """The tokens of a statement that carry its facts, in order."""
    return [t for t in fact_tokens(text) if t not in _FUNCTION_TOKENS]


@dataclass(frozen=True)
class Difference:
    """How two statements differ in content: what only the first says, what only the second
    says, and whether content stands in a different place or is replaced by other content."""

    only_first: tuple[str, ...]
    only_second: tuple[str, ...]
    reordered: bool

    @property
    def same(self) -> bool:
        """The two say the same thing."""
        return not self.only_first and not self.only_second and not self.reordered


def difference(first: str, second: str) -> Difference:
    """Compare two statements content word by content word."""
    a, b = content_tokens(first), content_tokens(second)
    only_a, only_b = Counter(a) - Counter(b), Counter(b) - Counter(a)
    return Difference(tuple(sorted(only_a.elements())), tuple(sorted(only_b.elements())), a != b)


def same_statement(first: str, second: str) -> bool:
    """The same fact said twice: the same numbers and the same content words in the same
    order; function words, inflection, punctuation and "I" / "the user" aside."""
    return same_statement_as(first)(second)


STATEMENT_CACHE = 4096
"""Texts whose numbers and content tokens are kept: the same-statement search compares a new
statement with every live memory holding its rarest words, and a common word brings the same
few hundred memories back call after call."""


@lru_cache(maxsize=STATEMENT_CACHE)
def _numbers(text: str) -> frozenset[str]:
    return numbers_of(text)


@lru_cache(maxsize=STATEMENT_CACHE)
def _content(text: str) -> tuple[str, ...]:
    return tuple(content_tokens(text))


def same_statement_as(first: str) -> Callable[[str], bool]:
    """`same_statement(first, ·)` with `first` read once, for comparing it with many texts
    (the other texts' readings are cached: a memory's text never changes)."""
    numbers, tokens = numbers_of(first), tuple(content_tokens(first))
    return lambda second: _numbers(second) == numbers and _content(second) == tokens


_CAPITALISED = re.compile(r"\b[A-Z][a-z]+(?:[-'][A-Za-z]+)*\b")
_COMMON_CAPITALISED = frozenset(
    w.capitalize()
    for w in (
        *ENGLISH_FUNCTION_WORDS,
        *_SELF_WORDS,
        "actually",
        "yes",
        "ok",
        "okay",
        "hi",
        "hello",
        "hey",
        "thanks",
        "note",
        "remember",
        "correction",
        "update",
        "let",
        "please",
        "sorry",
        *["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"],
        *MONTH_NAMES,
    )
)
_SURNAMES = frozenset(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁"
    "任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔"
    "向汤"
)
"""The most common Chinese surnames: a name replaced by a name starting with another one is
another person (张子涵 / 王子涵)."""
_HONORIFIC_NAME = re.compile(r"([\u4e00-\u9fff\u30a0-\u30ff]{1,4})(?:さん|くん|ちゃん|様|氏|先生)")


def proper_names(text: str) -> frozenset[str]:
    """Capitalised words that name someone or something (not sentence starters such as
    "The" or "Actually"): what a statement is about."""
    return frozenset(
        w
        for w in _CAPITALISED.findall(unicodedata.normalize("NFKC", text))
        if w not in _COMMON_CAPITALISED
    )


def names_differ(first: str, second: str) -> bool:
    """True when the two are about different people or things: a different number, a named
    word of one replaced by another in the other, or a Chinese / Japanese name (surname first)
    replaced by another. The guard an LLM's "same fact" answer must pass."""
    if numbers_of(first) != numbers_of(second):
        return True
    names_a, names_b = proper_names(first), proper_names(second)
    if names_a and names_b and names_a.isdisjoint(names_b):
        return True
    a, b = fact_tokens(first), fact_tokens(second)
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    stems_a = {_stem(n.lower()) for n in names_a}
    stems_b = {_stem(n.lower()) for n in names_b}
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op != "replace":
            continue
        left, right = a[i1:i2], b[j1:j2]
        if stems_a & set(left) and stems_b & set(right):
            return True
        if _ideographs(left) and _ideographs(right):
            return True  # 東京 / 大阪, 花生 / 海鲜: no dictionary tells a name from a word
    return subjects_differ(first, second)


def _ideographs(tokens: list[str]) -> bool:
    return any("\u4e00" <= t <= "\u9fff" and not is_function_token(t) for t in tokens)


_NAME_RUN = re.compile(r"[A-Z][a-z]+(?:[-'][A-Za-z]+)*(?: [A-Z][a-z]+(?:[-'][A-Za-z]+)*)*")


def leading_name(text: str, other: str = "") -> str | None:
    """The first run of capitalised name words (what an English statement is about), if any;
    a word that `other` uses in lower case ("Weekly" / "the weekly") is no name."""
    lowered = {w.lower() for w in re.findall(r"[a-z][\w'-]*", other)}
    for match in _NAME_RUN.finditer(unicodedata.normalize("NFKC", text)):
        words = [
            w
            for w in match.group(0).split()
            if w not in _COMMON_CAPITALISED and w.lower() not in lowered
        ]
        if words:
            return " ".join(words)
    return None


def subjects_differ(first: str, second: str) -> bool:
    """True when the two are about different people or things, whatever value they state:
    their leading names differ, or a Chinese / Japanese name (surname first) is replaced by
    another. The guard an LLM's "update" answer must pass (a changed value is its point)."""
    name_a, name_b = leading_name(first, second), leading_name(second, first)
    if name_a and name_b and name_a != name_b:
        return True
    honoured_a = set(_HONORIFIC_NAME.findall(first))
    honoured_b = set(_HONORIFIC_NAME.findall(second))
    if honoured_a and honoured_b and honoured_a.isdisjoint(honoured_b):
        return True
    a, b = fact_tokens(first), fact_tokens(second)
    for op, i1, _, j1, _ in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "replace" and a[i1] in _SURNAMES and b[j1] in _SURNAMES and a[i1] != b[j1]:
            return True
    return False
