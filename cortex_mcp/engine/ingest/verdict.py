"""Is it the same fact? The verdict on a proposal: reinforce, supersede, or store it as new.

One definition of "the same fact" (`search.facts`) decides everywhere. Inside the write
transaction, so two processes storing one statement at once store it once:
1. the same statement already live → a duplicate; it reinforces that memory;
2. a slot (subject, predicate) already held → the same value is a duplicate, a new value
   supersedes the holder (chain kept, the higher importance kept); the same value with
   sentences around it that add `SAYS_MORE` content words the holder lacks is stored as a
   memory of its own, without the slot (the holder keeps it): "since I'm lactose intolerant
   I'm trying out dairy-free options … I even made these dairy-free chocolate coconut
   cupcakes" is more than "I'm lactose intolerant";
3. the LLM's verdict, if one was asked for (outside the transaction) and passed the guard:
   an answer that calls memories about different people or things the same is refused;
4. a statement that names the value it replaces ("MySQL 8, not Postgres") or the rule it takes
   back supersedes the live memory naming it (`ingest.replaced`), slot or not;
5. a correction with no slot supersedes the closest live memory about the same subject (the
   same named people, and the user's fact only by the user's: `language.subjects`), when their
   overlap reaches `CORRECTION_OVERLAP` (measured on tests/data/corrections.json);
6. anything else is new.
"""

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from difflib import SequenceMatcher
from typing import Literal

from cortex_mcp.engine.ingest.duplicates import find_duplicate, held_naming
from cortex_mcp.engine.ingest.proposal import Proposal
from cortex_mcp.engine.ingest.replaced import PROJECT_SLOTS, renamable, replaced_by_name, whose
from cortex_mcp.engine.language.answers import llm_object
from cortex_mcp.engine.language.naming import (
    BARE_CORRECTION,
    as_a_word,
    cased_as,
    corrected_values,
    named_in,
    named_with,
    names,
    renamed,
)
from cortex_mcp.engine.language.patterns import sentences_of, without_correction_markers
from cortex_mcp.engine.language.slots import (
    GONE,
    LEFT,
    Slot,
    described,
    find_slots,
    value_key,
)
from cortex_mcp.engine.language.subjects import USER_KEY, same_subject
from cortex_mcp.engine.llm import Ask
from cortex_mcp.models import Category, Layer, Memory
from cortex_mcp.search.facts import difference, names_differ, subjects_differ
from cortex_mcp.search.query import match_expression
from cortex_mcp.search.tokenize import ENGLISH_STOPWORDS, jaccard, term_set
from cortex_mcp.store import conversation, fts
from cortex_mcp.store import memories as rows
from cortex_mcp.store.db import Connection

logger = logging.getLogger(__name__)

CLOSE_CANDIDATES = 3
CLOSE_OVERLAP = 0.25
"""Term overlap from which an existing memory is worth asking the LLM about."""
CORRECTION_OVERLAP = 0.2
"""Term overlap from which a correction with no slot replaces its closest neighbour without an
LLM: the precision-first point of the labelled set (bench/corrections.py)."""
SAYS_MORE = 3
"""Content words a same-value slot statement must add to its holder to be kept on its own."""
SAID_BEFORE = 3
"""The user's messages before a bare correction read for the value it replaces."""
RESPELLED = 0.75
"""How alike (difflib's ratio) a value said again is to the one held to be a respelling of it:
Sarha / Sarah 0.8, Anna / Beth 0, Google / Stripe 0.17."""
SAYS_MORE_OF_SOMEONE = 2
"""Content words a sentence naming a relation held adds about them ("just turned 5")."""
CORRECTION_SIMILARITY = 0.9
"""Cosine similarity (local e5 model) from which a correction replaces its nearest memory when
they share too few words: measured like the overlap (bench/corrections.py)."""

DECIDE_SYSTEM = "You keep a user's long-term memory store consistent. Answer with JSON only."
DECIDE_PROMPT = """A new memory was extracted from a conversation. Decide how it relates to
the existing memories below.

<existing>
{existing}
</existing>
<new>{new}</new>

Answer {{"action": "duplicate" | "update" | "new", "target": <number of the existing memory, or
null>}}.
- duplicate: it says the same as an existing memory, about the same subject, and adds nothing.
- update: the same subject and attribute as an existing memory, but a changed value, a
  correction or a newer state; it replaces that memory.
- new: anything else. Related is not enough: a different person, place, organisation, product,
  date, number or quantity is a different fact."""


