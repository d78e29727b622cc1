"""The user profile: synthesized from identity, preference, skill and project memories.

The profile is a core memory of category `profile`, one live per agent, read by the sieve to
calibrate extraction (seed 000 §5.2.7). It is re-synthesized when the memories it is made of
change (their ids are fingerprinted), by the LLM or, without one, plainly from the top memories
of each category. What the user wrote by hand (`cortex_profile`, source "manual") is kept in
`metadata.manual` and survives every re-synthesis, ahead of the synthesized part.
"""

import hashlib
from typing import Any

from cortex_mcp.clock import to_text
from cortex_mcp.engine.ingest.proposal import check_content
from cortex_mcp.engine.language.answers import llm_object
from cortex_mcp.engine.lifecycle.plan import Before, Change, Row, State, expecting
from cortex_mcp.engine.llm import Ask
from cortex_mcp.engine.runtime import Runtime
from cortex_mcp.errors import InvalidInput
from cortex_mcp.models import Category, Layer, Memory, derived_id, new_memory_id
from cortex_mcp.store import memories as rows
from cortex_mcp.store.logs import log_action

SOURCES = (Category.IDENTITY, Category.PREFERENCE, Category.SKILL)
"""The user's own memories. Project state is no source: the profile is one per agent and opens
every project's session-start digest, whose own lines list that project's memories; one
project's "this service targets Python 3.11" in another project's digest misleads."""
PLAIN_PER_CATEGORY = 5
PROFILE_SYSTEM = "You synthesize user profiles from memories. Answer with JSON only."
PROFILE_PROMPT = """Based on the following core memories about a user, synthesize a concise user profile.
This profile will be injected into a memory extraction system to help it understand what information is most valuable to this specific user.

<core_memories>
{core_memories_formatted}
</core_memories>

Output a JSON object with these fields:

{{
  "summary": "One paragraph describing who this person is and what they care about",
  "domains": ["domain1", "domain2"],
  "high_value_signals": [
    "descriptions of what type of information is especially valuable for this user"
  ],
  "low_value_signals": [
    "descriptions of what type of information this user probably doesn't need remembered"
  ],
  "language_preferences": "how this user prefers to communicate",
  "active_projects": ["brief descriptions of ongoing projects/activities"]
}}

Be specific and grounded in the actual memories. Do not speculate beyond what the memories show.
Output ONLY valid JSON."""  # noqa: E501 - the seed's prompt, kept verbatim
LIST_FIELDS = ("domains", "high_value_signals", "low_value_signals", "active_projects")


def parse_profile(answer: str | None) -> dict[str, Any] | None:
    """The seed's profile fields from the LLM's answer, or None when it is not usable."""
    document = llm_object(answer)
    if document is None or not str(document.get("summary", "")).strip():
        return None
    profile: dict[str, Any] = {"summary": " ".join(str(document["summary"]).split())}
    for name in LIST_FIELDS:
        values = document.get(name)
        profile[name] = (
            [str(v) for v in values if str(v).strip()] if isinstance(values, list) else []
        )
    profile["language_preferences"] = str(document.get("language_preferences") or "")
    return profile


def plain_profile(sources: list[Memory]) -> dict[str, Any]:
    """Without an LLM: the top memories of each category, in the seed's shape."""
    by_category: dict[Category, list[str]] = {c: [] for c in SOURCES}
    for memory in sources:
        texts = by_category.get(memory.category)
        text = " ".join(memory.content.split())
        if texts is not None and len(texts) < PLAIN_PER_CATEGORY and text not in texts:
            texts.append(text)
    summarised = by_category[Category.IDENTITY][:3] + by_category[Category.PREFERENCE][:2]
    if not summarised:
        summarised = by_category[Category.SKILL][:3]
    return {  # each text once: the summary's are not listed again under their heading
        "summary": "; ".join(summarised),
        "domains": [t for t in by_category[Category.SKILL] if t not in summarised],
        "high_value_signals": [t for t in by_category[Category.PREFERENCE] if t not in summarised],
        "low_value_signals": [],
        "language_preferences": "",
        "active_projects": [],
    }


def profile_text(synthesized: dict[str, Any] | None, manual: str | None) -> str:
    """The profile as the sieve reads it: the user's own words first, then the synthesis."""
    parts = [f"In the user's own words:\n{manual.strip()}"] if manual and manual.strip() else []
    if synthesized:
        lines = [synthesized.get("summary", "")]
        labels = {
            "domains": "Key domains",
            "high_value_signals": "High-value information for this user",
            "low_value_signals": "Low-value information for this user",
            "active_projects": "Active projects",
        }
        for name, label in labels.items():
            if synthesized.get(name):
                lines.append(f"{label}:\n" + "\n".join(f"- {v}" for v in synthesized[name]))
        if synthesized.get("language_preferences"):
            lines.append(f"Language: {synthesized['language_preferences']}")
        parts.append("\n\n".join(line for line in lines if line))
    return "\n\n".join(parts)


