"""Settings: defaults that need nothing, environment, config.toml, and the `config` command."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from cortex_mcp.config import Settings, load_settings
from cortex_mcp.errors import ConfigError


def test_defaults_need_nothing_and_live_under_cortex_home(cortex_home: Path) -> None:
    settings = load_settings()

    assert settings.home == cortex_home
    assert settings.database_path == cortex_home / "cortex.db"
    assert settings.port == 21100 and settings.host == "127.0.0.1"
    assert settings.auth_token is None


def test_nested_environment_variables_override_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CORTEX_SEARCH__CANDIDATE_LIMIT", "77")
    monkeypatch.setenv("CORTEX_MEMORY__MAX_CONTENT_CHARS", "1234")

    settings = load_settings()

    assert settings.search.candidate_limit == 77
    assert settings.memory.max_content_chars == 1234
    assert settings.search.core_weight == 1.0


def test_config_toml_in_the_home_is_read_and_the_environment_wins(
    cortex_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cortex_home.mkdir(parents=True)
    (cortex_home / "config.toml").write_text(
        "port = 22000\n[search]\ncandidate_limit = 20\narchive_weight = 0.3\n", encoding="utf-8"
    )
    monkeypatch.setenv("CORTEX_SEARCH__CANDIDATE_LIMIT", "30")

    settings = load_settings()

    assert settings.port == 22000
    assert settings.search.archive_weight == 0.3
    assert settings.search.candidate_limit == 30


def test_a_typo_in_config_toml_is_an_error_naming_the_key(cortex_home: Path) -> None:
    cortex_home.mkdir(parents=True)
    (cortex_home / "config.toml").write_text("[search]\ncandidate_limt = 20\n", encoding="utf-8")

    with pytest.raises(ConfigError, match=r"config.toml:2: search.candidate_limt: not a setting"):
        load_settings()


@pytest.mark.parametrize("threads", [0, 65])
def test_local_threads_out_of_range_is_an_error_naming_the_setting(threads: int) -> None:
    with pytest.raises(ValidationError, match="local_threads"):
        Settings.model_validate({"embedding": {"local_threads": threads}})


def test_cli_flags_override_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CORTEX_PORT", "23000")

    assert load_settings(port=24000).port == 24000


def run_cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cortex_mcp", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=60,
        check=False,
    )


def test_config_command_prints_the_effective_configuration_with_secrets_masked(
    cortex_home: Path,
) -> None:
    import os

    env = {**os.environ, "CORTEX_AUTH_TOKEN": "s3cret-token", "CORTEX_PORT": "21999"}

    done = run_cli("config", env=env)

    assert done.returncode == 0, done.stderr
    assert "s3cret-token" not in done.stdout
    printed = json.loads(done.stdout)
    assert printed["auth_token"] == "**********"
    assert printed["port"] == 21999
    assert printed["home"] == str(cortex_home)


def test_invalid_configuration_is_reported_on_stderr_with_exit_code_2() -> None:
    import os

    done = run_cli("config", env={**os.environ, "CORTEX_PORT": "not-a-port"})

    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "cortex-mcp: CORTEX_PORT: must be a valid integer, unable to parse string as an integer;"
        " fix or unset the variable"
    ]
    assert done.stdout == ""


def test_docs_configuration_md_is_generated_from_the_settings() -> None:
    from cortex_mcp.config import settings_markdown

    documented = (Path(__file__).parent.parent / "docs" / "configuration.md").read_text(
        encoding="utf-8"
    )

    assert documented == settings_markdown(), (
        "run: cortex-mcp config --markdown > docs/configuration.md"
    )
    for name in Settings.model_fields:
        assert f"`{name}" in documented


def test_config_command_says_where_each_value_came_from(cortex_home: Path) -> None:
    import os

    cortex_home.mkdir(parents=True)
    (cortex_home / "config.toml").write_text("[search]\nrrf_k = 7\n", encoding="utf-8")
    env = {**os.environ, "CORTEX_PORT": "21999", "CORTEX_HOME": str(cortex_home)}

    printed = json.loads(run_cli("config", env=env).stdout)

    assert printed["sources"] == {
        "home": "CORTEX_HOME",
        "port": "CORTEX_PORT",
        "search.rrf_k": f"{cortex_home / 'config.toml'}:2",
    }
    assert printed["search"]["rrf_k"] == 7


def test_config_command_shows_the_embedder_in_use_and_the_key_set_never_its_value(
    cortex_home: Path,
) -> None:
    import os

    base = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_"))}
    secret = "sk-test-never-printed-0123456789"

    printed = json.loads(run_cli("config", env={**base, "OPENAI_API_KEY": secret}).stdout)
    keyless = json.loads(run_cli("config", env=base).stdout)

    assert printed["embedding"]["provider"] == "auto", "the setting as given"
    assert printed["in_use"]["embedding"]["provider"] == "openai", "what auto resolved to"
    assert printed["in_use"]["embedding"]["model"] == "text-embedding-3-small"
    assert printed["in_use"]["keys"] == {"OPENAI_API_KEY": "set in the environment"}
    assert printed["in_use"]["llm"]["providers"] == ["openai gpt-4o-mini"]
    assert keyless["in_use"]["embedding"]["provider"] in ("local", "none (keyword search only)")
    assert keyless["in_use"]["keys"] == {}
    assert secret not in run_cli("config", env={**base, "OPENAI_API_KEY": secret}).stdout
