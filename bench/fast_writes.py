"""Every fast-channel write over the dev conversations' turns, through key-less `cortex_ingest`.

Each turn of a LoCoMo dev conversation goes once as the `user_message` of one exchange (the
fast channel reads the user's side), with the next turn of its session as the
`assistant_message` (empty at a session's end), speaker names kept in the text, `session_id` per
session, the server's clock at the session's date; one store per conversation, no API key. What
comes back in `IngestResult.fast` is a fast-channel write: the turn it came from is the user's
turn, or the assistant's for a decision the reply states.
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp import Client

from bench.locomo import SessionClock, bench_settings, structured
from bench.locomo_data import Sample, Turn
from bench.locomo_paths import normalise, session_id, sessions_of, shift
from cortex_mcp.server import build_server


@dataclass(frozen=True)
class FastWrite:
    """One memory the fast channel wrote (or reinforced) for one exchange."""

    sample_id: str
    dia_id: str
    speaker: str
    content: str
    category: str
    layer: str
    action: str
    source: str

    def key(self) -> tuple[str, str, str]:
        """What a label is attached to: conversation, turn and the stored text."""
        return (self.sample_id, self.dia_id, self.content)


@dataclass(frozen=True)
class Fed:
    """What feeding one conversation's turns produced."""

    writes: list[FastWrite]
    turns: int
    exchanges: int


async def fast_writes(home: Path, sample: Sample) -> Fed:
    """Feed every turn of `sample` to a fresh store at `home`; the fast channel's writes."""
    clock = SessionClock()
    writes: list[FastWrite] = []
    exchanges = 0
    async with Client(build_server(bench_settings(home, "none"), clock)) as client:
        for session in sessions_of(sample):
            name = session_id(sample, session[0].session)
            for at, turn in enumerate(session):
                following = session[at + 1] if at + 1 < len(session) else None
                clock.at = shift(turn, at)
                arguments: dict[str, Any] = {
                    "user_message": turn.line,
                    "assistant_message": following.line if following else "",
                    "session_id": name,
                }
                data = structured(await client.call_tool("cortex_ingest", arguments))
                exchanges += 1
                for memory in data["fast"]:
                    origin = origin_of(memory["content"], turn, following)
                    writes.append(
                        FastWrite(
                            sample.sample_id,
                            origin.dia_id,
                            origin.speaker,
                            memory["content"],
                            memory["category"],
                            memory["layer"],
                            memory["action"],
                            memory["source"],
                        )
                    )
    return Fed(writes, len(sample.turns), exchanges)


def origin_of(content: str, turn: Turn, following: Turn | None) -> Turn:
    """The turn a write came from: the one whose text holds it (the user's turn by default)."""
    text = normalise(content)
    beside = following is not None and text not in normalise(turn.line)
    if beside and following is not None and text in normalise(following.line):
        return following
    return turn
