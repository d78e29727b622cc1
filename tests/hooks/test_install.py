"""`cortex-mcp hooks install|uninstall AGENT --project`: our entries in the agent's own file,
everything else in it left as it was; and the Claude Code plugin as its own CLI validates it."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cortex_mcp.hooks.output import EVENT_NAMES
from tests.launch import REPO

CORTEX = Path(sys.executable).parent / "cortex-mcp"
PLUGIN = REPO / "clients" / "claude-code"
THEIRS: dict[str, dict[str, Any]] = {  # what the user had before: other hooks and settings
    "claude-code": {
        "model": "opus",
        "hooks": {
            "Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "notify-send done"}]}]
        },
    },
    "codex": {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}},
    "gemini": {
        "theme": "dark",
        "hooks": {
            "BeforeTool": [
                {"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "audit"}]}
            ]
        },
    },
    "cursor": {"version": 1, "hooks": {"afterFileEdit": [{"command": "prettier --write"}]}},
}
FILES = {
    "claude-code": ".claude/settings.json",
    "codex": ".codex/hooks.json",
    "gemini": ".gemini/settings.json",
    "cursor": ".cursor/hooks.json",
}


def cortex(*args: str, cwd: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CORTEX_")}
    return subprocess.run(
        [str(CORTEX), *args],
        cwd=cwd,
        env={**env, "CORTEX_HOME": str(cwd / "home"), **extra},
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        check=False,
    )


def commands(settings: dict[str, Any]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for event, entries in settings.get("hooks", {}).items():
        for entry in entries:
            for hook in entry.get("hooks", [entry]):
                found.setdefault(event, []).append(hook["command"])
    return found


@pytest.mark.parametrize("agent", list(THEIRS))
def test_install_adds_our_moments_keeps_theirs_and_uninstall_restores_the_file(
    tmp_path: Path, agent: str
) -> None:
    path = tmp_path / FILES[agent]
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(THEIRS[agent], indent=2), encoding="utf-8")

    first = cortex("hooks", "install", agent, "--project", cwd=tmp_path)
    second = cortex("hooks", "install", agent, "--project", cwd=tmp_path)  # again: no duplicates

    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    installed = json.loads(path.read_text(encoding="utf-8"))
    ours = {
        event: [c for c in cmds if "cortex-mcp-hook" in c]
        for event, cmds in commands(installed).items()
    }
    for moment, event in EVENT_NAMES[agent].items():
        assert len(ours[event]) == 1 and ours[event][0].endswith(
            f"cortex-mcp-hook {agent} {moment}"
        )
        assert f"CORTEX_HOME={tmp_path / 'home'}" in ours[event][0]
    for key, value in THEIRS[agent].items():
        if key != "hooks":
            assert installed[key] == value
    for event, entries in THEIRS[agent]["hooks"].items():
        assert all(entry in installed["hooks"][event] for entry in entries)

    removed = cortex("hooks", "uninstall", agent, "--project", cwd=tmp_path)

    assert removed.returncode == 0, removed.stderr
    assert json.loads(path.read_text(encoding="utf-8")) == THEIRS[agent]


def test_a_broken_settings_file_is_named_and_left_unchanged(tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text('{"model": "opus",', encoding="utf-8")

    done = cortex("hooks", "install", "claude-code", "--project", cwd=tmp_path)

    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "settings.json" in done.stderr
    assert path.read_text(encoding="utf-8") == '{"model": "opus",'


def test_the_plugin_runs_the_server_and_every_claude_code_moment() -> None:
    manifest = json.loads((PLUGIN / ".claude-plugin" / "plugin.json").read_text(encoding="utf-8"))
    servers = json.loads((PLUGIN / ".mcp.json").read_text(encoding="utf-8"))["mcpServers"]
    hooks = json.loads((PLUGIN / "hooks" / "hooks.json").read_text(encoding="utf-8"))

    assert manifest["name"] == "cortex-mcp"
    assert servers["cortex"]["args"] == [
        "--from",
        "${CLAUDE_PLUGIN_ROOT}/../..",
        "cortex-mcp-server",
    ]
    found = commands(hooks)
    assert set(found) == set(EVENT_NAMES["claude-code"].values())
    for moment, event in EVENT_NAMES["claude-code"].items():
        assert found[event] == [
            f'uvx --from "${{CLAUDE_PLUGIN_ROOT}}/../.." cortex-mcp-hook claude-code {moment}'
        ]


def claude_cli() -> Path | None:
    ci = REPO / ".ci-node" / "node_modules" / ".bin" / "claude"
    found = ci if ci.exists() else shutil.which("claude")
    return Path(found) if found else None


@pytest.mark.skipif(claude_cli() is None, reason="the Claude Code CLI is not installed (.ci/run)")
def test_the_claude_code_cli_validates_the_plugin_strictly(tmp_path: Path) -> None:
    cli = claude_cli()
    assert cli is not None
    env = {k: v for k, v in os.environ.items() if "ANTHROPIC" not in k}
    done = subprocess.run(
        [str(cli), "plugin", "validate", "--strict", str(PLUGIN)],
        env={**env, "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=False,
    )

    assert done.returncode == 0, done.stdout + done.stderr
    assert "Validation passed" in done.stdout


def test_uninstall_keeps_the_user_s_hook_in_a_group_with_ours_and_a_linked_file_stays_linked(
    tmp_path: Path,
) -> None:
    """Found trying the product: a Stop group holding the user's `notify-send` beside our hook
    was dropped whole by uninstall, and a settings.json linked into a dotfiles folder was
    replaced by a plain file (the dotfile never got the hooks)."""
    dotfile = tmp_path / "dotfiles" / "claude-settings.json"
    dotfile.parent.mkdir()
    dotfile.write_text(json.dumps({"model": "opus"}), encoding="utf-8")
    path = tmp_path / FILES["claude-code"]
    path.parent.mkdir(parents=True)
    path.symlink_to(dotfile)

    assert cortex("hooks", "install", "claude-code", "--project", cwd=tmp_path).returncode == 0

    assert path.is_symlink()
    installed = json.loads(dotfile.read_text(encoding="utf-8"))
    assert any("cortex-mcp-hook" in c for c in commands(installed)["Stop"])
    mixed = installed["hooks"]["Stop"][0]
    mixed["hooks"].insert(0, {"type": "command", "command": "notify-send done"})
    dotfile.write_text(json.dumps(installed), encoding="utf-8")

    assert cortex("hooks", "uninstall", "claude-code", "--project", cwd=tmp_path).returncode == 0

    assert path.is_symlink()
    left = json.loads(dotfile.read_text(encoding="utf-8"))
    assert commands(left) == {"Stop": ["notify-send done"]}
    assert left["model"] == "opus"


GEMINI_COMMENTS = (
    "// Gemini CLI reads this file as JSON with comments",
    "/* the dark one */",
    "// a URL is not a comment",
    "/* audit every shell command */",
)
GEMINI_WITH_COMMENTS = """{{
  {}
  "theme": "dark", {}
  "mcpServers": {{
    "docs": {{"httpUrl": "https://example.com/mcp"}} {}
  }},
  "hooks": {{
    {}
    "BeforeTool": [
      {{"matcher": "run_shell_command", "hooks": [{{"type": "command", "command": "audit"}}]}}
    ]
  }}
}}
""".format(*GEMINI_COMMENTS)


def test_gemini_settings_with_comments_install_keeping_every_comment_and_uninstall_restores_it(
    tmp_path: Path,
) -> None:
    """Found trying the product: Gemini CLI reads settings.json as JSON with comments
    (strip-json-comments, then JSON.parse), and `hooks install gemini` refused a commented file
    as not valid JSON."""
    path = tmp_path / FILES["gemini"]
    path.parent.mkdir(parents=True)
    path.write_text(GEMINI_WITH_COMMENTS, encoding="utf-8")

    done = cortex("hooks", "install", "gemini", "--project", cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    text = path.read_text(encoding="utf-8")
    assert all(comment in text for comment in GEMINI_COMMENTS)
    for comment in GEMINI_COMMENTS:
        text = text.replace(comment, "")
    installed = json.loads(text)
    assert installed["mcpServers"]["docs"]["httpUrl"] == "https://example.com/mcp"
    found = commands(installed)
    assert found["BeforeTool"] == ["audit"]
    for moment, event in EVENT_NAMES["gemini"].items():
        assert found[event][-1].endswith(f"cortex-mcp-hook gemini {moment}")

    removed = cortex("hooks", "uninstall", "gemini", "--project", cwd=tmp_path)

    assert removed.returncode == 0, removed.stderr
    assert path.read_text(encoding="utf-8") == GEMINI_WITH_COMMENTS


def test_a_trailing_comma_gemini_refuses_too_is_named_by_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / FILES["gemini"]
    path.parent.mkdir(parents=True)
    broken = '{\n  // mine\n  "theme": "dark",\n}\n'
    path.write_text(broken, encoding="utf-8")

    done = cortex("hooks", "install", "gemini", "--project", cwd=tmp_path)

    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "settings.json:4" in done.stderr, done.stderr
    assert path.read_text(encoding="utf-8") == broken


def test_a_comment_in_a_hooks_object_only_ours_fill_stays_when_uninstall_empties_it(
    tmp_path: Path,
) -> None:
    path = tmp_path / FILES["gemini"]
    path.parent.mkdir(parents=True)
    mine = '{\n  "theme": "dark",\n  "hooks": {\n    // hooks I might add\n  }\n}\n'
    path.write_text(mine, encoding="utf-8")

    assert cortex("hooks", "install", "gemini", "--project", cwd=tmp_path).returncode == 0
    assert "// hooks I might add" in path.read_text(encoding="utf-8")
    assert cortex("hooks", "uninstall", "gemini", "--project", cwd=tmp_path).returncode == 0

    assert path.read_text(encoding="utf-8") == mine


def test_installing_at_both_scopes_names_the_file_that_has_them_already(tmp_path: Path) -> None:
    """Codex runs the hooks of every settings file: installed for the user and the project,
    each moment ran twice (the hook now acts once; tests/hooks/test_twice.py)."""
    project, user = tmp_path / "pelican", tmp_path / "user"
    project.mkdir()

    first = cortex("hooks", "install", "codex", cwd=project, HOME=str(user))
    second = cortex("hooks", "install", "codex", "--project", cwd=project, HOME=str(user))

    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert "has them too" not in first.stdout
    assert f"{user / '.codex' / 'hooks.json'} has them too" in second.stdout
    again = cortex("hooks", "install", "codex", cwd=project, HOME=str(user))
    assert f"{project / '.codex' / 'hooks.json'} has them too" in again.stdout


@pytest.mark.parametrize("agent", list(THEIRS))
@pytest.mark.parametrize("scope", ["project", "user"])
def test_uninstall_takes_away_the_file_and_folder_install_made_and_leaves_the_rest_as_it_was(
    tmp_path: Path, agent: str, scope: str
) -> None:
    """Found trying the product: `hooks uninstall --project` left a `{}` (Cursor's
    `{"version": 1}`) in a settings file that install had created."""
    project, user = tmp_path / "pelican", tmp_path / "user"
    project.mkdir()
    user.mkdir()
    flag = ["--project"] if scope == "project" else []
    folder = (project if scope == "project" else user) / FILES[agent].split("/")[0]

    assert cortex("hooks", "install", agent, *flag, cwd=project, HOME=str(user)).returncode == 0
    assert folder.is_dir()
    removed = cortex("hooks", "uninstall", agent, *flag, cwd=project, HOME=str(user))

    assert removed.returncode == 0, removed.stderr
    assert not folder.exists()

    folder.mkdir()  # a folder and a file the user had: they stay, as they were
    (folder / "notes.md").write_text("mine", encoding="utf-8")
    path = folder / FILES[agent].split("/")[1]
    for theirs in ("{}\n", '{\n  "hooks": {}\n}\n', '{"hooks": {"Stop": []}}'):
        path.write_text(theirs, encoding="utf-8")
        assert cortex("hooks", "install", agent, *flag, cwd=project, HOME=str(user)).returncode == 0
        assert (
            cortex("hooks", "uninstall", agent, *flag, cwd=project, HOME=str(user)).returncode == 0
        )
        assert path.read_text(encoding="utf-8") == theirs
    assert (folder / "notes.md").read_text(encoding="utf-8") == "mine"


def test_a_cursor_file_without_a_version_gets_it_back_without_one(tmp_path: Path) -> None:
    path = tmp_path / FILES["cursor"]
    path.parent.mkdir(parents=True)
    theirs = '{\n  "hooks": {\n    "afterFileEdit": [{"command": "prettier --write"}]\n  }\n}\n'
    path.write_text(theirs, encoding="utf-8")

    assert cortex("hooks", "install", "cursor", "--project", cwd=tmp_path).returncode == 0
    assert json.loads(path.read_text(encoding="utf-8"))["version"] == 1
    assert cortex("hooks", "uninstall", "cursor", "--project", cwd=tmp_path).returncode == 0

    assert path.read_text(encoding="utf-8") == theirs


@pytest.mark.parametrize(
    ("agent", "value"),
    [("claude-code", {}), ("claude-code", "x"), ("codex", None), ("gemini", 1), ("cursor", True)],
)
def test_an_event_that_is_not_a_list_is_named_with_its_file_and_nothing_changes(
    tmp_path: Path, agent: str, value: Any
) -> None:
    """`"hooks": {"Stop": {}}` made install fail with an AttributeError's traceback line."""
    event = EVENT_NAMES[agent]["stop"]
    path = tmp_path / FILES[agent]
    path.parent.mkdir(parents=True)
    theirs = json.dumps({"hooks": {event: value}}, indent=2)
    path.write_text(theirs, encoding="utf-8")

    for action in ("install", "uninstall"):
        done = cortex("hooks", action, agent, "--project", cwd=tmp_path)

        assert done.returncode == 2, done.stderr
        assert done.stderr.count("\n") == 1, done.stderr
        assert f"{path}: hooks.{event}: must be a list of hook entries" in done.stderr
        assert "Error" not in done.stderr
        assert path.read_text(encoding="utf-8") == theirs
    assert not (tmp_path / "home" / "hooks" / "installed.json").exists()


