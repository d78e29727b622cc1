"""The memory browser at the edge: `app` is the MCP App (its `ui://` resource and tools, served
by every cortex-mcp server); `host` is `cortex-mcp browse`, which serves that server with a host
page on 127.0.0.1 for clients that cannot show MCP Apps. `host` sits above the server, `app`
beside the tools, so the package itself holds no code."""
