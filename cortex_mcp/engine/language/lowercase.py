"""Names in a message typed all in lower case, capitalised where a fact names them: "i live in
austin" is "I live in Austin", so the slot patterns, which know a name by its capital, read it
(found re-testing: "i live in austin" and "i work at google" were stored with no slot, so a
later move or new job could not replace them, and "actually i live in dallas, not austin"
replaced a whole introduction, the name with it).

Only the words right after a phrase that introduces a name are capitalised ("live in", "work
at", "my dog's name is", ", not"), up to the first word that is no name ("austin with my
wife": Austin), so a common word ("i live in a small town", "i work at home") stays as typed.
"""

import re

from cortex_mcp.search.tokenize import ENGLISH_STOPWORDS

_BEFORE_A_NAME = re.compile(
    r"\b(?:live in|living in|lived in|moved to|moving to|relocated to|based in|work at|work for"
    r"|working at|working for|joined|started at|job at|name is|name's|named|called|i'm from"
    r"|i left|i quit|resigned from"
    r"|i am from|i come from)\s+"
)
"""Where a name follows. Not after "i'm" nor "my son is": "i'm sick", "my son is sick" name
no one."""
_NOT_THE_OLD_ONE = re.compile(r",?\s+not\s+")
"""After a name: the one it replaces follows ("i live in dallas, not austin")."""
_NO_NAME = ENGLISH_STOPWORDS | frozenset(
    ["home", "work", "school", "night", "remote", "remotely", "here", "there", "now", "today",
     "tomorrow", "yesterday", "currently", "still", "just", "also", "really", "actually",
     "again", "soon", "already", "anymore", "last", "next", "this", "with", "from", "a", "an",
     "the", "my", "our", "your", "his", "her", "their", "ok", "okay", "fine", "good", "great",
     "happy", "tired", "sorry", "sure", "glad", "back", "done", "busy", "new", "old", "big",
     "small", "going", "looking", "trying", "working", "moving", "living", "thinking", "not",
     "name", "fear", "peace", "hope", "denial", "harmony", "poverty", "tears", "love", "myself",
     "ourselves", "themselves", "scale", "speed", "free", "hire", "fun", "money", "moment",
     "desk", "office", "bed", "south", "north", "east", "west", "suburbs", "long", "short",
     "hard", "easy", "weird", "unusual", "common", "difficult", "funny", "spelled", "pronounced",
     "hyphenated", "boring", "nice", "cool", "unique", "rare", "beautiful", "strange", "early",
     "late", "it", "them"]
)  # fmt: skip
"""Words after such a phrase that name nothing: "i work at home", "i'm tired", "i live in a
small town"."""
_NEW_PLACES = re.compile(r"new (?:york|jersey|mexico|zealand|orleans|delhi|hampshire|haven)\b")
"""Places whose first word is "new", which alone names nothing ("i'm new here")."""
_A_WORD = re.compile(r"[a-z][a-z'-]*")
MOST_WORDS = 3


def names_capitalised(sentence: str) -> str:
    """The sentence with the words a fact names capitalised ("i work at google as an engineer"
    gives "i work at Google as an engineer"); a sentence with a capital letter is as typed."""
    if any(char.isupper() for char in _I_WORD.sub("", sentence[1:])):
        return sentence
    return _capitalised(sentence)


_I_WORD = re.compile(r"\bI\b")


def _capitalised(sentence: str) -> str:
    """Each run of up to MOST_WORDS name words after a phrase introducing a name, capitalised."""
    out: list[str] = []
    at = 0
    for found in _BEFORE_A_NAME.finditer(sentence):
        if found.end() < at:
            continue
        out.append(sentence[at : found.end()])
        at = _name_at(sentence, found.end(), out)
        if at > found.end() and (replaced := _NOT_THE_OLD_ONE.match(sentence, at)):
            out.append(replaced[0])
            at = _name_at(sentence, replaced.end(), out)
    out.append(sentence[at:])
    return "".join(out)


def _name_at(sentence: str, at: int, out: list[str]) -> int:
    """Up to MOST_WORDS name words from `at`, capitalised onto `out`; where they end."""
    for _ in range(MOST_WORDS):
        word = _A_WORD.match(sentence, at)
        if word is None or not _a_name_word(sentence, at, word[0]):
            break
        out.append(word[0][:1].upper() + word[0][1:])
        at = word.end()
        joint = _INSIDE_A_NAME.match(sentence, at)
        following = _A_WORD.match(sentence, joint.end()) if joint else None
        if joint is None or following is None:
            break
        if not _a_name_word(sentence, joint.end(), following[0]):
            break
        if joint[0].startswith(".") and word[0] not in ("st", "mt", "ft"):
            break  # a sentence ends there
        out.append(joint[0])
        at = joint.end()
    return at


def _a_name_word(sentence: str, at: int, word: str) -> bool:
    """The word at `at` may be (part of) a name: no common word, or "new" of "new york"."""
    return word not in _NO_NAME or _NEW_PLACES.match(sentence, at) is not None


_INSIDE_A_NAME = re.compile(r"(?:\.(?= [a-z]))? (?:of (?:the )?)?(?=[a-z])")
"""What joins a name's words: a space, "of" ("bank of america"), the dot of "st. louis"."""
