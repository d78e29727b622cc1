"""The command line's rules and help (tester 13): a port out of range was an "unexpected
OverflowError" (rc 1) where every other bad argument is its rule and rc 2; `hooks install
--help` did not say which file install changes; `import --help` showed an internal ticket
number; `lifecycle` and `export --format` had no help text."""

import re

import pytest

from cortex_mcp import cli


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """`cortex-mcp argv` in this process: (exit code, stdout, stderr)."""
    try:
        code = cli.main(argv)
    except SystemExit as stop:
        code = int(stop.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("argv", "error"),
    [
        (["browse", "--no-open", "--port", "99999"], "--port: must be less than 65536"),
        (["browse", "--no-open", "--port", "-1"], "--port: must not be negative"),
        (["serve", "--transport", "streamable-http", "--port", "70000"], "--port: must be less"),
    ],
)
def test_a_port_out_of_range_is_one_line_naming_the_rule_and_exit_2(
    argv: list[str], error: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(argv, capsys)

    assert (code, out) == (2, "")
    assert err.startswith(f"cortex-mcp: {error}") and err.count("\n") == 1, err
    assert "Overflow" not in err and "unexpected" not in err


def test_hooks_install_help_names_the_file_it_changes_per_agent(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(["hooks", "install", "--help"], capsys)

    assert code == 0
    assert "install: add entries that run cortex-mcp-hook" in out
    for agent, user_file in [
        ("claude-code", "~/.claude/settings.json"),
        ("codex", "~/.codex/hooks.json"),
        ("gemini", "~/.gemini/settings.json"),
        ("cursor", "~/.cursor/hooks.json"),
    ]:
        assert f"{agent}: {user_file}" in out


@pytest.mark.parametrize(
    "command",
    [
        *([name] for name in ("serve", "config", "export", "import", "lifecycle", "purge")),
        *([name] for name in ("browse", "migrate", "hooks", "backup", "recall", "stats")),
        [],
    ],
)
def test_no_help_text_shows_an_issue_number(
    command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run([*command, "--help"], capsys)

    assert code == 0
    assert re.search(r"#\d", out) is None, out


def test_lifecycle_and_export_format_say_what_they_do(capsys: pytest.CaptureFixture[str]) -> None:
    lifecycle = " ".join(run(["lifecycle", "--help"], capsys)[1].split())
    export = " ".join(run(["export", "--help"], capsys)[1].split())

    assert "preview: report what a run would do, changing nothing" in lifecycle
    assert "consolidate memory now" in lifecycle
    assert "markdown: a page to read" in export