def manual_part(profile: Memory | None) -> str | None:
    """What the user wrote into the profile by hand, if anything."""
    if profile is None:
        return None
    manual = profile.metadata.get("manual")
    if manual is None and profile.source == "manual":
        return profile.content
    return str(manual) if manual else None


def profile_sources(state: State, agent: str | None, limit: int) -> list[Row]:
    """The memories an agent's profile is made of, weightiest first."""
    sources = [
        m
        for m in state.in_layer(Layer.CORE)
        if m.category in SOURCES and (m.agent_id == agent or m.agent_id is None)
    ]
    sources.sort(key=lambda m: (m.importance, m.updated_at, m.id), reverse=True)
    return sources[:limit]


def fingerprint(sources: list[Row] | list[Memory]) -> str:
    """Changes exactly when the set of source memories changes (content never changes by id)."""
    return hashlib.sha256("\n".join(sorted(m.id for m in sources)).encode()).hexdigest()[:16]


def profile_agents(state: State, default_agent: str) -> list[str]:
    """Agents with memories to profile: each owner of one, and the default for shared ones."""
    owners = {m.agent_id for m in state.in_layer(Layer.CORE) if m.category in SOURCES}
    agents = {a for a in owners if a is not None}
    if None in owners:
        agents.add(default_agent)
    return sorted(agents)


async def plan_profiles(
    state: State, default_agent: str, limit: int, ask: Ask | None
) -> list[Change]:
    """A new profile for each agent whose source memories changed since its last one (its
    sources' texts read only then)."""
    current = {m.agent_id: m for m in state.in_layer(Layer.CORE) if m.category == Category.PROFILE}
    changes = []
    for agent in profile_agents(state, default_agent):
        rows = profile_sources(state, agent, limit)
        prints = fingerprint(rows)
        previous = current.get(agent)
        if previous is not None and previous.fingerprint == prints:
            continue
        full = await state.full([m.id for m in rows] + ([previous.id] if previous else []))
        sources = [full[m.id] for m in rows if m.id in full]
        synthesized, by = None, "plain"
        if ask is not None:
            listed = "\n".join(f"- {m.category.value}: {m.content}" for m in sources)
            prompt = PROFILE_PROMPT.format(core_memories_formatted=listed)
            synthesized, by = parse_profile(await ask(PROFILE_SYSTEM, prompt)), "llm"
        if synthesized is None:
            synthesized, by = plain_profile(sources), "plain"
        manual = manual_part(full.get(previous.id)) if previous else None
        changes.append(_replace(state, agent, previous, manual, synthesized, by, prints))
    return changes


def _replace(
    state: State,
    agent: str,
    previous: Row | None,
    manual: str | None,
    synthesized: dict[str, Any],
    by: str,
    prints: str,
) -> Change:
    metadata: dict[str, Any] = {"fingerprint": prints, "synthesized": synthesized, "by": by}
    if manual:
        metadata["manual"] = manual
    profile = state.add(new_profile(state, agent, profile_text(synthesized, manual), metadata))
    replaced = [state.changed(previous, superseded_by=profile.id)[1]] if previous else []
    return Change(
        action="profile",
        expect=expecting(*([previous] if previous else [])),
        inserts=[profile],
        updates=replaced,
        details={
            "by": by,
            "agent_id": agent,
            "before": Before(previous.id) if previous else None,
            "after": profile,
        },
    )


def new_profile(state: State, agent: str, content: str, metadata: dict[str, Any]) -> Memory:
    """A live profile memory of an agent."""
    return Memory.fresh(
        id=derived_id(state.now, "profile", agent, str(metadata.get("fingerprint"))),
        agent_id=agent,
        layer=Layer.CORE,
        category=Category.PROFILE,
        content=content,
        source="lifecycle",
        importance=1.0,
        now=state.now,
        metadata=metadata,
    )


async def set_manual_profile(rt: Runtime, content: str, agent_id: str | None = None) -> Memory:
    """Write the user's own words into the profile; they survive every re-synthesis.

    Empty content removes the manual part and keeps the synthesized one.
    """
    agent, now = rt.agent(agent_id), rt.clock()
    manual = check_content(content, rt.settings.memory) if content.strip() else None
    async with rt.db.write() as conn:
        found = await rows.live_profile(conn, agent)
        previous = found if found is not None and found.agent_id == agent else None
        kept = dict(previous.metadata) if previous else {}
        synthesized = kept.get("synthesized")
        if manual is None and not synthesized:
            raise InvalidInput("content", "is empty and there is no synthesized profile to keep")
        metadata = {k: v for k, v in kept.items() if k != "manual"}
        if manual:
            metadata["manual"] = manual
        text = profile_text(synthesized, manual)
        profile = new_profile(State([], now), agent, text, metadata | {"edited": to_text(now)})
        profile = profile.model_copy(
            update={
                "id": new_memory_id(int(now.timestamp() * 1000)),
                "source": "manual" if manual else "lifecycle",
            }
        )
        await rows.insert_memory(conn, profile)
        if previous is not None:
            await rows.mark_superseded(conn, previous.id, profile.id, now)
        details = {"before": manual_part(previous), "after": manual}
        await log_action(conn, "profile_edit", [profile.id], details, now)
    return profile
