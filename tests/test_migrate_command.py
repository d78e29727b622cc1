"""`cortex-mcp migrate`: what a user sees when the target cannot be reached."""

from pathlib import Path

import pytest

from cortex_mcp import cli


def test_an_unreachable_target_is_named_in_one_line_without_its_password(
    cortex_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = cli.main(["migrate", "--to", "postgresql://ann:hunter2@127.0.0.1:1/team"])

    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("cortex-mcp: migrate --to postgresql://ann:***@127.0.0.1:1/team: ")
    assert "nothing was copied" in err and "hunter2" not in err
    assert len(err.strip().splitlines()) == 1
