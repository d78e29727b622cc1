"""Subject / predicate / value: what a statement says about a stable attribute (seed 002).

The fast channel reads these slots from everyday statements in English, Chinese and Japanese:
the user's name, where they live and work, their role, the language they want answers in, the
tools they use, family members and pets by name, birthdays. A new value for the same subject and
predicate replaces the old memory (update instead of append); the same value is a duplicate.
Patterns are data (`slot_patterns_en`, `slot_patterns_cjk`); a match preceded by a negation
("I no longer live in …") asserts nothing.
"""

import re
import unicodedata
from bisect import bisect_right
from dataclasses import dataclass, replace
from functools import lru_cache

from cortex_mcp.engine.language import subjects
from cortex_mcp.engine.language.attributes import find_attributes
from cortex_mcp.engine.language.patterns import ends_asking
from cortex_mcp.engine.language.slot_patterns_cjk import JA_PATTERNS, ROLE_ZH, ZH_PATTERNS
from cortex_mcp.engine.language.slot_patterns_en import EN_PATTERNS
from cortex_mcp.engine.language.slot_words import (
    LANGUAGES,
    NOT_NAMES,
    PETS,
    RELATIONS,
    TOOLS,
    SlotPattern,
    alternatives,
)
from cortex_mcp.models import Category, Memory

USER = "user"

NAMED = ("name", "person", "pet", "workplace", "left")

CATEGORIES = {
    "name": Category.IDENTITY,
    "home": Category.IDENTITY,
    "workplace": Category.IDENTITY,
    "left": Category.IDENTITY,
    "role": Category.IDENTITY,
    "answer_language": Category.PREFERENCE,
    "tool": Category.PREFERENCE,
    "person": Category.RELATIONSHIP,
    "pet": Category.RELATIONSHIP,
    "gone": Category.RELATIONSHIP,
    "birthday": Category.FACT,
    "allergy": Category.FACT,
    "diet": Category.PREFERENCE,
    "avoids": Category.PREFERENCE,
    "units": Category.PREFERENCE,
    "format": Category.PREFERENCE,
    "answer_style": Category.PREFERENCE,
    "version": Category.PROJECT_STATE,
    "uses": Category.PROJECT_STATE,
}


_SAID_WITH_A_VOWEL = re.compile(r"[FHLMNRSX][A-Z]{1,4}\b")
"""An initialism read letter by letter from a vowel sound: "an SRE", "an MBA", "an HR lead"."""


@dataclass(frozen=True)
class Slot:
    """One attribute a statement sets: `predicate` of `subject` is `value` (as written)."""

    subject: str
    predicate: str
    value: str
    language: str
    label: str = ""
    who: str = ""
    beside: bool = False
    """Read from a name said beside the relation ("So my wife Anna …"), not stated as it."""

    @property
    def category(self) -> Category:
        """Where a memory of this slot belongs (another person's fact: with the people)."""
        return CATEGORIES[self.predicate.split(":")[0]]

    @property
    def one_of_several(self) -> bool:
        """The user's son, daughter, brother, sister or pet: one of `SEVERAL`."""
        return self.subject == USER and self.predicate.startswith(SEVERAL)

    @property
    def of_a_project(self) -> bool:
        """What a project (or a thing of it) uses or runs: held per project, unlike a
        person's facts."""
        return self.subject != USER and self.predicate.split(":")[0] in ("uses", "version")

    @property
    def attribute(self) -> str:
        """The kind of attribute, whoever's it is: home for "home" and "person:mother:home"."""
        return (
            self.predicate.rsplit(":", 1)[-1]
            if self.predicate.count(":") == 2
            else (self.predicate.split(":")[0])
        )

    @property
    def key(self) -> str:
        """The value compared: NFKC, case-folded, single spaces, no closing punctuation; a
        language by its English name, so 中文 and Chinese are one value."""
        if self.predicate == "answer_language":
            return value_key(LANGUAGES.get(self.value.casefold(), self.value))
        return value_key(self.value)

    def revalued(self, value: str) -> "Slot":
        """The slot holding `value` instead; an attribute of several values is keyed by it
        (allergy:peanuts becomes allergy:shellfish)."""
        kind = self.predicate.split(":")[0]
        predicate = f"{kind}:{value_key(value)}" if kind in MULTI_VALUED else self.predicate
        return replace(self, value=value, predicate=predicate)

    def statement(self) -> str:
        """The slot as a sentence of its own, in its language (for a sentence of several)."""
        kind, _, detail = self.predicate.partition(":")
        vowel = self.value[:1].lower() in "aeiou" or _SAID_WITH_A_VOWEL.match(self.value)
        article = "an" if vowel else "a"
        if self.language == "en" and self.predicate == "person:spouse":
            return f"I'm married to {self.value}."
        if self.predicate.count(":") == 2 and kind == "person":
            template = OTHERS_TEMPLATES[self.language].get(self.attribute, "{w}: {v}.")
            who = self.who[:1].upper() + self.who[1:] if self.language == "en" else self.who
            return template.format(v=self.value, w=who or self.subject, a=article)
        if kind in ("version", "uses"):
            return ATTRIBUTE_TEMPLATES[self.language].format(s=self.subject, v=self.value)
        if kind == "birthday":
            whose = "own" if detail == "self" else "other"
            template = BIRTHDAY_TEMPLATES[self.language][whose]
            return template.format(v=self.value, d=self.label or detail.replace("_", " "))
        template = TEMPLATES[self.language].get(kind, TEMPLATES[self.language]["other"])
        return template.format(v=self.value, d=self.label or detail.replace("_", " "), a=article)


