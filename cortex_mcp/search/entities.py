"""Entity names as the graph compares them, and where a text names a known entity.

A name is compared by its key: Unicode NFKC (full-width letters and digits become ASCII),
case-folded, `_` read as a space (the official memory server writes Wang_Wei), single spaces,
no closing punctuation. Chinese and Japanese names stay as written. The user is one entity
whatever they are called: "I", "me", "the user", default_user, 我, 私, 僕 all key to `user`.
"""

import re
import unicodedata

USER_KEY = "user"
USER_ALIASES = frozenset(
    [
        "i", "me", "my", "myself", "mine", "user", "the user", "default user", "default_user",
        "我", "我的", "本人", "私", "わたし", "僕", "俺", "自分",
    ]
)  # fmt: skip
ALIAS_PREDICATES = frozenset(["name", "alias", "also known as", "aka", "is named", "called"])
"""A relation with one of these predicates says both ends are one entity."""

_EDGE = " .,!?;:'\"()[]{}。，！？；：、「」『』（）"
MAX_NAME = 200


def entity_key(name: str) -> str:
    """The key a name is compared by (see the module); `user` for any way of saying the user."""
    folded = unicodedata.normalize("NFKC", name).casefold().replace("_", " ")
    key = " ".join(folded.split()).strip(_EDGE)
    return USER_KEY if key in USER_ALIASES else key


def display_name(name: str) -> str:
    """A name as shown: `_` as a space, single spaces, as written otherwise."""
    return " ".join(name.replace("_", " ").split())


def searchable_text(text: str) -> str:
    """A text folded like keys are, so a key can be looked for inside it."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().replace("_", " ").split())


_WORD = re.compile(r"[^\W_]+(?:['’.&-][^\W_]+)*")
_CJK_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+")
MAX_WORDS = 4
MAX_CJK = 8
MAX_PHRASES = 400


def phrases(text: str) -> list[str]:
    """Every way the text could name an entity, as keys: runs of up to four words (with and
    without a possessive 's), and each stretch of two to eight CJK characters. Looking these
    up by index is what finds the entities a query names."""
    folded = searchable_text(text)
    words = [w.removesuffix("'s").removesuffix("’s") for w in _WORD.findall(folded)]
    found: dict[str, None] = {}
    for size in range(1, MAX_WORDS + 1):
        for start in range(len(words) - size + 1):
            found[entity_key(" ".join(words[start : start + size]))] = None
    for run in _CJK_RUN.findall(folded):
        for size in range(2, min(MAX_CJK, len(run)) + 1):
            for start in range(len(run) - size + 1):
                found[run[start : start + size]] = None
    found.pop("", None)
    found.pop(USER_KEY, None)
    return list(found)[:MAX_PHRASES]


def relation_line(subject: str, predicate: str, obj: str) -> str:
    """A relation as one short line: `Wang Wei —works at→ Globex`."""
    verb = " ".join(predicate.replace("_", " ").split())
    return f"{display_name(subject)} —{verb}→ {display_name(obj)}"
