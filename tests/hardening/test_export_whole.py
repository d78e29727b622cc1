"""Exports are whole or fail: --output goes through a temp file, fsync and rename; stdout is
checked; a short write or any error exits 1 with one line."""

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.servers import server_env

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]

FREE_BYTES = 4096


def cortex(
    home: Path, *argv: str, stdout: int | object = subprocess.PIPE
) -> "subprocess.CompletedProcess[str]":
    """`python -m cortex_mcp <argv>` on `home`, its stdout where asked."""
    return subprocess.run(
        [sys.executable, "-m", "cortex_mcp", *argv],
        env=server_env(home, CORTEX_LLM__PROVIDER="none", CORTEX_EMBEDDING__PROVIDER="none"),
        stdout=stdout,  # type: ignore[arg-type]
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=False,
    )


@pytest.fixture
def filled_home(cortex_home: Path, tmp_path: Path) -> Path:
    """A store whose JSON export is about 20 KB."""
    notes = tmp_path / "notes.md"
    notes.write_text(
        "# Facts\n\n" + "".join(f"- Note {n}: " + "words " * 30 + "\n" for n in range(60)),
        encoding="utf-8",
    )
    done = cortex(cortex_home, "import", str(notes))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["memories_added"] == 60
    return cortex_home


@pytest.fixture
def nearly_full(tmp_path: Path) -> Iterator[Path]:
    """A 64 KiB tmpfs with about 4 KiB left (root only; skipped where mounting is refused)."""
    mount = tmp_path / "small-disk"
    mount.mkdir()
    tried = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
    )
    if tried.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {tried.stderr.strip() or 'not root'}")
    try:
        stats = os.statvfs(mount)
        (mount / "filler").write_bytes(b"x" * (stats.f_bavail * stats.f_frsize - FREE_BYTES))
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=False, capture_output=True)


def test_export_output_onto_a_nearly_full_disk_exits_1_and_leaves_no_file(
    filled_home: Path, nearly_full: Path
):
    target = nearly_full / "export.json"

    done = cortex(filled_home, "export", "--output", str(target))

    assert done.returncode == 1
    assert done.stderr == f"cortex-mcp: cannot write {target}: No space left on device\n"
    assert sorted(p.name for p in nearly_full.iterdir()) == ["filler"]  # no part, no temp


def test_export_redirected_onto_a_nearly_full_disk_exits_1(filled_home: Path, nearly_full: Path):
    target = nearly_full / "export.json"
    with target.open("w", encoding="utf-8") as redirected:
        done = cortex(filled_home, "export", stdout=redirected)

    assert done.returncode == 1
    assert done.stderr == "cortex-mcp: cannot write stdout: No space left on device\n"


def test_export_to_dev_full_exits_1_with_one_line(filled_home: Path):
    if not Path("/dev/full").exists():
        pytest.skip("this system has no /dev/full")
    with open("/dev/full", "w", encoding="utf-8") as full:
        done = cortex(filled_home, "export", stdout=full)

    assert done.returncode == 1
    assert done.stderr == "cortex-mcp: cannot write stdout: No space left on device\n"


def test_export_output_writes_the_whole_export_and_replaces_an_old_one(
    filled_home: Path, tmp_path: Path
):
    target = tmp_path / "out" / "export.json"
    target.parent.mkdir()
    target.write_text("an older export", encoding="utf-8")

    done = cortex(filled_home, "export", "--output", str(target))

    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert len(json.loads(target.read_text(encoding="utf-8"))["memories"]) == 60
    assert sorted(p.name for p in target.parent.iterdir()) == ["export.json"]
