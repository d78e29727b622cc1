"""FTS5's last step in Python: what `porter unicode61 remove_diacritics 2` makes of the text
`tokenize.index_text` produced, so an engine without FTS5 (PostgreSQL) indexes the same terms.

unicode61 splits on everything but letters, digits and private-use characters, folds case and
strips diacritics from Latin letters; porter then stems tokens of 3 to 64 characters.
"""

import re
import unicodedata
from functools import lru_cache

from cortex_mcp.search.snowball import snowball

_TOKEN = re.compile(r"[^\W_]+")
_QUOTED = re.compile(r'"((?:[^"]|"")*)"')
_stemmer = snowball("porter")
PORTER_MIN, PORTER_MAX = 3, 64


@lru_cache(maxsize=65536)
def fold(token: str) -> str:
    """Lowercase, without diacritics (Hangul and kana keep their composed form)."""
    bare = "".join(
        c for c in unicodedata.normalize("NFD", token) if unicodedata.category(c) != "Mn"
    )
    return unicodedata.normalize("NFC", bare).lower()


@lru_cache(maxsize=65536)
def stem(token: str) -> str:
    """The porter stem of a folded token, as FTS5 computes it."""
    if not PORTER_MIN <= len(token.encode("utf-8")) <= PORTER_MAX:
        return token
    return str(_stemmer.stemWord(token))


def fts_tokens(text: str) -> list[str]:
    """The terms FTS5 would index for `text`, in order (repeats kept: they are frequencies)."""
    return [stem(fold(token)) for token in _TOKEN.findall(text)]


def match_terms(match: str) -> list[str]:
    """The distinct terms of an OR of quoted terms (`query.match_expression`), stemmed."""
    terms: list[str] = []
    for quoted in _QUOTED.findall(match):
        terms.extend(fts_tokens(quoted.replace('""', '"')))
    return list(dict.fromkeys(terms))
