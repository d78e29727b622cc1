"""The deep channel's prompt (seed 000, §5.2.4) and a parser of the LLM's answer that never raises.

Local models return fenced JSON, trailing commas, unknown categories and importance of 7 out of
10; each item is repaired where its meaning is clear and dropped where it is not, so one bad
item never costs the others.
"""

from typing import Any, Literal

from pydantic import BaseModel, ValidationError, field_validator

from cortex_mcp.engine.language.answers import llm_json
from cortex_mcp.engine.language.triples import Triple, repaired_triples
from cortex_mcp.models import Category

EXTRACTION_CATEGORIES = [
    "identity",
    "preference",
    "decision",
    "fact",
    "insight",
    "todo",
    "correction",
    "skill",
    "relationship",
    "project_state",
    "rule",
]

SYSTEM_PROMPT = """You are a memory extraction engine for an AI assistant.
Your job is to analyze a conversation exchange and extract information worth remembering for future conversations.

IMPORTANT PRINCIPLES:
1. Think like a skilled personal assistant who has been working with this person for years.
   Ask yourself: "If this person comes back tomorrow with a related question, what from today's conversation would help me serve them better?"

2. Extract from BOTH the user's messages AND the assistant's responses.
   - User messages reveal: preferences, goals, constraints, knowledge level, context
   - Assistant responses reveal: conclusions, calculations, recommendations, explanations that took effort to produce

3. DO NOT limit extraction to "personal information". Valuable memories include:
   - Factual conclusions reached through analysis (e.g., "actual yield is 4.2% after fees")
   - User's reactions to suggestions (accepted/rejected/modified → reveals preferences)
   - Technical configurations that were debugged together
   - Domain-specific knowledge the user demonstrated or learned
   - Evolving understanding of a topic across the conversation
   - Unresolved questions or next steps

4. Each extracted memory should be SELF-CONTAINED — understandable without the original conversation.
   Bad:  "discussed yield calculation"
   Good: "品川区1LDK物件：表面利回5%，管理费月1.2万日元，实际利回约4.2%"

5. Output 0 items if the exchange is genuinely not worth remembering (pure small talk, greetings, etc.)

6. LANGUAGE: write every memory in the language the user used in this exchange. A Chinese exchange
   gives Chinese memories, a Japanese one Japanese, mixed stays mixed. NEVER translate memories
   into English; keep names, numbers and technical terms exactly as written.

CATEGORIZE each memory into exactly one type."""

USER_PROMPT = """Analyze this conversation exchange and extract memories worth keeping.

<exchange>
<user>{user_message}</user>
<assistant>{assistant_message}</assistant>
</exchange>

For each memory worth extracting, output a JSON object with these fields:

{{
  "memories": [
    {{
      "content": "Self-contained description of what to remember",
      "category": "one of: identity | preference | decision | fact | insight | todo | correction | skill | relationship | project_state | rule",
      "importance": 0.0-1.0,
      "source": "user | assistant | both",
      "reasoning": "Brief explanation of why this is worth remembering (for debugging, not stored)",
      "relations": [{{"subject": "who or what", "predicate": "short verb phrase", "object": "who or what"}}]
    }}
  ]
}}

CATEGORY GUIDE:
- identity: Who the user is, their role, location, background
- preference: Likes, dislikes, style preferences, communication preferences
- decision: Choices made, options selected, commitments
- fact: Verified information, calculation results, research findings
- insight: User's opinions, analyses, comparisons, evaluations
- todo: Pending actions, things to follow up on, reminders
- correction: Something previously believed wrong that was corrected
- skill: User's expertise level, tools they know, languages they speak
- relationship: People, companies, properties, assets the user is connected to
- project_state: Current status of ongoing projects, where things left off
- rule: A convention or constraint to follow (must / never / always, 必须 / 禁止, 必ず / 禁止)

RELATIONS (optional): the links between named people, pets, places, organisations and things
this memory states, e.g. {{"subject": "Wang Wei", "predicate": "works at", "object": "Globex"}};
"user" for the user. Names as written, never translated; leave it out when there are none.

IMPORTANCE GUIDE:
- 0.9-1.0: Core identity, strong preferences, major decisions (rare)
- 0.7-0.8: Important facts, active project states, verified conclusions
- 0.5-0.6: Useful context, opinions, comparisons
- 0.3-0.4: Minor details, transient context
- 0.1-0.2: Barely worth keeping, but might be useful in aggregate

Write each memory in the user's language; never translate.
Output ONLY valid JSON, no other text."""

