"""The command line's grammar: the subcommands of `cortex-mcp`, their options with the rules
argparse checks, the port rule checked right after them, and their help texts."""

import argparse
import re
from pathlib import Path
from typing import Any

from cortex_mcp import __version__
from cortex_mcp.arguments import AGENT_ID_LIMIT, AGENT_ID_PATTERN
from cortex_mcp.errors import ConfigError
from cortex_mcp.hooks.importer import SOURCES
from cortex_mcp.hooks.install import SETTINGS_FILES

HIGHEST_PORT = 65535


def check_ports(args: argparse.Namespace) -> None:
    """A port given on the command line is one a socket can bind, or ConfigError in one line
    (as `serve --port` is checked by the settings): `browse --port 99999` reached the bind and
    ended as an unexpected OverflowError."""
    port = getattr(args, "browse_port", 0)
    if not 0 <= port <= HIGHEST_PORT:
        rule = "must be less than 65536" if port > HIGHEST_PORT else "must not be negative"
        raise ConfigError("--port", rule, "choose a port from 1 to 65535, or 0 for any")


def parser() -> argparse.ArgumentParser:
    """The command line: `cortex-mcp [serve|config|export|import|lifecycle|...] ...`."""
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
    export.add_argument(
        "--format",
        choices=["json", "markdown"],
        default="json",
        help="json (default): every memory, relation and the conversation log, which `import`"
        " restores exactly; markdown: a page to read (core by category, working by day,"
        " archive by month, relations)",
    )
    export.add_argument(
        "--output", type=Path, help="write to this file, whole or not at all (default: stdout)"
    )
    load = commands.add_parser(
        "import",
        help="import a cortex JSON export, a MEMORY.md, YYYY-MM-DD.md daily logs, the MCP "
        "memory server's JSONL, or a folder of them (idempotent); any other file is refused",
    )
    load.add_argument("path", type=Path)
    load.add_argument("--check", action="store_true", help="validate and count; write nothing")
    load.add_argument("--strict", action="store_true", help="refuse a file with any bad row")
    load.add_argument(
        "--transcripts",
        choices=SOURCES,
        help="PATH holds coding-agent session transcripts: one flush per session",
    )
    consolidate = (
        "consolidate memory now (promote, archive, merge, decay, compress, refresh the"
        " profile and MEMORY.md), or preview what that would do"
    )
    cycle = commands.add_parser("lifecycle", help=consolidate, description=consolidate)
    cycle.add_argument(
        "action",
        choices=["run", "preview"],
        help="run: consolidate now; preview: report what a run would do, changing nothing",
    )
    add_privacy_commands(commands, export)
    add_look_commands(commands)
    add_browse_command(commands)
    add_migrate_command(commands)
    add_hooks_command(commands)
    backup = commands.add_parser(
        "backup",
        help="write the whole store (conversation log included) to one SQLite file; restore"
        " with `migrate --from FILE`",
    )
    backup.add_argument("--output", type=Path, required=True, help="the backup file to write")
    return top


def hooks_files() -> str:
    """Which file `hooks install` changes, per agent."""
    lines = [
        f"  {agent}: {user} (--project: {local})" for agent, (user, local) in SETTINGS_FILES.items()
    ]
    return "\n".join(lines)


