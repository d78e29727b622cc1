"""How fast the back-fill embeds memories (#28 item 4), against the local model alone.

    python -m bench.backfill --memories 1000 --batch-sizes 64,256

For each batch size: seed N synthetic memories (bench/corpus.py) in a fresh store, then run
the back-fill until every memory has a vector, with the local embedder (the cache is empty, so
every text is embedded); in the same run the model embeds the same texts directly in batches of
64, the floor. Writes bench/results/backfill.json with memories/s, the ratio to the floor and
the load of the machine (a shared machine: read the ratio).
"""

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

from bench.corpus import Corpus
from bench.latency import SEED, machine, seed
from cortex_mcp.clock import utc_now
from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import open_engine
from cortex_mcp.store import vectors

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "backfill.json"
MAX_ROUNDS = 100_000


async def backfill(home: Path, batch: int) -> dict[str, Any]:
    """Seconds for the back-fill to embed every memory of the store at `home`."""
    settings = Settings.model_validate(
        {
            "home": home,
            "llm": {"provider": "none"},
            "embedding": {"provider": "local", "batch_size": batch, "timeout_s": 600},
        }
    )
    async with open_engine(settings) as engine:
        await engine.vectors.embedder.embed(["warm up"], kind="passage")  # the model's load
        started = time.perf_counter()
        done = 0
        for _ in range(MAX_ROUNDS):
            embedded = await engine.vectors.backfill()
            if not embedded:
                break
            done += embedded
        seconds = time.perf_counter() - started
        async with engine.db.read() as conn:
            left = (await vectors.coverage(conn))["without_vectors"]
        texts = [text for _, text in await missing_texts(home)]
        started = time.perf_counter()
        for start in range(0, len(texts), 64):
            await engine.vectors.embedder.embed(texts[start : start + 64], kind="passage")
        floor = time.perf_counter() - started
    return {
        "batch_size": batch,
        "embedded": done,
        "left_without_vector": left,
        "seconds": round(seconds, 1),
        "memories_per_s": round(done / seconds, 1) if seconds else None,
        "model_alone_seconds": round(floor, 1),
        "model_alone_per_s": round(len(texts) / floor, 1) if floor else None,
        "ratio_to_model_alone": round(seconds / floor, 2) if floor else None,
        "load_avg_1m": os.getloadavg()[0],
    }


async def missing_texts(home: Path) -> list[tuple[int, str]]:
    """Every memory's (seq, content), as the back-fill read them."""
    settings = Settings.model_validate({"home": home, "embedding": {"provider": "none"}})
    async with open_engine(settings) as engine, engine.db.read() as conn:
        rows = await conn.fetch_all("select seq, content from memories where deleted_at is null")
    return [(int(row[0]), str(row[1])) for row in rows]


async def main() -> None:
    cli = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    cli.add_argument("--memories", type=int, default=1000)
    cli.add_argument("--batch-sizes", default="64,256")
    args = cli.parse_args()
    runs = []
    for batch in [int(b) for b in args.batch_sizes.split(",")]:
        with tempfile.TemporaryDirectory(prefix="cortex-backfill-") as temp:
            home = Path(temp) / "home"
            await seed(home, args.memories, Corpus(SEED))
            runs.append(await backfill(home, batch))
            print(json.dumps(runs[-1]), flush=True)
    report = {
        "benchmark": "backfill",
        "generated_at": utc_now().isoformat(timespec="seconds"),
        "machine": machine(),
        "memories": args.memories,
        "runs": runs,
    }
    RESULTS.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    anyio.run(main)