TRANSCRIPT_PROMPT = """Analyze this part of a conversation (it is about to be removed from the
assistant's context window) and extract every memory worth keeping, exactly as you would for a
single exchange: the user's facts, preferences, decisions and corrections, and the assistant's
conclusions, calculations and solutions.

<conversation>
{transcript}
</conversation>

Answer with the same JSON shape: {{"memories": [{{"content", "category", "importance", "source",
"reasoning", "relations"}}]}}, categories and importance as above. Write each memory in the language the user
used; never translate. Output ONLY valid JSON."""

PROFILE_SECTION = """

CONTEXT ABOUT THIS USER (auto-generated from past memories, use to calibrate extraction):
{profile}"""

INSTRUCTIONS_SECTION = """

ADDITIONAL INSTRUCTIONS FROM THE USER'S CONFIGURATION:
{instructions}"""

CATEGORY_ALIASES = {
    "preferences": "preference",
    "like": "preference",
    "dislike": "preference",
    "facts": "fact",
    "knowledge": "fact",
    "conclusion": "fact",
    "calculation": "fact",
    "opinion": "insight",
    "analysis": "insight",
    "task": "todo",
    "todos": "todo",
    "reminder": "todo",
    "action_item": "todo",
    "next_step": "todo",
    "fix": "correction",
    "skills": "skill",
    "expertise": "skill",
    "person": "relationship",
    "people": "relationship",
    "entity": "relationship",
    "project": "project_state",
    "project state": "project_state",
    "status": "project_state",
    "choice": "decision",
    "decisions": "decision",
    "profile": "identity",
    "personal": "identity",
}


IMPORTANCE_WORDS = {"critical": 0.95, "high": 0.8, "medium": 0.5, "normal": 0.5, "low": 0.3}


class ExtractedMemory(BaseModel):
    """One memory the LLM proposed, after repair."""

    content: str
    category: Category
    importance: float = 0.5
    source: Literal["user", "assistant", "both"] = "both"
    relations: list[Triple] = []

    @field_validator("content")
    @classmethod
    def _content_is_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("empty")
        return " ".join(value.split()) if "\n" not in value else value.strip()

    @field_validator("category", mode="before")
    @classmethod
    def _known_category(cls, value: Any) -> Any:
        name = str(value).strip().lower().replace("-", "_")
        name = CATEGORY_ALIASES.get(name, name)
        if name not in EXTRACTION_CATEGORIES:
            raise ValueError(f"unknown category {value!r}")
        return name

    @field_validator("importance", mode="before")
    @classmethod
    def _importance_in_range(cls, value: Any) -> float:
        try:
            number = float(value)
        except (TypeError, ValueError):
            return IMPORTANCE_WORDS.get(str(value).strip().lower(), 0.5)
        if number != number:  # NaN
            return 0.5
        if number > 1 and number <= 10:
            number /= 10  # "7" on a 0-10 scale
        return min(1.0, max(0.0, number))

    @field_validator("relations", mode="before")
    @classmethod
    def _readable_relations(cls, value: Any) -> list[Triple]:
        return repaired_triples(value)

    @field_validator("source", mode="before")
    @classmethod
    def _known_source(cls, value: Any) -> str:
        name = str(value).strip().lower()
        return name if name in ("user", "assistant", "both") else "both"


def user_prompt(user_message: str, assistant_message: str, profile: str | None, extra: str) -> str:
    """The user prompt for one exchange, calibrated with the profile and configured extras."""
    prompt = USER_PROMPT.format(user_message=user_message, assistant_message=assistant_message)
    return prompt + calibration(profile, extra)


def transcript_prompt(transcript: str, profile: str | None, extra: str) -> str:
    """The user prompt for a batch of messages being flushed before compaction."""
    return TRANSCRIPT_PROMPT.format(transcript=transcript) + calibration(profile, extra)


def calibration(profile: str | None, extra: str) -> str:
    """The profile and the configured additional instructions, appended to a prompt."""
    text = PROFILE_SECTION.format(profile=profile) if profile else ""
    return text + (INSTRUCTIONS_SECTION.format(instructions=extra) if extra.strip() else "")


def parse_extraction(text: str) -> list[ExtractedMemory]:
    """The valid memories in an LLM answer; anything unreadable is dropped, nothing raises."""
    document = llm_json(text)
    if isinstance(document, dict):
        items = document.get("memories", [])
    elif isinstance(document, list):
        items = document
    else:
        return []
    if not isinstance(items, list):
        return []
    memories: list[ExtractedMemory] = []
    for item in items:
        if isinstance(item, dict):
            try:
                memories.append(ExtractedMemory.model_validate(item))
            except (ValidationError, ValueError, TypeError):
                continue
    return memories


def is_parseable(text: str) -> bool:
    """True when the answer is JSON with a memories list (possibly empty)."""
    document = llm_json(text)
    return isinstance(document, list) or (
        isinstance(document, dict) and isinstance(document.get("memories", []), list)
    )
