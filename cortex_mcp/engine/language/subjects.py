"""Whose fact a statement states (seed 002's subject): the user, a related person (mother,
妈妈, 母, sister, colleague) or a named one (Tom, 田中さん); `UNKNOWN` for he / she / they,
"my wife and I", 我们 — statements no single known subject owns.

The subject of a clause is the last one mentioned before its verb; a clause that names none
inherits the sentence's (我住在成都，是一名护士: both the user's), and a sentence that names
none is the user's (東京に住んでいます). Relations are keyed in English (妈妈, 母 and mom are
one "mother"), names as written.
"""

import re
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

USER_KEY = "user"
UNKNOWN_KEY = "?"

RELATIONS = {
    "wife": "wife", "husband": "husband", "partner": "partner", "daughter": "daughter",
    "son": "son", "mother": "mother", "mom": "mother", "mum": "mother", "father": "father",
    "dad": "father", "brother": "brother", "sister": "sister", "girlfriend": "girlfriend",
    "boyfriend": "boyfriend", "boss": "manager", "manager": "manager",
    "grandmother": "grandmother", "grandma": "grandmother", "grandfather": "grandfather",
    "grandpa": "grandfather", "aunt": "aunt", "uncle": "uncle", "cousin": "cousin",
    "女儿": "daughter", "儿子": "son", "老婆": "wife", "妻子": "wife", "太太": "wife",
    "丈夫": "husband", "老公": "husband", "妈妈": "mother", "母亲": "mother", "妈": "mother",
    "爸爸": "father", "父亲": "father", "爸": "father", "哥哥": "brother", "弟弟": "brother",
    "姐姐": "sister", "妹妹": "sister", "男朋友": "boyfriend", "女朋友": "girlfriend",
    "老板": "manager", "领导": "manager", "奶奶": "grandmother", "爷爷": "grandfather",
    "外婆": "grandmother", "姥姥": "grandmother", "外公": "grandfather",
    "娘": "daughter", "息子": "son", "妻": "wife", "夫": "husband", "母": "mother",
    "父": "father", "兄": "brother", "弟": "brother", "姉": "sister", "妹": "sister",
    "上司": "manager", "お母さん": "mother", "お父さん": "father", "母親": "mother",
    "父親": "father", "祖母": "grandmother", "祖父": "grandfather", "嫁": "wife",
}  # fmt: skip
"""One person each: a statement about them is theirs."""
GROUPS = {
    "friend": "friend", "colleague": "colleague", "coworker": "colleague",
    "co-worker": "colleague", "roommate": "roommate", "neighbor": "neighbour",
    "neighbour": "neighbour", "classmate": "classmate",
    "朋友": "friend", "同事": "colleague", "室友": "roommate", "邻居": "neighbour",
    "同学": "classmate", "友達": "friend", "友人": "friend", "同僚": "colleague",
}  # fmt: skip
"""Many people each: a subject only with a name (my friend Tom, 我的同事小李)."""

_JA_ONLY = frozenset(
    ["娘", "息子", "妻", "夫", "母", "父", "兄", "弟", "姉", "妹", "上司", "お母さん", "お父さん",
     "母親", "父親", "祖母", "祖父", "嫁", "友達", "友人", "同僚"]
)  # fmt: skip
_NOT_NAMES = frozenset(
    [
        "The", "This", "That", "These", "Those", "It", "There", "Here", "What", "When", "Where",
        "Why", "How", "Who", "Which", "And", "But", "Or", "So", "If", "Then", "Also", "Yes", "No",
        "Ok", "Okay", "Hi", "Hello", "Hey", "Thanks", "Actually", "Please", "Today", "Tomorrow",
        "Yesterday", "My", "Our", "Your", "His", "Her", "Their", "We", "You", "They", "He", "She",
        "Everyone", "Someone", "Nobody", "Everybody", "Monday", "Tuesday", "Wednesday", "Thursday",
        "Friday", "Saturday", "Sunday", "Just", "Well", "Oh", "Wow", "Sure", "Maybe", "Now",
        "Recently",
    ]
)  # fmt: skip


