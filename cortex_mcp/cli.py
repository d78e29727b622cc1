"""The `cortex-mcp-server` (alias `cortex-mcp`) command: run the server (stdio by default, or
SSE / streamable HTTP) and a small admin CLI. Settings are loaded here, once, and passed down;
logs go to stderr only. Every start-up problem is one line on stderr and exit code 2; the
traceback only with CORTEX_LOG_LEVEL=DEBUG."""

import argparse
import errno
import io
import json
import logging
import os
import sys
import traceback
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from cortex_mcp.command_line import check_ports, parser
from cortex_mcp.config import (
    LEGACY_HOME,
    Settings,
    config_toml,
    cortex_variables,
    debug_requested,
    empty_home_warning,
    home_is_default,
    load_settings,
    provider_environment,
    settings_markdown,
    unknown_variables,
)
from cortex_mcp.engine.host import EngineHost
from cortex_mcp.errors import ConfigError, CortexError, InvalidInput, StoreUnavailable
from cortex_mcp.late_engine import sole_error
from cortex_mcp.local_socket import hook_settings, serve_local_socket
from cortex_mcp.server import build_server
from cortex_mcp.stdio import serve_stdio
from cortex_mcp.store.home import check_database_file, move_legacy_home, prepare_home
from cortex_mcp.store.names import display_url

if TYPE_CHECKING:  # #28 item 5: a server imports the engine after the MCP handshake
    from cortex_mcp.engine.facade import Engine

TTY_NOTICE = (
    "cortex-mcp: this is an MCP server; it waits for a client's JSON-RPC messages on stdin."
    " Add it to your client (README) instead; Ctrl-C stops it."
)

logger = logging.getLogger("cortex_mcp")


async def purge_command(engine: "Engine", args: argparse.Namespace) -> str:
    """`cortex-mcp purge`: a preview, or with --yes the erasure and its report."""
    if bool(args.ids) == bool(args.matching):
        raise InvalidInput("purge", "give memory ids or --matching TEXT (one of them)")
    if args.matching:
        if args.yes:
            return (await engine.purge_matching(args.matching)).model_dump_json(indent=2)
        return (await engine.preview_purge(args.matching)).model_dump_json(indent=2)
    if not args.yes:
        shown = [json.loads(await engine.memory_json(i, agent_id=args.agent_id)) for i in args.ids]
        said = await engine.preview_purge_messages(args.ids, agent_id=args.agent_id)
        preview = {"would_purge": shown, "messages": said, "confirm": "--yes"}
        return json.dumps(preview, ensure_ascii=False, indent=2)
    report = await engine.purge_report(args.ids, agent_id=args.agent_id)
    return report.model_dump_json(indent=2)


DRIVER_LOGGERS = (
    "aiosqlite",
    "psycopg",
    "httpx",
    "httpcore",
    "openai",
    "anthropic",
    "sse_starlette",
    "mcp",
)
"""Loggers that write data (SQL parameters, request and message bodies) at DEBUG: kept at
WARNING whatever the level, so logs carry cortex's decisions, not memory text."""


def quiet_drivers() -> None:
    """Keep the drivers' loggers above DEBUG and INFO."""
    for name in DRIVER_LOGGERS:
        logging.getLogger(name).setLevel(max(logging.WARNING, logging.getLogger().level))


def run_browse(settings: Settings, args: argparse.Namespace) -> int:
    """Serve the memory browser on 127.0.0.1 until interrupted, and open it."""
    import webbrowser  # the commands load what they use: a server starts with less
    from urllib.parse import urlencode

    from cortex_mcp.browser.host import serve_browser

    def ready(url: str) -> None:
        if args.agent:
            url += "&" + urlencode({"agent": args.agent})
        sys.stdout.write(f"{url}\n")  # alone on stdout, for scripts; the story on stderr
        sys.stdout.flush()
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
    from cortex_mcp.engine.facade import open_engine

    async with open_engine(settings) as engine:
        if args.command == "purge":
            return await purge_command(engine, args)
        if args.command == "export":
            return await engine.export_memory(args.format, include_forgotten=args.include_forgotten)
        if args.command == "import" and args.transcripts:
            from cortex_mcp.hooks.importer import import_transcripts

            return await import_transcripts(
                engine,
                settings.home,
                args.path,
                args.transcripts,
                hook_settings(settings),
                dry_run=args.check,
            )
        if args.command == "import":
            loaded = await engine.import_memory(args.path, strict=args.strict, dry_run=args.check)
            return loaded.model_dump_json(indent=2)
        if args.command == "recall":
            result = await engine.recall(
                args.query,
                max_results=args.max_results,
                agent_id=args.agent_id,
                project=args.project,
            )
            return result.model_dump_json(indent=2) if args.json else result.context
        if args.command == "stats":
            return json.dumps(await engine.stats(), ensure_ascii=False, indent=2, default=str)
        report = await engine.run_lifecycle(dry_run=args.action == "preview")
        return json.dumps(report.brief(), ensure_ascii=False, indent=2)


