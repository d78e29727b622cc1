"""The `cortex-mcp` command: run the server (stdio by default, or SSE / streamable HTTP) and a
small admin CLI. Settings are loaded here, once, and passed down; logs go to stderr only."""

import argparse
import errno
import io
import json
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
from pydantic import ValidationError

from cortex_mcp import __version__
from cortex_mcp.config import Settings, load_settings, settings_markdown
from cortex_mcp.engine import open_engine
from cortex_mcp.engine.host import EngineHost
from cortex_mcp.engine.lifecycle.mirror import write_atomic
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
    export.add_argument(
        "--output", type=Path, help="write to this file, whole or not at all (default: stdout)"
    )
    load = commands.add_parser(
        "import",
        help="import a cortex JSON export, a MEMORY.md, YYYY-MM-DD.md daily logs, the MCP "
        "memory server's JSONL, or a folder of them (idempotent)",
    )
    load.add_argument("path", type=Path)
    load.add_argument("--check", action="store_true", help="validate and count; write nothing")
    load.add_argument("--strict", action="store_true", help="refuse a file with any bad row")
    cycle = commands.add_parser("lifecycle", help="run the lifecycle now, or preview it")
    cycle.add_argument("action", choices=["run", "preview"])
    return top


async def admin(settings: Settings, args: argparse.Namespace) -> str:
    """The admin commands, on the engine in this process (a running server may share the file)."""
    async with open_engine(settings) as engine:
        if args.command == "export":
            return await engine.export_memory(args.format)
        if args.command == "import":
            loaded = await engine.import_memory(args.path, strict=args.strict, dry_run=args.check)
            return loaded.model_dump_json(indent=2)
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


def write_stdout(text: str) -> None:
    """Write all of `text` to stdout, checking every write: Python's buffered stdout can drop
    the error of a write that follows a short one (a nearly full disk) and exit 0."""
    try:
        descriptor = sys.stdout.fileno()
    except (AttributeError, io.UnsupportedOperation):  # a stdout that is no file (tests)
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    sys.stdout.flush()
    data = memoryview(text.encode("utf-8"))
    while data:
        written = os.write(descriptor, data[: 1 << 16])
        if written <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        data = data[written:]


def emit(text: str, output: Path | None) -> int:
    """Write a command's result whole, to `output` (temp file, fsync, rename) or to stdout
    (flushed and checked); on any error, one line and exit status 1."""
    try:
        if output is not None:
            write_atomic(output, text)
        else:
            write_stdout(text)
    except OSError as err:
        target = output or "stdout"
        sys.stderr.write(f"cortex-mcp: cannot write {target}: {err.strerror or err}\n")
        if output is None:  # nothing more may reach the broken stdout, not even at exit
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return 0


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
    if args.command == "config":
        text = settings_markdown() if args.markdown else settings.model_dump_json(indent=2)
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        return 0
    try:
        if args.command in ("export", "import", "lifecycle"):
            text = anyio.run(admin, settings, args)
            return emit(text if text.endswith("\n") else text + "\n", getattr(args, "output", None))
        run_server(settings, getattr(args, "transport", "stdio"))
    except (UnsafeBind, InvalidInput) as err:
        sys.stderr.write(f"cortex-mcp: {err}\n")
        return 2
    except KeyboardInterrupt:
        return 0
    return 0