@dataclass(frozen=True)
class Verdict:
    """What to do with a proposal: add it, reinforce `target`, or replace `target`; `rule`
    says why, `refused` names an LLM answer the guard turned down, `unslotted` stores it
    without its slot (another memory holds it), `layer` stores it elsewhere than proposed."""

    action: Literal["new", "duplicate", "update"]
    target: Memory | None = None
    rule: str = ""
    refused: str | None = None
    unslotted: bool = False
    layer: Layer | None = None
    """Where a new memory goes instead of the proposal's layer."""
    slot: Slot | None = None
    """The slot the new memory takes over from `target` (a name given in place of its own)."""
    content: str | None = None
    """What the new memory says instead of the proposal's words (`target` said again with the
    value it corrects)."""


def overlap(a: str, b: str) -> float:
    """Term overlap of two texts, ignoring English stopwords."""
    return jaccard(content_terms(a), content_terms(b))


def content_terms(text: str) -> frozenset[str]:
    """The terms `overlap` compares: words and CJK bigrams, English stopwords left out."""
    return term_set(text) - ENGLISH_STOPWORDS


async def close_candidates(
    conn: Connection, text: str, agent_id: str | None, minimum: float
) -> list[tuple[float, Memory]]:
    """The few live memories of the scope that share most terms with `text`, closest first.
    The full-text statement reads the memories whole (`fts.WHOLE`): one read, not a second one
    by id for the nine it ranks."""
    match = match_expression(text)
    if match is None:
        return []
    layers = [Layer.CORE, Layer.WORKING, Layer.ARCHIVE]
    agent = agent_id or ""
    limit = CLOSE_CANDIDATES * 3
    found = await fts.text_rows(conn, match, agent, layers, None, limit, columns=fts.WHOLE)
    terms = content_terms(text)  # once, not once per candidate
    scored = [
        (jaccard(terms, content_terms(m.content)), m)
        for m in (rows.to_memory(row) for row in found)
        if m.agent_id == agent_id
        and m.category != Category.PROFILE
        and m.metadata.get("channel") != "fallback"  # raw stand-ins are replaced by the retry
    ]
    scored = [(score, m) for score, m in scored if score >= minimum]
    scored.sort(key=lambda item: -item[0])
    return scored[:CLOSE_CANDIDATES]


def parse_verdict(answer: str | None, candidates: list[Memory]) -> Verdict | None:
    """The LLM's decision, or None when it cannot be read."""
    document = llm_object(answer)
    if document is None:
        return None
    action = str(document.get("action", "")).strip().lower()
    if action == "new":
        return Verdict("new", rule="llm")
    number = document.get("target")
    if not isinstance(number, int | str) or not str(number).strip().isdigit():
        return None
    index = int(number) - 1
    if not 0 <= index < len(candidates):
        return None
    target = candidates[index]
    if action in ("duplicate", "update"):
        return Verdict("duplicate" if action == "duplicate" else "update", target, "llm")
    return None


def guarded(proposal: Proposal, verdict: Verdict) -> Verdict:
    """The LLM's verdict, or "new" when it calls memories about different people or things
    the same (a duplicate must also have the same numbers)."""
    target = verdict.target
    if target is None or verdict.action == "new":
        return verdict
    differ = names_differ if verdict.action == "duplicate" else subjects_differ
    if differ(proposal.content, target.content) or not same_subject(
        proposal.content, target.content
    ):
        refused = f"llm said {verdict.action} of {target.id}: different subject or value"
        logger.info("refused an LLM %s verdict: different subject or value", verdict.action)
        return Verdict("new", rule="llm answer refused", refused=refused)
    return verdict


async def question_for(
    conn: Connection, proposal: Proposal, agent_id: str | None
) -> tuple[str, list[Memory]] | None:
    """Read-only: the question for the LLM about the closest memories (its prompt and the
    memories it numbers), or None when the rules decide alone (a slot, an exact or
    same-statement duplicate, nothing close)."""
    if proposal.slot is not None:
        return None
    duplicate = await find_duplicate(conn, proposal.content, agent_id)
    if duplicate is not None and not another_project_s(duplicate, proposal):
        return None
    minimum = 0.0 if proposal.correction else CLOSE_OVERLAP
    pool = [m for _, m in await close_candidates(conn, proposal.content, agent_id, minimum)]
    if not pool:
        return None
    existing = "\n".join(f"[{i}] {described(m)}" for i, m in enumerate(pool, start=1))
    return DECIDE_PROMPT.format(existing=existing, new=proposal.content), pool


