"""The profile follows a supersede at once, not at the next nightly run.

When a memory the profile was built from is superseded (or a superseded one restored), the
profile of that agent is re-synthesized from its live sources: by the LLM when one answers,
else plainly, exactly as the lifecycle's profile phase would.
"""

from cortex_mcp.engine.lifecycle.apply import apply_changes
from cortex_mcp.engine.lifecycle.plan import State
from cortex_mcp.engine.lifecycle.profile import SOURCES, plan_profiles
from cortex_mcp.engine.runtime import Runtime
from cortex_mcp.models import Category, Layer
from cortex_mcp.store import memories as rows
from cortex_mcp.store.db import Connection


async def _no_fence(conn: Connection) -> None:
    """A refresh holds no lease: each change still applies only if its rows are unchanged."""


def concerns_profile(categories: set[Category]) -> bool:
    """True when a change to memories of these categories can change a profile."""
    return bool(categories & set(SOURCES))


async def refresh_profile(rt: Runtime, agent: str) -> bool:
    """Re-synthesize the agent's profile if it exists and its sources changed; True if it did."""
    limit = rt.settings.lifecycle.profile_max_memories
    async with rt.db.read() as conn:
        profile = await rows.live_profile(conn, agent)
        if profile is None or profile.agent_id != agent:
            return False
        sources = await rows.live_memories(conn, agent, [Layer.CORE], list(SOURCES), limit)
    now = rt.clock()
    state = State([profile, *sources], now)
    changes = await plan_profiles(state, agent, limit, rt.llm.decider())
    changes = [c for c in changes if c.details.get("agent_id") == agent]
    if not changes:
        return False
    skipped = await apply_changes(rt.db, changes, now, _no_fence, {"trigger": "supersede"})
    return not skipped
