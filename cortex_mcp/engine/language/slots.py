"""Subject / predicate / value: what a statement says about a stable attribute (seed 002).

The fast channel reads these slots from everyday statements in English, Chinese and Japanese:
the user's name, where they live and work, their role, the language they want answers in, the
tools they use, family members and pets by name, birthdays. A new value for the same subject and
predicate replaces the old memory (update instead of append); the same value is a duplicate.
Patterns are data; a match preceded by a negation ("I no longer live in …") asserts nothing.
(Over 400 lines because it is that data: one pattern table per slot and language.)
"""

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from cortex_mcp.engine.language import subjects
from cortex_mcp.engine.language.attributes import find_attributes
from cortex_mcp.models import Category, Memory

USER = "user"

RELATIONS = {
    "wife": "wife", "husband": "husband", "partner": "partner", "daughter": "daughter",
    "son": "son", "mother": "mother", "mom": "mother", "mum": "mother", "father": "father",
    "dad": "father", "brother": "brother", "sister": "sister", "girlfriend": "girlfriend",
    "boyfriend": "boyfriend", "boss": "manager", "manager": "manager",
    "女儿": "daughter", "儿子": "son", "老婆": "wife", "妻子": "wife", "太太": "wife",
    "丈夫": "husband", "老公": "husband", "妈妈": "mother", "母亲": "mother", "爸爸": "father",
    "父亲": "father", "哥哥": "brother", "弟弟": "brother", "姐姐": "sister", "妹妹": "sister",
    "男朋友": "boyfriend", "女朋友": "girlfriend", "老板": "manager", "领导": "manager",
    "娘": "daughter", "息子": "son", "妻": "wife", "夫": "husband", "母": "mother",
    "父": "father", "兄": "brother", "弟": "brother", "姉": "sister", "妹": "sister",
    "上司": "manager",
}  # fmt: skip
PETS = {
    "cat": "cat", "kitten": "cat", "dog": "dog", "puppy": "dog", "rabbit": "rabbit",
    "bunny": "rabbit", "parrot": "parrot", "hamster": "hamster", "turtle": "turtle",
    "猫": "cat", "猫咪": "cat", "小猫": "cat", "狗": "dog", "狗狗": "dog", "小狗": "dog",
    "兔子": "rabbit", "鹦鹉": "parrot", "仓鼠": "hamster", "乌龟": "turtle",
    "ネコ": "cat", "犬": "dog", "イヌ": "dog", "うさぎ": "rabbit", "柴犬": "dog",
    "corgi": "dog", "labrador": "dog", "poodle": "dog", "beagle": "dog", "husky": "dog",
    "retriever": "dog", "terrier": "dog", "bulldog": "dog", "dachshund": "dog", "shiba": "dog",
    "collie": "dog", "tabby": "cat", "goldfish": "fish", "fish": "fish",
    "guinea pig": "guinea pig", "柯基": "dog", "金毛": "dog", "泰迪": "dog", "金鱼": "fish",
    "トイプードル": "dog",
}  # fmt: skip
TOOLS = {
    "editor": (
        "Vim", "Neovim", "Emacs", "VS Code", "VSCode", "Visual Studio Code", "Helix",
        "Sublime Text", "Sublime", "IntelliJ", "PyCharm", "WebStorm", "Cursor", "Zed", "Nano",
        "Xcode", "Atom",
    ),
    "shell": ("bash", "zsh", "fish", "PowerShell", "nushell"),
    "browser": ("Chrome", "Firefox", "Safari", "Edge", "Arc", "Brave"),
    "os": ("macOS", "Linux", "Windows", "Ubuntu", "Arch Linux", "Fedora", "Debian"),
    "database": ("PostgreSQL", "Postgres", "MySQL", "MongoDB", "SQLite", "MariaDB"),
}  # fmt: skip
LANGUAGES = {
    "chinese": "Chinese", "mandarin": "Chinese", "english": "English", "japanese": "Japanese",
    "korean": "Korean", "french": "French", "german": "German", "spanish": "Spanish",
    "traditional chinese": "Chinese", "simplified chinese": "Chinese",
    "中文": "Chinese", "汉语": "Chinese", "简体中文": "Chinese", "繁体中文": "Chinese",
    "英文": "English", "英语": "English", "日语": "Japanese", "日文": "Japanese",
    "韩语": "Korean", "法语": "French", "德语": "German",
    "日本語": "Japanese", "英語": "English", "中国語": "Chinese", "韓国語": "Korean",
}  # fmt: skip
NOT_NAMES = frozenset(
    [
        "chinese", "english", "japanese", "american", "british", "german", "french", "korean",
        "indian", "canadian", "back", "here", "fine", "ok", "okay", "good", "sorry", "sure",
        "ready", "done", "new", "tired", "busy", "happy", "glad", "sick", "excited", "thrilled",
        "curious", "stuck", "lost", "confused", "afraid", "grateful", "thankful", "proud",
        "exhausted", "bored", "late", "early", "home", "great", "well", "alright", "cool",
        "interested", "impressed", "just", "so", "still", "really", "very", "also", "not", "in",
        "out", "off", "all", "good", "pleased", "honored", "honoured", "sad", "upset", "worried",
        "nervous", "hungry", "free", "available", "away", "online", "offline", "retired", "single",
        "married", "pregnant", "vegan", "vegetarian", "allergic", "english", "european", "asian",
        "元気", "大丈夫", "学生", "日本人", "中国人", "社会人", "初心者", "家",
    ]
)  # fmt: skip
NAMED = ("name", "person", "pet", "workplace")

