"""`cortex-mcp hooks install|uninstall AGENT [--project]`: our hook entries in the agent's own
settings file, and nothing else in that file touched: only the text of what changes is
rewritten (Gemini's comments stay). Our entries are the ones whose command runs
`cortex-mcp-hook`; installing replaces them, uninstalling removes them."""

import contextlib
import json
import os
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

from cortex_mcp.errors import InvalidInput
from cortex_mcp.hooks import jsonc
from cortex_mcp.hooks.installed import made_by_install, record_of, recording
from cortex_mcp.hooks.output import EVENT_NAMES

COMMAND = "cortex-mcp-hook"
TIMEOUT_S = {"session-start": 10, "prompt": 5, "stop": 30, "pre-compact": 60, "session-end": 30}
SETTINGS_FILES = {  # agent -> (user file, project file relative to the project folder)
    "claude-code": ("~/.claude/settings.json", ".claude/settings.json"),
    "codex": ("~/.codex/hooks.json", ".codex/hooks.json"),
    "gemini": ("~/.gemini/settings.json", ".gemini/settings.json"),
    "cursor": ("~/.cursor/hooks.json", ".cursor/hooks.json"),
}
WITH_COMMENTS = ("gemini",)
"""Agents that read their settings as JSON with comments: Gemini CLI strips `//` and `/* */`
comments (strip-json-comments), then parses strict JSON (a trailing comma is an error)."""
NOTES = {
    "codex": "Codex asks you to review and trust new hooks (/hooks) before it runs them.",
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


def read_settings(agent: str, path: Path) -> tuple[str, dict[str, Any]]:
    """The settings file's text and the object in it ("" and {} when missing), read as the
    agent reads it; a broken one is refused, unchanged."""
    try:
        with path.open(encoding="utf-8", newline="") as file:  # its line endings kept
            text = file.read()
    except FileNotFoundError:
        return "", {}
    except UnicodeDecodeError as err:
        rule = f"not UTF-8 text (byte {err.start}); nothing was changed"
        raise InvalidInput(str(path), rule) from err
    except OSError as err:
        rule = f"cannot be read ({err.strerror or err}); nothing was changed"
        raise InvalidInput(str(path), rule) from err
    kind = "JSON with comments" if agent in WITH_COMMENTS else "JSON"
    try:
        data = jsonc.parse(text, agent in WITH_COMMENTS) if text.strip() else {}
    except json.JSONDecodeError as err:
        where = f"{path}:{err.lineno}"
        raise InvalidInput(where, f"not valid {kind} ({err.msg}); nothing was changed") from err
    except ValueError as err:
        raise InvalidInput(str(path), f"not valid {kind} ({err}); nothing was changed") from err
    except RecursionError as err:
        rule = "nested deeper than this command reads; nothing was changed"
        raise InvalidInput(str(path), rule) from err
    if not isinstance(data, dict) or not isinstance(data.get("hooks", {}), dict):
        raise InvalidInput(str(path), "must be a JSON object with a `hooks` object")
    for event in EVENT_NAMES[agent].values():  # the keys install adds to and uninstall edits
        if not isinstance(data.get("hooks", {}).get(event, []), list):
            raise InvalidInput(
                f"{path}: hooks.{event}",
                f"must be a list of hook entries, not {json_kind(data['hooks'][event])};"
                " nothing was changed",
            )
    return text, data


def json_kind(value: Any) -> str:
    """What a JSON value is, in words."""
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, dict):
        return "an object"
    return "a string" if isinstance(value, str) else "null"


def only_ours(value: Any) -> bool:
    """One of our entries, or a list of nothing else: a comment inside it goes with it (one
    anywhere else in the file is never deleted)."""
    if isinstance(value, list):
        return bool(value) and all(only_ours(entry) for entry in value)
    return is_ours(value) and _others_of(value) is None


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
    text, data = read_settings(agent, path)
    hooks = without_ours(data.get("hooks", {}))
    for moment, event in EVENT_NAMES[agent].items():
        hooks.setdefault(event, []).append(entry_for(agent, moment))
    changed = {**data, "hooks": hooks}
    if agent == "cursor":
        changed.setdefault("version", 1)
    result = edited(path, text, changed)
    with recording(path, what_install_adds(path, data, changed)):
        write(path, text, result)
    events = ", ".join(EVENT_NAMES[agent].values())
    notes = [NOTES[agent]] if agent in NOTES else []
    if (other := other_scope(agent, project)) is not None:
        notes.append(f"{other} has them too: {agent} starts both, and one acts on each event.")
    for other in cursor_runs_too(agent, project):
        notes.append(
            f"{other} has them too, and Cursor runs Claude Code's hooks beside its own (its"
            " third-party hooks): one acts on each event."
        )
    return "\n".join([f"cortex-mcp hooks for {agent} in {path}: {events}", *notes])


def other_scope(agent: str, project: Path | None) -> Path | None:
    """The agent's other settings file (the user's, or this folder's project file) when it
    runs our hook too."""
    path = settings_file(agent, project)
    other = settings_file(agent, None if project is not None else Path.cwd())
    if other.resolve() == path.resolve():
        return None
    return other if runs_ours(agent, other) else None


