"""Whether a text names a value: the one rule by which a correction's old value ("…, not
Postgres", "not 8080") finds the memory that holds it (`ingest.replaced`) and the log lines
recall leaves out once it is corrected (`recall.corrected`), and what a statement says it
replaces ("…, not Postgres", "…，不是MySQL") or takes back ("Forget what I said about…")."""

import re
from dataclasses import dataclass

PREFIX_CHARS = 5
"""A name this long names a word it begins, and a word of this length or more that begins it:
"Postgres" names "PostgreSQL 14" and "PostgreSQL" names "Postgres 14"; "Java" (four letters)
does not name "JavaScript" (found re-testing: "…in Kotlin, not Java" replaced a memory of the
JavaScript frontend)."""
_CJK = re.compile(r"[\u4e00-\u9fff]")
_LETTER = r"[^\W\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]"
"""A word character of an alphabet: a Latin value is a word of its own beside Chinese,
Japanese or Korean ("我们的数据库是MySQL" names "MySQL")."""


def names(text: str, value: str) -> bool:
    """True when `text` names `value` (any case): a CJK value anywhere; a number as a whole
    number ("8080" is not "80801", "3.11" is not "3.11.4"); a name as a whole word, or, when
    it is at least PREFIX_CHARS long, as the start of a word or by a word of PREFIX_CHARS or
    more that it starts with."""
    if not value:
        return False
    if _CJK.search(value):
        return value in text
    return re.search(value_pattern(value), text, re.IGNORECASE) is not None


def value_pattern(value: str) -> str:
    """The regular expression of `names` for a non-CJK value."""
    forms = [re.escape(value)]
    tail = ""
    if len(value) >= PREFIX_CHARS and not value[:1].isdigit():
        tail = rf"{_LETTER}*"
        shorter = range(len(value) - 1, PREFIX_CHARS - 1, -1) if value.isalpha() else ()
        forms += [re.escape(value[:end]) for end in shorter]
    alternatives = "|".join([f"{forms[0]}{tail}", *forms[1:]])
    return rf"(?<!{_LETTER})(?<!\.)(?:{alternatives})(?!{_LETTER})(?![.:/-]?\d)"


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
    revoked = _REVOKED.search(text)
    topic = (revoked["en"] or revoked["zh"]).strip() if revoked else ""
    if not values and not topic:
        return None
    return Named(tuple(v for v in values if v), topic)
