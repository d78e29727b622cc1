"""How a LoCoMo conversation reaches the server: by hand, through `cortex_ingest`, through
`cortex_flush`; and the text rule that finds its evidence turns in what `cortex_recall` returns.

Paths (one store per conversation and path, each over the in-process MCP client of the real
server, no API key):

- `remember`: every turn through `cortex_remember` as "speaker: text" with two turns before and
  after as `context` (bench/locomo.py's headline store); `remember-plain`: the same without
  context.
- `ingest`: consecutive turns of a session paired as one exchange, turn 2k as `user_message`
  and turn 2k+1 as `assistant_message` (a session of odd length ends with a user message alone),
  in order, speaker names kept in the text ("Andrew: …"), `session_id` per LoCoMo session.
- `flush`: each session as one `cortex_flush` before the next: its turns in order, `speaker_a`
  as role "user" and `speaker_b` as role "assistant", speaker names kept in the content.

The server's clock is the session's date while a session is stored.

Matching (the same for every path, so their ratios compare like with like): the returned items
are the memories in their order followed by the conversation-log lines in theirs; an item
*holds* a turn when, after normalising both (case folded, every run of non-alphanumerics one
space), the turn's text is inside the item's (a turn of fewer than four words only when the item
is that turn alone, with or without its speaker), or the item's text is inside the turn's and
has at least five words (a memory extracted from the turn stands for it). Evidence recall@k is
the share of a question's evidence turns held by the first k items.
"""

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from mcp import Client

from bench.locomo_data import Sample, Turn

PATHS = ("remember", "remember-plain", "ingest", "flush")
PATH_NOTES = {
    "remember": "every turn by hand with cortex_remember, two turns before and after as context",
    "remember-plain": "every turn by hand with cortex_remember, no context",
    "ingest": "consecutive turns as one exchange through cortex_ingest",
    "flush": "each session as one cortex_flush before the next",
}
MIN_TURN_WORDS = 4
MIN_FRAGMENT_WORDS = 5
_NON_WORD = re.compile(r"[\W_]+")


def normalise(text: str) -> str:
    """Case folded, every run of non-alphanumerics one space, trimmed."""
    return _NON_WORD.sub(" ", text.casefold()).strip()


@dataclass(frozen=True)
class TurnText:
    """A turn's normalised text, with and without its speaker."""

    dia_id: str
    text: str
    line: str

    @classmethod
    def of(cls, turn: Turn) -> "TurnText":
        return cls(turn.dia_id, normalise(turn.text), normalise(turn.line))


def holds(item: str, turn: TurnText) -> bool:
    """True when a returned item (normalised) holds the turn (see the module's rule)."""
    if not turn.text:
        return False
    if item in (turn.text, turn.line):
        return True
    if len(turn.text.split()) >= MIN_TURN_WORDS and f" {turn.text} " in f" {item} ":
        return True
    return len(item.split()) >= MIN_FRAGMENT_WORDS and f" {item} " in f" {turn.text} "


def held_turns(items: Iterable[str], turns: list[TurnText]) -> list[list[str]]:
    """The dialog ids each returned item holds, item by item."""
    return [[t.dia_id for t in turns if holds(normalise(item), t)] for item in items]


def sessions_of(sample: Sample) -> list[list[Turn]]:
    """The sample's turns grouped by session, in order."""
    grouped: dict[int, list[Turn]] = {}
    for turn in sample.turns:
        grouped.setdefault(turn.session, []).append(turn)
    return [grouped[number] for number in sorted(grouped)]


def session_id(sample: Sample, session: int) -> str:
    return f"{sample.sample_id}-session-{session}"


@dataclass
class Stored:
    """What one path wrote while a conversation was fed to it."""

    calls: int = 0
    fast: list[dict[str, Any]] = field(default_factory=list)


async def feed(
    client: Client,
    structured: Callable[[Any], dict[str, Any]],
    sample: Sample,
    path: str,
    context_of: Callable[[list[Turn], int, str], str | None],
    set_clock: Callable[[Turn, int], None],
) -> tuple[dict[str, list[str]], Stored]:
    """Send the conversation through `path`; memory id → dialog ids (remember paths only) and
    what was stored."""
    owners: dict[str, list[str]] = {}
    stored = Stored()
    if path.startswith("remember"):
        variant = "prev2+next2" if path == "remember" else "plain"
        for index, turn in enumerate(sample.turns):
            set_clock(turn, index)
            arguments: dict[str, Any] = {
                "content": turn.line,
                "tags": [f"session:{turn.session}", f"date:{turn.said_at.date().isoformat()}"],
            }
            context = context_of(sample.turns, index, variant)
            if context:
                arguments["context"] = context
            data = structured(await client.call_tool("cortex_remember", arguments))
            owners.setdefault(data["id"], []).append(turn.dia_id)
            stored.calls += 1
        return owners, stored
    index = 0
    for session in sessions_of(sample):
        name = session_id(sample, session[0].session)
        if path == "flush":
            set_clock(session[0], index)
            index += len(session)
            messages = [{"role": role_of(sample, t), "content": t.line} for t in session]
            structured(
                await client.call_tool("cortex_flush", {"messages": messages, "session_id": name})
            )
            stored.calls += 1
            continue
        for start in range(0, len(session), 2):
            pair = session[start : start + 2]
            set_clock(pair[0], index)
            index += len(pair)
            arguments = {
                "user_message": pair[0].line,
                "assistant_message": pair[1].line if len(pair) > 1 else "",
                "session_id": name,
            }
            data = structured(await client.call_tool("cortex_ingest", arguments))
            stored.fast += [{**m, "dia_id": pair[0].dia_id} for m in data["fast"]]
            stored.calls += 1
    return owners, stored


def role_of(sample: Sample, turn: Turn) -> str:
    """The flush role of a turn: the conversation's first speaker is the user."""
    first = sample.turns[0].speaker
    return "user" if turn.speaker == first else "assistant"


def shift(turn: Turn, index: int) -> Any:
    """The moment a turn is stored: its session's time plus one second per turn before it."""
    return turn.said_at + timedelta(seconds=index)
