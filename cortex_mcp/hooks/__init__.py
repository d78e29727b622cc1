"""Host hooks: memory at the moments a coding agent exposes (session start, each prompt, each
finished exchange, before compaction, session end), without the agent having to call a tool.

`entry` is the `cortex-mcp-hook` command. Its hot path imports the standard library only
(an import-linter contract keeps the MCP SDK, pydantic and the engine out): it reaches the
running server over a local Unix socket, speaking MCP JSON-RPC to the same tools.
"""
