"""`python -m cortex_mcp` runs the same program as the `cortex-mcp` command."""

from cortex_mcp.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
