"""cortex-mcp: long-term memory for AI agents, as a pure MCP server."""

__version__ = "0.1.0"