async def answer_of(
    proposal: Proposal, question: tuple[str, list[Memory]], decide: Ask
) -> Verdict | None:
    """The LLM's guarded verdict on a question (asked outside any transaction: a slow LLM
    must not hold the store), or None."""
    prompt, pool = question
    verdict = parse_verdict(await decide(DECIDE_SYSTEM, prompt), pool)
    return guarded(proposal, verdict) if verdict is not None else None


async def slot_holder(
    conn: Connection, agent_id: str | None, slot: Slot, project: str | None = None
) -> Memory | None:
    """The live memory of the scope that holds this subject's predicate, newest first: a
    person's anywhere, a project's (what it uses) in `project` only."""
    found = await rows.live_with_slot(
        conn, agent_id, slot.subject, slot.predicate, project, in_project=slot.of_a_project
    )
    return found[0] if found else None


async def closest_for_correction(
    conn: Connection,
    proposal: Proposal,
    agent_id: str | None,
    nearby: Sequence[tuple[float, Memory]] = (),
) -> tuple[str, Memory] | None:
    """The live memory a correction with no slot replaces: the closest about the same subject
    by shared words, else by meaning (`nearby`, from the vectors); with why. A correction that
    names the value it replaces replaces only a memory naming it (found re-testing: "Actually
    the admin console listens on port 9090, not 8080." replaced "The metrics exporter listens
    on port 80801.")."""
    text = without_correction_markers(proposal.content)
    named = named_in(proposal.content)
    values = named.values if named is not None else ()

    def replaceable(memory: Memory) -> bool:
        holds = not values or any(names(memory.content, value) for value in values)
        return holds and not _other_subject(text, memory)

    for score, memory in await close_candidates(conn, text, agent_id, CORRECTION_OVERLAP):
        if replaceable(memory):
            return f"correction: closest memory ({score:.2f})", memory
    for similarity, memory in nearby:
        if (
            similarity >= CORRECTION_SIMILARITY
            and memory.category != Category.PROFILE
            and replaceable(memory)
            and await _still_live(conn, memory)
        ):
            return f"correction: nearest in meaning ({similarity:.2f})", memory
    return None


def _other_subject(text: str, memory: Memory) -> bool:
    """The correction is about someone else than the memory (实は、母は… / 東京に住んでいます):
    different names, or one the user's and the other a relation's."""
    return subjects_differ(text, memory.content) or not same_subject(text, memory.content)


async def settle(
    conn: Connection,
    proposal: Proposal,
    agent_id: str | None,
    asked: Verdict | None,
    nearby: Sequence[tuple[float, Memory]] = (),
) -> Verdict:
    """Inside the write transaction: what storing `proposal` does (see the module's rules); a
    memory stating facts the proposal does not replace is never replaced whole."""
    verdict = await _settled(conn, proposal, agent_id, asked, nearby)
    if proposal.extra.get("corrects") == "its message":
        rule = "corrects what its own message said before it"
        return Verdict("new", rule=rule, refused=verdict.refused, layer=Layer.WORKING)
    bare = _bare(proposal)
    if verdict.action == "new" and bare and not await held_naming(conn, bare, agent_id):
        return replace(verdict, layer=Layer.WORKING, rule="a bare correction of nothing held")
    if verdict.action != "update" or verdict.target is None:
        return verdict
    if proposal.slot is not None and proposal.slot.predicate.startswith(GONE):
        return _gone_from(verdict, verdict.target)
    if _of_a_longer_name(verdict.target, proposal):
        rule = f"{verdict.rule}; kept: the value is part of a longer name there"
        return Verdict("new", rule=rule, refused=verdict.refused)
    if bare and await _said_just_before(conn, agent_id, proposal, bare, verdict.target):
        rule = f"{verdict.rule}; kept: it corrects what was said just before"
        return Verdict("new", rule=rule, refused=verdict.refused, layer=Layer.WORKING)
    facts = find_slots(verdict.target.content)  # read once, for the questions below
    corrected = _with_value_changed(verdict, verdict.target, facts, proposal)
    if corrected is not None and (not bare or await held_naming(conn, bare, agent_id) < 2):
        return corrected
    if bare:  # not swapped in (or two memories name it): the memory stays as it is
        rule = f"{verdict.rule}; kept: a bare correction not applied"
        return Verdict("new", rule=rule, refused=verdict.refused, layer=Layer.WORKING)
    kept = other_fact(facts, proposal)
    if kept is None:
        return _taking_over(verdict, verdict.target, facts, proposal)
    rule = f"{verdict.rule}; kept: it also says {kept.predicate} {kept.value}"
    return Verdict("new", rule=rule, refused=verdict.refused)