def _alternatives(words: Iterable[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


EN_RELATIONS = _alternatives(k for k in RELATIONS if k.isascii())
EN_GROUPS = _alternatives(k for k in GROUPS if k.isascii())
ZH_RELATIONS = _alternatives(k for k in RELATIONS if not k.isascii() and k not in _JA_ONLY)
ZH_GROUPS = _alternatives(k for k in GROUPS if not k.isascii() and k not in _JA_ONLY)
JA_RELATIONS = _alternatives(k for k in RELATIONS if k in _JA_ONLY)
JA_GROUPS = _alternatives(k for k in GROUPS if k in _JA_ONLY)
_EN_NAME = r"[A-Z][a-z]+(?: [A-Z][a-z]+)?"
ZH_NAME = r"(?:小|老|阿)[\u4e00-\u9fff]"
"""A colleague or friend called by a nickname (小李, 老王): full names are not told from words."""

EN_OTHER = (
    rf"\b(?i:my|our) (?:(?P<en_rel>(?i:{EN_RELATIONS}))(?:,? (?P<en_rel_name>{_EN_NAME}))?"
    rf"|(?P<en_group>(?i:{EN_GROUPS})),? (?P<en_group_name>{_EN_NAME}))(?![\w'])"
)
"""my mom, my sister Anna, my colleague Tom: someone of the user's."""

_MENTION = re.compile(
    "|".join(
        [
            r"(?P<en_we>\b(?i:my|our) \w+(?: \w+)? (?i:and I|and me)\b)",
            EN_OTHER,
            r"(?P<en_we2>\b(?i:we|we're|we've|our|us)\b)",
            r"(?P<en_unknown>\b(?i:he|she|they|his|her|their|him|them)\b)",
            r"(?P<en_user>\bI\b|\bI'[a-z]+|\b(?i:my|me|myself)\b)",
            rf"(?:我的?|我们的?)?(?:(?P<zh_rel>{ZH_RELATIONS})|(?P<zh_group>{ZH_GROUPS})(?P<zh_group_name>"
            rf"{ZH_NAME}))",
            r"(?P<zh_we>我们|咱们|我和|和我)",
            r"(?P<zh_unknown>他们|她们|他|她|别人|大家)",
            r"(?P<zh_user>我)",
            rf"(?:私の|うちの|僕の|俺の)?(?:(?P<ja_rel>{JA_RELATIONS})|(?P<ja_group>{JA_GROUPS})の"
            rf"(?P<ja_group_name>[\u4e00-\u9fff\u30a0-\u30ff]{{1,6}}))(?=は|が|も|の|、|と|$)",
            r"(?P<ja_name>[\u3040-\u309f\u4e00-\u9fff\u30a0-\u30ff]{1,8}?)(?:さん|くん|ちゃん|様|氏|"
            r"先生)",
            r"(?P<ja_we>私たち|僕たち|我々)",
            r"(?P<ja_unknown>彼女|彼ら|彼)",
            r"(?P<ja_user>私|僕|俺|わたし)",
        ]
    )
)


@dataclass(frozen=True)
class Subject:
    """Whose fact: `key` compares ("user", "mother", "Tom"), `written` is as said."""

    key: str
    written: str = ""
    bare: bool = False
    """Named only (田中さん, Alice), not as someone of the user's: a story may say "Alice moved
    to Austin" and "Alice moved to Denver" of two people or two times, so no slot is read."""

    @property
    def is_user(self) -> bool:
        """The user's own fact."""
        return self.key == USER_KEY

    @property
    def known(self) -> bool:
        """One person the statement is about (not he / she / we)."""
        return self.key != UNKNOWN_KEY


USER = Subject(USER_KEY)
UNKNOWN = Subject(UNKNOWN_KEY)


def mentioned(match: re.Match[str]) -> Subject:
    """The subject one mention names."""
    groups = {k: v for k, v in match.groupdict().items() if v}
    written = match.group(0)
    for rel in ("en_rel", "zh_rel", "ja_rel"):
        if rel in groups:
            name = groups.get("en_rel_name")
            key = RELATIONS.get(groups[rel].casefold(), RELATIONS.get(groups[rel], ""))
            return Subject(name if name and name not in _NOT_NAMES else key, written)
    for group in ("en_group", "zh_group", "ja_group"):
        if group in groups:
            return Subject(groups[f"{group}_name"], written)
    if "ja_name" in groups:
        return Subject(groups["ja_name"], written, bare=True)
    if any(k.endswith("_user") for k in groups):
        return USER
    return UNKNOWN


def subject_before(text: str, end: int | None = None, start: int = 0) -> Subject:
    """The subject of what follows `text[:end]` (a sentence up to its verb): the last
    mentioned from `start` on, the user when none is.

    The sentence's mentions are found once and kept, so asking at each of a long sentence's
    matches costs a short scan, not a read from its start (a 14,000-character message of
    repeated "I have a dog named Rex, " took 1.6 s)."""
    end = len(text) if end is None else end
    matches, ends = _mentions(text)
    settled = bisect_right(ends, end - _REACH)
    last = matches[settled - 1] if settled else None
    unsettled = matches[settled].start() if settled < len(matches) else end
    scan_from = max(last.end() if last else 0, min(unsettled, end - _REACH))
    for match in _MENTION.finditer(text, scan_from, end):
        last = match
    return USER if last is None or last.start() < start else mentioned(last)


_REACH = 80
"""How far past a mention's end its reading may look: a mention ending further before a point
is read the same in the sentence cut there, so only the last stretch is scanned again."""


@lru_cache(maxsize=4)
def _mentions(sentence: str) -> tuple[list[re.Match[str]], list[int]]:
    """Every mention in a sentence, and where each ends."""
    matches = list(_MENTION.finditer(sentence))
    return matches, [match.end() for match in matches]


def named(written: str) -> Subject:
    """The subject a name or relation as written stands for ("my mom" → mother, "Tom")."""
    match = _MENTION.fullmatch(written)
    if match is not None:
        return mentioned(match)
    if re.fullmatch(_EN_NAME, written) and written.split()[0] not in _NOT_NAMES:
        return Subject(written, written, bare=True)
    return UNKNOWN


def first_subject(text: str) -> Subject:
    """Whom a statement is about: the first subject it mentions, the user when none."""
    match = _MENTION.search(text)
    return mentioned(match) if match is not None else USER


def same_subject(first: str, second: str) -> bool:
    """Two statements about the same person (both the user's, or both one other's)."""
    return first_subject(first).key == first_subject(second).key
