"""Several server processes on one database file: concurrent writers lose nothing, concurrent
first starts migrate once. The file is checked afterwards with the stdlib driver, read-only."""

import secrets
import string
from pathlib import Path

import anyio
from mcp import Client

from cortex_mcp.store.migrations import MIGRATIONS
from tests.conftest import data_of
from tests.servers import STARTUP_TIMEOUT_S, query_one, read_only, stdio_server

MEMORIES_PER_PROCESS = 500
CONTRACT_TOOLS = {"cortex_recall", "cortex_remember", "cortex_forget"}


def random_word() -> str:
    """A made-up word no other memory shares, so the near-duplicate check never merges two."""
    return "".join(secrets.choice(string.ascii_lowercase) for _ in range(10))


def distinct_contents(writer: str, count: int) -> list[str]:
    return [
        f"Writer {writer} filed note {n} about {random_word()} beside the {random_word()}"
        for n in range(count)
    ]


async def remember_all(home: Path, contents: list[str]) -> list[str]:
    """Store every content through one server process, in order; the ids it returned."""
    ids = []
    async with Client(stdio_server(home)) as client:
        for content in contents:
            stored = data_of(await client.call_tool("cortex_remember", {"content": content}))
            assert stored["action"] == "created", (content, stored)
            ids.append(stored["id"])
    return ids


async def test_two_processes_writing_500_memories_each_to_one_file_lose_none(
    cortex_home: Path,
) -> None:
    contents = {writer: distinct_contents(writer, MEMORIES_PER_PROCESS) for writer in "AB"}
    ids: dict[str, list[str]] = {}

    async def write(writer: str) -> None:
        ids[writer] = await remember_all(cortex_home, contents[writer])

    with anyio.fail_after(100):
        async with anyio.create_task_group() as tasks:
            for writer in contents:
                tasks.start_soon(write, writer)

    database = cortex_home / "cortex.db"
    conn = read_only(database)
    try:
        stored = dict(conn.execute("select id, content from memories").fetchall())
    finally:
        conn.close()
    assert query_one(database, "pragma integrity_check") == "ok"
    assert len(stored) == 2 * MEMORIES_PER_PROCESS
    for writer in "AB":
        assert [stored[memory_id] for memory_id in ids[writer]] == contents[writer]


async def test_memories_written_by_concurrent_processes_are_searchable_afterwards(
    cortex_home: Path,
) -> None:
    contents = {writer: distinct_contents(writer, 20) for writer in "AB"}

    with anyio.fail_after(2 * STARTUP_TIMEOUT_S):
        async with anyio.create_task_group() as tasks:
            for writer in contents:
                tasks.start_soon(remember_all, cortex_home, contents[writer])
        async with Client(stdio_server(cortex_home)) as reader:
            found = {
                writer: data_of(await reader.call_tool("cortex_recall", {"query": texts[7]}))
                for writer, texts in contents.items()
            }

    for writer, texts in contents.items():
        assert texts[7] in [memory["content"] for memory in found[writer]["memories"]]


async def test_two_processes_starting_on_a_fresh_file_both_migrate_and_serve(
    cortex_home: Path,
) -> None:
    tool_names: list[set[str]] = []

    async def start_and_list_tools() -> None:
        async with Client(stdio_server(cortex_home), mode="legacy") as client:
            assert client.server_info is not None
            assert client.server_info.name == "cortex-mcp"
            tools = await client.list_tools()
            tool_names.append({tool.name for tool in tools.tools})

    assert not (cortex_home / "cortex.db").exists()
    with anyio.fail_after(STARTUP_TIMEOUT_S):
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(start_and_list_tools)
            tasks.start_soon(start_and_list_tools)

    database = cortex_home / "cortex.db"
    first, second = tool_names
    assert first == second
    assert CONTRACT_TOOLS.issubset(first)
    assert query_one(database, "pragma integrity_check") == "ok"
    assert query_one(database, "pragma user_version") == len(MIGRATIONS)
    assert query_one(database, "select count(*) from memories") == 0
