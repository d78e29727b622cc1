"""The one door every write of user-supplied text goes through: redact, write, follow up.

Remember, ingest, flush, import, the profile and the browser's hand edit each hand their write
to `write_through`: it builds the agent's cleaner (secrets, and the personal-data kinds the
configuration or the profile declare), lets the use case write with it, then does what every
write needs next: the Markdown mirror is marked dirty, new memories are embedded soon, and a
supersede that concerns the profile refreshes it: at once, or, for a write that must not wait
for an LLM (cortex_ingest) while one would be asked, in the background pass right after.
"""

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar

from cortex_mcp.engine.language.redaction import Cleaner
from cortex_mcp.engine.lifecycle import concerns_profile, refresh_profile
from cortex_mcp.engine.privacy import cleaner_for
from cortex_mcp.engine.runtime import Runtime
from cortex_mcp.models import Category

T = TypeVar("T")


@dataclass(frozen=True)
class Written:
    """What a write stored, for the steps after it."""

    memory_ids: list[str] = field(default_factory=list)
    superseded: list[Category] = field(default_factory=list)
    """The categories of memories that replaced another (or were restored): the profile may
    have to follow."""
    changed: bool = True
    """False when nothing was written (a dry run): nothing follows."""
    profile_later: bool = False
    """The caller must not wait for an LLM (#25 item 4): a profile to redo is left to the
    background pass when an LLM would redo it."""


async def write_through(
    rt: Runtime,
    agent: str,
    write: Callable[[Cleaner], Awaitable[T]],
    written: Callable[[T], Written],
    *,
    also: str = "",
) -> T:
    """Run `write` with the agent's cleaner (`also`: profile words being written now, whose
    declared kinds apply at once), then the steps after it."""
    clean = await cleaner_for(rt, agent, also)
    result = await write(clean)
    await follow_up(rt, agent, written(result))
    return result


async def follow_up(rt: Runtime, agent: str, written: Written) -> None:
    """What every change does next: mirror dirty, embed soon, the profile follows a supersede."""
    if not written.changed:
        return
    rt.mirror.mark_dirty()
    rt.embed_soon(written.memory_ids)
    if not written.superseded or not concerns_profile(set(written.superseded)):
        return
    if written.profile_later and rt.llm.answers_in_background:
        rt.profiles_owed.add(agent)
        rt.wake.set()
    else:
        await refresh_profile(rt, agent)


async def refresh_owed_profiles(rt: Runtime) -> None:
    """In the background pass: redo the profiles that writes left for it."""
    while rt.profiles_owed:
        await refresh_profile(rt, rt.profiles_owed.pop())
