"""Resources on a full disk (#27): each read answers with data or with one `database:` line,
never the SDK's bare "Error reading resource"."""

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from cortex_mcp.config import Settings
from cortex_mcp.server import build_server
from tests.conftest import FrozenClock, data_of

READS = ["cortex://stats", "cortex://core", "cortex://relations", "cortex://memory/{id}"]


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 16 MiB tmpfs (root only; skipped where mounting is refused): room for the store, its
    WAL (up to 4 MB before a checkpoint) and the mirror once the filler is gone."""
    mount = tmp_path / "small-disk"
    mount.mkdir()
    tried = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(mount)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
    )
    if tried.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {tried.stderr.strip() or 'not root'}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=False, capture_output=True)


def fill(disk: Path) -> None:
    stats = os.statvfs(disk)
    (disk / "filler").write_bytes(b"x" * (stats.f_bavail * stats.f_frsize))


async def test_reads_on_a_full_disk_answer_data_or_one_database_line(
    small_disk: Path, clock: FrozenClock
) -> None:
    settings = Settings.model_validate(
        {
            "home": small_disk / "home",
            "llm": {"provider": "none"},
            "embedding": {"provider": "none"},
        }
    )
    async with Client(build_server(settings, clock)) as client:
        stored = data_of(await client.call_tool("cortex_remember", {"content": "I live in Porto"}))
        await client.call_tool("cortex_recall", {"query": "Porto"})  # access counts to flush
        fill(small_disk)
        answers: list[str] = []
        for uri in READS:
            try:
                await client.read_resource(uri.format(id=stored["id"]))
                answers.append("data")
            except MCPError as err:
                answers.append(str(err))
        app_stats = await client.call_tool("cortex_app_stats", {})
        (small_disk / "filler").unlink()  # room again for the engine's closing writes
    assert answers[0] == "data"  # stats reads without writing the recall counts first
    assert not app_stats.is_error and data_of(app_stats)["layers"]["core"]["total"] == 1
    for uri, answer in zip(READS, answers, strict=True):
        assert answer == "data" or (answer.startswith("database: ") and "\n" not in answer), (
            uri,
            answer,
        )