async def _said_just_before(
    conn: Connection, agent_id: str | None, proposal: Proposal, old: str, target: Memory
) -> bool:
    """A message of the user's since the one `target` was read from (of the last
    `SAID_BEFORE`) named the value a bare correction replaces: "Nope, Dallas, not Austin."
    corrects "Book the flight to Austin.", not the home held from days before, also with a
    "Thanks." between (found re-testing)."""
    exchange = str(proposal.extra.get("exchange_id") or "")
    if not exchange:
        return False
    for said in await conversation.user_messages_before(
        conn, agent_id or "", exchange, SAID_BEFORE
    ):
        if said[0] == target.metadata.get("exchange_id"):
            return False  # back to the statement itself: it corrects that
        if names(said[1], old):
            return True
    return False


def other_fact(facts: list[Slot], proposal: Proposal) -> Slot | None:
    """A fact a memory states (`facts`: the slots of its text) that `proposal` neither replaces
    nor restates: a slot of another attribute than the proposal's, naming no value the
    proposal replaces or says, where the memory states several or the proposal says what it
    replaces. Found re-testing:
    "Actually, my daughter's name is Mia, not Maya." replaced "My wife's name is Priya and we
    have two kids, Maya and Leo." whole, and "I moved to Tallinn." took "I'm Olga and I live in
    Riga." with the name."""
    value = proposal.slot.value if proposal.slot is not None else None
    named = named_with(proposal.content, value, proposal.extra.get("context", ""))
    replaced = named.values if named is not None else ()
    own = [proposal.slot] if proposal.slot is not None else []
    if not own and not replaced and len(facts) < 2:
        return None  # one fact, and a correction that does not say which: it is that one
    own += find_slots(proposal.content)  # "… at BMW as a staff engineer" says a role too

    def covered(fact: Slot) -> bool:
        said = names(proposal.content, fact.value) or any(
            names(fact.value, value) for value in replaced
        )
        return said or any(
            fact.predicate == slot.predicate or names(fact.value, slot.value) for slot in own
        )

    return next((fact for fact in facts if not covered(fact)), None)


def _with_value_changed(
    verdict: Verdict, target: Memory, facts: list[Slot], proposal: Proposal
) -> Verdict | None:
    """For a correction giving one new word for one value ("Actually we use Memcached, not
    Redis.") of a memory that says more than it ("We use Redis for caching and Kafka for
    queues."): `target` said again with the value changed, so the rest of what it says stays
    ("We use Memcached, not Redis, for caching and Kafka for queues."). Found in round
    nineteen's note: Kafka went with Redis, and "No, it's Mia, not Maya." became the memory of
    the daughter in the words of that sentence, which say nothing of whose name it is."""
    values = corrected_values(proposal.content, bare=proposal.slot is None)
    restated = values is None and _restates_the_slot(target, proposal)
    if restated:  # "My wife's name is Sarah." of "My wife is Sarha and we have two kids …"
        values = str(target.metadata.get("value")), proposal.slot.value if proposal.slot else None
    if values is None:
        return None
    old, new = values
    if new is None:
        return None
    if re.search(rf"(?i){re.escape(old)}['’]s\b", new):
        return None  # "It's Maya's teacher, not Maya.": someone of hers, no new name for her
    if _DATE_WORD.fullmatch(new) and not _DATE_WORD.fullmatch(old):
        return None  # "I meant Tuesday, not Jack.": a day is no new name for the son
    old_word = as_a_word(old)
    found = list(old_word.finditer(target.content))
    if len(found) != 1 or _a_date_for_a_name(old, new, target.content, found[0].start()):
        return None
    if not content_terms(target.content) - content_terms(old) - content_terms(proposal.content):
        return None  # it says nothing the correction does not: the correction's words will do
    predicate = str(target.metadata.get("predicate") or "")
    if proposal.slot is not None and proposal.slot.predicate != predicate:
        return None  # the correction sets a fact of its own: stored as said
    start, end = found[0].span()
    held = found[0].group()
    new = cased_as(new, held, proposal.content.startswith(new))
    after = target.content[end:]
    if old[:1].islower() and _A_WORD_IT_DESCRIBES.match(after):
        return None  # "It's blue, not red." of "I love red wine.": red says which wine
    if new[:1].isdigit() and " " in new and after.lstrip().startswith(new.split(" ", 1)[1]):
        new = new.split(" ", 1)[0]  # "3 days, not 2" of "2 days from home": the unit is there
    slot = proposal.slot or next((f for f in facts if f.predicate == predicate), None)
    if slot is not None and names(slot.value, old):  # "Postgres 15" corrected "16, not 15"
        slot = replace(slot.revalued(old_word.sub(new, slot.value, count=1)), beside=False)
    rest = target.content[end:]
    earlier = _EARLIER_CORRECTION.match(rest)  # "Mia, not Maya." corrected again: "Mila, not Mia."
    rest = rest[earlier.end() :] if earlier else rest
    more_precise = new.startswith((held + ",", held + " "))  # "Portland, Maine"
    if restated or more_precise or new[:1].isdigit() or old[:1].isdigit():
        said = new  # "My flight is at 10 am", "My raise was 6% this year."
    elif not held.isascii():
        said = new  # 我住在上海。
    else:
        said = f"{new}, not {held}" + ("," if rest[:1].isspace() else "")
    content = target.content[:start] + said + rest
    rule = f"{verdict.rule}; said again with {new} for {old}"
    return replace(verdict, rule=rule, slot=slot, content=content)