TEMPLATES = {
    "en": {
        "name": "My name is {v}.",
        "home": "I live in {v}.",
        "workplace": "I work at {v}.",
        "left": "I left {v}.",
        "gone": "No longer in my life: {v}.",
        "role": "I work as {a} {v}.",
        "answer_language": "Please answer in {v}.",
        "tool": "I use {v}.",
        "person": "My {d} is {v}.",
        "pet": "My {d} is called {v}.",
        "allergy": "I'm allergic to {v}.",
        "other": "{d}: {v}.",
    },
    "zh": {
        "name": "我叫{v}。",
        "home": "我住在{v}。",
        "workplace": "我在{v}工作。",
        "left": "我从{v}离职了。",
        "role": "我的工作是{v}。",
        "answer_language": "请用{v}回答。",
        "tool": "我用{v}。",
        "person": "我的{d}叫{v}。",
        "pet": "我的{d}叫{v}。",
        "allergy": "我对{v}过敏。",
        "other": "{d}：{v}。",
    },
    "ja": {
        "name": "私の名前は{v}です。",
        "home": "私は{v}に住んでいます。",
        "workplace": "私は{v}で働いています。",
        "left": "{v}を辞めました。",
        "role": "私の仕事は{v}です。",
        "answer_language": "{v}で答えてください。",
        "tool": "{v}を使っています。",
        "person": "私の{d}は{v}です。",
        "pet": "私の{d}は{v}です。",
        "allergy": "{v}アレルギーです。",
        "other": "{d}：{v}。",
    },
}


BIRTHDAY_TEMPLATES = {
    "en": {"own": "My birthday is {v}.", "other": "My {d}'s birthday is {v}."},
    "zh": {"own": "我的生日是{v}。", "other": "我{d}的生日是{v}。"},
    "ja": {"own": "私の誕生日は{v}です。", "other": "私の{d}の誕生日は{v}です。"},
}
"""A birthday as a sentence of its own: the user's, or a relation's (it read "Birthday (self):
March 3." and 生日（self）：3月3日。)."""
ATTRIBUTE_TEMPLATES = {
    "en": "The {s} uses {v}.",
    "zh": "{s}使用{v}。",
    "ja": "{s}は{v}を使っています。",
}
"""An attribute of a project (or of the user) as a sentence of its own."""
OTHERS_TEMPLATES = {
    "en": {"home": "{w} lives in {v}.", "workplace": "{w} works at {v}.",
           "role": "{w} works as {a} {v}."},
    "zh": {"home": "{w}住在{v}。", "workplace": "{w}在{v}工作。", "role": "{w}是{v}。"},
    "ja": {"home": "{w}は{v}に住んでいます。", "workplace": "{w}は{v}で働いています。",
           "role": "{w}は{v}です。"},
}  # fmt: skip
"""Another person's fact as a sentence of its own."""