def cursor_runs_too(agent: str, project: Path | None) -> list[Path]:
    """Installing for Cursor or Claude Code: the other one's settings files (the user's, this
    folder's) that run our hook; Cursor runs the Claude Code ones too (README: Cursor runs
    Claude Code's hooks too)."""
    pair = {"cursor": "claude-code", "claude-code": "cursor"}
    if agent not in pair:
        return []
    files = {settings_file(pair[agent], None), settings_file(pair[agent], project or Path.cwd())}
    return sorted(path for path in files if runs_ours(pair[agent], path))


def runs_ours(agent: str, path: Path) -> bool:
    """True when `path`, read as `agent` reads it, holds one of our entries."""
    try:
        hooks = read_settings(agent, path)[1].get("hooks", {})
    except InvalidInput:
        return False
    return any(is_ours(e) for v in hooks.values() if isinstance(v, list) for e in v)


def what_install_adds(path: Path, data: dict[str, Any], changed: dict[str, Any]) -> dict[str, Any]:
    """The record of what install adds to `path` (the file and folders it makes, the keys
    and events it adds), with what an earlier install of ours added while the file is still
    there; a `hooks` object or an event holding nothing but ours counts as ours."""
    there = path.exists() or path.is_symlink()  # a link to a file not made yet is not ours
    before = (record_of(path) if there else None) or {
        "created": not there,
        "folders": [str(folder) for folder in made_by_install(path)],
    }
    added = {key for key in changed if key not in data} | set(before.get("added", []))
    if data.get("hooks") and not without_ours(data["hooks"]):
        added.add("hooks")
    hooks = data.get("hooks", {})
    events = {e for e in changed["hooks"] if e not in hooks or not without_ours({e: hooks[e]})}
    return {
        **before,
        "added": sorted(added),
        "events": sorted(events | {*before.get("events", [])}),
    }


def uninstall(agent: str, project: Path | None = None) -> str:
    """Remove our entries, and what install added with them (the file, its folders, the keys
    holding our entries) when nothing else is in it; the report for the user."""
    path = settings_file(agent, project)
    if not path.exists():
        with recording(path, None):
            return f"no {path}: nothing to remove"
    text, data = read_settings(agent, path)
    record = record_of(path)
    added = (record or {}).get("added", ["hooks"])
    hooks = without_ours(data.get("hooks", {}))
    if record is not None:  # an event the user had, empty, stays so
        made = record.get("events", [])
        hooks |= {e: [] for e in data.get("hooks", {}) if e not in hooks and e not in made}
    kept = {k: hooks if k == "hooks" else v for k, v in data.items()}
    if "version" in added:  # Cursor's, when install added it
        kept = {k: v for k, v in kept.items() if k != "version" or v != 1}
    tidy = {k: v for k, v in kept.items() if k != "hooks" or hooks or "hooks" not in added}
    result = edited(path, text, tidy, kept)  # an emptied `hooks` stays for a comment in it
    with recording(path, None):
        if record and record.get("created") and not tidy and jsonc.blank_comments(result) == result:
            remove(path, [Path(folder) for folder in record.get("folders", [])])
            return f"cortex-mcp hooks removed from {path}, and the file: install made it"
        write(path, text, result)
    return f"cortex-mcp hooks removed from {path}"


def remove(path: Path, folders: list[Path]) -> None:
    """The file install made, and each folder install made that is empty now."""
    path.unlink()
    for folder in reversed(folders):
        try:
            folder.rmdir()
        except OSError:  # not empty: someone else's things are in it now
            return


def edited(path: Path, text: str, *wanted: dict[str, Any]) -> str:
    """`text` holding the first of `wanted` that deletes no comment outside our entries, only
    what changes rewritten; refused (nothing changed) when each would."""
    for changed in wanted:
        try:
            return jsonc.edit(text, changed, only_ours)
        except jsonc.CommentWouldBeLost as err:
            lost = err
    raise InvalidInput(
        f"{path}:{lost.line}",
        "this comment is inside what the change rewrites and would be lost; nothing was"
        " changed (move the comment out of it and run this again)",
    )


def write(path: Path, before: str, text: str) -> None:
    """The file whole or not at all (temp file, rename), keeping its permissions, and not
    written when nothing changed; a settings file that is a link (to a dotfiles repository)
    is written where it points, and stays a link."""
    if text == before and path.exists():
        return
    target = path.resolve() if path.is_symlink() else path
    temporary = target.with_name(f".{target.name}.cortex-tmp")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_text(text, encoding="utf-8", newline="")
        if target.exists():
            shutil.copymode(target, temporary)
        os.replace(temporary, target)
    except OSError as err:
        with contextlib.suppress(OSError):
            temporary.unlink(missing_ok=True)
        rule = f"cannot be written ({err.strerror or err}); nothing was changed"
        raise InvalidInput(str(path), rule) from err
