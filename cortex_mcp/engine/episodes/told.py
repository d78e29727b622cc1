"""The LLM's goal and outcome of a session, when one is configured: read with the one LLM-JSON
reader; an answer without both is not used (the extractive parts stand)."""

from collections.abc import Awaitable, Callable, Sequence

from cortex_mcp.engine.episodes.actions import one_line
from cortex_mcp.engine.episodes.parts import GOAL_CHARS, OUTCOME_CHARS, Parts, Said
from cortex_mcp.engine.language.answers import llm_object

Ask = Callable[[str, str], Awaitable[str | None]]
TRANSCRIPT_CHARS = 12_000
SYSTEM = "You summarise work sessions for a long-term memory store. Answer with JSON only."
PROMPT = """Here is a work session between a user and an AI agent, with the tools it ran.
Say what the user wanted (goal) and what the session reached (outcome: the result, the fix, the
decision, or what is still failing). One sentence each, in the language the user used; never
translate. Answer {{"goal": "...", "outcome": "..."}}.

<tools>
{tools}
</tools>

<session>
{transcript}
</session>"""


def transcript_of(said: Sequence[Said]) -> str:
    """The session as `role: text` lines, its start and end kept when it is too long."""
    lines = [f"{m.role}: {one_line(m.content, 600)}" for m in said]
    text = "\n".join(lines)
    if len(text) <= TRANSCRIPT_CHARS:
        return text
    half = TRANSCRIPT_CHARS // 2
    return text[:half] + "\n…\n" + text[-half:]


async def told_parts(ask: Ask, said: Sequence[Said], parts: Parts) -> Parts | None:
    """The parts with the LLM's goal and outcome, or None when it gave no usable answer."""
    tools = "\n".join(
        f"{a.tool} {a.params} → {'ok' if a.success else a.error or 'no result'}"
        + (f" (then: {a.decision})" if a.decision else "")
        for a in parts.actions
    )
    answer = llm_object(
        await ask(SYSTEM, PROMPT.format(tools=tools, transcript=transcript_of(said)))
    )
    goal = answer.get("goal") if answer else None
    outcome = answer.get("outcome") if answer else None
    if not (
        isinstance(goal, str) and goal.strip() and isinstance(outcome, str) and outcome.strip()
    ):
        return None
    return Parts(
        goal=one_line(goal, GOAL_CHARS),
        outcome=one_line(outcome, OUTCOME_CHARS),
        actions=parts.actions,
        tools=parts.tools,
        memory_ids=parts.memory_ids,
        started_at=parts.started_at,
        ended_at=parts.ended_at,
        messages=parts.messages,
        summary_by="llm",
    )
