"""The fast channel's reading of a user's message: which statements go to core at once.

A sentence is kept when a high-signal pattern fires on it (identity, preference, decision,
correction, to-do, important) or when it sets a slot (`slots.find_slots`). A sentence that sets
one slot is stored as said, with the slot; one that sets several (我叫王伟，住在上海，做后端开发)
becomes one memory per slot, each a sentence of its own with the original kept as its context,
so a later change of one value replaces only that one.

What is stored is the statement without its conversational wrapper ("Remember that …", "Hi,",
更正一下：, 覚えておいて; `language.wrappers`): the signals are read on the words as said, and
the message itself stays in the conversation log and in the memory's context. A decision that
names only what was chosen ("OK, let's go with PostgreSQL then.") takes what it was chosen for
from the rest of the exchange when it says so.
"""

import re
from collections.abc import Sequence
from dataclasses import replace

from cortex_mcp.engine.ingest.proposal import Proposal
from cortex_mcp.engine.language.lasting import is_lasting
from cortex_mcp.engine.language.lowercase import names_capitalised
from cortex_mcp.engine.language.naming import (
    as_a_word,
    cased_as,
    corrected_values,
    corrections_apart,
    named_in,
    names,
    said_over,
)
from cortex_mcp.engine.language.pasted import own_words
from cortex_mcp.engine.language.patterns import (
    DECISION,
    REMEMBER,
    SIGNALS,
    Signal,
    agrees,
    is_correction,
    reports_decision,
    signal_sentences,
)
from cortex_mcp.engine.language.slots import Slot, find_slots, someone_elses_view, supposed
from cortex_mcp.engine.language.wrappers import unwrapped, with_purpose
from cortex_mcp.models import Category, Layer

SLOT_IMPORTANCE = 0.85
MOST_PER_MESSAGE = 32
"""The most core statements one message gives. A person states a handful of facts at a time
(no LoCoMo dev turn gives more than one; an introduction of seventeen facts lost its last at
16: found re-testing); a message of hundreds is a list or a paste, and its first ones are
kept: 2,000 lines of "I work at Acme" took 5 s to ingest (round twenty). The whole text stays
in the conversation log."""


def fast_statements(message: str, around: Sequence[str] = ()) -> list[Proposal]:
    """Core-memory proposals for the high-signal statements of a user's message, each once and
    at most `MOST_PER_MESSAGE`; `around`: the exchange's other messages, where a bare decision
    may find what it decides."""
    proposals: dict[str, Proposal] = {}  # by statement: one said twice would meet itself
    message = single_spaced(own_words(message))  # not what it pastes for the assistant
    message = names_capitalised(message)  # all in lower case: "i live in st. louis"
    typed_lowercase = message.lstrip()[:1].islower()
    said_before = ""
    for sentence in signal_sentences(message):
        sentence = names_capitalised(sentence)  # "i live in austin": Austin is a name
        if typed_lowercase:
            sentence = cased(sentence)
        for said in corrections_apart(said_over(sentence)):
            for proposal in _sentence_statements(said, around):
                if _corrected_in_place(proposals, proposal):
                    continue
                proposals.setdefault(proposal.content, _of_its_message(proposal, said_before))
        said_before += f" {sentence}"
        if len(proposals) >= MOST_PER_MESSAGE:
            break
    return list(proposals.values())[:MOST_PER_MESSAGE]


def _sentence_statements(sentence: str, around: Sequence[str]) -> list[Proposal]:
    """The proposals one sentence of the user's gives: one per slot it sets, or one for its
    signal when what it says lasts."""
    signal = _signal_of(sentence) or _signal_of(unwrapped(sentence))
    if signal is REMEMBER:  # "Remember: never force-push to main." asks to keep a rule
        signal = _signal_of(unwrapped(sentence)) or REMEMBER
    slots = find_slots(sentence)
    if signal is None and not slots:
        return []  # the common case: nothing to store, nothing to unwrap
    if someone_elses_view(sentence):
        return []  # "My sister thinks I live in Paris": her view, not the user's fact
    if not slots and supposed(sentence):
        return []  # "Pretend I work at Google.": nothing of it is so
    correction = is_correction(sentence)
    statement = unwrapped(sentence)
    if signal is DECISION:
        statement = with_purpose(statement, [m for m in around if m.strip()])
    if len(slots) == 1:
        importance = max(signal.importance if signal else 0.0, SLOT_IMPORTANCE)
        if slots[0].value not in statement:  # read in another case: "my name is carlos"
            statement = slots[0].statement()
        return [_proposal(statement, importance, "slot", correction, slots[0])]
    if slots:
        return [
            _proposal(slot.statement(), SLOT_IMPORTANCE, "slot", correction, slot, sentence)
            for slot in slots
        ]
    if signal is not None and is_lasting(_judged(sentence, statement, signal), signal.name):
        return [_proposal(statement, signal.importance, signal.name, correction, signal.category)]
    return []


def single_spaced(text: str) -> str:
    """The text with each run of spaces, tabs or blank lines as one (found re-testing: a run of
    16,000 spaces cost the wrapper patterns time in the square of its length, 65 s)."""
    return _BLANK_LINES.sub("\n\n", _SPACES.sub(" ", text))


_SPACES = re.compile(r"[^\S\n]{2,}")
_BLANK_LINES = re.compile(r"\n[^\S\n]*(?:\n[^\S\n]*){2,}")