def _restates_the_slot(target: Memory, proposal: Proposal) -> bool:
    """The proposal sets the slot `target` holds, to another value, and says nothing else:
    the memory keeps what else it says with the value changed (found re-testing: "My wife's
    name is Sarah." replaced "My wife is Sarha and we have two kids, Maya (7) and Theo (4)."
    whole, and the children were gone)."""
    slot = proposal.slot
    if slot is None or slot.predicate != target.metadata.get("predicate"):
        return False
    held = str(target.metadata.get("value"))
    if slot.value == held or not slot.value or not _respelled(held, slot.value):
        return False  # "My wife is Beth." is another wife: what the memory says was of Anna
    more = content_terms(target.content) - content_terms(proposal.content) - content_terms(held)
    return len(more) >= SAYS_MORE  # "I live in Austin." says no more than its home


def _respelled(held: str, new: str) -> bool:
    """`new` is `held` spelled another way (Sarha, Sarah), not another value (found re-testing:
    "I work at Stripe." carried "as a PM on the Maps team" over from Google)."""
    return SequenceMatcher(None, held.casefold(), new.casefold()).ratio() >= RESPELLED


def _of_a_longer_name(target: Memory, proposal: Proposal) -> bool:
    """The one word a correction replaces is, in `target`, part of a longer name ("It's Europe,
    not America." of "I work at Bank of America in Charlotte."; "Jefferson, not Lincoln" of
    "Lincoln Elementary"): it names something else there (found re-testing: it was rewritten
    inside the name). A number beside a name is a version of it ("Postgres 15")."""
    named = named_in(proposal.content)
    if named is None or len(named.values) != 1 or not named.values[0][:1].isupper():
        return False
    found = as_a_word(named.values[0]).search(target.content)
    if found is None:
        return False
    before, after = target.content[: found.start()], target.content[found.end() :]
    name = _IN_A_LONGER_NAME_BEFORE.search(before)
    if name is not None and name.start() > 0 and not re.fullmatch(r"I(?:['’]\w+)?", name[1]):
        return True  # "Bank of America"; not "I'm Maya" nor the sentence's first word
    return _IN_A_LONGER_NAME_AFTER.match(after) is not None


def _a_date_for_a_name(old: str, new: str, text: str, start: int) -> bool:
    """A month or a day given for a word that names someone in `text` ("It's June, not May."
    of "My meeting with May is on Friday.": found re-testing, the person was renamed)."""
    if not (_DATE_WORD.fullmatch(old) and _DATE_WORD.fullmatch(new)):
        return False
    return not _BEFORE_A_DATE.search(text[:start])


_DATE_WORD = re.compile(
    r"(?i)(?:mon|tues|wednes|thurs|fri|satur|sun)day|january|february|march|april|may|june|july"
    r"|august|september|october|november|december"
)
_BEFORE_A_DATE = re.compile(
    r"(?i)\b(?:in|on|of|since|until|till|by|from|to|next|last|this|every)\s+$"
)
_A_WORD_IT_DESCRIBES = re.compile(
    r" (?!(?:and|or|but|for|on|in|at|to|with|from|of|by|as|since|until|every|each|this|that|"
    r"is|was|are|were|now|too|then|because|so|which|who|when|where|while)\b)[a-z]"
)
"""A word right after the value that the value describes ("red wine", "tennis shoes")."""
_IN_A_LONGER_NAME_BEFORE = re.compile(r"([A-Z][\w'’-]*)\s+(?:(?:of|de|du|von|van|&)\s+)?$")
_IN_A_LONGER_NAME_AFTER = re.compile(r"\s+(?:(?:of|de|du|von|van|&)\s+)?[A-Z]")


def _bare(proposal: Proposal) -> str | None:
    """The old value a bare correction names ("it's X, not Y" and nothing more), or None."""
    found = BARE_CORRECTION.match(proposal.content) if proposal.slot is None else None
    return found["old"].strip() if found else None


