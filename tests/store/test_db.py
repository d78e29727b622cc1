"""Driver choice: sqlite-vec through the stdlib or sqlean, else BM25 only — never a crash."""

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
from anyio import wait_all_tasks_blocked

from cortex_mcp.store.sqlite import open_database, pick_driver, plain_connection

WITHOUT_SQLEAN = """
import sys, json, anyio, sqlite3
sys.modules["sqlean"] = None  # as if sqlean were not installed
if hasattr(sqlite3.Connection, "enable_load_extension"):
    del sqlite3.Connection.enable_load_extension  # as if this Python could not load extensions
from pathlib import Path
from mcp import Client
from cortex_mcp.config import Settings
from cortex_mcp.server import build_server

async def main():
    async with Client(build_server(Settings(home=Path(sys.argv[1])))) as client:
        await client.call_tool("cortex_remember", {"content": "利回 works without vectors"})
        found = await client.call_tool("cortex_recall", {"query": "利回"})
        stats = (await client.read_resource("cortex://stats")).contents[0].text
        print(json.dumps({"recall": found.content[0].text, "stats": json.loads(stats)}))

anyio.run(main)
"""


def test_this_environment_loads_sqlite_vec_through_some_driver() -> None:
    driver = pick_driver()

    assert driver.vectors, driver.note
    assert driver.name in {"sqlite3", "sqlean"}


async def test_the_connection_has_vec0_when_the_driver_loads_it(tmp_path: Path) -> None:
    db = await open_database(tmp_path / "v.db", 1000)
    try:
        async with db.read() as conn:
            row = await conn.fetch_one("select vec_version()")
    finally:
        await db.close()

    assert row is not None and str(row[0]).startswith("v")


def test_without_any_extension_loading_the_server_runs_bm25_only(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_SQLEAN, str(tmp_path)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env={**os.environ, "CORTEX_HOME": str(tmp_path)},
        timeout=120,
        check=False,
    )

    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert "利回 works without vectors" in report["recall"]
    assert report["stats"]["search"]["sqlite_vec"] == "unavailable"
    assert report["stats"]["search"]["mode"] == "bm25 only"
    assert report["stats"]["database"]["driver"] == "sqlite3"
    assert "vector search disabled" in done.stderr


async def test_write_transactions_from_concurrent_tasks_take_turns(tmp_path: Path) -> None:
    db = await open_database(tmp_path / "t.db", 1000)
    try:
        async with db.write() as conn:
            await conn.execute("create table t (n integer)")

        async def insert(n: int) -> None:
            async with db.write() as conn:
                await conn.execute("insert into t values (?)", (n,))

        async with anyio.create_task_group() as tasks:
            for n in range(200):
                tasks.start_soon(insert, n)
        async with db.read() as conn:
            row = await conn.fetch_one("select count(*) from t")
    finally:
        await db.close()

    assert row is not None and row[0] == 200


async def test_a_failed_write_leaves_nothing_behind(tmp_path: Path) -> None:
    db = await open_database(tmp_path / "t.db", 1000)
    try:
        async with db.write() as conn:
            await conn.execute("create table t (n integer)")
        try:
            async with db.write() as conn:
                await conn.execute("insert into t values (1)")
                raise RuntimeError("boom")
        except RuntimeError:
            pass
        async with db.read() as conn:
            row = await conn.fetch_one("select count(*) from t")
    finally:
        await db.close()

    assert row is not None and row[0] == 0


async def test_a_transaction_cancelled_while_it_waits_to_begin_leaves_the_connection_usable(
    tmp_path: Path,
) -> None:
    # Another connection holds the write lock, so BEGIN IMMEDIATE waits in the driver's thread;
    # the task is cancelled meanwhile. The BEGIN still happens once the lock is free: it must be
    # rolled back, not left open on the connection for the next transaction to trip over.
    path = tmp_path / "t.db"
    other, db = await open_database(path, 5000), await open_database(path, 5000)
    try:
        async with db.write() as conn:
            await conn.execute("create table t (n integer)")
        held, release = anyio.Event(), anyio.Event()
        writing = anyio.CancelScope()

        async def hold_the_write_lock() -> None:
            async with other.write():
                held.set()
                await release.wait()

        async def write_one() -> None:
            with writing:
                async with db.write() as conn:
                    await conn.execute("insert into t values (1)")

        with anyio.fail_after(10):
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(hold_the_write_lock)
                await held.wait()
                tasks.start_soon(write_one)
                await wait_all_tasks_blocked()  # write_one waits on its BEGIN IMMEDIATE
                writing.cancel()
                release.set()
            async with db.write() as conn:
                await conn.execute("insert into t values (2)")
            async with db.read() as conn:
                rows = [row[0] for row in await conn.fetch_all("select n from t")]
    finally:
        await db.close()
        await other.close()

    assert writing.cancelled_caught
    assert rows == [2]


async def test_a_plain_look_at_the_file_leaves_the_server_s_write_ahead_log_alone(
    tmp_path: Path,
) -> None:
    """CI crashed with SIGBUS (exit 135) in test_tool_surface: a test read the store through the
    stdlib's `sqlite3` while the server held it through `sqlean`. Two SQLite libraries in one
    process do not see each other's locks; the stdlib's connection took itself for the last
    one, checkpointed and removed the server's write-ahead log and reset its mapped index.
    A plain connection goes through the server's own library, which shares the lock state."""
    path = tmp_path / "t.db"
    db = await open_database(path, 1000)
    try:
        async with db.write() as conn:
            await conn.execute("create table t (n integer)")
            await conn.execute("insert into t values (1)")
        look = plain_connection(path)
        seen = look.execute("select count(*) from t").fetchone()[0]
        look.close()
        log_kept = path.with_name("t.db-wal").exists()
        async with db.write() as conn:
            await conn.execute("insert into t values (2)")
        async with db.read() as conn:
            row = await conn.fetch_one("select count(*) from t")
    finally:
        await db.close()

    assert seen == 1
    assert log_kept, "the server's write-ahead log was removed under it"
    assert row is not None and row[0] == 2
