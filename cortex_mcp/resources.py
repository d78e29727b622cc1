"""The cortex:// resources: core memory, profile, stats, one memory by id, the entity graph."""

import json

from mcp.server.mcpserver.exceptions import ResourceNotFoundError

from cortex_mcp.engine.host import EngineHost
from cortex_mcp.errors import InvalidInput


class MemoryResources:
    """Reads of the engine a host holds; MCP does not inject a context into static resources."""

    def __init__(self, host: EngineHost) -> None:
        self.host = host

    async def core(self) -> str:
        """Core memory as Markdown grouped by category (same content as MEMORY.md)."""
        return await self.host.engine.core_markdown()

    async def profile(self) -> str:
        """The synthesized user profile, or why there is none yet."""
        return await self.host.engine.profile_markdown()

    async def stats(self) -> str:
        """Counts, database size, backends and recall latency percentiles, as JSON."""
        return json.dumps(await self.host.engine.stats(), ensure_ascii=False, indent=2)

    async def context_prompt(self, agent_id: str | None = None) -> str:
        """Load what cortex-mcp remembers about the user into this conversation."""
        engine = self.host.engine
        profile = await engine.profile_markdown(agent_id=agent_id)
        core = await engine.core_markdown(agent_id=agent_id)
        return (
            "Here is what you remember about me from earlier conversations (cortex-mcp). "
            "Use it when it is relevant; call cortex_recall for anything more specific.\n\n"
            f"{profile}\n{core}"
        )

    async def memory(self, memory_id: str) -> str:
        """One memory with its metadata and supersede chain, as JSON."""
        try:
            return await self.host.engine.memory_json(memory_id)
        except InvalidInput as err:
            raise ResourceNotFoundError(str(err)) from err

    async def relations(self) -> str:
        """The live entity relations, with a Mermaid graph of the top entities, as Markdown."""
        return await self.host.engine.relations_markdown()

    async def entity(self, name: str) -> str:
        """One entity by any of its names: its relations, current and closed, and its
        memories, as JSON."""
        try:
            return await self.host.engine.entity_json(name)
        except InvalidInput as err:
            raise ResourceNotFoundError(str(err)) from err

    async def lifecycle_log(self) -> str:
        """The latest lifecycle runs with their reports, newest first, as JSON."""
        runs = await self.host.engine.lifecycle_log()
        return json.dumps(runs, ensure_ascii=False, indent=2)

    async def working(self, date: str) -> str:
        """One day of working memory (YYYY-MM-DD) as Markdown."""
        try:
            return await self.host.engine.working_markdown(date)
        except InvalidInput as err:
            raise ResourceNotFoundError(str(err)) from err

    async def archive(self, month: str) -> str:
        """One month of the archive (YYYY-MM) with its summary, as Markdown."""
        try:
            return await self.host.engine.archive_markdown(month)
        except InvalidInput as err:
            raise ResourceNotFoundError(str(err)) from err
