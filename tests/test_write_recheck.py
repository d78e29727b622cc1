"""The same-fact decision is made outside the write lock and re-checked inside it (#28): what
another writer stored in between is never stored a second time, and a target that left in
between is not reinforced."""

from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest
from mcp import Client

from cortex_mcp.engine.facade import Engine, open_engine
from cortex_mcp.engine.ingest.proposal import Proposal
from cortex_mcp.engine.ingest.remember import remembered_proposal
from cortex_mcp.engine.ingest.write import decide, write_proposal
from cortex_mcp.models import Category
from tests.conftest import FrozenClock, inspect_database
from tests.lifecycle.conftest import quiet_settings
from tests.servers import STARTUP_TIMEOUT_S, stdio_server

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]

STATEMENT = "We chose PostgreSQL 16 for the billing service"


@pytest.fixture
async def engine(cortex_home: Path, clock: FrozenClock) -> AsyncIterator[Engine]:
    async with open_engine(quiet_settings(cortex_home), clock, {}) as engine:
        yield engine


def proposal_of(engine: Engine, content: str) -> Proposal:
    return remembered_proposal(
        content, Category.DECISION, 0.7, [], None, [], engine.settings.memory
    )


def live_count(home: Path, content: str) -> int:
    conn = inspect_database(home / "cortex.db")
    try:
        row = conn.execute(
            "select count(*) from memories where content = ?"
            " and deleted_at is null and superseded_by is null",
            (content,),
        ).fetchone()
    finally:
        conn.close()
    return int(row[0])


async def test_a_statement_stored_between_the_decision_and_the_write_is_reinforced(
    engine: Engine, cortex_home: Path
) -> None:
    proposal = proposal_of(engine, STATEMENT)
    decided = await decide(engine.db, proposal, "default")
    assert decided.verdict.action == "new"

    await engine.remember(STATEMENT, category=Category.DECISION)  # another writer, in between
    async with engine.db.write() as conn:
        outcome = await write_proposal(
            conn, proposal, "default", engine.runtime.clock(), decided=decided
        )

    assert outcome.action == "duplicate"
    assert live_count(cortex_home, STATEMENT) == 1


async def test_a_target_forgotten_between_the_decision_and_the_write_is_not_reinforced(
    engine: Engine, cortex_home: Path
) -> None:
    first = await engine.remember(STATEMENT, category=Category.DECISION)
    proposal = proposal_of(engine, STATEMENT)
    decided = await decide(engine.db, proposal, "default")
    assert decided.verdict.action == "duplicate"

    await engine.forget(first.id)
    async with engine.db.write() as conn:
        outcome = await write_proposal(
            conn, proposal, "default", engine.runtime.clock(), decided=decided
        )

    assert outcome.action == "created" and outcome.memory.id != first.id
    assert live_count(cortex_home, STATEMENT) == 1


async def test_an_unrelated_memory_stored_in_between_keeps_the_decision(
    engine: Engine, cortex_home: Path
) -> None:
    proposal = proposal_of(engine, STATEMENT)
    decided = await decide(engine.db, proposal, "default")

    await engine.remember("Lunch is at noon on Fridays", category=Category.FACT)
    async with engine.db.write() as conn:
        outcome = await write_proposal(
            conn, proposal, "default", engine.runtime.clock(), decided=decided
        )

    assert outcome.action == "created"
    assert live_count(cortex_home, STATEMENT) == 1


async def test_eight_identical_remembers_at_once_in_one_process_store_one_memory(
    engine: Engine, cortex_home: Path
) -> None:
    actions: list[str] = []

    async def one() -> None:
        actions.append((await engine.remember(STATEMENT, category=Category.DECISION)).action)

    async with anyio.create_task_group() as tasks:
        for _ in range(8):
            tasks.start_soon(one)

    assert sorted(actions) == ["created"] + ["duplicate"] * 7
    assert live_count(cortex_home, STATEMENT) == 1


async def test_identical_remembers_from_three_processes_at_once_store_one_memory(
    cortex_home: Path,
) -> None:
    async def four_calls() -> None:
        async with Client(stdio_server(cortex_home)) as client, anyio.create_task_group() as calls:
            for _ in range(4):
                calls.start_soon(client.call_tool, "cortex_remember", {"content": STATEMENT})

    with anyio.fail_after(4 * STARTUP_TIMEOUT_S):
        async with anyio.create_task_group() as processes:
            for _ in range(3):
                processes.start_soon(four_calls)

    assert live_count(cortex_home, STATEMENT) == 1
