"""The `cortex-mcp` command: run the server (stdio by default, or SSE / streamable HTTP) and a
small admin CLI. Settings are loaded here, once, and passed down; logs go to stderr only."""

import argparse
import json
import logging
import sys
import webbrowser
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import anyio
from pydantic import ValidationError

from cortex_mcp import __version__
from cortex_mcp.browse import serve_browser
from cortex_mcp.config import Settings, load_settings, settings_markdown
from cortex_mcp.engine import open_engine
from cortex_mcp.engine.host import EngineHost
from cortex_mcp.errors import InvalidInput
from cortex_mcp.remote import UnsafeBind, serve_http
from cortex_mcp.server import build_server

logger = logging.getLogger("cortex_mcp")


def parser() -> argparse.ArgumentParser:
    """The command line: `cortex-mcp [serve|config|export|import|lifecycle] ...`."""
    top = argparse.ArgumentParser(
        prog="cortex-mcp", description="Long-term memory for AI agents, as an MCP server."
    )
    top.add_argument("--version", action="version", version=f"cortex-mcp {__version__}")
    commands = top.add_subparsers(dest="command")
    serve = commands.add_parser("serve", help="run the MCP server (default: stdio)")
    serve.add_argument("--transport", choices=["stdio", "sse", "streamable-http"], default="stdio")
    serve.add_argument("--host", help="address for sse/streamable-http (default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port for sse/streamable-http (default 21100)")
    config = commands.add_parser("config", help="print the effective configuration")
    config.add_argument("--markdown", action="store_true", help="print the settings reference")
    export = commands.add_parser("export", help="print all memory (JSON is lossless)")
    export.add_argument("--format", choices=["json", "markdown"], default="json")
    load = commands.add_parser(
        "import",
        help="import a cortex JSON export, a MEMORY.md, YYYY-MM-DD.md daily logs, the MCP "
        "memory server's JSONL, or a folder of them (idempotent)",
    )
    load.add_argument("path", type=Path)
    cycle = commands.add_parser("lifecycle", help="run the lifecycle now, or preview it")
    cycle.add_argument("action", choices=["run", "preview"])
    add_browse_command(commands)
    return top


def add_browse_command(commands: Any) -> None:
    """`cortex-mcp browse`: the memory browser (an MCP App) in a web browser, on 127.0.0.1."""
    browse = commands.add_parser(
        "browse", help="open the memory browser in a web browser (127.0.0.1, one-time token)"
    )
    browse.add_argument(
        "--port", dest="browse_port", type=int, default=0, help="port on 127.0.0.1 (default: any)"
    )
    browse.add_argument("--no-open", action="store_true", help="print the link, open nothing")
    browse.add_argument("--agent", help="open the memory of this agent_id (default: the default)")


def run_browse(settings: Settings, args: argparse.Namespace) -> int:
    """Serve the memory browser on 127.0.0.1 until interrupted, and open it."""

    def ready(url: str) -> None:
        if args.agent:
            url += "&" + urlencode({"agent": args.agent})
        sys.stderr.write(f"cortex-mcp: memory browser at {url}\n")
        sys.stderr.flush()
        if not args.no_open:
            webbrowser.open(url)

    try:
        anyio.run(serve_browser, settings, args.browse_port, ready)
    except KeyboardInterrupt:
        return 0
    except OSError as err:
        sys.stderr.write(f"cortex-mcp: browse: port {args.browse_port}: {err.strerror}\n")
        return 2
    return 0


async def admin(settings: Settings, args: argparse.Namespace) -> str:
    """The admin commands, on the engine in this process (a running server may share the file)."""
    async with open_engine(settings) as engine:
        if args.command == "export":
            return await engine.export_memory(args.format)
        if args.command == "import":
            return (await engine.import_memory(args.path)).model_dump_json(indent=2)
        report = await engine.run_lifecycle(dry_run=args.action == "preview")
        return json.dumps(report.brief(), ensure_ascii=False, indent=2)


def settings_from(args: argparse.Namespace) -> Settings:
    """Settings with the CLI flags on top of the environment and config.toml."""
    overrides: dict[str, Any] = {}
    if getattr(args, "host", None):
        overrides["host"] = args.host
    if getattr(args, "port", None) is not None:
        overrides["port"] = args.port
    return load_settings(**overrides)


def run_server(settings: Settings, transport: str) -> None:
    """Serve MCP over the chosen transport until interrupted."""
    host = EngineHost(settings)
    mcp = build_server(settings, host=host)
    if transport == "stdio":
        mcp.run("stdio")
    elif transport == "sse":
        anyio.run(serve_http, mcp, host, settings, "sse")
    else:
        anyio.run(serve_http, mcp, host, settings, "streamable-http")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `cortex-mcp` and `python -m cortex_mcp`."""
    args = parser().parse_args(sys.argv[1:] if argv is None else argv)
    try:
        settings = settings_from(args)
    except ValidationError as err:
        sys.stderr.write(f"cortex-mcp: invalid configuration:\n{err}\n")
        return 2
    logging.basicConfig(
        stream=sys.stderr, level=settings.log_level, format="%(asctime)s %(name)s %(message)s"
    )
    if args.command == "browse":
        return run_browse(settings, args)
    if args.command == "config":
        text = settings_markdown() if args.markdown else settings.model_dump_json(indent=2)
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        return 0
    try:
        if args.command in ("export", "import", "lifecycle"):
            text = anyio.run(admin, settings, args)
            sys.stdout.write(text if text.endswith("\n") else text + "\n")
            return 0
        run_server(settings, getattr(args, "transport", "stdio"))
    except (UnsafeBind, InvalidInput) as err:
        sys.stderr.write(f"cortex-mcp: {err}\n")
        return 2
    except KeyboardInterrupt:
        return 0
    return 0
