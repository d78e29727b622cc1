"""An episode's parts from a session's logged messages, without an LLM: extractive and honest.

The goal is the user's first request (not a greeting, not a command); the outcome is the last
decision or result the session reached: the latest sentence of the assistant that reports one,
else the last tool result (a failure said as one), else "no decision or result recorded". The
memory's one line says goal, outcome, tools and errors; its search context adds every error
and decision, so a later session asking about the error finds the episode.
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from cortex_mcp.engine.episodes.actions import (
    Action,
    actions_of,
    kept,
    one_line,
    tools_used,
)
from cortex_mcp.engine.language.patterns import (
    DECISION,
    is_small_talk,
    sentences_of,
    signal_sentences,
)
from cortex_mcp.engine.language.slots import find_slots

GOAL_CHARS = 200
OUTCOME_CHARS = 220
LINE_CHARS = 480
CONTEXT_CHARS = 3000
SHORT_CHARS = 60
"""An outcome sentence shorter than this takes the sentence before it along."""
NO_OUTCOME = "no decision or result recorded"
_RESULT_WORDS = re.compile(
    r"\b(?:fixed|fixes|resolved|solved|works|working now|pass(?:es|ed)?|succeeded|done|"
    r"finished|completed|merged|deployed|released|shipped|the cause|root cause|"
    r"turned out)\b|修复|修好|解决|完成|通过|成功|搞定|原因|決定|解決|完了|修正|成功",
    re.IGNORECASE,
)
_COMMAND = re.compile(r"^\s*(?:/\w|!\w|\$ )")
_ASKING = re.compile(
    r"(?i)[?？]|\b(please|can you|could you|would you|help|let's)\b|请|帮|ください"
)
"""A request in a sentence that also introduces ("I'm Dana, please fix the login test.")."""
WHO = frozenset(["name", "home", "workplace", "role"])
"""The slots that say who the user is: a message setting only these introduces them."""


@dataclass(frozen=True)
class Said:
    """One logged message as an episode reads it."""

    role: str
    content: str
    created_at: datetime
    memory_ids: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Parts:
    """What an episode says: goal, outcome, tools, action nodes, linked memories, span."""

    goal: str
    outcome: str
    actions: list[Action]
    tools: list[str]
    memory_ids: list[str]
    started_at: datetime
    ended_at: datetime
    messages: int
    summary_by: str = "extractive"

    def as_json(self) -> dict[str, Any]:
        """The parts as stored in the memory's metadata."""
        return {
            "goal": self.goal,
            "outcome": self.outcome,
            "tools": self.tools,
            "actions": [a.as_json() for a in self.actions],
            "memory_ids": self.memory_ids,
            "started_at": self.started_at.isoformat(),
            "ended_at": self.ended_at.isoformat(),
            "messages": self.messages,
            "summary_by": self.summary_by,
        }

    def line(self) -> str:
        """The episode as recall shows it: one line."""
        text = f"Episode: {self.goal or 'no request recorded'} → {self.outcome}"
        if self.tools:
            text += f" (tools: {', '.join(self.tools[:6])}"
            failed = [a for a in self.actions if a.success is False]
            if failed:
                text += f"; {len(failed)} failed: {failed[0].tool}: {failed[0].error}"
            text += ")"
        return one_line(text, LINE_CHARS)

    def context(self) -> str:
        """Searchable beside the line, never shown: parameters, errors and decisions."""
        lines = [
            " ".join(filter(None, [a.tool, a.params, a.error or "", a.decision or ""]))
            for a in self.actions
        ]
        return one_line(" \n".join(lines), CONTEXT_CHARS)


def goal_of(said: Sequence[Said]) -> str:
    """The user's first request: their first message that is not a greeting or a command,
    without the sentences that only greet or introduce ("hey, my name is Dmitri btw. we're
    building the billing api in this repo" → "we're building the billing api in this repo")."""
    for message in said:
        if message.role != "user" or not message.content.strip():
            continue
        if _COMMAND.match(message.content) or is_small_talk(message.content, ""):
            continue
        sentences = sentences_of(message.content)
        asked = [sentence for sentence in sentences if not _introduces(sentence)]
        if sentences and not asked:
            continue
        return one_line(
            " ".join(asked) if len(asked) < len(sentences) else message.content, GOAL_CHARS
        )
    return ""


def _introduces(sentence: str) -> bool:
    """A sentence that greets, or says only who the user is and asks for nothing."""
    return is_small_talk(sentence, "") or (
        not _ASKING.search(sentence)
        and (slots := find_slots(sentence)) != []
        and all(slot.predicate in WHO for slot in slots)
    )


def outcome_of(said: Sequence[Said], actions: list[Action]) -> str:
    """The last decision or result: the assistant's latest sentence reporting one, else the
    last tool result, else that none was recorded (never merely the last line: a line that
    decides nothing would match every query and answer none, #23)."""
    replies = [m.content for m in said if m.role == "assistant" and m.content.strip()]
    for reply in reversed(replies):
        sentences = signal_sentences(reply)
        for index in range(len(sentences) - 1, -1, -1):
            sentence = sentences[index]
            if _RESULT_WORDS.search(sentence) or any(p.search(sentence) for p in DECISION.patterns):
                start = index
                while start > 0 and len(" ".join(sentences[start : index + 1])) < SHORT_CHARS:
                    start -= 1  # "done and tested." says what only with the sentence before
                return one_line(" ".join(sentences[start : index + 1]), OUTCOME_CHARS)
    if actions and actions[-1].success is not None:
        last = actions[-1]
        state = f"failed: {last.error}" if last.success is False else last.result
        return one_line(f"last step {last.tool}: {state}", OUTCOME_CHARS)
    return NO_OUTCOME


def parts_of(said: Sequence[Said]) -> Parts:
    """The extractive episode of a session's messages (at least one)."""
    actions = actions_of([(m.role, m.content) for m in said])
    linked = [i for m in said for i in m.memory_ids]
    return Parts(
        goal=goal_of(said),
        outcome=outcome_of(said, actions),
        actions=kept(actions),
        tools=tools_used(actions),
        memory_ids=list(dict.fromkeys(linked)),
        started_at=said[0].created_at,
        ended_at=said[-1].created_at,
        messages=len(said),
    )
