"""CJK-aware terms, the same for indexing and for queries.

SQLite's `unicode61` tokenizer keeps a run of Chinese or Japanese characters as one token, and
`trigram` cannot match a query shorter than three characters, so neither finds 利回 inside
利回り. We split CJK runs ourselves into overlapping character bigrams (plus single characters in
the index), and hand FTS5 text whose tokens are already separated by spaces. Latin words stay
words; FTS5's `porter unicode61` then folds case and stems them.
"""

import re
import unicodedata
from collections.abc import Mapping
from typing import Any

_CJK = (
    "\u3040-\u30ff"  # hiragana, katakana
    "\u31f0-\u31ff"  # katakana phonetic extensions
    "\u3400-\u4dbf"  # CJK extension A
    "\u4e00-\u9fff"  # CJK unified ideographs
    "\uf900-\ufaff"  # compatibility ideographs
    "\uff66-\uff9f"  # half-width katakana
    "\uac00-\ud7af"  # hangul syllables
    "\U00020000-\U0002ffff"  # extensions B-F
)
_PIECE = re.compile(rf"[{_CJK}]+|[^\W_{_CJK}]+")
_CJK_RUN = re.compile(rf"[{_CJK}]+")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")

ENGLISH_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "been",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "for",
        "from",
        "had",
        "has",
        "have",
        "he",
        "her",
        "hers",
        "him",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "our",
        "she",
        "so",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "about",
        "after",
        "again",
        "all",
        "also",
        "am",
        "any",
        "because",
        "before",
        "being",
        "both",
        "each",
        "few",
        "further",
        "just",
        "more",
        "most",
        "no",
        "nor",
        "not",
        "only",
        "other",
        "out",
        "over",
        "own",
        "same",
        "should",
        "some",
        "such",
        "too",
        "under",
        "until",
        "up",
        "very",
        "s",
        "t",
        "don",
        "doesn",
        "didn",
    ]
)


def _normalise(text: str) -> str:
    """NFKC folds full-width letters and digits to their ASCII forms; NUL never reaches SQL."""
    return unicodedata.normalize("NFKC", text).replace("\x00", " ")


def is_cjk(piece: str) -> bool:
    """True when `piece` is a run of Chinese, Japanese or Korean characters."""
    return bool(_CJK_RUN.fullmatch(piece))


def cjk_character_count(text: str) -> int:
    """How many Chinese, Japanese or Korean characters `text` holds once NFKC-normalised (so
    decomposed Hangul and squared or enclosed ideographs count too)."""
    return sum(map(len, _CJK_RUN.findall(_normalise(text))))


def _bigrams(run: str) -> list[str]:
    return [run[i : i + 2] for i in range(len(run) - 1)] or [run]


def pieces_of(text: str) -> list[str]:
    """Split text into CJK runs and lowercased word pieces, in order."""
    return [p if is_cjk(p) else p.lower() for p in _PIECE.findall(_normalise(text))]


CJK_FUNCTION_CHARACTERS = frozenset(
    "的了是在和与及或吗呢吧啊呀也都就而之其把被给对のにはをがでとも"
)
"""A CJK run of one of these alone ("Venqulo 的 Zig", "Tokyo の hotel") is a function word, as
"of" is: dropped from a query like an English stopword. 的 alone is in a quarter of a Chinese
log's messages, so searching it ranked most of the log for nothing (25 ms of FTS5 at 100,000
messages, against 2 for the rest of the query)."""
QUERY_STOPWORDS = ENGLISH_STOPWORDS | CJK_FUNCTION_CHARACTERS


def query_terms(text: str) -> list[str]:
    """The distinct terms a query searches for: words, and bigrams of CJK runs.

    English stopwords and lone CJK function characters are dropped unless nothing else is left.
    """
    terms: list[str] = []
    for piece in pieces_of(text):
        terms.extend(_bigrams(piece) if is_cjk(piece) else [piece])
    content = [t for t in terms if t not in QUERY_STOPWORDS]
    return list(dict.fromkeys(content or terms))


def index_text(text: str) -> str:
    """What FTS5 indexes for a memory: words, and single characters plus bigrams of CJK runs."""
    tokens: list[str] = []
    for piece in pieces_of(text):
        if is_cjk(piece):
            tokens.extend(piece)
            tokens.extend(_bigrams(piece) if len(piece) > 1 else [])
        else:
            tokens.append(piece)
    return " ".join(tokens)


def context_of(metadata: Mapping[str, Any]) -> str:
    """The `context` a memory's metadata may carry (the conversation around it: the turn
    before, the topic), or "". It is indexed in a column of its own, weighted below the content,
    and never shown as part of the memory. A context hidden by the forgetting of a memory from
    the same exchange (`context_hidden_by`) is not searched until that memory is restored."""
    if metadata.get("context_hidden_by"):
        return ""
    context = metadata.get("context")
    return context.strip() if isinstance(context, str) else ""


def term_set(text: str) -> frozenset[str]:
    """The set of terms of a text (words and CJK bigrams), for overlap measures."""
    terms: list[str] = []
    for piece in pieces_of(text):
        terms.extend(_bigrams(piece) if is_cjk(piece) else [piece])
    return frozenset(terms)


def numbers_of(text: str) -> frozenset[str]:
    """The numbers a text states; two texts with different numbers say different things."""
    return frozenset(n.replace(",", "") for n in _NUMBER.findall(_normalise(text)))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """|a ∩ b| / |a ∪ b|; 1.0 for two empty sets."""
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def normalised_content(text: str) -> str:
    """Content folded for exact-duplicate detection: NFKC, lowercase, single spaces."""
    return " ".join(_normalise(text).lower().split())
