"""What one `cortex_remember` and one `cortex_recall` ask of each engine (#28 item 8): the
statements and transactions per call, counted in-process on the same corpus (bench/corpus.py)
with no embedder, as bench/engines_latency.py times them.

On SQLite a statement is a call into the library in the server's own process; on PostgreSQL
each is a round trip to the server process, and each transaction adds three more (BEGIN, the
write lock or the snapshot's isolation level, COMMIT). Counts do not depend on the machine's
load, so they explain the latency ratios of the same section.

    python -m bench.engines_statements        # a local pgserver of its own
    python -m bench.engines_statements --database-url postgresql://.../postgres

Writes bench/results/engines-statements.json.
"""

import argparse
import collections
import itertools
import json
import os
import tempfile
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio

from bench.corpus import Corpus
from bench.engines import RESULTS, _given, local_postgres
from bench.latency import SEED
from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import open_engine
from cortex_mcp.store.db import Connection
from cortex_mcp.store.postgres import PostgresConnection, PostgresDatabase
from cortex_mcp.store.sqlite import SqliteConnection, SqliteDatabase

NAME = "engines-statements"
STORE = 1000
CALLS = 40
COUNTS: collections.Counter[str] = collections.Counter()


def counted_statements(kind: type[Connection], method: str) -> None:
    """Count every call of `kind.method` (a statement run)."""
    original = getattr(kind, method)

    async def counting(self: Connection, *args: Any, **kwargs: Any) -> Any:
        COUNTS["statements"] += 1
        return await original(self, *args, **kwargs)

    setattr(kind, method, counting)


def counted_transactions(kind: type[Any], method: str) -> None:
    """Count every transaction `kind.method` opens."""
    original: Callable[..., AbstractAsyncContextManager[Connection]] = getattr(kind, method)

    @asynccontextmanager
    async def counting(self: Any) -> AsyncIterator[Connection]:
        COUNTS[f"{method} transactions"] += 1
        async with original(self) as conn:
            yield conn

    setattr(kind, method, counting)


for connection in (PostgresConnection, SqliteConnection):
    for statement in ("fetch_all", "execute", "executemany"):
        counted_statements(connection, statement)
for database in (PostgresDatabase, SqliteDatabase):
    for transaction in ("read", "write"):
        counted_transactions(database, transaction)


async def per_call(home: Path, url: str | None) -> dict[str, dict[str, float]]:
    """Statements and transactions per remember and per recall on one engine."""
    os.environ.pop("CORTEX_DATABASE_URL", None)
    if url:
        os.environ["CORTEX_DATABASE_URL"] = url
    settings = Settings.model_validate(
        {"home": home, "llm": {"provider": "none"}, "embedding": {"provider": "none"}}
    )
    corpus = Corpus(SEED)
    contents = [content for _, content in itertools.islice(corpus.memories(), STORE + CALLS)]
    queries = [query for _, query in (corpus.query() for _ in range(CALLS))]
    figures: dict[str, dict[str, float]] = {}
    async with open_engine(settings) as engine:
        for content in contents[:STORE]:
            await engine.remember(content)
        COUNTS.clear()
        for content in contents[STORE:]:
            await engine.remember(content)
        figures["remember"] = {key: value / CALLS for key, value in COUNTS.items()}
        COUNTS.clear()
        for query in queries:
            await engine.recall(query)
        figures["recall"] = {key: value / CALLS for key, value in COUNTS.items()}
    return figures


async def measure(admin_url: str) -> dict[str, Any]:
    import psycopg

    name = f"engines_statements_{os.getpid()}"
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f"create database {name}")  # a name this script made
    url = admin_url.replace("/postgres?", f"/{name}?", 1)
    with tempfile.TemporaryDirectory(prefix="cortex-statements-") as temp:
        return {
            "benchmark": NAME,
            "store": STORE,
            "calls": CALLS,
            "sqlite": await per_call(Path(temp) / "sqlite", None),
            "postgresql": await per_call(Path(temp) / "postgresql", url),
        }


def main() -> None:
    cli = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    cli.add_argument("--database-url", help="a running PostgreSQL's postgresql://.../postgres")
    args = cli.parse_args()
    with local_postgres() if not args.database_url else _given(args.database_url) as url:
        report = anyio.run(measure, url)
    (RESULTS / f"{NAME}.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
