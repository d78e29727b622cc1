"""Where the hooks keep things, all under <home>/hooks: the socket, published settings,
per-session state and the spool. Standard library only (the hook command's hot path)."""

from __future__ import annotations

import json
import os
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

HOOKS_NAME = "hooks"
SOCKET_NAME = "cortex.sock"
PUBLISHED_NAME = "settings.json"
FALLBACK_SETTINGS: dict[str, Any] = {
    "session_start_tokens": 400,
    "prompt_tokens": 300,
    "relevance_floor": 0.95,
    "shared_words": 2,
    "recent_messages": 2,
    "tool_result_chars": 2000,
    "max_message_chars": 32_000,
    "session_start": True,
    "prompt": True,
    "stop": True,
    "pre_compact": True,
    "session_end": True,
    "tools": [],
}
"""What the hook uses before any server has published its settings (a test keeps these equal
to what a server with default settings publishes: `HooksSettings`, the message limit, and
`tools`, the tools CORTEX_TOOLS exposes, none named meaning all)."""


def default_home_folder() -> str:
    """The platform's data folder for cortex-mcp, as `cortex_mcp.config.DEFAULT_HOME` (a
    string: the parent of a detached save never imports pathlib, #25)."""
    if sys.platform == "darwin":
        return os.path.expanduser("~/Library/Application Support/cortex-mcp")
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or os.path.expanduser("~/AppData/Local")
        return os.path.join(base, "cortex-mcp")
    xdg = os.environ.get("XDG_DATA_HOME", "").strip()
    base_dir = xdg if xdg and os.path.isabs(xdg) else "~/.local/share"
    return os.path.join(os.path.expanduser(base_dir), "cortex-mcp")


def home_folder() -> str:
    """The data folder: CORTEX_HOME when set and not empty, else the platform's default."""
    raw = os.environ.get("CORTEX_HOME")
    return os.path.expanduser(raw) if raw else default_home_folder()


def default_home() -> Path:
    """`default_home_folder` as a Path."""
    from pathlib import Path

    return Path(default_home_folder())


def home() -> Path:
    """`home_folder` as a Path."""
    from pathlib import Path

    return Path(home_folder())


def hooks_dir(data_home: Path) -> Path:
    """<home>/hooks."""
    return data_home / HOOKS_NAME


def socket_path(data_home: Path) -> Path:
    """The server's local socket."""
    return hooks_dir(data_home) / SOCKET_NAME


def state_dir(data_home: Path) -> Path:
    """One state file per host session."""
    return hooks_dir(data_home) / "sessions"


def spool_dir(data_home: Path) -> Path:
    """Moments that found no server, for the next server to replay."""
    return hooks_dir(data_home) / "spool"


def private_dir(path: Path) -> Path:
    """`path` made if missing, readable by this user only (0700), and so is every folder above
    it that this call makes (the data home and its hooks folder, when a hook runs first)."""
    for folder in reversed([path, *path.parents]):
        if not folder.exists():
            folder.mkdir(mode=0o700, exist_ok=True)
    return path


def published_settings(data_home: str | os.PathLike[str]) -> dict[str, Any]:
    """The hook settings the last server published, over the fallback defaults."""
    settings = dict(FALLBACK_SETTINGS)
    try:
        with open(os.path.join(data_home, HOOKS_NAME, PUBLISHED_NAME), encoding="utf-8") as file:
            published = json.load(file)
    except (OSError, ValueError):
        return settings
    if isinstance(published, dict):
        settings.update({k: v for k, v in published.items() if k in FALLBACK_SETTINGS})
    return settings


def write_private(path: Path, text: str) -> None:
    """Write `text` to `path` whole (temp file, rename), readable by this user only (0600)."""
    private_dir(path.parent)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(temporary, path)
