"""Backups a user can trust: `export --output` and `backup` write only regular files (a symlink's
target; never a device), `backup` keeps the conversation log and restores through `migrate`,
and export, backup and migrate work from a read-only home."""

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from cortex_mcp import cli
from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import open_engine
from cortex_mcp.store.sqlite import plain_connection
from tests.conftest import FrozenClock
from tests.postgres import LocalPostgres


def quiet_settings(home: Path) -> Settings:
    return Settings.model_validate(
        {"home": home, "llm": {"provider": "none"}, "embedding": {"provider": "none"}}
    )


async def fill(home: Path, clock: FrozenClock) -> None:
    async with open_engine(quiet_settings(home), clock, {}) as engine:
        await engine.remember("The user's locker is number 41")
        await engine.ingest("My locker code is 7731.", "Noted.")


@pytest.fixture
def filled(cortex_home: Path, clock: FrozenClock, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home with memories and a logged exchange, closed."""
    monkeypatch.setenv("CORTEX_EMBEDDING__PROVIDER", "none")
    monkeypatch.setenv("CORTEX_LLM__PROVIDER", "none")
    anyio.run(fill, cortex_home, clock)
    return cortex_home


def cli_run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    status = cli.main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def rows(path: Path, table: str) -> int:
    with plain_connection(path) as conn:  # the file, seen from outside
        return int(conn.execute(f"select count(*) from {table}").fetchone()[0])


def test_export_to_a_fifo_is_refused_in_one_line_and_the_fifo_stays(
    filled: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)

    status, out, err = cli_run(capsys, "export", "--output", str(fifo))

    assert status == 2 and out == ""
    assert err.startswith(f"cortex-mcp: output: {fifo} is a device, FIFO or socket")
    assert len(err.strip().splitlines()) == 1
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
def test_export_to_a_character_device_leaves_the_device_a_device(
    filled: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    full = tmp_path / "full"  # the same device as /dev/full, in the test's own folder
    os.mknod(full, stat.S_IFCHR | 0o666, os.makedev(1, 7))

    status, _, err = cli_run(capsys, "export", "--output", str(full))

    assert status == 2 and "not a regular file" in err
    assert stat.S_ISCHR(full.lstat().st_mode)


def test_export_through_a_symlink_writes_its_target_and_keeps_the_link(
    filled: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    real = tmp_path / "backups" / "cortex.json"
    real.parent.mkdir()
    real.write_text("old backup", encoding="utf-8")
    link = tmp_path / "latest.json"
    link.symlink_to(real)

    status, _, err = cli_run(capsys, "export", "--output", str(link))

    assert status == 0, err
    assert link.is_symlink() and link.resolve() == real
    assert "locker is number 41" in real.read_text(encoding="utf-8")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["backups", "cortex-home", "latest.json"]


def test_backup_keeps_the_conversation_log_and_restores_through_migrate(
    filled: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    backup = tmp_path / "cortex-backup.db"
    status, out, err = cli_run(capsys, "backup", "--output", str(backup))
    assert status == 0, err
    report = json.loads(out)
    store = filled / "cortex.db"

    assert report["verified"] is True and report["written"] == str(backup)
    assert rows(backup, "conversation_log") == rows(store, "conversation_log") > 0
    assert rows(backup, "memories") == rows(store, "memories") > 0

    for lost in filled.glob("cortex.db*"):  # lost; the backup restored into the configured store
        lost.unlink()
    status, out, err = cli_run(capsys, "migrate", "--from", str(backup))
    assert status == 0, err
    assert json.loads(out)["verified"] is True
    assert rows(store, "conversation_log") == rows(backup, "conversation_log")
    assert rows(store, "memories") == rows(backup, "memories")


def read_only_run(home: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """`cortex-mcp argv` with `home` read-only: a read-only bind mount in a mount namespace of
    its own when root (permissions do not stop root), else the permissions."""
    command = [sys.executable, "-m", "cortex_mcp", *argv]
    env = {**os.environ, "CORTEX_HOME": str(home)}
    if os.geteuid() == 0:
        probe = subprocess.run(["unshare", "-m", "true"], capture_output=True, check=False)
        if probe.returncode != 0:
            pytest.skip("a read-only mount needs unshare -m here")
        mount = 'mount --bind -o ro "$0" "$0" && exec "$@"'
        command = ["unshare", "-m", "sh", "-c", mount, str(home), *command]
        return subprocess.run(
            command, capture_output=True, text=True, encoding="utf-8", env=env, check=False
        )
    modes = {p: p.stat().st_mode for p in [home, *home.rglob("*")]}
    for path in modes:
        path.chmod(stat.S_IMODE(modes[path]) & ~0o222)
    try:
        return subprocess.run(
            command, capture_output=True, text=True, encoding="utf-8", env=env, check=False
        )
    finally:
        for path, mode in modes.items():
            path.chmod(stat.S_IMODE(mode))


@pytest.mark.timeout(120)
def test_export_backup_and_migrate_work_from_a_read_only_home(filled: Path, tmp_path: Path) -> None:
    before = sorted(p.name for p in filled.rglob("*"))
    exported = tmp_path / "export.json"
    backup = tmp_path / "backup.db"
    moved = tmp_path / "moved.db"

    runs = [
        read_only_run(filled, "export", "--output", str(exported)),
        read_only_run(filled, "backup", "--output", str(backup)),
        read_only_run(filled, "migrate", "--to", str(moved)),
    ]

    for done in runs:
        assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in filled.rglob("*")) == before  # nothing written there
    assert "locker is number 41" in exported.read_text(encoding="utf-8")
    assert rows(backup, "conversation_log") == rows(filled / "cortex.db", "conversation_log")
    assert json.loads(runs[2].stdout)["verified"] is True


def test_a_backup_of_a_postgresql_store_holds_its_conversation_log(
    cortex_home: Path,
    local_postgres: LocalPostgres,
    clock: FrozenClock,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    url = local_postgres.fresh_database()
    monkeypatch.setenv("CORTEX_DATABASE_URL", url)
    monkeypatch.setenv("CORTEX_EMBEDDING__PROVIDER", "none")
    monkeypatch.setenv("CORTEX_LLM__PROVIDER", "none")
    settings = quiet_settings(cortex_home).model_copy(update={"database": Settings().database})
    anyio.run(fill_settings, settings, clock)
    backup = tmp_path / "pg-backup.db"

    status, out, err = cli_run(capsys, "backup", "--output", str(backup))

    assert status == 0, err
    assert json.loads(out)["verified"] is True
    assert rows(backup, "conversation_log") == 2 and rows(backup, "memories") > 0


async def fill_settings(settings: Settings, clock: FrozenClock) -> None:
    async with open_engine(settings, clock, {}) as engine:
        await engine.remember("The user's locker is number 41")
        await engine.ingest("My locker code is 7731.", "Noted.")