CATEGORIES = {
    "name": Category.IDENTITY,
    "home": Category.IDENTITY,
    "workplace": Category.IDENTITY,
    "role": Category.IDENTITY,
    "answer_language": Category.PREFERENCE,
    "tool": Category.PREFERENCE,
    "person": Category.RELATIONSHIP,
    "pet": Category.RELATIONSHIP,
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


@dataclass(frozen=True)
class Slot:
    """One attribute a statement sets: `predicate` of `subject` is `value` (as written)."""

    subject: str
    predicate: str
    value: str
    language: str
    label: str = ""
    who: str = ""

    @property
    def category(self) -> Category:
        """Where a memory of this slot belongs (another person's fact: with the people)."""
        return CATEGORIES[self.predicate.split(":")[0]]

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

    def statement(self) -> str:
        """The slot as a sentence of its own, in its language (for a sentence of several)."""
        kind, _, detail = self.predicate.partition(":")
        article = "an" if self.value[:1].lower() in "aeiou" else "a"
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


def _alternatives(words: Iterable[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


_REL_EN = _alternatives(tuple(k for k in RELATIONS if k.isascii()))
_JA_RELATIONS = ("娘", "息子", "妻", "夫", "母", "父", "兄", "弟", "姉", "妹", "上司")
_REL_ZH = _alternatives(k for k in RELATIONS if not k.isascii() and k not in _JA_RELATIONS)
_REL_JA = _alternatives(_JA_RELATIONS)
_PET_EN = _alternatives(tuple(k for k in PETS if k.isascii()))
_PET_ZH = "猫咪|小猫|狗狗|小狗|兔子|鹦鹉|仓鼠|乌龟|柯基|金毛|泰迪|柴犬|金鱼|猫|狗"
_PET_JA = "トイプードル|柴犬|ネコ|イヌ|うさぎ|猫|犬"
_WHO_EN = (
    rf"(?P<who>\b(?i:my) (?:(?i:{subjects.EN_RELATIONS})(?:,? [A-Z][a-z]+)?"
    rf"|(?i:{subjects.EN_GROUPS}),? [A-Z][a-z]+))"
)
"""Someone of the user's, related or named (my mom, my colleague Tom), as the subject of an
English clause. A bare name is not read: "Alice moved to Austin" and "Alice moved to Denver" may
be two facts of a story, not a change (bench/distinct_facts.py)."""
_WHO_ZH = (
    rf"(?P<who>(?:我的?)?(?:{subjects.ZH_RELATIONS})|(?:我的?)?(?:{subjects.ZH_GROUPS})"
    rf"(?:{subjects.ZH_NAME}))"
)
_TOOL = _alternatives(tuple(t for names in TOOLS.values() for t in names))
_LANG = _alternatives(tuple(LANGUAGES))

_NAME = r"(?P<v>[A-Z][\w'-]+(?: [A-Z][\w'-]+){0,2})"
_LOWERCASE_NAME = (
    r"(?!(?:not|a|an|the|also|still|just|very|so|too|actually|really|secret|private|long|hard|"
    r"weird|funny|unusual|common|complicated|important|irrelevant|unimportant|wrong|right|"
    r"correct|misspelled|spelled|missing|blank|empty|taken|short|unique|known|listed|there|"
    r"here)\b)"
    r"(?P<v>[a-z][a-z'-]+(?: [a-z][a-z'-]+)?)(?=\s*[.!]?\s*$)"
)
"""A name typed in lowercase ("my name is carlos"), read only where it ends the sentence."""
_PLACE = r"(?P<v>[A-Z][\w'-]+(?:,? [A-Z][\w'-]+){0,3})"
_NOT_A_PLACE = (
    r"(?!(?:Go|Rust|Python|Java|Kotlin|Swift|TypeScript|JavaScript|Ruby|Scala|Elixir|Haskell|"
    r"PHP|Perl|Dart|Julia|Zig|Node|React|Vue|Angular|Svelte|Django|Rails|Flask|Spring|AWS|GCP|"
    r"Azure|Kubernetes|Docker|Postgres|PostgreSQL|MySQL|Linux|Windows|Mac)\b)"
)
"""What one moves from and to that is no home: "I moved from Java to Go last year"."""
_ORG = r"(?P<v>[A-Z0-9][\w&.'-]*(?: (?:[A-Z0-9][\w&.'-]*|of|and|&))*)"
_CJK_VALUE = r"(?P<v>[^\s，。,.!！？?；;、：:「」]{1,16}?)"
_CJK_END = r"(?=[\s，。,.!！？?；;、]|了|啦|呢|$)"
_ZH_WHEN = (
    r"(?:上个?月|上周|上星期|上礼拜|去年|前年|今年|年初|最近|近来|前几天|前些天|前阵子|前段时间|"
    r"昨天|前天|刚刚|刚才|这个月|本月|这周|今天)?"
)
"""When a change happened, said between 我 and the verb: 我上个月搬到杭州了 (never a time to
come: 我下个月搬到杭州 is a plan)."""
_ZH_GENERIC_PLACE = (
    r"(?!(?:家|家里|公司|这里|那里|这边|那边|单位|外面|网上|线上|学校)(?:做|当|担任))"
)
"""Where one does a job that names no employer: 我在家做开发."""
_CJK_NAME = r"(?P<v>[\u4e00-\u9fff]{2,4}?|[A-Za-z][A-Za-z ]{0,30}?)(?=[\s，。,.!！？?；;、]|$)"
_JA_VALUE = r"(?P<v>[^\s、。,.!！？?はがをにで「」]{1,16})"
_ROLE_EN = (
    r"(?P<v>(?:an? )?(?:[a-z-]+ ){0,3}(?:developer|engineer|designer|manager|scientist|analyst|"
    r"teacher|student|researcher|doctor|nurse|lawyer|consultant|architect|writer|founder|"
    r"investor|accountant|programmer|administrator|product owner|chef|pharmacist|professor|"
    r"journalist|dentist|electrician|paramedic|therapist|librarian))\b"
)
_NEW_JOB_EN = (
    r"\bI(?:'ve| have)? (?:just |recently )?(?:started|began|begun|got|landed|accepted|took) "
    r"(?:a |an |my |the )?(?:new )?(?:job|position|role)"
)
"""A new job the user speaks of ("I just started a new job as a financial analyst at Globex"):
where and as what they work now."""
_HIRED_EN = r"\bI(?:'ve| have)? (?:just |recently )?(?:was |been |got )?hired (?:at|by)"
"""The user hired somewhere ("I got hired at Hooli", "I was hired by Acme Corp as ...")."""
_LEFT_EN = r"(?:(?:just |recently )?(?:left|quit) [^,.;]{1,40}? and )?"
"""The employer left before the new one is named: "I left Siemens and joined BMW"."""
_STARTED_AT_EN = (
    rf"\bI(?:'ve| have)? {_LEFT_EN}(?:just |recently |officially )?(?:(?:started|began)"
    r"(?: work)? at|(?:started|began) working (?:at|for|with))"
)
_JOB_CHANGE_EN = (
    rf"\bI(?:'ve| have)? {_LEFT_EN}(?:just |recently |officially )?(?:started(?: working)? at|"
    r"began(?: working)? at|joined)"
)
"""A job change whose clause a role may close: "started at BMW on Monday, now a staff
engineer"."""
"""A new employer the user started at ("I left Siemens and started at BMW on Monday"); the
employer is a name (`_EMPLOYER`): "I started at the beginning", "started at 9am" are none."""
_EMPLOYER = (
    r"(?!(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|January|February|March|"
    r"April|May|June|July|August|September|October|November|December|The|A|An|This|That|"
    r"First|Last|Level|Step|Page|Chapter|Square|Zero|Noon|Midnight|Home|Work|School)\b)"
    r"(?P<v>[A-Z][\w&.'-]*(?: (?:[A-Z0-9][\w&.'-]*|of|and|&))*)"
)
_ROLE_ZH = (
    r"(?P<v>[^\s，。,.；;]{0,8}?(?:工程师|开发者|开发|程序员|设计师|经理|学生|老师|医生|律师|"
    r"投资者|研究员|分析师|创业者|产品经理|架构师|运维|护士|会计|厨师|司机|记者|作家|教授|"
    r"销售|警察|公务员|主管|总监|翻译|药剂师|运营))"
)
_ROLE_JA = (
    r"(?P<v>[^\s、。はが]{0,8}?(?:エンジニア|開発者|デザイナー|学生|教師|医者|会社員|研究者|"
    r"マネージャー|弁護士|投資家|看護師|医師|薬剤師|公務員|プログラマー|教員|保育士|会計士|"
    r"営業|シェフ))"
)
_DATE_EN = (
    r"(?P<v>(?:January|February|March|April|May|June|July|August|September|October|November|"
    r"December) \d{1,2}(?:st|nd|rd|th)?|\d{1,2}(?:st|nd|rd|th)? (?:of )?(?:January|February|"
    r"March|April|May|June|July|August|September|October|November|December)|\d{4}-\d{2}-\d{2})"
)


@dataclass(frozen=True)
class SlotPattern:
    """A pattern that sets `predicate` (with `{rel}` / `{tool}` filled from the match)."""

    language: str
    predicate: str
    pattern: re.Pattern[str]


def _p(language: str, predicate: str, *patterns: str) -> list[SlotPattern]:
    return [SlotPattern(language, predicate, re.compile(p)) for p in patterns]


SLOT_PATTERNS: list[SlotPattern] = [
    *_p(
        "en",
        "name",
        rf"(?i:\bmy name is|\bcall me|\bmy name's)\s+{_NAME}",
        rf"(?:^|[,.!:;—]\s*|\b(?i:hi|hello|hey)[,!]?\s+)(?i:I'm|I am)\s+{_NAME}\s*(?:[.!,]|$)",
        rf"(?i:\bI (?:now |usually |mostly |just |mainly )?go by)\s+{_NAME}",
        rf"(?i:\bmy name is|\bmy name's)\s+{_LOWERCASE_NAME}",
    ),
    *_p(
        "en",
        "home",
        rf"(?i:\bI (?:now |currently |still )?live in|\bI(?:'m| am) (?:now |currently )?"
        rf"(?:based|living) in|\bI (?:just |recently )?(?:moved|relocated) "
        rf"(?:from [^,.;]{{1,40}}? )?to)\s+{_NOT_A_PLACE}{_PLACE}",
        rf"(?i:\bI(?:'m| am)\b[^.;]{{0,60}}?\bbased in)\s+{_PLACE}",
    ),
    *_p(
        "en",
        "home",
        rf"{_WHO_EN} (?i:now |currently |still |also )?(?i:lives|is living|is based|has (?:just )?"
        rf"moved|moved|relocated) (?i:in|to)\s+{_PLACE}",
    ),
    *_p(
        "en",
        "workplace",
        rf"(?i:\bI (?:now |currently )?work (?:at|for)|\bI(?:'ve| have)? {_LEFT_EN}"
        rf"(?:just |recently )?joined)\s+{_ORG}",
        rf"(?i:{_STARTED_AT_EN})\s+{_EMPLOYER}",
        rf"(?i:\bI (?:now |currently )?work as (?:an? )?[a-z -]{{1,40}}? (?:at|for))\s+{_ORG}",
        rf"(?i:{_NEW_JOB_EN}(?: as (?:an? )?[a-z -]{{1,40}}?)? (?:at|with|for)|{_HIRED_EN})"
        rf"\s+{_ORG}",
        rf"{_WHO_EN} (?i:now |currently |still )?(?i:works (?:at|for)|joined)\s+{_ORG}",
    ),
    *_p(
        "en",
        "role",
        rf"(?i:\bI work as|\bmy (?:job|role|position|title) is|"
        rf"\bI(?:'m| am) (?:now |currently |still )?(?=an? ))"
        rf"\s*(?i:{_ROLE_EN})",
        rf"(?i:\bI (?:now |currently )?work (?:at|for) [^,.;]{{1,40}}? as|{_JOB_CHANGE_EN} "
        rf"[^,.;]{{1,40}}? as)\s+(?i:{_ROLE_EN})",
        rf"(?i:{_JOB_CHANGE_EN} [^.;]{{1,60}}?[,;—-]\s*(?:and )?(?:now|currently)"
        rf"(?: working)?(?: as)? (?=an? ))(?i:{_ROLE_EN})",
        rf"(?i:(?:{_NEW_JOB_EN}(?: (?:at|with|for) [^,.;]{{1,40}}?)?|{_HIRED_EN} [^,.;]{{1,40}}?)"
        rf" as)\s+(?i:{_ROLE_EN})",
        rf"{_WHO_EN} (?i:now |currently |still )?(?i:works as|is (?=an? ))\s*(?i:{_ROLE_EN})",
    ),
    *_p(
        "en",
        "answer_language",
        # asked of the assistant: "answer (me) in", "talk to me in", "please write in"; never
        # what the user does ("I sometimes write in German", "even when I write in Japanese")
        rf"(?i:\b(?:answer|reply|respond)(?: to)?(?: me)?(?: only| always)? in|"
        rf"\b(?:talk|write|speak)(?: to)? me(?: only| always)? in|"
        rf"\b(?:want|prefer|like) (?:all |your |the )?(?:answers|replies|responses) in|"
        rf"(?:^|[,.;!:]\s*|\bplease\s+)(?:always\s+)?(?:(?:talk|write|speak)(?: only)? in|use))"
        rf"\s+(?P<v>(?i:{_LANG}))\b",
    ),
    *_p(
        "en",
        "tool",
        rf"(?i:\bI(?:'ve| have)? (?:just |recently )?switched (?:from [\w .-]+? )?to|"
        rf"\bI (?:now |mostly |mainly )?use|\bmy (?:editor|IDE|shell|browser) is)\s+"
        rf"(?P<v>(?i:{_TOOL}))\b",
    ),
    *_p(
        "en",
        "person:{rel}",
        rf"(?i:\bmy (?P<rel>{_REL_EN})(?:'s name)? is (?:called |named )?){_NAME}",
        rf"(?i:\bmy (?P<rel>{_REL_EN}),? ){_NAME}(?=,| is\b| was\b)",
        rf"(?i:\b(?:I|we) have an? (?:\w+ )?(?P<rel>{_REL_EN}),? (?:called |named )?){_NAME}"
        rf"(?=[,.!?]|$| (?i:and|who)\b)",
    ),
    *_p(
        "en",
        "person:spouse",
        rf"(?i:\bI(?:'m| am| got) (?:happily |now |recently |just )?married to ){_NAME}",
    ),
    *_p(
        "en",
        "pet:{rel}",
        rf"(?i:\bmy (?P<rel>{_PET_EN})(?:'s name)? is (?:called |named )?){_NAME}",
        rf"(?i:\bI have an? (?P<rel>{_PET_EN}) (?:called|named) ){_NAME}",
        rf"(?i:\b(?:I|we) (?:have|got|adopted) an? (?:\w+ )?(?P<rel>{_PET_EN}),? (?:called|named) )"
        rf"{_NAME}",
        rf"(?i:\bmy (?P<rel>{_PET_EN}),? ){_NAME}"
        rf"(?=[,.!?]|$| (?i:is|was|and|loves|likes|has|just|who)\b)",
    ),
    *_p(
        "en",
        "allergy",
        r"(?i:\bI(?:'m| am) (?:severely |very |also |seriously )?allergic to (?:the )?)"
        r"(?P<v>[a-z][a-z -]{1,30}?)(?=[,.;!]| and\b| so\b| but\b|$)",
        r"(?i:\bI have an? )(?P<v>[a-z]+(?: [a-z]+)?)(?= allergy\b)",
    ),
    *_p(
        "en",
        "diet",
        r"(?i:\bI(?:'m| am) (?:a |now |strictly |also )?)(?P<v>(?i:vegetarian|vegan|pescatarian|"
        r"gluten-free|lactose intolerant|keto|halal|kosher))\b",
    ),
    *_p(
        "en",
        "avoids",
        r"(?i:\bI (?:don't|do not|never|can't|cannot) eat )(?!(?:much|a lot|anything|that|this|"
        r"it|now|today|anymore|out|there|here|well|too|enough|after|before|so|late|any)\b)"
        r"(?P<v>[a-z][a-z -]{1,24}?)(?=[,.;!]| or\b| and\b| because\b|$)",
    ),
    *_p(
        "en",
        "units",
        r"(?i:\b(?:please )?(?:always )?use|\bI prefer|\b(?:give|show) me (?:everything |"
        r"measurements |numbers )?in) (?:the )?(?P<v>(?i:metric|imperial))(?= units| system|"
        r" measurements|\b)",
    ),
    *_p(
        "en",
        "format:temperature",
        r"(?i:\b(?:please )?(?:always )?use|\bI prefer|\btemperatures? in) (?:degrees )?"
        r"(?P<v>(?i:Celsius|Fahrenheit))\b",
    ),
    *_p(
        "en",
        "format:time",
        r"(?i:\b(?:please )?(?:always )?use|\bI prefer|\bin) (?:the )?(?P<v>24-hour|12-hour)"
        r"(?= time| clock| format)",
    ),
    *_p(
        "en",
        "format:date",
        r"(?i:\bdates? (?:as|in|like|format(?: is)?)|\bdate format(?: is)?|\buse) "
        r"(?P<v>YYYY-MM-DD|DD/MM/YYYY|MM/DD/YYYY|ISO(?: |-)?8601|ISO dates)",
    ),
    *_p(
        "en",
        "answer_style",
        r"(?i:\b(?:answer|reply|respond|write|talk|speak)(?: to me)?(?: only)? (?:in|using|with)"
        r"|\b(?:please )?(?:always )?use) (?P<v>(?i:keigo|formal Japanese|polite Japanese|"
        r"casual Japanese|Traditional Chinese|Simplified Chinese|formal English|casual English|"
        r"a formal tone|a casual tone|British English|American English))\b",
    ),
    *_p(
        "en",
        "birthday:{rel}",
        rf"\b(?i:my) (?:(?P<rel>(?i:{_REL_EN}))(?:,? [A-Z][a-z]+)?'s )?(?i:birthday is (?:on )?)"
        rf"{_DATE_EN}",
    ),
    *_p("zh", "name", rf"(?:我叫|我的名字(?:是|叫)|本人(?:叫)?){_CJK_NAME}"),
    *_p(
        "zh",
        "home",
        rf"(?:{_WHO_ZH}|我|^|[，,；;]){_ZH_WHEN}(?:现在|目前|已经|刚|也|还)?(?:住在|生活在|定居在|"
        rf"搬到了?|"
        rf"搬家到了?|搬去了?)"
        rf"{_CJK_VALUE}{_CJK_END}",
    ),
    *_p(
        "zh",
        "workplace",
        rf"(?:{_WHO_ZH}|我|^|[，,；;])(?:现在|目前|也|还)?在{_CJK_VALUE}(?:工作|上班)",
        rf"(?:{_WHO_ZH}|我|^|[，,；;]){_ZH_WHEN}(?:已经|刚)?(?:跳槽|转职|换工作)(?:到|去)了?"
        rf"{_CJK_VALUE}"
        rf"{_CJK_END}",
        rf"(?:我|^|[，,；;])(?:现在|目前)?(?:就职于|任职于){_CJK_VALUE}{_CJK_END}",
        rf"(?:我|^|[，,；;])(?:现在|目前|也|还)?在{_ZH_GENERIC_PLACE}{_CJK_VALUE}"
        rf"(?=(?:做|当|担任)(?:一名|一个)?{_ROLE_ZH.replace('(?P<v>', '(?:')})",
    ),
    *_p(
        "zh",
        "role",
        rf"(?:{_WHO_ZH}|我|[，,；;])(?:现在|目前|也|还)?是(?:一名|一个|一位|个)?{_ROLE_ZH}",
        rf"(?:{_WHO_ZH}|我|^|[，,；;]){_ZH_WHEN}(?:已经|刚)?转行(?:做|当|成为)了?(?:一名|一个)?"
        rf"{_ROLE_ZH}",
        rf"(?:我|^|[，,；;])(?:现在|目前|也|还)?在{_ZH_GENERIC_PLACE}[^\s，。,.；;]{{1,16}}?"
        rf"(?:做|当|担任)(?:一名|一个)?{_ROLE_ZH}",
        # 做 is a job ("我做后端开发"), 做了/做过 something done ("我做了一个蛋糕")
        rf"(?:我|^|[，,；;])(?:现在|目前)?(?:做|从事)(?![了过着])(?!什么){_CJK_VALUE}(?:工作)?{_CJK_END}",
        rf"我的(?:工作|职业)是{_CJK_VALUE}{_CJK_END}",
    ),
    *_p(
        "zh",
        "answer_language",
        rf"(?:请|麻烦)?(?:你)?(?:用|使用)(?P<v>{_LANG})(?:来)?(?:回答|回复|交流|跟我说|和我说|对话|回应)",
        rf"(?:回答|回复|交流)(?:请|都|时)?(?:用|使用)(?P<v>{_LANG})",
        rf"(?:以后|今后|之后)(?:请)?(?:都)?(?:用|使用)(?P<v>{_LANG})",
    ),
    *_p(
        "zh",
        "tool",
        rf"我(?:现在|目前)?(?:用|使用|改用|换成了?|换到了?)(?P<v>(?i:{_TOOL}))",
        rf"从\s*[\w .-]+?\s*(?:换到|换成|转到|改用)了?\s*(?P<v>(?i:{_TOOL}))",
    ),
    *_p(
        "zh",
        "person:{rel}",
        rf"我(?:的)?(?P<rel>{_REL_ZH})(?:的名字)?(?:叫|名叫|是){_CJK_NAME}",
    ),
    *_p(
        "zh",
        "pet:{rel}",
        rf"我(?:的|家)?(?:的)?(?P<rel>{_PET_ZH})(?:的名字)?(?:叫|名叫){_CJK_NAME}",
        rf"我养了(?:一只|一条|只|条)?(?P<rel>{_PET_ZH})[，,]?(?:它)?(?:叫|名叫){_CJK_NAME}",
    ),
    *_p(
        "zh",
        "pet:{rel}",
        rf"我(?:有|养了?)(?:一只|一条|只|条)叫(?P<v>[\u4e00-\u9fffA-Za-z]{{1,6}})的(?P<rel>{_PET_ZH})",
    ),
    *_p("zh", "allergy", rf"(?:{_WHO_ZH}|我)(?:对)(?P<v>[^\s，。,.；;]{{1,10}}?)过敏"),
    *_p("zh", "diet", r"我(?:是|现在是)?(?P<v>素食者|素食主义者|纯素食者|吃素)"),
    *_p("zh", "avoids", r"我(?:不吃|不能吃|吃不了|从不吃)(?P<v>[^\s，。,.；;了吗呢啊]{1,6})"),
    *_p("zh", "units", r"(?:用|使用|采用)(?P<v>公制|英制)(?:单位)?"),
    *_p("zh", "format:temperature", r"(?:用|使用)(?P<v>摄氏度?|华氏度?)"),
    *_p("zh", "format:time", r"(?:用|使用)(?P<v>24小时制|12小时制)"),
    *_p(
        "zh",
        "answer_style",
        r"(?:用|使用)(?P<v>繁体(?:中文|字)?|繁體(?:中文|字)?|简体(?:中文|字)?|敬语|正式的?语气|"
        r"口语化?的?语气)(?:来)?(?:回答|回复|交流|写|跟我说|和我说)",
    ),
    *_p(
        "zh",
        "birthday:{rel}",
        rf"我(?:的)?(?:(?P<rel>{_REL_ZH})的)?生日是(?P<v>\d{{1,2}}月\d{{1,2}}[日号])",
    ),
    *_p(
        "ja",
        "name",
        rf"(?:私|僕|俺)の名前は{_JA_VALUE}(?:です|だ)",
        r"^(?:私|僕|俺)は(?P<v>[\u4e00-\u9fff\u30a0-\u30ff]{1,6})です[。.!！]?$",
        r"(?P<v>[\u4e00-\u9fff\u30a0-\u30ff]{1,6})と申します",
    ),
    *_p(
        "ja",
        "home",
        rf"{_JA_VALUE}に(?:住んで(?:い|お)ます|住んでいて|住んでいる|住んでる|引っ越しました|"
        rf"引っ越した|引っ越して|引っ越すことになりました)",
        r"(?:^|[はも、])(?P<v>[\u4e00-\u9fff\u30a0-\u30ff]{1,8})在住(?=です|の|で|[。、]|$)",
    ),
    *_p(
        "ja",
        "workplace",
        rf"{_JA_VALUE}(?:で働いて(?:い|お)ます|で働いていて|で働いている|に勤めて(?:い|お)ます|"
        rf"に勤めていて|に転職しました|に転職して|に入社しました)",
    ),
    *_p(
        "ja",
        "role",
        rf"(?:私|僕|俺|{subjects.JA_RELATIONS}|[\u4e00-\u9fff\u30a0-\u30ff]{{1,6}}さん)(?:は|も)"
        rf"{_ROLE_JA}です",
        rf"(?:^|[、はも]){_ROLE_JA}として(?:働いて|勤務して|勤めて)",
        rf"(?:^|[、はも]){_ROLE_JA}(?:をしています|をしていて|に転職しました)",
    ),
    *_p(
        "ja",
        "pet:{rel}",
        rf"(?P<rel>{_PET_JA})の(?P<v>[\u30a0-\u30ff\u3040-\u309f\u4e00-\u9fff]{{1,6}}?)を飼って",
    ),
    *_p(
        "ja",
        "allergy",
        r"(?:^|[はもが、])(?P<v>[^\s、。はがをにで]{1,10}?)(?:の)?アレルギー(?:です|があります|を持って|持ち)",
    ),
    *_p("ja", "diet", r"(?P<v>ベジタリアン|ヴィーガン|菜食主義者)(?:です|なので|になりました)"),
    *_p("ja", "avoids", r"(?:^|[、])(?P<v>[^\s、。はがを]{1,8})(?:が|は)食べられません"),
    *_p("ja", "units", r"(?P<v>メートル法|ヤード・ポンド法)で"),
    *_p(
        "ja",
        "answer_style",
        r"(?P<v>敬語|タメ口|丁寧語|です・ます調|繁体字|簡体字)で(?:答えて|話して|回答して|書いて|お願い|返事して)",
    ),
    *_p(
        "ja",
        "answer_language",
        rf"(?P<v>{_LANG})で(?:答えて|回答して|返事して|話して|書いて|返答して)",
    ),
    *_p(
        "ja",
        "tool",
        rf"(?P<v>(?i:{_TOOL}))を使って(?:い|お)ます",
        rf"[\w .-]+?から(?P<v>(?i:{_TOOL}))に(?:乗り換え|変え|切り替え)",
    ),
    *_p(
        "ja",
        "person:{rel}",
        rf"(?:私の)?(?P<rel>{_REL_JA})の名前は{_JA_VALUE}(?:です|だ)",
        rf"(?:私の)?(?P<rel>{_REL_JA})は{_JA_VALUE}という名前",
    ),
    *_p(
        "ja",
        "pet:{rel}",
        rf"(?P<rel>{_PET_JA})の名前は{_JA_VALUE}(?:です|だ)",
        rf"(?P<rel>{_PET_JA})を飼っていて、?名前は{_JA_VALUE}",
    ),
]

_NEGATED = re.compile(
    r"(?i:\b(?:no longer|not|never|don'?t|doesn'?t|didn'?t|won'?t|isn'?t|aren'?t|used to)\s+"
    r"(?:\w+\s+){0,2}$)|(?:不再|不|没有?|从不|并不)(?:再)?$|(?:禁止|严禁|不准|不要|别|不许)$"
    r"|(?i:\b(?:stop|avoid|ban|banned|forbid|forbidden)\s+(?:\w+\s+){0,2}$)"
)
_THIRD_PARTY = re.compile(
    r"さん|くん|ちゃん|様|先生|彼女?|氏|他|她|朋友|同事|"
    + _alternatives(k for k in RELATIONS if not k.isascii())
    + r"|(?i:\b(?:he|she|they|friend|colleague|"
    + _alternatives(k for k in RELATIONS if k.isascii())
    + r")\b)"
)
"""Before a match, someone other than the user is the subject: 田中さんは東京に住んでいます,
姉は大阪に住んでいます, my wife and I live in Paris."""
_SOMEONE_ELSES = re.compile(
    r"(?i:\b(?:he|she|they|my friend|someone|people) (?:said|says|told)\b)"
    r"|(?i:\b(?!I\b)\w+ (?:thinks?|thought|believes?|believed|assumes?|assumed|guess(?:es|ed)?"
    r"|claims?|claimed|imagines?|imagined|is convinced|was convinced)\b(?: that)? I\b)"
    r"|(?<!我)(?:以为|认为|觉得|相信|听说)我"
)
_HYPOTHETICAL = re.compile(r"(?i:\bif I\b|\bwould\b)")


def someone_elses_view(sentence: str) -> bool:
    """True when the sentence gives someone else's words or belief about the user ("She thinks
    I live in Paris", 她以为我住在巴黎): not a fact the user states ("I think I live in …" is)."""
    return bool(_SOMEONE_ELSES.search(sentence))


_NOT_A_NAME = re.compile(
    r"エンジニア|開発者|デザイナー|学生|教師|医者|会社員|研究者|マネージャー|弁護士|投資家"
    r"|アレルギー|担当|出身|好き|嫌い|苦手|初心者|社員"
)
_A_ROLE = re.compile(r"^(?:一名|一个|一位|个)|" + _ROLE_ZH.replace("(?P<v>", "(?:"))
_WHEN = re.compile(r"^(?:先月|今月|去年|今年|最近|先週|昨日|今日|現在|今は?|上个月|去年|最近|刚刚)")


MULTI_VALUED = ("allergy", "avoids")
"""Attributes a person has several values of: each value is a fact of its own."""
OTHERS_ATTRIBUTES = frozenset(["home", "workplace", "role", "allergy", "diet", "avoids"])
"""What the fast channel records of a related or named person."""


def find_slots(sentence: str) -> list[Slot]:
    """The slots a statement sets, in order, each with its subject: the user's, or a named or
    related person's (`person:<who>:<attribute>`); none for negated or reported ones, or for
    he / she / we."""
    if someone_elses_view(sentence) or _HYPOTHETICAL.search(sentence):
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
            before = sentence[: match.start()]
            if _NEGATED.search(before[-24:]):
                continue
            slot = _slot(slot_pattern, match, sentence)
            if slot is not None and slot.predicate not in found:
                found[slot.predicate] = (match.start(), slot)
    language = "ja" if kana else "zh" if _CJK.search(sentence) else "en"
    for attribute in find_attributes(sentence, cjk):
        key = f"{attribute.subject}|{attribute.attribute}"
        if not _NEGATED.search(sentence[: attribute.start][-24:]) and key not in found:
            slot = Slot(attribute.subject, attribute.attribute, attribute.value, language)
            found[key] = (attribute.start, slot)
    return [slot for _, slot in sorted(found.values(), key=lambda item: item[0])]


_KANA = re.compile(r"[\u3040-\u30ff]")
_CJK = re.compile(r"[\u4e00-\u9fff]")


def _subject(slot_pattern: SlotPattern, match: re.Match[str], sentence: str) -> subjects.Subject:
    who = match.groupdict().get("who")
    if who:
        return subjects.named(who)
    if "{rel}" in slot_pattern.predicate:  # my wife is called Mary: the user's relation
        return subjects.subject_before(sentence[: match.start()])
    return subjects.subject_before(sentence[: match.start("v")])


def _slot(slot_pattern: SlotPattern, match: re.Match[str], sentence: str) -> Slot | None:
    value = match.group("v").strip(" ,.;:!?，。、")
    if slot_pattern.language == "en" and predicate_of(slot_pattern) == "role":
        value = re.sub(r"(?i)^an? ", "", value)
    if slot_pattern.language == "zh":
        value = value.removesuffix("了").removesuffix("啦")
    value = _WHEN.sub("", value) or value
    predicate = slot_pattern.predicate
    if not value or (predicate.startswith(NAMED) and value.casefold() in NOT_NAMES):
        return None
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
        table = PETS if predicate.startswith("pet") else RELATIONS
        detail = table.get(rel.lower(), rel) if rel else "self"
        predicate = predicate.replace("{rel}", detail)
    if predicate == "tool":
        predicate = f"tool:{tool_kind(value)}"
    if predicate in MULTI_VALUED:
        predicate = f"{predicate}:{value_key(value)}"
    label = rel if rel and slot_pattern.language != "en" else ""
    if subject.is_user:
        return Slot(USER, predicate, value, slot_pattern.language, label)
    if predicate.split(":")[0] not in OTHERS_ATTRIBUTES:
        return None
    who = subject.written or subject.key
    return Slot(subject.key, f"person:{subject.key}:{predicate}", value, slot_pattern.language,
                who=who)  # fmt: skip


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
