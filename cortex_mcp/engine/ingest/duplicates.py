"""Duplicates: a restatement of a live memory reinforces it instead of adding a second one.

A restatement is the same statement (`search.facts.same_statement`): the same content words in
the same order and the same numbers, whatever the case, punctuation, inflection, function words
or "I" / "the user". A changed name, place, item or number is never a duplicate.

Once a text's vector is at hand, a paraphrase is one too (`paraphrase_among`): a live memory at
least `PARAPHRASE_SIMILARITY` close in meaning that passes the same-fact guard
(`language.paraphrase.refuses`: same subject, names, numbers and negation). No write waits for
the embedder: `restated.merge_restatements` applies it right after the back-fill.
"""

from collections.abc import Sequence

from cortex_mcp.engine.language.naming import as_a_word, named_in, names, renamed
from cortex_mcp.engine.language.paraphrase import PARAPHRASE_SIMILARITY, refuses
from cortex_mcp.models import Category, Memory
from cortex_mcp.search.facts import content_tokens, same_statement_as
from cortex_mcp.search.query import quote_term
from cortex_mcp.search.tokenize import is_cjk, query_terms
from cortex_mcp.store import memories as rows
from cortex_mcp.store.db import Connection
from cortex_mcp.store.matches import document_counts, live_containing

NEAR_DUPLICATE_SCAN = 2000
"""Memories examined at most for one duplicate check."""
RAREST_WORDS = 2
"""Content words searched for candidates (any two: stemming may differ for one of them)."""
NEIGHBOURS = 4
"""Nearest memories in meaning a paraphrase is looked for among."""
NEVER_PARAPHRASED = frozenset({Category.SUMMARY, Category.PROFILE})


def never_paraphrased(memory: Memory) -> bool:
    """A summary, the profile or an episode: what it says is not a statement to merge (found
    trying the product: a session's episode, whose goal quoted a correction, was merged into
    that correction as its paraphrase and left the episodes)."""
    return memory.category in NEVER_PARAPHRASED or memory.metadata.get("kind") == "episode"


def hold_other_slots(first: Memory, second: Memory) -> bool:
    """Two memories holding different slots are two facts however close in meaning (found
    trying the product: "我的工作是全栈。" and "我在字节跳动工作。", said in one sentence, were
    merged as paraphrases at 0.93 and the role was lost)."""
    keys = [(m.metadata.get("subject"), m.metadata.get("predicate")) for m in (first, second)]
    return all(predicate is not None for _, predicate in keys) and keys[0] != keys[1]


def paraphrase_among(
    content: str, near: Sequence[tuple[float, Memory]], threshold: float = PARAPHRASE_SIMILARITY
) -> tuple[Memory, str] | None:
    """The nearest memory `content` restates in other words, with why; None when no memory
    is close enough or the guard refuses every close one."""
    for similarity, memory in near:
        if similarity < threshold or never_paraphrased(memory):
            continue
        if refuses(content, memory.content) is None:
            return memory, f"paraphrase ({similarity:.2f})"
    return None


async def find_duplicate(conn: Connection, content: str, agent_id: str | None) -> Memory | None:
    """A live memory of the same scope that makes the same statement, or None.

    A same statement holds every content word of `content`, so searching its rarest words,
    unranked, finds every one while reading almost nothing; each match is then compared word
    by word (`same_statement`), so a different name, place, item or number never matches.
    Only memories that hold every number and every CJK content character of `content` are
    read (`_verbatim_tokens`): a same statement holds each of them as an indexed term. Those
    are required anyway, so the rarest words are taken among the others (a year as one of the
    two brought back every memory of that year: 222 of 10,000 for "… in November 2025").
    """
    exact = await rows.find_live_by_content(conn, content, agent_id)
    if exact is not None:
        return exact
    searched, required = words_to_search(content)
    if not searched:
        return None
    counts = await document_counts(conn, searched)
    rarest = sorted(searched, key=lambda word: (counts.get(word, 0), -len(word)))[:RAREST_WORDS]
    match = " OR ".join(quote_term(word) for word in rarest)
    restates = same_statement_as(content)
    found = await live_containing(conn, match, agent_id, NEAR_DUPLICATE_SCAN, required)
    for memory_id, text in found:
        if restates(text):
            return await rows.get_memory(conn, memory_id)
    return await correction_held(conn, content, agent_id)


async def held_naming(conn: Connection, value: str, agent_id: str | None) -> int:
    """How many live memories of the scope name `value` ("New York" as words of its own)."""
    words = query_terms(value)
    if not words:
        return 0
    match = " OR ".join(quote_term(word) for word in words)
    found = await live_containing(conn, match, agent_id, NEAR_DUPLICATE_SCAN, words)
    return sum(names(text, value) for _, text in found)


async def correction_held(conn: Connection, content: str, agent_id: str | None) -> Memory | None:
    """A live memory already saying the one new word a correction gives for an old one: "Sorry,
    I meant Mia, not Maya." said again once "My daughter is Mia, not Maya." holds it."""
    named = named_in(content)
    if named is None or len(named.values) != 1:
        return None
    old = named.values[0]
    new = renamed(content, old, None)
    if new is None:
        return None
    says = as_a_word(f"{new}, not {old}")
    found = await live_containing(conn, quote_term(new), agent_id, NEAR_DUPLICATE_SCAN, [old])
    held = next((memory_id for memory_id, text in found if says.search(text)), None)
    return await rows.get_memory(conn, held) if held is not None else None


def words_to_search(content: str) -> tuple[list[str], list[str]]:
    """The words whose rarest two are searched for a same statement of `content`, and the
    tokens every one holds (`_verbatim_tokens`). A required token is matched anyway, so it is
    not one of the words searched unless nothing else is left."""
    words = sorted({w for w in query_terms(content) if _all_content(w)})
    required = _verbatim_tokens(content) if words else []
    return [word for word in words if word not in required] or words, required


def _verbatim_tokens(content: str) -> list[str]:
    """The content tokens every same statement indexes as they are: numbers (a number token is
    the digits as written) and CJK characters (indexed one by one). A word's token is a stem
    that another inflection may reach through another index stem, so words are not among them."""
    tokens = content_tokens(content)
    return sorted({t for t in tokens if t.isdigit() or (len(t) == 1 and is_cjk(t))})


def _all_content(term: str) -> bool:
    """A word, or a CJK bigram, made only of content: every same statement contains it."""
    tokens = content_tokens(term)
    return bool(tokens) and (len(tokens) == len(term) or not is_cjk(term))
