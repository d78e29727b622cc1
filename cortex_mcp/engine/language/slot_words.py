"""The words the slot patterns are written with: relations, pets, tools, languages, what is
no name, and the pattern record (`SlotPattern`) each language's table is a list of."""

import re
from collections.abc import Iterable
from dataclasses import dataclass

RELATIONS = {
    "wife": "wife", "husband": "husband", "partner": "partner", "daughter": "daughter",
    "son": "son", "mother": "mother", "mom": "mother", "mum": "mother", "father": "father",
    "dad": "father", "brother": "brother", "sister": "sister", "girlfriend": "girlfriend",
    "boyfriend": "boyfriend", "boss": "manager", "manager": "manager", "kid": "child",
    "child": "child", "grandmother": "grandmother", "grandma": "grandmother",
    "granny": "grandmother", "grandfather": "grandfather", "grandpa": "grandfather",
    "aunt": "aunt", "auntie": "aunt", "uncle": "uncle", "cousin": "cousin", "niece": "niece",
    "nephew": "nephew", "grandson": "grandson", "granddaughter": "granddaughter",
    "stepson": "stepson", "stepdaughter": "stepdaughter", "fiance": "fiance",
    "fiancé": "fiance", "fiancee": "fiancee", "fiancée": "fiancee", "best friend": "best friend",
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
        "out", "off", "all", "pleased", "honored", "honoured", "sad", "upset", "worried",
        "nervous", "hungry", "free", "available", "away", "online", "offline", "retired", "single",
        "married", "pregnant", "vegan", "vegetarian", "allergic", "european", "asian",
        "元気", "大丈夫", "学生", "日本人", "中国人", "社会人", "初心者", "家",
    ]
)  # fmt: skip


def alternatives(words: Iterable[str]) -> str:
    """The words as one regular-expression alternation, longest first."""
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


TOOL_NAMES = alternatives(tuple(t for names in TOOLS.values() for t in names))
LANGUAGE_NAMES = alternatives(tuple(LANGUAGES))


@dataclass(frozen=True)
class SlotPattern:
    """A pattern that sets `predicate` (with `{rel}` / `{tool}` filled from the match)."""

    language: str
    predicate: str
    pattern: re.Pattern[str]


def slot_patterns(language: str, predicate: str, *patterns: str) -> list[SlotPattern]:
    """The patterns of one slot in one language, compiled."""
    return [SlotPattern(language, predicate, re.compile(p)) for p in patterns]