def overrides_from(args: argparse.Namespace) -> dict[str, Any]:
    """The settings the CLI flags set; a flag the chosen transport cannot use is an error."""
    overrides: dict[str, Any] = {}
    if getattr(args, "host", None):
        overrides["host"] = args.host
    if getattr(args, "port", None) is not None:
        overrides["port"] = args.port
    if overrides and getattr(args, "transport", None) == "stdio":
        flag = "--port" if "port" in overrides else "--host"
        raise ConfigError(
            flag,
            "only sse and streamable-http listen on a port; stdio talks through stdin/stdout",
            "drop it, or add --transport streamable-http",
        )
    return overrides


def provider_warnings(settings: Settings) -> list[str]:
    """One line for an embedding provider chosen by name that cannot be used (no key)."""
    if settings.embedding.provider in ("auto", "none", "local"):
        return []
    from cortex_mcp.providers.build import choose_embedder  # only for a provider named

    embedder, why = choose_embedder(settings.embedding, provider_environment())
    if embedder is not None:
        return []
    needs = why.removeprefix("embedding: ")
    return [f"embedding.provider={needs}; recall is keyword search only until one is set"]


def run_server(settings: Settings, transport: str) -> int:
    """Serve MCP over the chosen transport until interrupted; the exit code."""
    host = EngineHost(settings)
    mcp = build_server(settings, host=host, open_after_handshake=transport == "stdio")
    if transport == "stdio":
        notice = TTY_NOTICE if sys.stdin.isatty() else None
        gate = mcp.gate  # the hooks' socket listens once the engine is open: a store that
        gate.when_open.append(partial(serve_local_socket, mcp, settings))  # fails, writes none
        try:
            return anyio.run(serve_stdio, mcp, notice)
        except BaseExceptionGroup as group:  # the engine failed to open after the handshake
            raise sole_error(group) from None
    from cortex_mcp.remote import HttpTransport, serve_http  # HTTP only: uvicorn stays unloaded

    hooks = partial(serve_local_socket, mcp, settings)  # the hooks reach this server too
    kind: HttpTransport = "sse" if transport == "sse" else "streamable-http"
    anyio.run(serve_http, mcp, host, settings, kind, [hooks])
    return 0


def prepare_store(settings: Settings, open_now: bool = True) -> None:
    """Make the data folder and the database usable before any client connects, or raise a
    one-line error naming what is wrong (a corrupt file is named and left as it is).

    A server (`open_now=False`) opens and migrates the store right after the MCP handshake
    instead (late_engine.py): a store that cannot be opened then ends it with the same line.
    """
    if settings.database.url is not None:  # PostgreSQL: the home keeps config and the mirror
        prepare_home(settings.home, "data folder" if home_is_default() else "CORTEX_HOME")
        if open_now:
            anyio.run(open_and_migrate, settings)
        return
    if home_is_default():
        moved = move_legacy_home(LEGACY_HOME, settings.home, settings.store.filename)
        if moved:
            sys.stderr.write(f"cortex-mcp: {moved}\n")
    prepare_home(settings.home, "data folder" if home_is_default() else "CORTEX_HOME")
    check_database_file(settings.database_path)
    if open_now:
        anyio.run(open_and_migrate, settings)


async def open_and_migrate(settings: Settings) -> None:
    """Open the database and bring its schema up to date, then close it."""
    from cortex_mcp.store.migrations import migrate
    from cortex_mcp.store.select import open_store

    db = await open_store(settings)
    try:
        await migrate(db)
    finally:
        await db.close()


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
    from cortex_mcp.store.output import write_output  # the admin commands' output only

    try:
        if output is not None:
            write_output(output, text.encode("utf-8", "surrogateescape"))
        else:
            write_stdout(text)
    except OSError as err:
        target = output or "stdout"
        sys.stderr.write(f"cortex-mcp: cannot write {target}: {err.strerror or err}\n")
        if output is None:  # nothing more may reach the broken stdout, not even at exit
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return 0