def value_key(value: str) -> str:
    """A slot value as compared: NFKC, case-folded, single spaces, no trailing punctuation."""
    folded = unicodedata.normalize("NFKC", value).casefold()
    return " ".join(folded.split()).strip(" .,!?;:。，！？；：、")


SLOT_PATTERNS: list[SlotPattern] = [*EN_PATTERNS, *ZH_PATTERNS, *JA_PATTERNS]
"""Every slot pattern, English first: the first pattern to set a predicate wins."""


_NEGATED = re.compile(
    r"(?i:\b(?:no longer|not|never|don'?t|doesn'?t|didn'?t|won'?t|isn'?t|aren'?t|used to)\s+"
    r"(?:\w+\s+){0,2}$)|(?:不再|不|没有?|从不|并不)(?:再)?$|(?:禁止|严禁|不准|不要|别|不许)$"
    r"|(?i:\b(?:stop|avoid|ban|banned|forbid|forbidden)\s+(?:\w+\s+){0,2}$)"
)
_THIRD_PARTY = re.compile(
    r"さん|くん|ちゃん|様|先生|彼女?|氏|他|她|朋友|同事|"
    + alternatives(k for k in RELATIONS if not k.isascii())
    + r"|(?i:\b(?:he|she|they|friend|colleague|"
    + alternatives(k for k in RELATIONS if k.isascii())
    + r")\b)"
)
"""Before a match, someone other than the user is the subject: 田中さんは東京に住んでいます,
姉は大阪に住んでいます, my wife and I live in Paris."""
_SOMEONE_ELSES = re.compile(
    r"(?i:\b(?:he|she|they|my friend|someone|people) (?:said|says|told)\b)"
    r"|\b(?!I\b)[A-Z][a-z]+ (?:said|says|claims|claimed|told (?:me|us|everyone|people))\b"
    r"|(?i:\b(?!I\b)\w+ (?:thinks?|thought|believes?|believed|assumes?|assumed|guess(?:es|ed)?"
    r"|claims?|claimed|imagines?|imagined|is convinced|was convinced)\b(?: that)? I\b)"
    r"|(?<!我)(?:以为|认为|觉得|相信|听说)我"
)
_HYPOTHETICAL = re.compile(r"(?i:\bif I\b|\bwould\b)")
"""A clause said as if ("I would live in Paris", "If I moved to Denver …"): only the clause it
is in (found re-testing: "I'm allergic to penicillin and peanuts, so keep that in mind if I
ever ask about recipes." lost both allergies; "If I'm honest, I work at Google." its job)."""
_SUPPOSED = re.compile(r"(?i)\b(?:I wish|what if|pretend|imagine|suppose|let's say)\b")
"""What is wished or supposed, not so: "I wish I left Stripe years ago" retired the workplace.
Only the clause it opens: "My name is Dana, and I wish I could sleep more" names Dana."""
_SUPPOSED_START = re.compile(
    r"(?i)^\W*(?:(?:let's|let us|now|ok|okay|so),?\s+)?(?:pretend|imagine|suppose|what if|I wish)\b"
)
_CLAUSE_BREAK = re.compile(r"[,;:.!?，。；：！？、—–]|(?<=\w)-(?=\s)|\s-\s|\b(?:but|and|so)\b")
"""Where a clause ends: a sign, a dash ("they're good- we got another cat"), but / and / so."""


def supposed(sentence: str) -> bool:
    """True when the whole sentence is wished or supposed ("Pretend I work at Google.", "Let's
    pretend I'm a beginner."): nothing in it is the user's fact (found re-testing: core)."""
    return bool(_SUPPOSED_START.search(sentence))


def _supposed_before(sentence: str, end: int) -> bool:
    """True when the clause a match at `end` is in opens with a wish or a supposition."""
    wishes = _found_ends(_SUPPOSED, sentence)
    return bisect_right(wishes, end) > bisect_right(wishes, _clause_start(sentence, end))


def _hypothetical_before(sentence: str, end: int) -> bool:
    """True when the clause a match at `end` is in says "if I" or "would" before it."""
    found = _found_ends(_HYPOTHETICAL, sentence)
    return bisect_right(found, end) > bisect_right(found, _clause_start(sentence, end))


