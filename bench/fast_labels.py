"""The fast channel's labelled set (tests/data/fast_channel_labels.jsonl) and how writes are
scored against it; the rules the labels follow are in tests/data/fast_channel_labels.md.

Two kinds of record: `fast_write`, a memory the fast channel wrote over a dev turn, judged
lasting fact or not; `missed_fact`, a sentence of a dev turn the channel did not store, judged
a lasting fact it should have stored. A write is *judged* when a record of either kind names
its conversation and turn and holds the same text (normalised; a write inside a missed fact's
sentence, or the sentence inside the write, of at least four words, takes that record's label).
"""

import json
from dataclasses import dataclass
from pathlib import Path

from bench.locomo_paths import normalise
from cortex_mcp.engine.language.wrappers import unwrapped

LABELS = Path(__file__).resolve().parent.parent / "tests" / "data" / "fast_channel_labels.jsonl"
KINDS = ("fast_write", "missed_fact")
FIELDS = {
    "kind": str,
    "conversation": str,
    "turns": list,
    "speaker": str,
    "text": str,
    "category": str,
    "lasting_fact": bool,
    "reason": str,
}
MIN_OVERLAP_WORDS = 4


class LabelError(ValueError):
    """A record of the labelled file breaks a rule: the message names the line and field."""


@dataclass(frozen=True)
class Label:
    """One judgement: a stored text (or a missed sentence) of a conversation's turn."""

    kind: str
    conversation: str
    turns: tuple[str, ...]
    speaker: str
    text: str
    category: str
    lasting_fact: bool
    reason: str

    def covers(self, conversation: str, turn: str, text: str) -> bool:
        """True when a write of `text` over `turn` is the text this record judged."""
        if conversation != self.conversation or turn not in self.turns:
            return False
        mine, theirs = normalise(self.text), normalise(text)
        if theirs in (mine, normalise(unwrapped(self.text))):
            return True  # as labelled, or without its wrapper ("By the way, …"; #29)
        if self.kind != "missed_fact":
            return False
        shorter = min(mine, theirs, key=len)
        longer = theirs if shorter is mine else mine
        return len(shorter.split()) >= MIN_OVERLAP_WORDS and f" {shorter} " in f" {longer} "


def load_labels(path: Path = LABELS) -> list[Label]:
    """Every record of the file, checked; a bad one raises LabelError naming line and field."""
    labels: list[Label] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path.name} line {number}"
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as err:
            raise LabelError(f"{where}: not JSON ({err.msg})") from err
        if not isinstance(raw, dict):
            raise LabelError(f"{where}: must be a JSON object")
        for name, kind in FIELDS.items():
            if not isinstance(raw.get(name), kind):
                raise LabelError(f"{where}: field {name!r} must be a {kind.__name__}")
        if raw["kind"] not in KINDS:
            raise LabelError(f"{where}: field 'kind' must be one of {', '.join(KINDS)}")
        if not raw["turns"] or not all(isinstance(t, str) and t for t in raw["turns"]):
            raise LabelError(f"{where}: field 'turns' must list one or more dialog ids")
        if not raw["text"].strip() or not raw["reason"].strip():
            raise LabelError(f"{where}: fields 'text' and 'reason' must not be empty")
        if raw["kind"] == "missed_fact" and not raw["lasting_fact"]:
            raise LabelError(f"{where}: a missed_fact record is a lasting fact (true)")
        labels.append(
            Label(
                raw["kind"],
                raw["conversation"],
                tuple(raw["turns"]),
                raw["speaker"],
                raw["text"],
                raw["category"],
                raw["lasting_fact"],
                raw["reason"],
            )
        )
    return labels


def judge(labels: list[Label], conversation: str, turn: str, text: str) -> Label | None:
    """The record that judged this write, or None when none did."""
    return next((label for label in labels if label.covers(conversation, turn, text)), None)