def test_a_gemini_hooks_setting_that_is_not_an_event_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / FILES["gemini"]
    path.parent.mkdir(parents=True)
    theirs = '{"hooks": {"enabled": true, "disabled": ["their-hook"]}}\n'
    path.write_text(theirs, encoding="utf-8")

    assert cortex("hooks", "install", "gemini", "--project", cwd=tmp_path).returncode == 0
    assert json.loads(path.read_text(encoding="utf-8"))["hooks"]["enabled"] is True
    assert cortex("hooks", "uninstall", "gemini", "--project", cwd=tmp_path).returncode == 0

    assert path.read_text(encoding="utf-8") == theirs


def test_a_broken_install_record_is_as_no_record_and_the_file_is_kept(tmp_path: Path) -> None:
    """installed.json is ours, but hand-edited it could name folders as a string (each letter
    a folder to remove) or `created` as a string: such a record counts as none."""
    path = tmp_path / FILES["claude-code"]
    assert cortex("hooks", "install", "claude-code", "--project", cwd=tmp_path).returncode == 0
    record = tmp_path / "home" / "hooks" / "installed.json"
    for broken in ({"created": "yes"}, {"created": True, "folders": "abc"}, {"added": [1]}):
        record.write_text(json.dumps({str(path): broken}), encoding="utf-8")

        done = cortex("hooks", "uninstall", "claude-code", "--project", cwd=tmp_path)

        assert done.returncode == 0 and done.stderr == "", done.stderr
        assert path.exists()
        assert json.loads(path.read_text(encoding="utf-8")) == {}
        assert cortex("hooks", "install", "claude-code", "--project", cwd=tmp_path).returncode == 0