def _clause_start(sentence: str, end: int) -> int:
    """Where the clause holding `end` starts: after the last clause break before it."""
    ends = _found_ends(_CLAUSE_BREAK, sentence)
    before = bisect_right(ends, end)
    return ends[before - 1] if before else 0


def someone_elses_view(sentence: str) -> bool:
    """True when the sentence gives someone else's words or belief about the user ("She thinks
    I live in Paris", 她以为我住在巴黎): not a fact the user states ("I think I live in …" is)."""
    return bool(_SOMEONE_ELSES.search(sentence))


_NOT_A_NAME = re.compile(
    r"エンジニア|開発者|デザイナー|学生|教師|医者|会社員|研究者|マネージャー|弁護士|投資家"
    r"|アレルギー|担当|出身|好き|嫌い|苦手|初心者|社員"
)
_A_ROLE = re.compile(r"^(?:一名|一个|一位|个)|" + ROLE_ZH.replace("(?P<v>", "(?:"))
_WHEN = re.compile(r"^(?:先月|今月|去年|今年|最近|先週|昨日|今日|現在|今は?|上个月|去年|最近|刚刚)")


SEVERAL = (
    "person:son",
    "person:daughter",
    "person:child",
    "person:brother",
    "person:sister",
    "person:grandmother",
    "person:grandfather",
    "person:aunt",
    "person:uncle",
    "person:cousin",
    "person:niece",
    "person:nephew",
    "person:grandson",
    "person:granddaughter",
    "person:stepson",
    "person:stepdaughter",
    "person:best friend",
    "pet:",
)
"""Relations a user may have several of: a second son's name is another son, not a new name
for the first (found trying the product: "I have a son named Max." replaced Leo; 我弟弟叫…
replaced 我哥哥叫…), unless it is said as a correction."""
LEFT = "left:workplace"
"""An employer the user says they left ("I left Stripe.", 我从百度离职了, トヨタを辞めました): it
retires the workplace slot holding that value, and sets none."""
GONE = "gone:"
"""A pet or a person the user has no longer (died, divorced): what replaces the slot naming
them (found re-testing: "My dog Rex died last week." left "I have a dog named Rex." live)."""
MULTI_VALUED = ("allergy", "avoids")
"""Attributes a person has several values of: each value is a fact of its own."""
OTHERS_ATTRIBUTES = frozenset(["home", "workplace", "role", "allergy", "diet", "avoids"])
"""What the fast channel records of a related or named person."""


def find_slots(sentence: str) -> list[Slot]:
    """The slots a statement sets, in order, each with its subject: the user's, or a named or
    related person's (`person:<who>:<attribute>`); none for negated or reported ones, or for
    he / she / we."""
    if someone_elses_view(sentence):
        return []
    kana = bool(_KANA.search(sentence))
    cjk = kana or bool(_CJK.search(sentence))
    found: dict[str, tuple[int, Slot]] = {}
    for slot_pattern in SLOT_PATTERNS:
        if slot_pattern.language != "en" and not cjk:
            continue  # no Chinese or Japanese pattern reads a sentence without a CJK character
        if slot_pattern.language == "zh" and kana:
            continue  # 住在 / 在…工作 read in a Japanese sentence are not Chinese
        for match in slot_pattern.pattern.finditer(sentence):
            if _NEGATED.search(sentence[max(0, match.start() - 24) : match.start()]):
                continue
            if asked(sentence, match.start(), cjk) or _supposed_before(sentence, match.start()):
                continue
            if _hypothetical_before(sentence, match.end()):
                continue  # its own "If I" may be the match's "I": read to the match's end
            for slot in _each_named(_slot(slot_pattern, match, sentence), match):
                key = f"{slot.predicate}|{slot.key}" if slot.one_of_several else slot.predicate
                if key not in found:
                    found[key] = (match.start(), slot)
    language = "ja" if kana else "zh" if _CJK.search(sentence) else "en"
    for attribute in find_attributes(sentence, cjk):
        key = f"{attribute.subject}|{attribute.attribute}"
        if (
            not _NEGATED.search(sentence[max(0, attribute.start - 24) : attribute.start])
            and not asked(sentence, attribute.start, cjk)
            and not _supposed_before(sentence, attribute.start)
            and key not in found
        ):
            slot = Slot(attribute.subject, attribute.attribute, attribute.value, language)
            found[key] = (attribute.start, slot)
    if "workplace" in found:  # "I left Siemens and joined BMW": the new one replaces it
        found.pop(LEFT, None)
    gone = {slot.key for _, slot in found.values() if slot.predicate.startswith(GONE)}
    return [
        slot
        for _, slot in sorted(found.values(), key=lambda item: item[0])
        if slot.predicate.startswith(GONE) or slot.key not in gone  # "My dog, Rex, died."
    ]


