"""Is this sentence a lasting fact about someone, or chit-chat? The fast channel's last gate.

A pattern firing on a sentence of real dialogue is not enough to write it to core (#23): "I love
it!", "Don't forget to take breaks", "It's actually kind of fun" fire the preference, to-do and
correction patterns and say nothing lasting. This gate reads English sentences only (other
languages pass: their patterns are narrower) and refuses:

- a fragment: fewer than `MIN_WORDS` words, or a sentence that starts in the middle (lower
  case, a leading conjunction);
- a sentence whose fact lost its referent: what is loved, chosen, or a fan of is a pronoun or
  something only the picture shows ("I love how it…", "I love the color", "a huge fan of it");
- a sentence about the other person, not the speaker ("I love your turtles");
- advice and reminders dressed as to-dos ("Don't forget…", "…reminds me of…");
- "actually" and "not just … but" taken for a correction when nothing is corrected.

A slot (name, city, employer…) never reaches this gate: `slots.find_slots` already read it.
"""

import re

from cortex_mcp.engine.language.naming import BARE_CORRECTION

MIN_WORDS = 3
"""Fewer words than this, once the speaker's name is off, is a fragment ("Love it!"; "I prefer
tea." is three and passes; "I love them so much" is refused for its pronoun)."""

_SPEAKER = re.compile(
    r"^\s*(?!(?:Correction|Note|Update|Important|Reminder|Remember|Decision|Todo|TODO|Fact|FYI)\b)"
    r"[A-Z][\w.'-]{0,30}:\s+"
)
_LATIN = re.compile(r"[A-Za-z]")
_NON_LATIN = re.compile(r"[^\x00-\x7f’‘“”–—…]")
_WORD = re.compile(r"[A-Za-z0-9']+")
_MID_SENTENCE = re.compile(r"^(?:[a-z]|(?:And|But|Or|So|Plus|Because)\b)")
_CAPITAL_START = re.compile(r"^[\"'(\[]*[A-Z0-9]")
_CONCRETE = re.compile(r"\d|`|/|(?<=\s)(?!I\b)[A-Z][\w+#.-]*")
"""A number, code, a path or a name after the first word: what an explicit "remember" asks to
keep is a fact to look up, not the speaker's; advice ("Remember that staying positive is very
important", "Remember, just do it!", the only two of the dev turns) names none."""

_STATES_A_FACT = re.compile(
    r"^(?:the |our |all |every |each )?[a-z][\w-]*(?: [a-z][\w-]*)? (?:is|are|go|goes|run|runs|"
    r"live|lives|must|should|need|needs|never|always|get|gets)\b",
    re.IGNORECASE,
)
"""What an explicit "remember that …" asks to keep when it names nothing: a plain statement
about something ("Remember that invoices are numbered per year."; "the prod db is never
migrated on fridays")."""
_ADVICE_CLAIM = re.compile(
    r"^\w+ing (?!is\b|are\b)\w+|\b(?:is|are) (?:\w+ )?(?:important|key|essential|ok|okay|"
    r"fine|normal|good|great|worth it|everything|what matters)\b"
    r"|^(?:just |always )?(?:do|be|take|keep|stay|try)\b"
    r"|^(?:you are|you're|life|everything|nothing|everyone|nobody|people)\b",
    re.IGNORECASE,
)
"""Advice dressed as a remember ("Remember that staying positive is very important",
"Remember, just do it!", the dev turns' only two)."""
_LIKES = r"(?:love|loved|like|liked|enjoy|enjoyed|adore|hate|chose|picked|fan of|favou?rites?)"
_LOST_REFERENT = re.compile(
    rf"\b{_LIKES}\s+(?:it|them|this|that|these|those|how|when|what|seeing|watching|"
    r"the\s+(?!ocean\b)|your|his|her|their|our|its|him|you)\b"
    r"|\b(?:an?|big|huge) fan(?: of (?:it|them|this|that|those|these))?\s*[.!]*\s*$"
    r"|^(?:it|that|this|they|these|those)(?:'s| is| was| are)?\b[^.!]{0,30}\bmy favou?rite\b"
    r"|\blove to\s*[.!]*\s*$"
    r"|^(?:it|this|that)(?:'s| is) why\b",
    re.IGNORECASE,
)
_OBJECT = r"(?P<object>(?:[^,.;!?:\s–—-]+ ?){0,4})"
_STATED_LIKING = tuple(
    re.compile(pattern + _OBJECT)
    for pattern in (
        r"\bI (?:really |also |just |absolutely |totally |truly )?(?:love|like|enjoy|adore)s? "
        r"(?!to\b)",
        r"\bmy favou?rite (?:[a-z-]+ ){0,3}(?:is|was|are) ",
        r"\b(?:[A-Z][\w'-]+ )+(?:is|are) my favou?rite ",
        r"\bI(?:'m| am) an? (?:big |huge |total |real )?(?:[a-z-]+ )?fan\b",
        r"\bI(?:'m| am) an? (?!mix\b|bit\b|little\b|lot\b)",
    )
)
_DEMONSTRATIVE = re.compile(
    r"\b(?:it|them|this|that|these|those|the|some|your|his|her|their|its)\b", re.IGNORECASE
)
_ABOUT_THE_OTHER = re.compile(r"\b(?:your|you're|you've|you)\b", re.IGNORECASE)
_SPEAKER_FACT = re.compile(r"\b(?:I|I'm|I've|my|me|[Ww]e|[Oo]ur|us|[Ll]et'?s)\b")
_LIKING_WORD = re.compile(r"\b(?:love|like|enjoy|adore|hate|fan|favou?rite)\b", re.IGNORECASE)
_POINTING = re.compile(r"\b(?:it|them|this|that|these|those)\b", re.IGNORECASE)
_CHOICE_EXPLAINED = re.compile(
    r"\b(?:chose|picked)\b.*\b(?:it|them|this|that|these|those|because|'?cause)\b", re.IGNORECASE
)
_NAMED = re.compile(r"(?<=\s)(?!I\b)[A-Z][\w+#.-]*")
"""A name after the first word ("I prefer Rust for it"): the fact keeps its object."""
_MIXED = re.compile(r"\bI(?:'m| am) (?:a )?(?:mix|kind|sort) of\b", re.IGNORECASE)
_DEMONSTRATIVE_LATE = re.compile(
    r"\b(?:this|that|those|these|them)\b\W*$|\bthose\b|decided to \w+ (?:\w+ )?(?:this|that|it)\b",
    re.IGNORECASE,
)
_CLAUSE_START = re.compile(
    r"(?:^|[,;:!–—-]\s*|\b(?i:and|but|so|because|cause|since|why|know|think|also|too|yeah|hey|"
    r"really|honestly|now|then|way|time|fact)\s+|\b[A-Z][a-z]+\s+)$"
)
_GERUND_START = re.compile(r"^[A-Z][a-z]+ing\b")
_ADVICE = re.compile(
    r"^(?:just |and |so )?(?:don't forget|do not forget|remember|keep up|make sure|be sure)\b"
    r"|\bremind(?:s|ed) (?:me|us)\b|\bremind (?:me|us) (?:of|why|how|that)\b"
    r"|(?:they|it|these|those) (?:\w+ )?remind\b|\bto remind\b",
    re.IGNORECASE,
)
_FALSE_CORRECTION = re.compile(
    r"\bnot (?:just|only)\b|^(?:\w+: )?(?:yeah|great|yes|well)?,? ?actually\s*[!.]*\s*$"
    r"|\bactually (?:kind of|pretty|really|so)\b|\bactually works?\b|^actually, i (?:just|was)\b"
    r"|\bactually\b[^.!]*\b(?:remembering|yesterday|last (?:week|night|weekend))\b"
    r"|^(?:\w+[,:]? )?i meant [\w'’-]+(?: [\w'’-]+)?[.!]*$",
    re.IGNORECASE,
)
_CHATTY = re.compile(
    r"\b(?:you|your|let me know|so proud|so hard|was such|kind of fun)\b|!\s*$", re.IGNORECASE
)


