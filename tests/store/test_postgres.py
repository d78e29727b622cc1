"""The PostgreSQL engine itself: placeholders, FTS5's bm25 reproduced in SQL, migrations under
an advisory lock, `cortex-mcp migrate` both ways, and an outage the server survives."""

import json
import math
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import psycopg
import pytest
from mcp import Client

from cortex_mcp import cli
from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import Engine, open_engine
from cortex_mcp.models import Layer
from cortex_mcp.search.query import match_expression
from cortex_mcp.server import build_server
from cortex_mcp.store import fts
from cortex_mcp.store.migrations import migrate
from cortex_mcp.store.migrations_pg import PG_MIGRATIONS, pg_version
from cortex_mcp.store.postgres import open_postgres, placeholders
from tests.conftest import FrozenClock, data_of, text_of
from tests.postgres import LocalPostgres, start_local_postgres

CORPUS = [
    "Caroline went to the LGBTQ support group on Tuesday",
    "Melanie painted a sunrise over the lake last year",
    "Caroline is researching adoption agencies",
    "The support group meets every week; Caroline says it helps",
    "利回りの良い投資について話した",
    "Melanie's kids love the beach and the lake",
    "Caroline and Melanie went camping by the lake in June",
]
QUERIES = ["Caroline support group", "lake", "利回り", "adoption agencies Caroline", "beach kids"]


def quiet(home: Path, url: str | None = None) -> Settings:
    database = {"url": url} if url else {}
    return Settings.model_validate(
        {
            "home": home,
            "llm": {"provider": "none"},
            "embedding": {"provider": "none"},
            "database": database,
        }
    )


def test_placeholders_become_psycopg_ones_outside_literals_and_casts() -> None:
    assert placeholders("select ? where a = :name and b::text like '%:x?'") == (
        "select %s where a = %(name)s and b::text like '%%:x?'"
    )
    assert placeholders("select 5 % 2, cast(:n as int)") == "select 5 %% 2, cast(%(n)s as int)"


@pytest.fixture
async def two_engines(
    tmp_path: Path, local_postgres: LocalPostgres, clock: FrozenClock
) -> AsyncIterator[tuple[Engine, Engine]]:
    url = local_postgres.fresh_database()
    async with (
        open_engine(quiet(tmp_path / "a"), clock, {}) as lite,
        open_engine(quiet(tmp_path / "b", url), clock, {}) as pg,
    ):
        yield lite, pg


async def bm25_of(engine: Engine, query: str, context_weight: float) -> dict[str, float]:
    match = match_expression(query)
    assert match is not None
    async with engine.db.read() as conn:
        found = await fts.text_candidates(
            conn, match, "default", list(Layer), None, 50, context_weight
        )
    contents = await engine_contents(engine)
    return {contents[c.id]: score for score, c in found}


async def engine_contents(engine: Engine) -> dict[str, str]:
    async with engine.db.read() as conn:
        return {r["id"]: r["content"] for r in await conn.fetch_all("select * from memories")}


async def test_bm25_on_postgresql_equals_fts5_bm25_score_for_score(
    two_engines: tuple[Engine, Engine],
) -> None:
    lite, pg = two_engines
    for engine in (lite, pg):
        for n, text in enumerate(CORPUS):
            await engine.remember(text)
            if n == 2:  # a context column, weighted below the content
                await engine.remember(
                    "She keeps a journal", context="the lake trip with Caroline and Melanie"
                )

    for query in QUERIES:
        for weight in (1.0, 0.3):
            expected, got = await bm25_of(lite, query, weight), await bm25_of(pg, query, weight)
            assert expected.keys() == got.keys(), query
            for content, score in expected.items():
                assert math.isclose(got[content], score, rel_tol=1e-9), (query, content)


