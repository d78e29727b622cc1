"""A statement that names what it replaces: "the billing DB is MySQL 8, not Postgres",
"we use Python 3.12 not 3.11", "我们的数据库是PostgreSQL，不是MySQL", and a rule taken back:
"Forget what I said about force-pushing, that rule no longer applies", "之前说的周五之前不要部署
生产环境那条取消了".

Found trying the product: such corrections were stored beside the memory they correct (a
different slot, "version:mysql" against "version:postgresql"; a different subject, "project"
against "service"; too few shared words), and recall ranked the stale memory first. The user
named the old value, or the rule's topic: the live memory of the scope that names it, and
shares another word with the statement, is the one replaced.
"""

import re

from cortex_mcp.engine.ingest.duplicates import never_paraphrased
from cortex_mcp.engine.ingest.proposal import Proposal
from cortex_mcp.engine.language.naming import (
    BARE_CORRECTION,
    Named,
    named_in,
    named_with,
    names,
    renamed,
    said_words,
)
from cortex_mcp.engine.language.slot_words import PETS, RELATIONS
from cortex_mcp.engine.language.subjects import GROUPS, first_subject
from cortex_mcp.models import Layer, Memory
from cortex_mcp.search.query import match_expression
from cortex_mcp.search.tokenize import term_set
from cortex_mcp.store import fts
from cortex_mcp.store import memories as rows
from cortex_mcp.store.db import Connection

CANDIDATES = 20
_CJK = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
WORD_PREFIX = 4
"""A topic's word this long is the word it begins ("force-push" in "force-pushing")."""
PROJECT_SLOTS = ("uses:", "version:")
"""Slots of what a project uses: the value named is enough to know the memory."""
NAMED = ("person", "pet")
"""Slots holding a relation's name (person:daughter, pet:dog; person:sister:home holds her
home): a new name given in its place is enough to know the memory, as for the user's own
("Sorry, I meant Mia, not Maya." after "My daughter is Maya.": it was stored beside it)."""


async def replaced_by_name(
    conn: Connection, proposal: Proposal, agent_id: str | None
) -> tuple[str, Memory] | None:
    """The live memory of the proposal's scope (its project, or none) that `proposal` names as
    replaced, newest first, with why; None when it names nothing or nothing live matches."""
    named = _named_by(proposal)
    if named is None:
        return None
    match = match_expression(" ".join([*named.values, named.topic, proposal.content]))
    if match is None:
        return None
    layers = [Layer.CORE, Layer.WORKING, Layer.ARCHIVE]
    found = await fts.text_rows(conn, match, agent_id or "", layers, None, CANDIDATES)
    candidates = sorted(
        (rows.to_memory(row) for row in found),
        key=lambda memory: memory.created_at,
        reverse=True,
    )
    replaced: list[Memory] = []
    for memory in candidates:
        if not _in_scope(memory, proposal, agent_id):
            continue
        if named.topic and _about(named.topic, memory.content):
            return f"revokes what was said about {named.topic}", memory
        value = next((v for v in named.values if names(memory.content, v)), None)
        if value is not None and _replaces(proposal, memory, value):
            replaced.append(memory)
    if not replaced or _which_is_unknown(replaced, proposal):
        return None
    value = next(v for v in named.values if names(replaced[0].content, v))
    return f"names the value it replaces ({value})", replaced[0]


def _named_by(proposal: Proposal) -> Named | None:
    """What `proposal` names as replaced, with the values said right after its slot's value
    in the sentence it was read from ("… and a dog named Max, not Rex.")."""
    value = proposal.slot.value if proposal.slot is not None else None
    return named_with(proposal.content, value, proposal.extra.get("context", ""))


def _which_is_unknown(replaced: list[Memory], proposal: Proposal) -> bool:
    """Two of the user's people or pets hold the name a correction replaces, and it says whose
    it is of neither ("It's Max, not Rex." with a dog and a cat named Rex; "Sorry, I meant
    Marc, not Mark." with a boss and a cat named Mark): which one is meant is not known, and
    neither is replaced (found re-testing: the newest one was renamed)."""
    predicates = [str(m.metadata.get("predicate") or "") for m in replaced]
    held = {predicate for predicate in predicates if renamable(predicate)}
    if len(held) < 2:
        return False
    return not said_words(proposal.content) & whose(predicates[0])


def _in_scope(memory: Memory, proposal: Proposal, agent_id: str | None) -> bool:
    project = memory.metadata.get("project")
    return (
        memory.agent_id == agent_id
        and not never_paraphrased(memory)  # a summary, the profile, an episode
        and memory.metadata.get("channel") != "fallback"
        and project in (None, proposal.project)
        and not memory.deleted_at
        and not memory.superseded_by
    )


