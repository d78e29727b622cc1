"""One ranked list of memories and conversation-log messages (#23).

Each side comes ranked by its own backend; the two are merged by a key both share (how well
each answers the query: its relevance within its kind times the share of the query's words it
holds), each side keeping its own order. A memory extracted from a message and that message are
never both shown: whichever is placed first stands for both, so a message that carries more
than the memory taken from it can win. Nothing under the relevance floor is placed at all.
"""

import math
from dataclasses import dataclass
from typing import Generic, TypeVar

Item = TypeVar("Item")


@dataclass(frozen=True)
class Place(Generic[Item]):
    """A memory or a message competing for a place in the answer."""

    key: float
    """Its relevance on the scale both kinds share."""
    item: Item
    links: frozenset[str]
    """Memory ids it stands for: a memory's own id; a message's extracted memories."""


def merged(first: list[Place[Item]], second: list[Place[Item]]) -> list[Place[Item]]:
    """The two lists as one, each in its own order, the higher key first at every step (ties:
    `first`)."""
    out: list[Place[Item]] = []
    i = j = 0
    while i < len(first) or j < len(second):
        if j >= len(second) or (i < len(first) and first[i].key >= second[j].key):
            out.append(first[i])
            i += 1
        else:
            out.append(second[j])
            j += 1
    return out


def fused(
    memories: list[Place[Item]], messages: list[Place[Item]], limit: int
) -> list[Place[Item]]:
    """The best `limit` places of memories and messages merged: a place linked to one taken
    before it (a memory and the message it came from) is skipped, the earlier stands for both."""
    taken: list[Place[Item]] = []
    linked: set[str] = set()
    for place in merged(memories, messages):
        if len(taken) == limit:
            break
        if place.links & linked:
            continue
        linked |= place.links
        taken.append(place)
    return taken


COVERAGE_POWER = 1.0
"""How much the share of the query's words an item holds weighs in `key` (0: not at all)."""


def key(relevance: float, covered: float) -> float:
    """The key both kinds are merged by: relevance within its kind (its best = 1) times the
    share of the query's words it holds, to `COVERAGE_POWER`."""
    return relevance * math.pow(covered, COVERAGE_POWER)
