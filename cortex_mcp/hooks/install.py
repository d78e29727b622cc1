"""`cortex-mcp hooks install|uninstall AGENT [--project]`: our hook entries in the agent's own
settings file, and nothing else in that file touched. Our entries are the ones whose command
runs `cortex-mcp-hook`; installing replaces them, uninstalling removes them."""

import json
import os
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

from cortex_mcp.errors import InvalidInput
from cortex_mcp.hooks.output import EVENT_NAMES

COMMAND = "cortex-mcp-hook"
TIMEOUT_S = {"session-start": 10, "prompt": 5, "stop": 30, "pre-compact": 60, "session-end": 30}
SETTINGS_FILES = {  # agent -> (user file, project file relative to the project folder)
    "claude-code": ("~/.claude/settings.json", ".claude/settings.json"),
    "codex": ("~/.codex/hooks.json", ".codex/hooks.json"),
    "gemini": ("~/.gemini/settings.json", ".gemini/settings.json"),
    "cursor": ("~/.cursor/hooks.json", ".cursor/hooks.json"),
}
NOTES = {
    "codex": "Codex runs hooks only with `[features] codex_hooks = true` in ~/.codex/config.toml.",
    "gemini": "Gemini CLI versions that gate hooks need `hooks.enabled` (see its hooks docs).",
    "cursor": "Cursor has no per-prompt recall: its beforeSubmitPrompt hook cannot add context.",
}


def settings_file(agent: str, project: Path | None) -> Path:
    """The file `agent` reads its hooks from: the user's, or the project's."""
    if agent not in SETTINGS_FILES:
        known = ", ".join(SETTINGS_FILES)
        raise InvalidInput("agent", f"unknown agent {agent!r}; known: {known}")
    user, local = SETTINGS_FILES[agent]
    return project / local if project is not None else Path(user).expanduser()


def hook_command(agent: str, moment: str) -> str:
    """The command line a host runs: the hook next to this program when there is one, with
    CORTEX_HOME when it is set (the host's environment may not have it)."""
    beside = Path(sys.argv[0]).resolve().parent / COMMAND
    program = str(beside) if beside.is_file() else shutil.which(COMMAND) or COMMAND
    home = os.environ.get("CORTEX_HOME")
    prefix = f"CORTEX_HOME={shlex.quote(home)} " if home else ""
    return f"{prefix}{shlex.quote(program)} {agent} {moment}"


def is_ours(entry: Any) -> bool:
    """An entry (or a group of entries) that runs cortex-mcp-hook."""
    if not isinstance(entry, dict):
        return False
    if COMMAND in str(entry.get("command", "")):
        return True
    inner = entry.get("hooks")
    return isinstance(inner, list) and any(is_ours(hook) for hook in inner)


def entry_for(agent: str, moment: str) -> dict[str, Any]:
    """One event's entry in the agent's format."""
    command = hook_command(agent, moment)
    if agent == "cursor":
        return {"command": command}
    hook: dict[str, Any] = {"type": "command", "command": command}
    if agent == "gemini":
        hook |= {"name": f"cortex-mcp-{moment}", "timeout": TIMEOUT_S[moment] * 1000}
    else:
        hook["timeout"] = TIMEOUT_S[moment]
    return {"matcher": "", "hooks": [hook]} if agent != "codex" else {"hooks": [hook]}


def read_settings(path: Path) -> dict[str, Any]:
    """The settings file as an object ({} when missing); a broken one is refused, unchanged."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    try:
        data = json.loads(text) if text.strip() else {}
    except ValueError as err:
        raise InvalidInput(str(path), f"not valid JSON ({err}); nothing was changed") from err
    if not isinstance(data, dict) or not isinstance(data.get("hooks", {}), dict):
        raise InvalidInput(str(path), "must be a JSON object with a `hooks` object")
    return data


def without_ours(hooks: dict[str, Any]) -> dict[str, Any]:
    """The hooks object minus our entries: a group that also runs someone else's hook keeps
    theirs (events left empty are dropped)."""
    kept: dict[str, Any] = {}
    for event, entries in hooks.items():
        if not isinstance(entries, list):
            kept[event] = entries
            continue
        others = [left for entry in entries if (left := _others_of(entry)) is not None]
        if others or not entries:
            kept[event] = others
    return kept


def _others_of(entry: Any) -> Any:
    """The entry without our hooks; None when nothing of someone else's is left in it."""
    if not is_ours(entry):
        return entry
    inner = entry.get("hooks")
    if COMMAND in str(entry.get("command", "")) or not isinstance(inner, list):
        return None
    others = [hook for hook in inner if not is_ours(hook)]
    return {**entry, "hooks": others} if others else None


def install(agent: str, project: Path | None = None) -> str:
    """Write our entries; the report for the user."""
    path = settings_file(agent, project)
    data = read_settings(path)
    hooks = without_ours(data.get("hooks", {}))
    for moment, event in EVENT_NAMES[agent].items():
        hooks.setdefault(event, []).append(entry_for(agent, moment))
    data["hooks"] = hooks
    if agent == "cursor":
        data.setdefault("version", 1)
    write(path, data)
    events = ", ".join(EVENT_NAMES[agent].values())
    note = f"\n{NOTES[agent]}" if agent in NOTES else ""
    return f"cortex-mcp hooks for {agent} in {path}: {events}{note}"


def uninstall(agent: str, project: Path | None = None) -> str:
    """Remove our entries; the report for the user."""
    path = settings_file(agent, project)
    if not path.exists():
        return f"no {path}: nothing to remove"
    data = read_settings(path)
    hooks = without_ours(data.get("hooks", {}))
    if hooks:
        data["hooks"] = hooks
    else:
        data.pop("hooks", None)
    write(path, data)
    return f"cortex-mcp hooks removed from {path}"


def write(path: Path, data: dict[str, Any]) -> None:
    """The file whole or not at all (temp file, rename), keeping its permissions; a settings
    file that is a link (to a dotfiles repository) is written where it points, and stays a
    link."""
    path = path.resolve() if path.is_symlink() else path
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.cortex-tmp")
    temporary.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    if path.exists():
        shutil.copymode(path, temporary)
    os.replace(temporary, path)