_EARLIER_CORRECTION = re.compile(r",\s*not\s+[\w'-]+(?:,(?=\s))?")


def _taking_over(
    verdict: Verdict, target: Memory, facts: list[Slot], proposal: Proposal
) -> Verdict:
    """The verdict, with the slot of `target` (one of `facts`, its text's) for a proposal of
    none that gives a new name in place of the one it holds ("Sorry, I meant Mia, not Maya.":
    the daughter is Mia now)."""
    if proposal.slot is not None:
        return verdict
    predicate, held = (
        str(target.metadata.get("predicate", "")),
        str(target.metadata.get("value", "")),
    )
    new = None
    if held and predicate.startswith(PROJECT_SLOTS):  # "billing is on MySQL, not Postgres"
        new = renamed(proposal.content, held, None)
    elif held and renamable(predicate):
        new = renamed(proposal.content, held, whose(predicate))
    fact = next((f for f in facts if f.predicate == predicate), None)
    if new is None or fact is None:
        return verdict
    return replace(verdict, slot=replace(fact, value=new, beside=False))


async def _settled(
    conn: Connection,
    proposal: Proposal,
    agent_id: str | None,
    asked: Verdict | None,
    nearby: Sequence[tuple[float, Memory]] = (),
) -> Verdict:
    """The verdict by the module's rules, before a memory of other facts is kept."""
    duplicate = await find_duplicate(conn, proposal.content, agent_id)
    if duplicate is not None and not another_project_s(duplicate, proposal):
        return Verdict("duplicate", duplicate, "same statement")
    if proposal.slot is not None and proposal.slot.predicate == LEFT:
        return await _left(conn, agent_id, proposal.slot)
    if proposal.slot is not None and proposal.slot.predicate.startswith(GONE):
        return await _gone(conn, agent_id, proposal.slot, proposal.content)
    if proposal.slot is not None:
        holder = await slot_holder(conn, agent_id, proposal.slot, proposal.project)
        if holder is not None and proposal.slot.one_of_several:
            holder = await _one_of_several(conn, agent_id, proposal)
            if holder is None:
                return Verdict("new", rule=f"slot {proposal.slot.predicate}: one more of several")
        if holder is None and proposal.slot.predicate == "workplace":
            left = await left_there(conn, agent_id, proposal.slot)
            if left is not None:  # back at an employer the user had left
                return Verdict("update", left, "slot workplace: back at")
        if holder is None:
            named = await replaced_by_name(conn, proposal, agent_id)
            if named is not None:  # "we use Python 3.12 not 3.11": another subject's slot
                return Verdict("update", named[1], named[0])
            return await _same_person(conn, agent_id, proposal.slot) or Verdict(
                "new", rule=f"slot {proposal.slot.predicate}: first value"
            )
        same = holds_value(holder, proposal.slot)
        if same and says_more(proposal.content, holder.content, proposal.slot):
            rule = f"slot {proposal.slot.predicate}: same value, says more"
            return Verdict("new", rule=rule, unslotted=True)
        if not same and proposal.slot.beside and not proposal.correction and _stated(holder):
            # "So my wife Beth …" with Anna held: a name said in passing replaces no name; the
            # sentence is kept without its slot, a statement made of the name alone is not
            rule = f"slot {proposal.slot.predicate}: another name said beside, not stated"
            if proposal.content == proposal.slot.statement():
                return Verdict("duplicate", holder, rule)
            return Verdict("new", rule=rule, unslotted=True)
        action: Literal["duplicate", "update"] = "duplicate" if same else "update"
        kind = "same value" if same else "new value"
        return Verdict(action, holder, f"slot {proposal.slot.predicate}: {kind}")
    if asked is not None and (asked.target is None or await _still_live(conn, asked.target)):
        return asked
    named = await replaced_by_name(conn, proposal, agent_id)
    if named is not None:
        return Verdict("update", named[1], named[0])
    if proposal.correction:
        closest = await closest_for_correction(conn, proposal, agent_id, nearby)
        if closest is not None:
            return Verdict("update", closest[1], closest[0])
    return Verdict("new")


def another_project_s(duplicate: Memory, proposal: Proposal) -> bool:
    """True when the same statement is filed under another project than the one `proposal` is
    said in, and says what a project uses or what it replaces: each project holds its own
    (found: the same correction said in a second project reinforced the first project's and
    left the second's old value live). A person's fact is one fact in every project."""
    filed = duplicate.metadata.get("project")
    if proposal.project is None or filed is None or filed == proposal.project:
        return False
    of_a_project = proposal.slot is not None and proposal.slot.of_a_project
    return of_a_project or named_in(proposal.content) is not None


