"""The cortex:// resources: core memory, profile, stats, one memory by id, the entity graph.

Every read answers in one line when it cannot be served: a bad name or id is "not found"; a
store that is down, full or unreadable is `database: <cause>` (the SDK would say only "Error
reading resource" for anything that is not its own ResourceError).
"""

import functools
import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, ParamSpec

from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError

from cortex_mcp.errors import CortexError, InvalidInput
from cortex_mcp.project_names import clean_project

if TYPE_CHECKING:  # #28 item 5: the stdio start imports no engine before the handshake
    from cortex_mcp.engine.host import EngineHost

P = ParamSpec("P")


def one_line(read: Callable[P, Awaitable[str]]) -> Callable[P, Awaitable[str]]:
    """A read whose domain and store errors reach the client as their own one line."""

    @functools.wraps(read)
    async def reading(*args: P.args, **kwargs: P.kwargs) -> str:
        try:
            return await read(*args, **kwargs)
        except InvalidInput as err:
            raise ResourceNotFoundError(str(err)) from err
        except CortexError as err:
            raise ResourceError(str(err).splitlines()[0]) from err

    return reading


class MemoryResources:
    """Reads of the engine a host holds; MCP does not inject a context into static resources."""

    def __init__(self, host: "EngineHost") -> None:
        self.host = host

    @one_line
    async def core(self) -> str:
        """Core memory as Markdown grouped by category (same content as MEMORY.md)."""
        return await self.host.engine.core_markdown()

    @one_line
    async def profile(self) -> str:
        """The synthesized user profile, or why there is none yet."""
        return await self.host.engine.profile_markdown()

    @one_line
    async def stats(self) -> str:
        """Counts, database size, backends and recall latency percentiles, as JSON."""
        return json.dumps(await self.host.engine.stats(), ensure_ascii=False, indent=2)

    @one_line
    async def context_prompt(self, agent_id: str | None = None, project: str | None = None) -> str:
        """Load what cortex-mcp remembers about the user into this conversation (with the
        scratchpad of `project`)."""
        return await self.host.engine.context_markdown(agent_id=agent_id, project=project)

    @one_line
    async def scratchpad(self) -> str:
        """The scratchpad (current focus, open questions, next steps) of no project, as
        Markdown; cortex://scratchpad/{project} is a project's."""
        return await self.host.engine.scratchpad_markdown()

    @one_line
    async def project_scratchpad(self, project: str) -> str:
        """The scratchpad (current focus, open questions, next steps) of a project, as
        Markdown."""
        return await self.host.engine.scratchpad_markdown(project=clean_project(project))

    @one_line
    async def memory(self, memory_id: str) -> str:
        """One memory with its metadata and supersede chain, as JSON."""
        return await self.host.engine.memory_json(memory_id)

    @one_line
    async def episodes(self) -> str:
        """The latest episodes (one per session: goal, outcome, tools, errors), first page, as
        JSON; `cortex://episodes/page/{page}` for the next ones."""
        return await self.host.engine.episodes_json()

    @one_line
    async def episodes_page(self, page: str) -> str:
        """One page (from 1) of the episodes, latest first, as JSON."""
        if not page.isdigit():
            raise InvalidInput("page", "must be a whole number from 1")
        return await self.host.engine.episodes_json(page=int(page))

    @one_line
    async def episode(self, episode_id: str) -> str:
        """One episode with its action nodes (tool, key parameters, result, error, decision)
        and linked memories, as JSON."""
        return await self.host.engine.episode_json(episode_id)

    @one_line
    async def relations(self) -> str:
        """The live entity relations, with a Mermaid graph of the top entities, as Markdown."""
        return await self.host.engine.relations_markdown()

    @one_line
    async def entity(self, name: str) -> str:
        """One entity by any of its names: its relations, current and closed, and its
        memories, as JSON."""
        return await self.host.engine.entity_json(name)

    @one_line
    async def lifecycle_log(self) -> str:
        """The latest lifecycle runs with their reports, newest first, as JSON."""
        runs = await self.host.engine.lifecycle_log()
        return json.dumps(runs, ensure_ascii=False, indent=2)

    @one_line
    async def working(self, date: str) -> str:
        """One day of working memory (YYYY-MM-DD) as Markdown."""
        return await self.host.engine.working_markdown(date)

    @one_line
    async def archive(self, month: str) -> str:
        """One month of the archive (YYYY-MM) with its summary, as Markdown."""
        return await self.host.engine.archive_markdown(month)