def _replaces(proposal: Proposal, memory: Memory, value: str) -> bool:
    """The memory is what the statement corrects: about the same person, not itself saying
    that value is replaced, and sharing a word with it besides the value, or holding what a
    project uses as that value ("The service uses PostgreSQL 14." for "the billing DB is MySQL
    8, not Postgres")."""
    statement, text = proposal.content, memory.content
    predicate = str(memory.metadata.get("predicate") or "")
    held = str(memory.metadata.get("value"))
    if _someone_elses_thing(statement) and not _someone_elses_thing(text):
        return False  # "My neighbor's dog is Max, not Rex" is no new name for the user's dog
    if _renames(proposal, predicate, held, value):
        return first_subject(statement).key in ("user", "?", first_subject(text).key)
    if _rejects(text, value):
        return False  # itself a correction away from that value
    if BARE_CORRECTION.match(statement):
        return True  # "Oops, it's tree nuts, not peanuts." names only the value it replaces
    if _other_person(statement, text):
        return False  # another person's
    if predicate.startswith(PROJECT_SLOTS) and names(held, value):
        return True
    if predicate and held == value and _CJK.search(value) and _of_the_user(statement):
        return True  # "不对，是上海，不是北京。" of home 北京: no word shared but the value
    without = re.sub(re.escape(value), " ", statement, flags=re.I)
    return bool(_terms(without) & _terms(text))


_PEOPLE = "|".join(
    re.escape(word)
    for word in sorted({*RELATIONS, *GROUPS}, key=len, reverse=True)
    if word.isascii()
)
_SOMEONE = rf"\b(?:my|our)\s+(?:{_PEOPLE}|landlord|landlady|teacher|doctor|ex)"
_SOMEONE_ELSES_THING = re.compile(
    rf"(?i){_SOMEONE}['’]s\s+(?!names?\b|birthday\b)\w"
    rf"|{_SOMEONE}s?\s+(?:also\s+)?(?:has|have|had|owns|got|adopted)\b"
)


def _of_the_user(statement: str) -> bool:
    """The statement is the user's, or names no one else (不对，是上海)."""
    return first_subject(statement).key in ("user", "?")


def _someone_elses_thing(text: str) -> bool:
    """The text speaks of a thing of another person's ("my neighbor's dog", "my sister's
    car", "my neighbor has a dog named Max"), not of that person's name ("my daughter's name
    is Mia")."""
    return _SOMEONE_ELSES_THING.search(text) is not None


def _renames(proposal: Proposal, predicate: str, held: str, value: str) -> bool:
    """The proposal gives a new value in place of `value`, the one a renamable slot holds, and
    sets no slot or that one ("My name is Mia, not Maya." is the user's name, not a new name
    for the daughter Maya: found re-testing, it replaced her)."""
    if not renamable(predicate) or not names(held, value):
        return False
    own = proposal.slot.predicate if proposal.slot is not None else predicate
    if own != predicate and not {own, predicate} <= {f"person:{c}" for c in _CHILDREN}:
        return False
    return renamed(proposal.content, value, whose(predicate)) is not None


def whose(predicate: str) -> frozenset[str]:
    """The words naming whose name a slot holds: "daughter" for person:daughter, "dog" and
    "puppy" for pet:dog."""
    detail = predicate.partition(":")[2]
    kinds = {detail, *_CHILDREN} if detail in _CHILDREN else {detail}
    words = [word for word, kind in (RELATIONS | PETS).items() if kind in kinds and word.isascii()]
    return frozenset([*kinds, *words]) if detail else frozenset()


_CHILDREN = ("child", "daughter", "son")
"""A child is a daughter or a son: "my daughter's name is Mia, not Maya" of "My child is Maya"."""


def renamable(predicate: str) -> bool:
    """A slot whose value a bare "X, not Y" corrects: a name (the user's, a relation's, a
    pet's), the home, the workplace."""
    kind, *detail = predicate.split(":")
    return predicate in ("name", "home", "workplace") or (kind in NAMED and len(detail) == 1)


def _other_person(first: str, second: str) -> bool:
    """True when one statement is about a person the other is not ("my sister lives in
    Lyon, not Paris" never replaces "I live in Paris"); the user's or no one's match a thing's
    ("We use Python 3.12 not 3.11" and "This service targets Python 3.11")."""
    keys = {first_subject(first).key, first_subject(second).key}
    return len(keys) > 1 and not keys <= {"user", "?"}


def _rejects(text: str, value: str) -> bool:
    named = named_in(text)
    return named is not None and value.casefold() in (v.casefold() for v in named.values)


def _about(topic: str, memory: str) -> bool:
    """True when the memory is about `topic`: it holds most of the topic's words, a word
    counted when one begins the other ("force-pushing" and "force-push")."""
    wanted = _terms(topic)
    if not wanted:
        return False
    held = _terms(memory)
    found = sum(1 for word in wanted if any(_same_word(word, other) for other in held))
    return found * 2 > len(wanted)


def _same_word(a: str, b: str) -> bool:
    if a == b:
        return True
    short, long = sorted((a, b), key=len)
    return len(short) >= WORD_PREFIX and long.startswith(short)


_LITTLE_WORD_LIST = """
    the a an our my we i you it is are was this that of to in on at for and or not no
    use uses using used
"""
_LITTLE_WORDS = frozenset(_LITTLE_WORD_LIST.split())


def _terms(text: str) -> set[str]:
    return {term for term in term_set(text) if term not in _LITTLE_WORDS and len(term) > 1}