SAME_PERSON = {
    "person:spouse": ("person:wife", "person:husband", "person:partner"),
    "person:wife": ("person:spouse",),
    "person:husband": ("person:spouse",),
    "person:partner": ("person:spouse",),
}
"""Slots that may name one person twice: "I'm married to Priya" and "My wife is Priya"."""


async def _same_person(conn: Connection, agent_id: str | None, slot: Slot) -> Verdict | None:
    """When another slot of `SAME_PERSON` holds the same name: the vaguer spouse is replaced by
    the wife, husband or partner, and a spouse said after them restates them."""
    for other in SAME_PERSON.get(slot.predicate, ()):
        holder = await slot_holder(conn, agent_id, replace(slot, predicate=other))
        if holder is not None and holds_value(holder, slot):
            action: Literal["duplicate", "update"] = (
                "duplicate" if slot.predicate == "person:spouse" else "update"
            )
            return Verdict(action, holder, f"slot {slot.predicate}: the same person as {other}")
    return None


async def _left(conn: Connection, agent_id: str | None, slot: Slot) -> Verdict:
    """An employer the user left: it replaces the workplace memory holding it ("I left
    Stripe." after "I work at Stripe Inc."); else it is kept as said, without a slot, in the
    working layer (where "I left Paris yesterday" fades: it is no workplace)."""
    holder = await slot_holder(conn, agent_id, replace(slot, predicate="workplace"))
    if holder is not None and _same_firm(holder, slot):
        return Verdict("update", holder, "slot workplace: left")
    return Verdict(
        "new", rule="slot workplace: left, not held", unslotted=True, layer=Layer.WORKING
    )


_SPOUSES = [
    "person:wife", "person:husband", "person:spouse", "person:partner", "person:girlfriend",
    "person:boyfriend", "person:fiance", "person:fiancee",
]  # fmt: skip


async def _gone(conn: Connection, agent_id: str | None, slot: Slot, content: str) -> Verdict:
    """A pet or a person the user has no longer: it replaces the memory naming them ("My dog
    Rex died last week." after "I have a dog named Rex."; "Anna and I got divorced." after
    "My wife is Anna."), the one of its kind when it names none ("My dog died."); else it is
    kept without a slot in the working layer ("Queen Elizabeth died in 2022."). Said without
    the name, it is said with it ("My dad died in March." is "My dad John died in March.":
    found re-testing, the name was no longer in any live memory)."""
    kind = slot.predicate.removeprefix(GONE)
    wanted = {"named": ["pet:", "person:"], "person:spouse": _SPOUSES}.get(kind, [kind])
    held = [
        memory
        for memory in await rows.live_slot_memories(conn, agent_id or "", wanted, 20)
        if memory.agent_id == agent_id
        and memory.metadata.get("subject") == USER_KEY
        and str(memory.metadata.get("predicate", "")).count(":") == 1
    ]
    named = [m for m in held if value_key(str(m.metadata.get("value", ""))) == slot.key]
    unnamed = slot.value[:1].islower()  # "My dog died.": the one dog held, if one
    holder = named[0] if len(named) == 1 else held[0] if unnamed and len(held) == 1 else None
    if holder is None:  # none, or two of that name (an uncle and a dog Rex): which is unknown
        rule = f"slot {kind}: gone, not held"
        return Verdict("new", rule=rule, unslotted=True, layer=Layer.WORKING)
    rule = f"slot {holder.metadata.get('predicate')}: gone"
    if not unnamed:
        return Verdict("update", holder, rule)
    name = str(holder.metadata.get("value", ""))
    said = re.sub(rf"(?i)\b(my {re.escape(slot.value)})\b", rf"\1 {name}", content, count=1)
    return Verdict("update", holder, rule, slot=replace(slot, value=name), content=said)


def _gone_from(verdict: Verdict, target: Memory) -> Verdict:
    """A pet or a person gone replaces the memory naming them, unless it states other facts
    too ("My wife Anna and I have a son, Tom, and a dog named Rex." stays beside "My dog
    died.": the son is no less there)."""
    held = target.metadata.get("predicate")
    if any(fact.predicate != held for fact in find_slots(target.content)):
        return Verdict("new", rule=f"{verdict.rule}; kept: it says more")
    return verdict


async def left_there(conn: Connection, agent_id: str | None, slot: Slot) -> Memory | None:
    """The memory that the user left the employer `slot` names again ("I work at Stripe
    again." after "I left Stripe."), whatever was left since ("I left Google."): the new
    workplace replaces it."""
    held = await rows.live_with_slot(conn, agent_id, slot.subject, LEFT, None)
    return next((memory for memory in held if _same_firm(memory, slot)), None)


