"""Near-duplicate candidates without comparing every pair: prefix filtering over rare terms.

Terms are ordered rarest first across the whole collection. Two term sets with Jaccard ≥ t must
share a term among the first |x| − ⌈t·|x|⌉ + 1 of each (the prefix), so only memories that share
a prefix term are compared. Rare terms have short posting lists; a list longer than
`MAX_POSTING` (a term common to many memories) compares each memory with its `WINDOW` nearest
neighbours in creation order instead of with all. The work is a sort per memory plus a bounded
number of comparisons per prefix term: O(n log n), never O(n²).

The text source is one `PairSource`; a vector source (nearest neighbours from sqlite-vec) can be
added beside it, since clustering only sees (i, j, similarity) triples.
"""

import math
from collections import Counter, defaultdict
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Protocol

from cortex_mcp.search.tokenize import ENGLISH_STOPWORDS, jaccard, term_set

MAX_POSTING = 32
WINDOW = 16


def signature(text: str) -> frozenset[str]:
    """The terms two memories are compared by: words and CJK bigrams, without stopwords."""
    return term_set(text) - ENGLISH_STOPWORDS


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


def prefix(terms: frozenset[str], frequency: Counter[str], threshold: float) -> list[str]:
    """The rarest terms of a set that any set at least `threshold` similar must share one of."""
    ordered = sorted(terms, key=lambda t: (frequency[t], t))
    length = len(ordered) - math.ceil(threshold * len(ordered)) + 1
    return ordered[: max(length, 1)]


def _candidates(members: list[int]) -> Iterator[tuple[int, int]]:
    if len(members) <= MAX_POSTING:
        yield from combinations(members, 2)
        return
    for a, first in enumerate(members):
        for second in members[a + 1 : a + 1 + WINDOW]:
            yield first, second


def similar_pairs(
    sets: Sequence[frozenset[str]], groups: Sequence[Hashable], threshold: float
) -> PairSearch:
    """Pairs within the same group whose term Jaccard is at least `threshold`."""
    frequency: Counter[str] = Counter(term for terms in sets for term in terms)
    postings: dict[tuple[Hashable, str], list[int]] = defaultdict(list)
    for index, terms in enumerate(sets):
        if terms:
            for term in prefix(terms, frequency, threshold):
                postings[(groups[index], term)].append(index)
    search = PairSearch()
    found: dict[tuple[int, int], float] = {}
    for members in postings.values():
        for i, j in _candidates(members):
            search.examined += 1
            a, b = sets[i], sets[j]
            if (i, j) in found or min(len(a), len(b)) < threshold * max(len(a), len(b)):
                continue
            similarity = jaccard(a, b)
            if similarity >= threshold:
                found[(i, j)] = similarity
    search.pairs = [(i, j, s) for (i, j), s in found.items()]
    return search


class NeighbourIndex:
    """Rare-term postings of a fixed collection, to find a new text's most similar member."""

    def __init__(self, sets: Sequence[frozenset[str]], frequency: Counter[str]) -> None:
        self.sets = sets
        self.frequency = frequency
        self.postings: dict[str, list[int]] = defaultdict(list)
        for index, terms in enumerate(sets):
            for term in prefix(terms, frequency, 0.0)[:8]:
                self.postings[term].append(index)

    def best(self, terms: frozenset[str]) -> float:
        """The highest Jaccard of `terms` with any member sharing one of its rarest terms."""
        best = 0.0
        for term in prefix(terms, self.frequency, 0.0)[:8]:
            for index in self.postings.get(term, [])[-MAX_POSTING:]:
                best = max(best, jaccard(terms, self.sets[index]))
        return best
