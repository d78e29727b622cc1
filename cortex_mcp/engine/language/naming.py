"""Whether a text names a value: the one rule by which a correction's old value ("…, not
Postgres", "not 8080") finds the memory that holds it (`ingest.replaced`) and the log lines
recall leaves out once it is corrected (`recall.corrected`)."""

import re

PREFIX_CHARS = 4
"""A name this long also names the word it begins ("Postgres" names "PostgreSQL 14")."""
_CJK = re.compile(r"[\u4e00-\u9fff]")
_LETTER = r"[^\W\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]"
"""A word character of an alphabet: a Latin value is a word of its own beside Chinese,
Japanese or Korean ("我们的数据库是MySQL" names "MySQL")."""


def names(text: str, value: str) -> bool:
    """True when `text` names `value` (any case): a CJK value anywhere; a number as a whole
    number ("8080" is not "80801", "3.11" is not "3.11.4"); a name as a whole word, or as the
    start of a word when it is at least PREFIX_CHARS long."""
    if not value:
        return False
    if _CJK.search(value):
        return value in text
    return re.search(value_pattern(value), text, re.IGNORECASE) is not None


def value_pattern(value: str) -> str:
    """The regular expression of `names` for a non-CJK value."""
    prefix = len(value) >= PREFIX_CHARS and not value[:1].isdigit()
    tail = rf"{_LETTER}*" if prefix else ""
    return rf"(?<!{_LETTER})(?<!\.){re.escape(value)}{tail}(?!{_LETTER})(?![.:/-]?\d)"