_FIRM_SUFFIX = re.compile(r"(?:,? (?:inc|corp|corporation|co|company|ltd|llc|gmbh|plc|ag))+$")


def _same_firm(holder: Memory, slot: Slot) -> bool:
    """True when `holder` holds the employer `slot` names, with or without "Inc." or "Ltd"."""
    held = value_key(str(holder.metadata.get("value", "")))
    return _FIRM_SUFFIX.sub("", held) == _FIRM_SUFFIX.sub("", slot.key)


_ANOTHER = re.compile(
    r"(?i)\b(?:other|another|older|younger|elder|eldest|oldest|youngest|twin)\s+"
    r"(?:son|daughter|brother|sister|kid|child|cat|dog|pet)|另一个|还有一个|もう一人|もう一匹"
)
"""Words that name another one of a relation ("my younger son is Max")."""


_NOT_THIS_ONE_JA = re.compile(
    r"(?:(?<=[はがも、])|^)(?P<v>[A-Za-z0-9][\w.+#-]*|[\u30a0-\u30ff\u4e00-\u9fff]{1,8}?)"
    r"(?:ではなく|じゃなくて|じゃなく)"
)
"""The name a Japanese correction takes back (息子の名前はケンではなくリョウです: ケン). Read here
only, where the relation is known: elsewhere a shared kana pair would be enough for
`replaced_by_name` to take an unrelated memory for the one corrected."""


async def _one_of_several(
    conn: Connection, agent_id: str | None, proposal: Proposal
) -> Memory | None:
    """The memory a statement of a relation the user may have several of (a son, a cat)
    restates or corrects: the one holding its value; for a correction, the one holding the
    value it names ("Actually my son's name is Sam, not Leo": Leo, not the latest son), else
    the latest, unless it names another one of a relation held once ("Actually, my younger
    son is Max" beside Leo); None when it is one more (found re-testing)."""
    assert proposal.slot is not None
    found = await rows.live_with_slot(
        conn, agent_id, proposal.slot.subject, proposal.slot.predicate, None
    )
    same = next((memory for memory in found if holds_value(memory, proposal.slot)), None)
    if same is not None or not proposal.correction or not found:
        return same
    named = named_with(proposal.content, proposal.slot.value, proposal.extra.get("context", ""))
    values = {value_key(value) for value in named.values} if named is not None else set()
    values |= {value_key(found["v"]) for found in _NOT_THIS_ONE_JA.finditer(proposal.content)}
    if values:
        held = [m for m in found if value_key(str(m.metadata.get("value", ""))) in values]
        return held[0] if held else found[0]
    if len(found) == 1 and _ANOTHER.search(proposal.content):
        return None
    return found[0]


def _stated(holder: Memory) -> bool:
    """True when the slot memory `holder` states its value, not names it in passing ("My wife
    is Anna.", not "So my wife Anna …"): a name said beside replaces only one said so (found
    re-testing: "brunch with my mom Mother's Day" stuck, "So my mom Linda …" could not
    replace it)."""
    predicate = holder.metadata.get("predicate")
    return not any(s.beside for s in find_slots(holder.content) if s.predicate == predicate)


def holds_value(holder: Memory, slot: Slot) -> bool:
    """True when the slot memory `holder` holds the value `slot` states."""
    return value_key(str(holder.metadata.get("value", ""))) == slot.key


def says_more(text: str, holder: str, slot: Slot) -> bool:
    """`text` says more than its slot's value restated: its sentences that do not state the
    value add at least `SAYS_MORE` distinct content words to `holder` (one sentence that states
    the value in other words, "I am vegetarian and eat no meat", adds nothing). A relation's
    name is who a sentence is about, not what it says: "My son Leo just turned 5." after
    "My son is Leo." says more in two words (found re-testing: it was taken for the same
    fact, and recall no longer showed it)."""
    value, sentences = slot.value, sentences_of(text)
    if slot.predicate.startswith(("person:", "pet:")):
        rest, enough = [re.sub(re.escape(value), " ", s) for s in sentences], SAYS_MORE_OF_SOMEONE
    else:
        rest, enough = [s for s in sentences if value.casefold() not in s.casefold()], SAYS_MORE
    return len(set(difference(" ".join(rest), holder).only_first)) >= enough


async def _still_live(conn: Connection, memory: Memory) -> bool:
    current = await rows.get_memory(conn, memory.id)
    return current is not None and not current.deleted_at and not current.superseded_by