@pytest.mark.parametrize(
    ("content", "rule"),
    [
        (b"\xff\xfe{}", "not UTF-8 text (byte 0)"),
        (b'{"a": ' + b"[" * 5000 + b"]" * 5000 + b"}", "nested deeper than this command reads"),
        (None, "cannot be read (Is a directory)"),
    ],
)
def test_a_settings_file_that_cannot_be_read_as_text_is_named_in_one_line(
    tmp_path: Path, content: bytes | None, rule: str
) -> None:
    """Each of these ended in "unexpected UnicodeDecodeError" (RecursionError,
    IsADirectoryError) instead of naming the file."""
    path = tmp_path / FILES["claude-code"]
    path.parent.mkdir(parents=True)
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)

    for action in ("install", "uninstall"):
        done = cortex("hooks", action, "claude-code", "--project", cwd=tmp_path)

        assert done.returncode == 2, done.stderr
        assert done.stderr == f"cortex-mcp: {path}: {rule}; nothing was changed\n"
        assert path.is_dir() if content is None else path.read_bytes() == content


def test_installing_for_cursor_and_claude_code_says_cursor_runs_both(tmp_path: Path) -> None:
    """Cursor runs the hooks in Claude Code's settings files beside its own (third-party
    hooks): the second install says so, and that one of them acts on each event."""
    project, user = tmp_path / "pelican", tmp_path / "user"
    project.mkdir()

    first = cortex("hooks", "install", "claude-code", cwd=project, HOME=str(user))
    second = cortex("hooks", "install", "cursor", "--project", cwd=project, HOME=str(user))
    third = cortex("hooks", "install", "claude-code", "--project", cwd=project, HOME=str(user))

    assert "Cursor runs" not in first.stdout
    claude = user / ".claude" / "settings.json"
    assert f"{claude} has them too, and Cursor runs Claude Code's hooks" in second.stdout
    assert f"{project / '.cursor' / 'hooks.json'} has them too, and Cursor runs" in third.stdout