async def test_processes_starting_at_once_apply_each_step_once(
    local_postgres: LocalPostgres,
) -> None:
    url = local_postgres.url("concurrent_start")
    with psycopg.connect(local_postgres.admin_url, autocommit=True) as conn:
        conn.execute("drop database if exists concurrent_start")
        conn.execute("create database concurrent_start")
    databases = [await open_postgres(url, 2, 10) for _ in range(3)]
    try:
        async with anyio.create_task_group() as starts:
            for db in databases:
                starts.start_soon(migrate, db)
        async with databases[0].read() as conn:
            assert await pg_version(conn) == len(PG_MIGRATIONS)
            (totals,) = await conn.fetch_all("select count(*) from text_totals")
    finally:
        for db in databases:
            await db.close()
    assert totals[0] == 2  # the first step's rows were written once


async def fill(settings: Settings, clock: FrozenClock) -> None:
    async with open_engine(settings, clock, {}) as engine:
        for n in range(30):
            await engine.remember(f"Project note {n}: the {n % 4} build uses cache {n}")
        old = await engine.remember("The office is in Porto")
        await engine.remember("The office moved to Lisbon")
        await engine.forget(old.id)
        await engine.ingest("I'm Dave and I live in Lisbon.", "Nice to meet you, Dave.")
        await engine.run_lifecycle()


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    status = cli.main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


async def test_migrate_copies_sqlite_to_postgresql_and_back_verified_and_resumable(
    cortex_home: Path,
    local_postgres: LocalPostgres,
    clock: FrozenClock,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CORTEX_EMBEDDING__PROVIDER", "none")
    monkeypatch.setenv("CORTEX_LLM__PROVIDER", "none")
    await fill(quiet(cortex_home), clock)
    url = local_postgres.fresh_database()
    back = cortex_home.parent / "back.db"

    def migrate_cli(*argv: str) -> dict[str, Any]:
        status, out, err = run_cli(capsys, "migrate", *argv)
        assert status == 0, err
        return dict(json.loads(out))

    there = await anyio.to_thread.run_sync(migrate_cli, "--to", url)
    again = await anyio.to_thread.run_sync(migrate_cli, "--to", url)
    home_again = await anyio.to_thread.run_sync(migrate_cli, "--from", url, "--to", str(back))

    copied = there["copied"]
    assert there["verified"] is True  # "application" was in the target's meta already
    assert copied == {**there["source_counts"], "meta": there["source_counts"]["meta"] - 1}
    assert copied["memories"] >= 32
    assert copied["conversation_log"] == 2 and copied["lifecycle_log"] > 0
    assert again["verified"] is True and set(again["copied"].values()) == {0}
    assert home_again["verified"] is True
    assert home_again["memories_hash"] == there["memories_hash"]
    async with open_engine(quiet(cortex_home, url), clock, {}) as moved:
        found = await moved.recall("which build uses cache 7")
    assert found.memories and "cache 7" in found.memories[0].content


async def test_an_unreachable_postgresql_is_a_one_line_error_and_the_server_recovers(
    tmp_path: Path, clock: FrozenClock, local_postgres: LocalPostgres
) -> None:
    own = await anyio.to_thread.run_sync(start_local_postgres)  # its own, to stop and restart
    try:
        settings = quiet(tmp_path, own.url("cortex_template"))
        async with Client(build_server(settings, clock)) as client:
            stored = data_of(await client.call_tool("cortex_remember", {"content": "Kept note"}))
            await anyio.to_thread.run_sync(own.server.cleanup)  # PostgreSQL goes away

            down = await client.call_tool("cortex_recall", {"query": "kept note"})
            assert down.is_error
            message = text_of(down)
            assert message.startswith("database: PostgreSQL is unreachable") and "\n" not in message

            await anyio.to_thread.run_sync(own.restart)  # back, same data
            with anyio.fail_after(60):
                while True:
                    result = await client.call_tool("cortex_recall", {"query": "kept note"})
                    if not result.is_error:
                        break
                    await anyio.sleep(0.5)
            assert [m["id"] for m in data_of(result)["memories"]] == [stored["id"]]
    finally:
        await anyio.to_thread.run_sync(own.stop)