def is_english(sentence: str) -> bool:
    """True when the sentence is written in Latin script without other scripts."""
    return bool(_LATIN.search(sentence)) and not _NON_LATIN.search(sentence)


def without_speaker(sentence: str) -> str:
    """The sentence without a leading "Name: " (a transcript's speaker label)."""
    return _SPEAKER.sub("", sentence, count=1).strip()


def is_fragment(sentence: str) -> bool:
    """True for a piece of a sentence: too short, or starting in its middle."""
    words = _WORD.findall(sentence)
    if len(words) < MIN_WORDS:
        return True
    return bool(_MID_SENTENCE.match(sentence)) or not _CAPITAL_START.match(sentence)


def states_liking(text: str) -> bool:
    """True when the sentence says what the speaker likes or is, and names it ("I love live
    music", "Harry Potter is my favorite book"), not a pronoun or the picture ("I love the
    color", "a book series that I love")."""
    for found in (m for p in _STATED_LIKING for m in p.finditer(text)):
        if not _CLAUSE_START.search(text[: found.start()]) and found.group(0).startswith("I"):
            continue  # "a job I enjoy": the liking qualifies a noun, it is not the fact
        named = found.group("object") or ""
        words = _WORD.findall(named)
        if (words or found.group(0).rstrip().endswith("fan")) and not _DEMONSTRATIVE.search(named):
            return True
    return False


def is_lasting(sentence: str, signal: str) -> bool:
    """True when a sentence the fast channel's `signal` fired on states a lasting fact about
    the speaker (English only; other languages are not judged here and pass)."""
    if not is_english(sentence):
        return True
    text = without_speaker(sentence)
    if signal == "correction":
        if BARE_CORRECTION.match(text):
            return True  # "No - Boston, not Austin!": what it corrects decides (ingest.verdict)
        return not (is_fragment(text) or _FALSE_CORRECTION.search(text) or _CHATTY.search(text))
    if signal == "rule":  # a convention is about the work, not the speaker (#24's patterns)
        return not is_fragment(text)
    if signal == "remember" and (_CONCRETE.search(text) or _STATES_A_FACT.search(text)):
        return not (is_fragment(text) or _ADVICE_CLAIM.search(text))  # asked to keep it
    if is_fragment(text) or not _SPEAKER_FACT.search(text):
        return False
    if _LOST_REFERENT.search(text) or _ADVICE.search(text):
        return False
    if signal in ("preference", "identity", "decision") and _ABOUT_THE_OTHER.search(text):
        return False
    if signal in ("preference", "identity") and _LIKING_WORD.search(text):
        return states_liking(text)
    if signal in ("preference", "identity") and _MIXED.search(text):
        return False
    if signal in ("preference", "identity") and _POINTING.search(text) and not _NAMED.search(text):
        return False  # "I don't want to let them down": about something unnamed
    if signal == "decision" and _CHOICE_EXPLAINED.search(text):
        return False  # "I chose furniture that…", "I picked this color because…"
    if signal == "decision":
        return not _DEMONSTRATIVE_LATE.search(text)
    if signal == "todo":
        return not (_DEMONSTRATIVE_LATE.search(text) or _GERUND_START.match(text))
    return True
