"""Near-duplicate candidates without comparing every pair: prefix filtering over rare terms.

Terms are ordered rarest first across the whole collection. Two term sets with Jaccard ≥ t must
share a term among the first |x| − ⌈t·|x|⌉ + 1 of each (the prefix), so each memory is compared
only with earlier memories that share one of its prefix terms (AllPairs). Rare terms have short
posting lists; of a long one (a term common to many memories) only the `PROBE` most recent
members are compared. Each memory therefore meets at most |prefix| × `PROBE` candidates, each
once: with the sorts, O(n log n) work, never O(n²).

The text source is one `PairSource`; a vector source (nearest neighbours from sqlite-vec) can be
added beside it, since clustering only sees (i, j, similarity) triples.
"""

import math
from collections import Counter, defaultdict
from collections.abc import Collection, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from cortex_mcp.search.tokenize import ENGLISH_STOPWORDS, term_set

PROBE = 16
RARE_TERMS = 3


def signature(text: str) -> frozenset[str]:
    """The terms two memories are compared by: words and CJK bigrams, without stopwords."""
    return term_set(text) - ENGLISH_STOPWORDS


def overlap(a: frozenset[str], b: frozenset[str]) -> float:
    """Jaccard |a ∩ b| / |a ∪ b| of two term sets (0 for two empty ones)."""
    shared = len(a & b)
    union = len(a) + len(b) - shared
    return shared / union if union else 0.0


@dataclass
class PairSearch:
    """Pairs at or above the threshold, and how many candidate pairs were examined for them."""

    pairs: list[tuple[int, int, float]] = field(default_factory=list)
    examined: int = 0


class PairSource(Protocol):
    """Finds similar pairs among term sets in the same group: (i, j, similarity), i < j."""

    def __call__(
        self, sets: Sequence[frozenset[str]], groups: Sequence[Hashable], threshold: float
    ) -> PairSearch:
        """Pairs of indices whose similarity is at least `threshold`."""


def prefix(terms: Collection[str], frequency: Counter[str], threshold: float) -> list[str]:
    """The rarest terms of a set that any set at least `threshold` similar must share one of."""
    ordered = sorted(terms, key=lambda t: (frequency[t], t))
    length = len(ordered) - math.ceil(threshold * len(ordered)) + 1
    return ordered[: max(length, 1)]


def similar_pairs(
    sets: Sequence[frozenset[str]], groups: Sequence[Hashable], threshold: float
) -> PairSearch:
    """Pairs within the same group whose term Jaccard is at least `threshold`."""
    frequency: Counter[str] = Counter(term for terms in sets for term in terms)
    postings: dict[tuple[Hashable, str], list[int]] = defaultdict(list)
    search = PairSearch()
    for j, terms in enumerate(sets):
        if not terms:
            continue
        keys = [(groups[j], term) for term in prefix(terms, frequency, threshold)]
        candidates = {i for key in keys for i in postings[key][-PROBE:]}
        search.examined += len(candidates)
        for i in sorted(candidates):
            other = sets[i]
            if min(len(terms), len(other)) >= threshold * max(len(terms), len(other)):
                similarity = overlap(other, terms)
                if similarity >= threshold:
                    search.pairs.append((i, j, similarity))
        for key in keys:
            postings[key].append(j)
    return search


class NeighbourIndex:
    """Rare-term postings of a fixed collection, to find a new text's most similar member.
    Its members may be tuples of (interned) terms: a tuple costs a fifth of a frozenset."""

    def __init__(self, sets: Sequence[Collection[str]], frequency: Counter[str]) -> None:
        self.sets = sets
        self.frequency = frequency
        self.postings: dict[str, list[int]] = defaultdict(list)
        for index, terms in enumerate(sets):
            for term in prefix(terms, frequency, 0.0)[:RARE_TERMS]:
                self.postings[term].append(index)

    def best(self, terms: frozenset[str]) -> float:
        """The highest Jaccard of `terms` with the newest members sharing its rarest terms."""
        candidates: set[int] = set()
        for term in prefix(terms, self.frequency, 0.0)[:RARE_TERMS]:
            candidates.update(self.postings.get(term, [])[-PROBE:])
        return max((overlap(terms, frozenset(self.sets[i])) for i in candidates), default=0.0)
