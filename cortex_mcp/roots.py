"""The project a tool call is about (#26): the one it names; else the one the client's MCP roots
map to (the first root folder's git repository, or the folder itself); else none. Roots are
deprecated in mcp 2.3 (SEP-2577) but still what Claude Code, Cursor and VS Code send, so they
are asked for once per session, when the client declared them, within a short timeout."""

import warnings
import weakref
from typing import Any
from urllib.parse import unquote, urlparse

import anyio
from mcp import MCPDeprecationWarning, MCPError
from mcp.server.mcpserver import Context

from cortex_mcp.project_names import clean_project, project_of_folder

ROOTS_TIMEOUT_S = 2.0
_asked: "weakref.WeakKeyDictionary[Any, str | None]" = weakref.WeakKeyDictionary()
"""The project each session's roots mapped to (asked once per session)."""


def folder_of(uri: str) -> str | None:
    """The local path of a file:// URI, or None."""
    parsed = urlparse(uri)
    return unquote(parsed.path) if parsed.scheme == "file" and parsed.path else None


async def project_from_roots(ctx: Context[Any]) -> str | None:
    """The project the client's first root folder maps to; None without roots."""
    capabilities = ctx.client_capabilities
    if capabilities is None or capabilities.roots is None:
        return None
    session = ctx.session
    if session in _asked:
        return _asked[session]
    project = None
    with anyio.move_on_after(ROOTS_TIMEOUT_S), warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        try:
            result = await session.list_roots()
        except MCPError:  # a client that declared roots but cannot list them: no project
            result = None
        folders = [folder_of(str(root.uri)) for root in (result.roots if result else [])]
        project = next((project_of_folder(f) for f in folders if f), None)
    _asked[session] = project
    return project


async def current_project(ctx: Context[Any], named: str | None) -> tuple[str | None, bool]:
    """(the project, whether the caller named it)."""
    explicit = clean_project(named)
    if explicit is not None:
        return explicit, True
    return await project_from_roots(ctx), False
