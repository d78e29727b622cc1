"""`cortex-mcp recall` and `cortex-mcp stats`: what an agent would be told, and what the store
holds, from a terminal (round twelve's note: no way to look without a client). Run as a user
runs them, `python -m cortex_mcp ...` in a process of its own, on a home that `import` filled."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.servers import server_env

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]

MEMORY_MD = "# Memory\n\n- I live in Lisbon.\n- We use PostgreSQL 16 for the billing service.\n"


def cortex(home: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = server_env(home, CORTEX_EMBEDDING__PROVIDER="none", CORTEX_LLM__PROVIDER="none")
    return subprocess.run(
        [sys.executable, "-m", "cortex_mcp", *argv],
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=False,
    )


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    memory = tmp_path / "MEMORY.md"
    memory.write_text(MEMORY_MD, encoding="utf-8")
    assert cortex(home, "import", str(memory)).returncode == 0
    return home


def test_recall_prints_what_an_agent_would_be_told(home: Path) -> None:
    asked = cortex(home, "recall", "which database does billing use?")
    digest = cortex(home, "recall")
    structured = cortex(home, "recall", "where do I live?", "--json", "--max-results", "1")

    assert asked.returncode == 0 and asked.stderr == "", asked.stderr
    assert asked.stdout.startswith("Relevant memories")
    assert "PostgreSQL 16 for the billing service" in asked.stdout
    assert "Lisbon" not in asked.stdout
    assert digest.stdout.startswith("Core memory digest")
    assert "Lisbon" in digest.stdout and "PostgreSQL 16" in digest.stdout
    found = json.loads(structured.stdout)
    assert [m["content"] for m in found["memories"]] == ["I live in Lisbon."]


def test_stats_prints_the_store_s_counts(home: Path) -> None:
    shown = cortex(home, "stats")

    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["memories"]["live"] == 2


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["recall", "anything", "--max-results", "0"], "--max-results: 0 is not from 1 to 50"),
        (["recall", "anything", "--max-results", "many"], "--max-results: 'many' is not"),
        (["recall", "anything", "--agent-id", "two words"], "--agent-id: 'two words' is not"),
        (["recall", "x " * 1500], "query: 3,000 characters; the limit is 2,000"),
    ],
)
def test_bad_input_is_one_error_naming_the_option_and_changes_nothing(
    home: Path, argv: list[str], named: str
) -> None:
    before = json.loads(cortex(home, "stats").stdout)["memories"]

    refused = cortex(home, *argv)

    assert refused.returncode == 2 and refused.stdout == ""
    assert named in refused.stderr and "Traceback" not in refused.stderr, refused.stderr
    assert named in refused.stderr.strip().splitlines()[-1]
    assert json.loads(cortex(home, "stats").stdout)["memories"] == before
