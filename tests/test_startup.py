"""First-run mistakes, run as a user runs them (the installed command in a subprocess): each is
one line on stderr naming what was typed, the rule and the fix, exit code 2, no traceback
unless CORTEX_LOG_LEVEL=DEBUG, and nothing written."""

import os
import socket
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

from tests.conftest import inspect_database

COMMAND = Path(sys.executable).with_name("cortex-mcp-server")
TIMEOUT_S = 60


def cortex(*args: str, env: Mapping[str, str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    """Run the installed command with exactly `env` added to a CORTEX_-free environment."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("CORTEX_")}
    return subprocess.run(
        [str(COMMAND), *args],
        env={**base, **env},
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=TIMEOUT_S,
        check=False,
    )


def one_error_line(done: subprocess.CompletedProcess[str]) -> str:
    lines = done.stderr.splitlines()
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1, done.stderr
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    assert lines[0].startswith("cortex-mcp: ")
    return lines[0]


def test_a_bad_value_names_the_variable_typed_and_the_rule(tmp_path: Path) -> None:
    env = {"CORTEX_HOME": str(tmp_path), "CORTEX_SEARCH__CANDIDATE_LIMIT": "5000"}

    line = one_error_line(cortex("config", env=env))

    assert "CORTEX_SEARCH__CANDIDATE_LIMIT" in line
    assert "must be less than or equal to 1000" in line
    assert "fix or unset the variable" in line
    assert "pydantic" not in line and "search.candidate_limit" not in line


def test_a_misspelt_nested_variable_is_named_with_a_suggestion(tmp_path: Path) -> None:
    env = {"CORTEX_HOME": str(tmp_path), "CORTEX_SEARCH__CANDIDATE_LIMT": "5"}

    line = one_error_line(cortex("config", env=env))

    assert line.startswith("cortex-mcp: CORTEX_SEARCH__CANDIDATE_LIMT: not a setting")
    assert "did you mean CORTEX_SEARCH__CANDIDATE_LIMIT?" in line


def test_a_misspelt_top_level_variable_is_a_warning_not_silence(tmp_path: Path) -> None:
    done = cortex("config", env={"CORTEX_HOME": str(tmp_path), "CORTEX_PROT": "1"})

    assert done.returncode == 0
    assert done.stderr.splitlines() == [
        "cortex-mcp: warning: CORTEX_PROT: not a setting, ignored (did you mean CORTEX_PORT?)"
    ]


def test_a_broken_config_toml_is_named_with_its_line(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text("[search]\ncandidate_limit = \n", encoding="utf-8")

    line = one_error_line(cortex("config", env={"CORTEX_HOME": str(tmp_path)}))

    assert str(tmp_path / "config.toml") in line
    assert "line 2" in line


def test_a_bad_value_in_config_toml_is_named_by_file_and_line(tmp_path: Path) -> None:
    toml = tmp_path / "config.toml"
    toml.write_text("log_level = 'INFO'\n\n[search]\ncandidate_limit = 5000\n", encoding="utf-8")

    line = one_error_line(cortex("config", env={"CORTEX_HOME": str(tmp_path)}))

    assert f"{toml}:4: search.candidate_limit:" in line
    assert "fix that line" in line


def test_a_bad_value_debug_logging_adds_the_traceback(tmp_path: Path) -> None:
    env = {"CORTEX_HOME": str(tmp_path), "CORTEX_PORT": "0", "CORTEX_LOG_LEVEL": "DEBUG"}

    done = cortex("config", env=env)

    assert done.returncode == 2
    assert "Traceback" in done.stderr
    assert done.stderr.splitlines()[-1].startswith("cortex-mcp: CORTEX_PORT: ")


def test_an_empty_cortex_home_uses_the_default_home_with_a_warning(tmp_path: Path) -> None:
    env = {"CORTEX_HOME": "", "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data")}

    done = cortex("config", env=env)

    assert done.returncode == 0, done.stderr
    assert f'"home": "{tmp_path / "data" / "cortex-mcp"}"' in done.stdout
    (warning,) = done.stderr.splitlines()
    assert "CORTEX_HOME is empty" in warning


def test_a_relative_cortex_home_is_refused(tmp_path: Path) -> None:
    line = one_error_line(cortex("config", env={"CORTEX_HOME": "relative/folder"}))

    assert line.startswith("cortex-mcp: CORTEX_HOME: must be an absolute path")


def test_a_cortex_home_that_is_a_file_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "a-file"
    home.write_text("not a folder", encoding="utf-8")

    line = one_error_line(cortex("export", env={"CORTEX_HOME": str(home)}))

    assert f"CORTEX_HOME={home}: is a file, not a folder" in line
    assert home.read_text(encoding="utf-8") == "not a folder"


def test_a_cortex_home_that_cannot_be_created_is_refused(tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("", encoding="utf-8")
    home = blocker / "inside"

    line = one_error_line(cortex("export", env={"CORTEX_HOME": str(home)}))

    assert f"CORTEX_HOME={home}: cannot be created" in line


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere")
def test_a_cortex_home_that_is_not_writable_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "locked"
    home.mkdir()
    home.chmod(0o500)

    line = one_error_line(cortex("export", env={"CORTEX_HOME": str(home)}))

    assert "is not writable" in line


def test_a_corrupt_database_is_named_and_left_as_it_was(tmp_path: Path) -> None:
    database = tmp_path / "cortex.db"
    garbage = b"this is not a SQLite file " * 400
    database.write_bytes(garbage)

    for command in (["export"], []):
        line = one_error_line(cortex(*command, env={"CORTEX_HOME": str(tmp_path)}))

        assert f"database {database}: " in line
        assert "not a SQLite database" in line
    assert database.read_bytes() == garbage
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cortex.db"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes read-only files")
def test_a_read_only_database_is_named(tmp_path: Path) -> None:
    assert cortex("export", env={"CORTEX_HOME": str(tmp_path)}).returncode == 0
    (tmp_path / "cortex.db").chmod(0o444)

    line = one_error_line(cortex("export", env={"CORTEX_HOME": str(tmp_path)}))

    assert "read-only" in line


def test_a_port_in_use_is_reported_before_any_url(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = cortex(
            "serve",
            "--transport",
            "streamable-http",
            "--port",
            str(port),
            env={"CORTEX_HOME": str(tmp_path)},
        )

    line = one_error_line(done)
    assert f"port {port} on 127.0.0.1: already in use" in line
    assert "http://" not in done.stderr


def test_an_unknown_tool_in_cortex_tools_is_one_line(tmp_path: Path) -> None:
    env = {"CORTEX_HOME": str(tmp_path), "CORTEX_TOOLS": "cortex_recal"}

    line = one_error_line(cortex(env=env))

    assert line.startswith("cortex-mcp: CORTEX_TOOLS: unknown tool(s) cortex_recal; known: ")


def test_a_cortex_mcp_database_at_the_old_home_moves_once_and_says_so(tmp_path: Path) -> None:
    legacy = tmp_path / ".cortex"
    assert cortex("export", env={"CORTEX_HOME": str(legacy)}).returncode == 0
    (legacy / "worker.pids").write_text("1234\n", encoding="utf-8")
    env = {"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data")}
    home = tmp_path / "data" / "cortex-mcp"

    first = cortex("export", env=env)
    second = cortex("export", env=env)

    assert first.returncode == 0, first.stderr
    (notice,) = first.stderr.splitlines()
    assert notice.startswith(f"cortex-mcp: moved the cortex-mcp database from {legacy} to {home}")
    assert second.stderr == ""
    assert (home / "cortex.db").exists() and not (legacy / "cortex.db").exists()
    assert (legacy / "worker.pids").read_text(encoding="utf-8") == "1234\n", "not ours: untouched"


def test_someone_elses_cortex_db_at_the_old_home_stays_where_it_is(tmp_path: Path) -> None:
    legacy = tmp_path / ".cortex"
    legacy.mkdir()
    with inspect_database(legacy / "cortex.db") as conn:
        conn.execute("create table memories (id text, body text)")
        conn.execute("pragma user_version = 3")
    before = (legacy / "cortex.db").read_bytes()
    env = {"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data")}

    done = cortex("export", env=env)

    assert done.returncode == 0, done.stderr
    assert "moved" not in done.stderr
    assert (legacy / "cortex.db").read_bytes() == before
    assert (tmp_path / "data" / "cortex-mcp" / "cortex.db").exists(), "a fresh database instead"


@pytest.mark.parametrize(
    ("toml", "line_number", "suggestion"),
    [
        ("[serch]\nrrf_k = 3\n", 1, "(did you mean [search]?)"),
        ("log_level = 'INFO'\n[search]\nrrf_kk = 3\n", 3, "(did you mean rrf_k in [search]?)"),
        ("prot = 22000\n", 1, "(did you mean port?)"),
    ],
)
def test_an_unknown_table_or_key_in_config_toml_names_file_line_and_the_toml_key_meant(
    tmp_path: Path, toml: str, line_number: int, suggestion: str
) -> None:
    (tmp_path / "config.toml").write_text(toml, encoding="utf-8")

    line = one_error_line(cortex("config", env={"CORTEX_HOME": str(tmp_path)}))

    assert line.startswith(f"cortex-mcp: {tmp_path / 'config.toml'}:{line_number}: ")
    assert "not a setting" in line
    assert suggestion in line
    assert "CORTEX_" not in line, "a TOML file is answered in TOML, not with a variable"


@pytest.mark.parametrize("value", ["[{bad", "not json at all", '{"token": "x"'])
def test_a_malformed_cortex_auth_tokens_is_one_line_naming_the_variable_and_the_rule(
    tmp_path: Path, value: str
) -> None:
    env = {"CORTEX_HOME": str(tmp_path), "CORTEX_AUTH_TOKENS": value}

    line = one_error_line(cortex("config", env=env))

    assert line.startswith("cortex-mcp: CORTEX_AUTH_TOKENS: must be valid JSON, a list such as")
    assert line.endswith("fix or unset the variable")
    assert "unexpected" not in line and "SettingsError" not in line
    assert not (tmp_path / "cortex.db").exists()


def test_an_embedding_provider_named_without_its_key_is_a_warning_at_start(tmp_path: Path) -> None:
    env = {"CORTEX_HOME": str(tmp_path), "CORTEX_EMBEDDING__PROVIDER": "openai"}
    base = {k: v for k, v in os.environ.items() if not k.startswith(("CORTEX_", "OPENAI_"))}

    done = subprocess.run(
        [str(COMMAND)],
        env={**base, **env},
        input="",
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=TIMEOUT_S,
        check=False,
    )

    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[0] == (
        "cortex-mcp: warning: embedding.provider=openai needs OPENAI_API_KEY or OPENAI_BASE_URL;"
        " recall is keyword search only until one is set"
    )


@pytest.mark.parametrize("flag", [["--port", "1234"], ["--host", "0.0.0.0"]])
def test_a_port_or_host_for_stdio_is_refused_in_one_line_not_ignored(
    tmp_path: Path, flag: list[str]
) -> None:
    line = one_error_line(cortex("serve", *flag, env={"CORTEX_HOME": str(tmp_path)}))

    assert line.startswith(f"cortex-mcp: {flag[0]}: only sse and streamable-http listen on a port")
    assert "--transport streamable-http" in line
    assert not (tmp_path / "cortex.db").exists()
