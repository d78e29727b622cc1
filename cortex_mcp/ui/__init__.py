"""The built memory browser (an MCP App), one self-contained HTML file; sources in ui/."""