def run(args: argparse.Namespace) -> int:
    """The command the user asked for, once the settings are known."""
    for warning in [*unknown_variables(), empty_home_warning()]:
        if warning:
            sys.stderr.write(f"cortex-mcp: warning: {warning}\n")
    overrides = overrides_from(args)
    settings = load_settings(**overrides)
    for warning in provider_warnings(settings):
        sys.stderr.write(f"cortex-mcp: warning: {warning}\n")
    logging.basicConfig(
        stream=sys.stderr, level=settings.log_level, format="%(asctime)s %(name)s %(message)s"
    )
    quiet_drivers()
    if args.command == "hooks":
        from cortex_mcp.hooks import install as hook_install

        where = Path.cwd() if args.project else None
        act = hook_install.install if args.action == "install" else hook_install.uninstall
        sys.stdout.write(act(args.agent, where) + "\n")
        return 0
    if args.command == "config":
        from cortex_mcp.config_report import config_report

        if args.markdown:
            sys.stdout.write(settings_markdown())
            return 0
        report = config_report(
            settings, cortex_variables(), provider_environment(), config_toml(), overrides
        )
        sys.stdout.write(report)
        return 0
    if args.command in READS_ONLY:
        from cortex_mcp.backup import home_writable  # its store copier: only these commands

        if not home_writable(settings):
            return run_reading(settings, args)  # a read-only home: the store is only read
    try:
        stdio = args.command in (None, "serve") and getattr(args, "transport", "stdio") == "stdio"
        prepare_store(settings, open_now=not stdio)
    except StoreUnavailable as err:
        raise ConfigError(
            f"database {store_name(settings)}", err.cause, "nothing was changed"
        ) from err
    if args.command == "browse":
        return run_browse(settings, args)
    try:
        if args.command in READS_ONLY:
            return run_reading(settings, args)
        if args.command in ("import", "lifecycle", "purge", "recall", "stats"):
            text = anyio.run(admin, settings, args)
            return emit(text if text.endswith("\n") else text + "\n", getattr(args, "output", None))
        return run_server(settings, getattr(args, "transport", "stdio"))
    except InvalidInput as err:
        if err.field != "tools":
            raise
        raise ConfigError("CORTEX_TOOLS", err.rule, "fix or unset the variable") from err
    except StoreUnavailable as err:
        raise ConfigError(
            f"database {store_name(settings)}", err.cause, "the command stopped there"
        ) from err


READS_ONLY = ("export", "backup", "migrate")
"""Commands that only read the configured store: they work from a read-only home."""


def run_reading(settings: Settings, args: argparse.Namespace) -> int:
    """`export`, `backup` or `migrate`, through a snapshot when the home is read-only."""
    from cortex_mcp.backup import backup_store, migrate_command, progress, readable_settings

    try:
        with readable_settings(settings) as readable:
            if args.command == "backup":
                text = anyio.run(backup_store, readable, args.output, progress)
                return emit(text + "\n", None)
            if args.command == "migrate":
                return emit(anyio.run(migrate_command, readable, args) + "\n", None)
            text = anyio.run(admin, readable, args)
        return emit(text if text.endswith("\n") else text + "\n", args.output)
    except StoreUnavailable as err:
        raise ConfigError(
            f"database {store_name(settings)}", err.cause, "the command stopped there"
        ) from err


def store_name(settings: Settings) -> str:
    """The store as a message names it: the file, or the PostgreSQL URL without password."""
    if settings.database.url is None:
        return str(settings.database_path)
    return display_url(settings.database.url.get_secret_value())


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `cortex-mcp-server`, `cortex-mcp` and `python -m cortex_mcp`."""
    args = parser().parse_args(sys.argv[1:] if argv is None else argv)
    try:
        check_ports(args)
        return run(args)
    except CortexError as err:
        if debug_requested():
            traceback.print_exc(file=sys.stderr)
        sys.stderr.write(f"cortex-mcp: {err}\n")
        return 2
    except KeyboardInterrupt:
        return 130
    except Exception as err:  # the top of the program: one line unless debugging
        if debug_requested():
            raise
        sys.stderr.write(
            f"cortex-mcp: unexpected {type(err).__name__}: {str(err).splitlines()[0][:200]}"
            " (CORTEX_LOG_LEVEL=DEBUG shows the traceback)\n"
            if str(err)
            else f"cortex-mcp: unexpected {type(err).__name__}\n"
        )
        return 1
