"""Deterministic "embeddings" for the fake OpenAI server, exact enough to assert on.

The scheme, so tests can predict every vector:
- Each group in `CONCEPTS` is one concept and owns dimension `i` (its index). Synonyms and
  translations share it: "car", "automobile", "汽车" and "自動車" all count towards dimension 0.
  ASCII synonyms match whole lower-cased words; CJK synonyms match as substrings, longest first.
- Every other word (ASCII `[a-z0-9]+`) and every other non-ASCII letter is hashed (CRC-32) into
  one of the dimensions after the concepts.
- The vector is the count per dimension, scaled to unit length (all zeros for a text with no
  words). So `concept_vector("car") == concept_vector("汽车")` and the cosine of "my car" and
  "automobile" is exactly 1/√2.

When `dimension <= len(CONCEPTS)`, every index is taken modulo `dimension`.
"""

import math
import re
import zlib

CONCEPTS: tuple[tuple[str, ...], ...] = (
    ("car", "cars", "automobile", "vehicle", "汽车", "自動車", "車"),
    ("coffee", "espresso", "latte", "咖啡", "コーヒー"),
    ("tea", "お茶", "茶"),
    ("dog", "dogs", "puppy", "狗", "犬"),
    ("cat", "cats", "kitten", "猫"),
    ("allergy", "allergic", "过敏", "アレルギー"),
    ("peanut", "peanuts", "花生", "ピーナッツ"),
    ("birthday", "生日", "誕生日"),
    ("tokyo", "東京", "东京"),
    ("meeting", "meetings", "会议", "会議"),
    ("python", "パイソン"),
    ("vegetarian", "素食", "ベジタリアン"),
)

_WORDS = re.compile(r"[a-z0-9]+")
_ASCII_CONCEPT = {
    word: index for index, group in enumerate(CONCEPTS) for word in group if word.isascii()
}
_CJK_CONCEPT = sorted(
    ((word, index) for index, group in enumerate(CONCEPTS) for word in group if not word.isascii()),
    key=lambda pair: -len(pair[0]),
)


def _hashed(token: str, dimension: int) -> int:
    spare = dimension - len(CONCEPTS)
    checksum = zlib.crc32(token.encode("utf-8"))
    return len(CONCEPTS) + checksum % spare if spare > 0 else checksum % dimension


def concept_counts(text: str, dimension: int) -> list[float]:
    """Unnormalised counts per dimension (see the module docstring)."""
    counts = [0.0] * dimension
    rest = text.lower()
    for word, index in _CJK_CONCEPT:
        counts[index % dimension] += rest.count(word)
        rest = rest.replace(word, " ")
    for word in _WORDS.findall(rest):
        concept = _ASCII_CONCEPT.get(word)
        counts[concept % dimension if concept is not None else _hashed(word, dimension)] += 1
    for char in rest:
        if not char.isascii() and char.isalnum():
            counts[_hashed(char, dimension)] += 1
    return counts


def concept_vector(text: str, dimension: int) -> list[float]:
    """The unit-length vector the fake server returns for `text`."""
    counts = concept_counts(text, dimension)
    norm = math.sqrt(sum(value * value for value in counts))
    return [value / norm for value in counts] if norm else counts
