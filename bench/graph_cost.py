"""What the entity-graph step of recall costs (#15), in-process, BM25 only.

Seeds N synthetic memories (bench/latency.seed), then gives a share of them relations between
the people they name (the corpus's first names), as the fast channel, the LLM or an agent
would; times the same corpus queries with `search.graph_weight` 0 (the step off) and on.

    python -m bench.graph_cost                     # 10,000 memories, 30% with a relation
    python -m bench.graph_cost --sizes 1000,10000 --share 0.5 --weight 0.3

Prints the p50/p95 of recall and of the graph step alone, and writes
bench/results/graph-cost.json.
"""

import argparse
import json
import random
import statistics
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import anyio

from bench.corpus import WORDS, Corpus, split_words
from bench.latency import SEED, seed
from cortex_mcp.clock import utc_now
from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import open_engine
from cortex_mcp.engine.recall import rank as gate
from cortex_mcp.engine.recall.graph import Expansion, expand
from cortex_mcp.models import new_memory_id
from cortex_mcp.store.db import fetch_all
from cortex_mcp.store.relations import Relation, count_relations, insert_relation

RESULTS = Path(__file__).parent / "results" / "graph-cost.json"
PREDICATES = ["manager", "sister", "works with", "lives near", "mentor", "friend", "owns"]


async def add_relations(home: Path, share: float) -> int:
    """A relation for `share` of the memories: a name it mentions (or a drawn one) with another."""
    rng = random.Random(SEED)
    names = split_words(WORDS["en_name"])
    settings = Settings.model_validate({"home": home, "embedding": {"provider": "none"}})
    async with open_engine(settings) as engine, engine.db.write() as conn:
        rows = await fetch_all(conn, "select id, agent_id, content from memories")
        now = utc_now()
        for memory_id, agent_id, content in rows:
            if rng.random() >= share:
                continue
            named = [n for n in names if n in content] or [rng.choice(names)]
            relation = Relation(
                id=new_memory_id(int((now - timedelta(seconds=rng.random())).timestamp() * 1000)),
                agent_id=agent_id,
                subject=named[0],
                predicate=rng.choice(PREDICATES),
                object=rng.choice(names),
                confidence=0.8,
                source_memory_id=memory_id,
                created_at=now,
                updated_at=now,
            )
            await insert_relation(conn, relation)
        return await count_relations(conn)


def percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "p50": round(statistics.median(ordered), 3),
        "p95": round(ordered[int(0.95 * (len(ordered) - 1))], 3),
    }


async def timed(home: Path, weight: float, queries: list[str]) -> dict[str, Any]:
    """Recall latency (engine side) for the queries, and the graph step's own time."""
    settings = Settings.model_validate(
        {
            "home": home,
            "embedding": {"provider": "none"},
            "llm": {"provider": "none"},
            "lifecycle": {"enabled": False},
            "search": {"graph_weight": weight},
        }
    )
    step: list[float] = []

    async def measured(*args: Any, **kwargs: Any) -> Expansion:
        found = await expand(*args, **kwargs)
        step.append(found.elapsed_ms)  # the step's own clock (Expansion.elapsed_ms)
        return found

    setattr(gate, "expand", measured)  # noqa: B010 - a timing wrapper, this run only
    try:
        async with open_engine(settings) as engine:
            for query in queries[:20]:
                await engine.recall(query, max_results=8)  # warm up
            engine.runtime.recall_latencies_ms.clear()
            step.clear()
            started = time.perf_counter()
            for query in queries:
                await engine.recall(query, max_results=8)
            wall = time.perf_counter() - started
            recall_ms = list(engine.runtime.recall_latencies_ms)
    finally:
        setattr(gate, "expand", expand)  # noqa: B010
    return {
        "graph_weight": weight,
        "recall_ms": percentiles(recall_ms),
        "graph_step_ms": percentiles(step) if weight > 0 else None,
        "queries": len(queries),
        "seconds": round(wall, 2),
    }


async def main() -> None:
    cli = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    cli.add_argument("--sizes", default="10000")
    cli.add_argument("--share", type=float, default=0.3, help="share of memories with a relation")
    cli.add_argument("--weight", type=float, default=0.3)
    cli.add_argument("--queries", type=int, default=300)
    args = cli.parse_args()
    corpus = Corpus(SEED)
    queries = [corpus.query()[1] for _ in range(args.queries)]
    report: dict[str, Any] = {"share": args.share, "sizes": {}}
    for n in [int(s) for s in args.sizes.split(",")]:
        with tempfile.TemporaryDirectory(prefix="cortex-graph-cost-") as tmp:
            home = Path(tmp)
            await seed(home, n, Corpus(SEED))
            relations = await add_relations(home, args.share)
            off = await timed(home, 0.0, queries)
            on = await timed(home, args.weight, queries)
        report["sizes"][n] = {"relations": relations, "off": off, "on": on}
        print(f"N={n} relations={relations}")
        print(f"  graph off: recall {off['recall_ms']}")
        print(f"  graph on : recall {on['recall_ms']}  step {on['graph_step_ms']}")
    RESULTS.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    anyio.run(main)