def add_hooks_command(commands: Any) -> None:
    """`cortex-mcp hooks install|uninstall AGENT [--project]`: the host hooks."""
    hooks = commands.add_parser(
        "hooks",
        help="add or remove cortex-mcp's hooks in a coding agent's settings",
        description="install: add entries that run cortex-mcp-hook at the agent's session"
        " moments (session start, prompt, reply, compaction, session end: those it has) to the"
        " agent's settings file, keeping everything else in it (the file is created when"
        " missing); uninstall: remove exactly those entries (and a file install created).",
        epilog="The file changed, per agent:\n" + hooks_files(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    hooks.add_argument("action", choices=["install", "uninstall"])
    hooks.add_argument("agent", choices=list(SETTINGS_FILES))
    hooks.add_argument(
        "--project", action="store_true", help="this project's settings, not the user's"
    )


def add_migrate_command(commands: Any) -> None:
    """`cortex-mcp migrate --to postgresql://... | FILE`: copy the whole store to another engine."""
    move = commands.add_parser(
        "migrate",
        help="copy the whole store to PostgreSQL (--to postgresql://...) or to a SQLite file"
        " (--to PATH); resumable, verified by counts and a content hash",
    )
    move.add_argument(
        "--to",
        metavar="URL_OR_FILE",
        dest="target",
        help="copy into here (default with --from: the configured store, e.g. a restore)",
    )
    move.add_argument(
        "--from",
        metavar="URL_OR_FILE",
        dest="source",
        help="copy from here instead of the configured store",
    )


def add_privacy_commands(commands: Any, export: argparse.ArgumentParser) -> None:
    """`purge` and `export --include-forgotten`."""
    export.add_argument(
        "--include-forgotten", action="store_true", help="also export forgotten memories"
    )
    purge = commands.add_parser(
        "purge",
        help="erase memories for good (privacy): by id, or every one containing --matching TEXT;"
        " shows what would go unless --yes",
    )
    purge.add_argument("ids", nargs="*", metavar="ID", help="memory ids to erase")
    purge.add_argument("--matching", metavar="TEXT", help="erase every memory containing TEXT")
    purge.add_argument(
        "--agent-id", type=agent_name, help="the agent the ids belong to (default: the default)"
    )
    purge.add_argument("--yes", action="store_true", help="erase now (without it: a preview)")


MAX_RESULTS = 50


def results_count(text: str) -> int:
    """`recall --max-results`: a whole number from 1 to MAX_RESULTS."""
    try:
        count = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 1 <= count <= MAX_RESULTS:
        raise argparse.ArgumentTypeError(f"{count} is not from 1 to {MAX_RESULTS}")
    return count


def agent_name(text: str) -> str:
    """`--agent-id`: an agent id as the tools take it."""
    if len(text) > AGENT_ID_LIMIT or not re.fullmatch(AGENT_ID_PATTERN, text):
        raise argparse.ArgumentTypeError(
            f"{text[:80]!r} is not an agent id (letters, digits and _ . : @ -, at most"
            f" {AGENT_ID_LIMIT})"
        )
    return text


def add_look_commands(commands: Any) -> None:
    """`recall` and `stats`: what an agent would be told, and what the store holds, from a
    terminal."""
    look = commands.add_parser(
        "recall",
        help="print what cortex_recall answers for QUERY (no query: the core digest); it counts"
        " as a recall, as an agent's does",
    )
    look.add_argument("query", nargs="?", default="", help="what to look for")
    look.add_argument(
        "--max-results",
        type=results_count,
        default=8,
        help=f"memories at most (1 to {MAX_RESULTS}; default 8)",
    )
    look.add_argument("--project", help="this project's memories first")
    look.add_argument(
        "--agent-id", type=agent_name, help="the agent whose memory to read (default: the default)"
    )
    look.add_argument(
        "--json", action="store_true", help="the whole structured result instead of the text"
    )
    commands.add_parser("stats", help="print the store's counts, states and size (JSON)")


def add_browse_command(commands: Any) -> None:
    """`cortex-mcp browse`: the memory browser (an MCP App) in a web browser, on 127.0.0.1."""
    browse = commands.add_parser(
        "browse", help="open the memory browser in a web browser (127.0.0.1, one-time token)"
    )
    browse.add_argument(
        "--port",
        dest="browse_port",
        metavar="PORT",
        type=int,
        default=0,
        help="port on 127.0.0.1 (default: any)",
    )
    browse.add_argument("--no-open", action="store_true", help="print the link, open nothing")
    browse.add_argument("--agent", help="open the memory of this agent_id (default: the default)")