_CLAUSE_END = re.compile(r"[。．！？!?，,、；;\n]")
_CLAUSE_END_CJK = re.compile(r"[。．！？!?，,、；;\s]")
"""Chinese and Japanese put no space inside a clause: 我住在北京 你呢？ states, then asks."""


def asks_there(sentence: str, start: int, clause_end: re.Pattern[str] = _CLAUSE_END_CJK) -> bool:
    """True when the clause from `start` (to `clause_end`) ends on a question: 東京に住んでいま
    すか。, 住在北京吗？ ask (of the listener, the subject unsaid), they state nothing of the
    user (retest17 R1)."""
    ends = _found_ends(clause_end, sentence)
    after = bisect_right(ends, start)  # the first clause end past `start`
    return ends_asking(sentence[start : ends[after] if after < len(ends) else len(sentence)])


@lru_cache(maxsize=8)
def _found_ends(pattern: re.Pattern[str], sentence: str) -> list[int]:
    """Where each match of `pattern` in a sentence ends: found once, not at every match (a
    sentence of 32,000 characters with no clause end scanned to its end each time)."""
    return [match.end() for match in pattern.finditer(sentence)]


_AUXILIARY_BEFORE = re.compile(
    r"(?i)\b(?:do|does|did|am|are|is|was|were|have|has|had|can|could|will|would|should|may|"
    r"might)\s+(?:I\s+|my\s+\w+\s+)?$"
)


def asked(sentence: str, start: int, cjk: bool) -> bool:
    """True when what a match at `start` says is asked, not stated: a Chinese or Japanese
    clause ending on a question (`asks_there`), or an English one whose verb comes first ("Do I
    live in Munich?"; "I live in Berlin, do you?" states)."""
    if cjk:
        return asks_there(sentence, start)
    return bool(_AUXILIARY_BEFORE.search(sentence[max(0, start - 24) : start])) and asks_there(
        sentence, start, _CLAUSE_END
    )


_ASKED_VALUE = re.compile(r"哪|什么|什麼|谁|誰|どこ|なに|何$|だれ")
"""A value that is a question word: 我住在哪里 sets no home."""
_CORRECTED_JA = re.compile(r"^(?:なくて|なく|やっぱり|やっぱ|やはり|実は|結局|ずっと)、?")
"""What is left of ではなく before the value a Japanese correction gives, or the adverb before
it (やっぱり大阪に住んでいるのが一番です read "やっぱり大阪")."""
_KANA = re.compile(r"[\u3040-\u30ff]")
_CJK = re.compile(r"[\u4e00-\u9fff]")


def _subject(slot_pattern: SlotPattern, match: re.Match[str], sentence: str) -> subjects.Subject:
    who = match.groupdict().get("who")
    if who:
        return subjects.named(who)
    if match.groupdict().get("me") is not None or match.groupdict().get("beside") is not None:
        return subjects.USER  # "I live in Boston with my wife and work at Acme", "So my son Leo"
    if "{rel}" in slot_pattern.predicate:  # my wife is called Mary: the user's relation
        start = _clause_start(sentence, match.start())  # "My daughter is Maya and my son …"
        return subjects.subject_before(sentence, match.start(), start)
    return subjects.subject_before(sentence, match.start("v"))


