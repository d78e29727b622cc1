"""What cortex writes from the store can be read by its user only, whatever the umask: the
database holds the whole conversation log. Folders it makes are 0700 and files 0600; a store
an earlier version left readable is made private on open, saying so once; a folder or an
output file the user already had keeps its mode."""

import logging
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp import Client

from cortex_mcp import cli
from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import open_engine
from cortex_mcp.engine.mirror.write import write_mirror
from cortex_mcp.models import Category
from cortex_mcp.server import build_server
from cortex_mcp.store.home import TEMP_SUFFIX
from tests.conftest import FrozenClock, data_of, remember

pytestmark = pytest.mark.skipif(os.name == "nt", reason="Windows has no POSIX modes")

STORE = ("cortex.db", "cortex.db-wal", "cortex.db-shm")


@pytest.fixture(autouse=True)
def usual_umask() -> Iterator[None]:
    """The umask most systems start users with: new files 0644, new folders 0755."""
    before = os.umask(0o022)
    yield
    os.umask(before)


def quiet_settings(home: Path) -> Settings:
    return Settings.model_validate(
        {"home": home, "llm": {"provider": "none"}, "embedding": {"provider": "none"}}
    )


def mode(path: Path) -> str:
    return oct(stat.S_IMODE(path.stat().st_mode))


def modes(home: Path) -> dict[str, str]:
    """The home (".") and everything under it, with its mode; a page's temporary renamed over
    it while the folder is read is passed over (CI met one: the mirror writing relations.md)."""
    found: dict[str, str] = {}
    for path in [home, *home.rglob("*")]:
        try:
            found[path.relative_to(home).as_posix()] = mode(path)
        except FileNotFoundError:
            if not path.name.endswith(TEMP_SUFFIX):
                raise
    return found


def private(home: Path) -> dict[str, str]:
    """What `modes(home)` is when every folder is 0700 and every file 0600."""
    return {
        p.relative_to(home).as_posix(): oct(0o700 if p.is_dir() else 0o600)
        for p in [home, *home.rglob("*")]
    }


async def remember_and_ingest(home: Path, clock: FrozenClock) -> dict[str, str]:
    """A memory and a logged exchange through the MCP server; the modes while it is open (the
    database's -wal and -shm files exist only then)."""
    async with Client(build_server(quiet_settings(home), clock)) as client:
        await remember(client, "The user's locker is number 41")
        ingested = {"user_message": "My locker code is 7731.", "assistant_message": "Noted."}
        data_of(await client.call_tool("cortex_ingest", ingested))
        return modes(home)


def test_a_new_store_its_log_its_mirror_and_its_backup_are_readable_by_this_user_only(
    cortex_home: Path, clock: FrozenClock, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    backup = tmp_path / "bk.db"

    while_open = anyio.run(remember_and_ingest, cortex_home, clock)
    status = cli.main(["backup", "--output", str(backup)])

    assert status == 0, capsys.readouterr().err
    assert {name: while_open[name] for name in (".", *STORE)} == {
        ".": "0o700",
        "cortex.db": "0o600",
        "cortex.db-wal": "0o600",
        "cortex.db-shm": "0o600",
    }
    assert {"MEMORY.md", "memory"} <= set(modes(cortex_home))  # the mirror is checked too
    assert modes(cortex_home) == private(cortex_home)
    assert mode(backup) == "0o600"


def test_a_data_home_the_cli_makes_and_an_export_are_readable_by_this_user_only(
    cortex_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    exported = tmp_path / "export.json"
    cortex_home.parent.mkdir(exist_ok=True)

    status = cli.main(["export", "--output", str(exported)])

    assert status == 0, capsys.readouterr().err
    assert modes(cortex_home) == private(cortex_home)
    assert "cortex.db" in modes(cortex_home)
    assert mode(exported) == "0o600"


def test_a_home_the_user_made_keeps_its_mode_and_the_store_in_it_is_private(
    cortex_home: Path, clock: FrozenClock
) -> None:
    cortex_home.mkdir(mode=0o755)  # the user's own folder, named in CORTEX_HOME

    while_open = anyio.run(remember_and_ingest, cortex_home, clock)

    assert while_open["."] == "0o755"
    assert {name: while_open[name] for name in STORE} == dict.fromkeys(STORE, "0o600")


def test_a_store_an_earlier_version_left_readable_is_made_private_on_open_saying_so_once(
    cortex_home: Path, clock: FrozenClock, caplog: pytest.LogCaptureFixture
) -> None:
    anyio.run(remember_and_ingest, cortex_home, clock)
    (cortex_home / "cortex.db").chmod(0o644)  # SQLite makes -wal and -shm 0644 with it

    with caplog.at_level(logging.WARNING, logger="cortex_mcp.store"):
        while_open = anyio.run(remember_and_ingest, cortex_home, clock)
        anyio.run(remember_and_ingest, cortex_home, clock)

    notices = [r.getMessage() for r in caplog.records if "other users" in r.getMessage()]
    assert notices == [
        f"cortex.db, cortex.db-wal, cortex.db-shm in {cortex_home} could be read by other users"
        " (0644); now this user's only"
    ]
    assert {name: while_open[name] for name in STORE} == dict.fromkeys(STORE, "0o600")


def test_a_backup_written_over_a_file_the_user_had_keeps_that_files_mode(
    cortex_home: Path, clock: FrozenClock, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    anyio.run(remember_and_ingest, cortex_home, clock)
    backup = tmp_path / "bk.db"
    backup.touch(mode=0o640)  # shared with a backup group on purpose

    status = cli.main(["backup", "--output", str(backup)])

    assert status == 0, capsys.readouterr().err
    assert mode(backup) == "0o640"
    assert backup.stat().st_size > 0


async def test_a_page_the_user_rewrote_readable_to_all_is_backed_up_readable_by_this_user_only(
    cortex_home: Path, clock: FrozenClock
) -> None:
    async with open_engine(quiet_settings(cortex_home), clock, {}) as engine:
        await engine.remember("Harry lives in Tokyo", category=Category.IDENTITY)
        await write_mirror(engine.runtime)
        memory_md = cortex_home / "MEMORY.md"
        edited = memory_md.read_text(encoding="utf-8") + "- Harry's dog is called Pochi\n"
        memory_md.unlink()  # an editor that writes a new file, under the umask
        memory_md.write_text(edited, encoding="utf-8")
        await write_mirror(engine.runtime)

    [kept] = (cortex_home / "memory" / "backups").iterdir()
    assert kept.read_text(encoding="utf-8") == edited
    assert (mode(kept.parent), mode(kept)) == ("0o700", "0o600")
