"""Many server processes on one PostgreSQL database: concurrent writers lose nothing, one
lifecycle runs at a time, and a writer killed with SIGKILL loses nothing it acknowledged."""

import json
import sys
from pathlib import Path

import anyio
import pytest
from anyio.streams.buffered import BufferedByteReceiveStream
from mcp import Client

from cortex_mcp.engine.facade import open_engine
from tests.conftest import FrozenClock, data_of, inspect_database
from tests.lifecycle.conftest import memory, plant, quiet_settings
from tests.lifecycle.test_schedule import at, start_contender
from tests.postgres import URL_VARIABLE, LocalPostgres
from tests.servers import stdio_server
from tests.test_processes import distinct_contents

PROCESSES = 3
MEMORIES_PER_PROCESS = 500
CALLERS_PER_PROCESS = 10


@pytest.fixture(autouse=True)
def on_postgres(local_postgres: LocalPostgres, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every process of these tests, this one included, on one fresh PostgreSQL database."""
    url = local_postgres.fresh_database()
    monkeypatch.setenv(URL_VARIABLE, url)
    return url


async def remember_concurrently(home: Path, contents: list[str]) -> dict[str, str]:
    """Store the contents through one server process, several calls in flight at once;
    id → content of every acknowledged memory."""
    stored: dict[str, str] = {}
    queue = list(contents)

    async def caller(client: Client) -> None:
        while queue:
            content = queue.pop()
            result = data_of(await client.call_tool("cortex_remember", {"content": content}))
            assert result["action"] == "created", (content, result)
            stored[result["id"]] = content

    async with Client(stdio_server(home)) as client, anyio.create_task_group() as callers:
        for _ in range(CALLERS_PER_PROCESS):
            callers.start_soon(caller, client)
    return stored


@pytest.mark.timeout(600)
async def test_three_processes_writing_500_memories_each_at_once_lose_none(
    cortex_home: Path,
) -> None:
    writers = [f"W{n}" for n in range(PROCESSES)]
    contents = {w: distinct_contents(w, MEMORIES_PER_PROCESS) for w in writers}
    acknowledged: dict[str, str] = {}

    async def write(writer: str) -> None:
        acknowledged.update(await remember_concurrently(cortex_home, contents[writer]))

    with anyio.fail_after(540):
        async with anyio.create_task_group() as tasks:
            for writer in writers:
                tasks.start_soon(write, writer)

    with inspect_database(cortex_home / "cortex.db") as conn:
        stored = dict(conn.execute("select id, content from memories").fetchall())
        indexed = conn.execute("select documents from text_totals where name = 'memories'")
        (documents,) = indexed.fetchone()
    assert len(stored) == PROCESSES * MEMORIES_PER_PROCESS == len(acknowledged)
    assert stored == acknowledged
    assert documents == len(stored)  # every memory's full-text row, counted once


@pytest.mark.timeout(300)
async def test_three_lifecycle_runs_started_at_once_on_three_processes_run_once(
    cortex_home: Path, clock: FrozenClock
) -> None:
    async with open_engine(quiet_settings(cortex_home), clock, environ={}) as engine:
        many = [memory(f"fact {i} about thing {i}", created=at(1, 8)) for i in range(300)]
        await plant(engine, *many)

    with anyio.fail_after(240):
        contenders = [await start_contender(cortex_home) for _ in range(PROCESSES)]
        for process, _ in contenders:
            assert process.stdin is not None
            await process.stdin.send(b"go\n")
        results = [json.loads(await out.receive_until(b"\n", 1000)) for _, out in contenders]
        for process, _ in contenders:
            assert await process.wait() == 0

    assert sorted(r["ran"] for r in results) == [False, False, True]
    with inspect_database(cortex_home / "cortex.db") as conn:
        statuses = [row[0] for row in conn.execute("select status from lifecycle_runs")]
    assert statuses == ["ok"]


WRITER = """
import sys, anyio
from pathlib import Path
from cortex_mcp.engine.facade import open_engine
from tests.lifecycle.conftest import quiet_settings

async def main() -> None:
    async with open_engine(quiet_settings(Path(sys.argv[1])), environ={}) as engine:
        for n in range(100_000):
            stored = await engine.remember(f"Note {n} from the writer that will be killed")
            sys.stdout.write(stored.id + "\\n")
            sys.stdout.flush()

anyio.run(main)
"""


@pytest.mark.timeout(300)
async def test_a_writer_killed_mid_write_loses_nothing_it_acknowledged(cortex_home: Path) -> None:
    command = [sys.executable, "-c", WRITER, str(cortex_home)]
    acknowledged: list[str] = []
    with anyio.fail_after(240):
        async with await anyio.open_process(command, cwd=Path(__file__).parents[1]) as process:
            assert process.stdout is not None
            output = BufferedByteReceiveStream(process.stdout)
            while len(acknowledged) < 200:
                acknowledged.append((await output.receive_until(b"\n", 100)).decode())
            process.kill()  # SIGKILL, with the next write in flight
            await process.wait()

    with inspect_database(cortex_home / "cortex.db") as conn:
        stored = {row[0] for row in conn.execute("select id from memories").fetchall()}
        (terms,) = conn.execute("select count(distinct seq) from memory_terms").fetchone()
    assert set(acknowledged) <= stored
    assert terms == len(stored)  # no memory without its full-text rows, none the other way