def _slot(slot_pattern: SlotPattern, match: re.Match[str], sentence: str) -> Slot | None:
    value = match.group("v").strip(" ,.;:!?，。、")
    if slot_pattern.language == "en" and predicate_of(slot_pattern) == "role":
        value = re.sub(r"(?i)^an? ", "", value)
    if slot_pattern.language == "zh":
        value = value.removesuffix("了").removesuffix("啦")
    if slot_pattern.language == "ja":
        value = _CORRECTED_JA.sub("", value)  # 東京ではなく大阪に住んでいます read "なく大阪"
        if sentence[: match.start("v")].endswith("やは"):
            value = value.removeprefix("り")  # やはり大阪に住んでいます read "り大阪"
    value = _WHEN.sub("", value) or value
    predicate = slot_pattern.predicate
    if not value or (predicate.startswith(NAMED) and value.casefold() in NOT_NAMES):
        return None
    if predicate.startswith((*NAMED, "home")) and (value[0] in "/\\~." or "/" in value):
        return None  # "I live in /var/lib/app0, retrying": a log line's path, no place or name
    if predicate == LEFT and _LEFT_LONG_AGO.search(sentence):
        return None  # "Back in 2015 I got laid off from Google, but they rehired me"
    if _ASKED_VALUE.match(value):
        return None  # 我住在哪里 typed without its question mark asks
    if predicate == "name" and value.islower() and value.isascii():
        value = value.title()  # typed in lowercase: "my name is carlos"
    if predicate == "name" and _NOT_A_NAME.search(value):
        return None  # 私はデザイナーです, 私は猫アレルギーです: a role or a condition
    if predicate == "person:{rel}" and _A_ROLE.search(value):
        return None  # 我姐姐是一名医生: her job, not her name
    subject = _subject(slot_pattern, match, sentence)
    if not subject.known or subject.bare:
        return None
    rel = match.groupdict().get("rel")
    if "{rel}" in predicate:
        if not subject.is_user:
            return None
        table = PETS if predicate.startswith(("pet", "gone:pet")) else RELATIONS
        detail = table.get(rel.lower(), rel) if rel else "self"
        predicate = predicate.replace("{rel}", detail)
    if predicate == "tool":
        predicate = f"tool:{tool_kind(value)}"
    if predicate in MULTI_VALUED:
        predicate = f"{predicate}:{value_key(value)}"
    label = rel if rel and slot_pattern.language != "en" else ""
    if subject.is_user:
        beside = match.groupdict().get("beside") is not None
        return Slot(USER, predicate, value, slot_pattern.language, label, beside=beside)
    if predicate.split(":")[0] not in OTHERS_ATTRIBUTES:
        return None
    who = subject.written or subject.key
    return Slot(subject.key, f"person:{subject.key}:{predicate}", value, slot_pattern.language,
                who=who)  # fmt: skip


_LEFT_LONG_AGO = re.compile(
    r"(?i)\b(?:dream\w*|nightmare|rehired|re-hired|hired me (?:back|again)|(?:went|came) back"
    r"|said|says|told|thinks?|thought|joked?)\b"
)
"""A job left and taken again, dreamt of or in someone's words retires no workplace held now
(found re-testing: "I got laid off from Google in 2009, and they hired me back in 2012")."""
_LISTED = re.compile(r",\s*(?:and\s+)?|\s+and\s+|[、，和跟与]")


_AGE_SAID = re.compile(r" \(\d{1,2}\)$")


def _each_named(slot: Slot | None, match: re.Match[str]) -> list[Slot]:
    """The slot, or where the pattern reads a list of names ("I have two sons, Leo and Max",
    我有两个儿子，小明和小亮) a slot for each name."""
    if slot is None:
        return []
    if match.groupdict().get("several") is None:
        return [slot]
    names = [_AGE_SAID.sub("", name).strip() for name in _LISTED.split(slot.value)]
    return [
        replace(slot, value=name) for name in names if name and name.casefold() not in NOT_NAMES
    ]


def predicate_of(slot_pattern: SlotPattern) -> str:
    """The kind of attribute a pattern sets (name, home, person, …)."""
    return slot_pattern.predicate.split(":")[0]


def tool_kind(name: str) -> str:
    """editor, shell, browser, os or database: what kind of tool a known name is."""
    folded = name.casefold()
    for kind, names in TOOLS.items():
        if any(folded == n.casefold() for n in names):
            return kind
    return "other"


def described(memory: Memory) -> str:
    """A memory as an LLM is shown it: its content, and its subject and attribute when known."""
    predicate = memory.metadata.get("predicate")
    if predicate:
        subject = memory.metadata.get("subject")
        return f"{memory.content} (subject: {subject}, attribute: {predicate})"
    return memory.content