def _corrected_in_place(proposals: dict[str, Proposal], correction: Proposal) -> bool:
    """Apply a correction to the one statement of the same message naming the value it
    replaces: "it's X, not Y" by saying that statement again with X ("I live in Austin. Wait,
    it's Dallas, not Austin." states Dallas: found re-testing, Austin was kept), another by
    taking its place; True when it was applied."""
    if not correction.correction:
        return False
    values = corrected_values(correction.content)
    if values is None:
        return False
    old, new = values
    word = as_a_word(old)
    naming = [key for key, p in proposals.items() if len(word.findall(p.content)) == 1]
    if len(naming) != 1:
        return False
    said = proposals.pop(naming[0])
    if not new:  # no value to say it again with: the correction takes its place
        proposals[correction.content] = correction
        return True
    held = word.search(said.content)
    new = cased_as(new, held.group() if held else old, correction.content.startswith(new))
    slot = said.slot
    if slot is not None and word.search(slot.value):
        slot = slot.revalued(word.sub(new, slot.value, count=1))
    content = word.sub(new, said.content, count=1)
    proposals[content] = replace(said, content=content, slot=slot, correction=True)
    return True


def _of_its_message(proposal: Proposal, said_before: str) -> Proposal:
    """A correction naming a value its own message said before it ("My dentist is on Monday.
    Oh no, it's Tuesday, not Monday.") corrects that message, not a memory (found re-testing:
    it rewrote "The team lunch is on Monday."). One that sets a slot replaces the slot's value
    ("I live in Austin and my office is in Austin. Actually I live in Dallas, not Austin." kept
    Austin in core, Dallas in working memory: found re-testing)."""
    if proposal.slot is not None:
        return proposal  # "… Actually I live in Dallas, not Austin.": the slot says what it sets
    named = named_in(proposal.content) if proposal.correction else None
    if named is None or not any(names(said_before, value) for value in named.values):
        return proposal
    return replace(proposal, extra=proposal.extra | {"corrects": "its message"})


def _signal_of(sentence: str) -> Signal | None:
    """The first signal whose pattern fires on the sentence."""
    return next((s for s in SIGNALS if any(p.search(sentence) for p in s.patterns)), None)


def _judged(sentence: str, statement: str, signal: Signal) -> str:
    """What `is_lasting` reads: the statement an explicit remember asks to keep, whichever
    signal fired ("Remember that I prefer tabs over spaces": the request's own words read as
    advice), and a correction's ("And the billing DB is MySQL 8, not Postgres" is no fragment
    once its "And" is off), else the sentence."""
    asked = any(p.search(sentence) for p in REMEMBER.patterns)
    return statement if asked or signal.name == "correction" else sentence


COMMANDS = frozenset(
    ["npm", "npx", "pnpm", "yarn", "pip", "pipx", "uv", "uvx", "conda", "bun", "pytest", "jest",
     "vitest", "mocha", "webpack", "esbuild", "git", "docker", "kubectl", "cargo", "rustc", "brew",
     "curl", "wget", "ssh", "sudo", "terraform", "helm", "gcc", "node", "deno", "tsc", "eslint",
     "ruff", "mypy"]
)  # fmt: skip
"""Tools written in lowercase wherever they stand: a sentence starting with one keeps it so."""

_LONE_I = re.compile(r"(?<![\w.'’-])i(?=['’](?:m|ve|ll|d)\b|[\s,;:!?]|$)")


def cased(sentence: str) -> str:
    """A sentence of someone who types in lowercase, read as if written in sentence case: its
    first letter and "i" ("i'm", "i've") capitalised ("i prefer tabs over spaces" was taken
    for the middle of a sentence and never kept). Names stay as typed (iPhone too)."""
    sentence = _LONE_I.sub("I", sentence)
    first = next((i for i, c in enumerate(sentence) if c.isalpha()), None)
    if first is None or not sentence[first].islower():
        return sentence
    word = sentence[first:].split(maxsplit=1)[0]
    if any(c.isupper() for c in word):
        return sentence  # a name written so: iPhone, eBay
    if word.rstrip(".,;:!?").casefold() in COMMANDS:
        return sentence  # "npm ci is what CI runs", never "Npm ci"
    return sentence[:first] + sentence[first].upper() + sentence[first + 1 :]


def assistant_decisions(user: str, assistant: str) -> list[Proposal]:
    """Decisions the assistant's reply states, kept only when the user's message agrees to
    them or the sentence reports a decision already made ("We decided to use Redis…"); the
    assistant's other words are left to the LLM, or to the agent."""
    if not assistant.strip():
        return []
    agreed = agrees(user)
    assistant = single_spaced(assistant)
    return [
        replace(
            _proposal(
                unwrapped(sentence), DECISION.importance, "decision", False, DECISION.category
            ),
            source="assistant",
        )
        for sentence in signal_sentences(assistant)
        if any(p.search(sentence) for p in DECISION.patterns)
        and (agreed or reports_decision(sentence))
        and not _HEDGED.search(sentence)
        and is_lasting(sentence, "decision")
    ]


_HEDGED = re.compile(
    r"(?i)(if|whether|might|maybe|perhaps|could|should we|suggest|recommend|consider)"
    r"|如果|要不要|建议|或许|可能|もし|かもしれ|おすすめ|検討"
)


def _proposal(
    content: str,
    importance: float,
    name: str,
    correction: bool,
    kind: Slot | Category,
    context: str = "",
) -> Proposal:
    slot = kind if isinstance(kind, Slot) else None
    extra: dict[str, str] = {"signal": name}
    if context:
        extra["context"] = context  # the sentence a fact of several was one of
    return Proposal(
        content=content,
        category=kind.category if isinstance(kind, Slot) else kind,
        importance=importance,
        layer=Layer.CORE,
        source="user",
        channel="fast",
        confidence=0.9,
        extra=extra,
        slot=slot,
        correction=correction,
    )
