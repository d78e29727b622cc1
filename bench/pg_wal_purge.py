"""Does a purged word stay in PostgreSQL's local WAL (pg_wal) after a purge, and after
CHECKPOINT + pg_switch_wal()? Measured on a pgserver instance (issue #27, item 4).

Writes memories holding a unique word, purges them through the engine (VACUUM FULL of the
tables), then counts the pg_wal segment files holding the word's bytes: right after the purge,
after CHECKPOINT + pg_switch_wal(), and after that repeated N times with filler writes (what
it takes to recycle and overwrite the segments). Result in bench/results/pg_wal_purge.json.

    nice -n 19 .venv/bin/python bench/pg_wal_purge.py
"""

import json
import sys
from pathlib import Path

import anyio
import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import open_engine
from tests.postgres import start_local_postgres

WORD = "quixotrelliswombat"
ROUNDS = 6
RESULTS = Path(__file__).parent / "results" / "pg_wal_purge.json"


def segments_holding(data_dir: Path, word: str) -> int:
    """How many pg_wal segment files hold the word's bytes."""
    needle = word.encode()
    return sum(
        1 for f in (data_dir / "pg_wal").iterdir() if f.is_file() and needle in f.read_bytes()
    )


def force(url: str, filler_rows: int = 0) -> None:
    """CHECKPOINT + pg_switch_wal(), with `filler_rows` of other writes first."""
    with psycopg.connect(url, autocommit=True) as conn:
        if filler_rows:
            conn.execute("create table if not exists wal_filler (t text)")
            conn.execute(
                "insert into wal_filler select repeat(md5(g::text), 32) from"
                " generate_series(1, %s) g",
                (filler_rows,),
            )
        conn.execute("checkpoint")
        conn.execute("select pg_switch_wal()")
        conn.execute("checkpoint")


async def purge_word(url: str, home: Path) -> int:
    settings = Settings.model_validate(
        {
            "home": home,
            "database": {"url": url},
            "llm": {"provider": "none"},
            "embedding": {"provider": "none"},
        }
    )
    async with open_engine(settings, environ={}) as engine:
        for n in range(20):
            await engine.remember(f"The vault word number {n} is {WORD}")
        report = await engine.purge_matching(WORD)
    return len(report.purged)


def main() -> None:
    local = start_local_postgres()
    try:
        url = local.fresh_database()
        home = Path(local.data_dir).parent / "wal-bench-home"
        home.mkdir(exist_ok=True)
        purged = anyio.run(purge_word, url, home)
        with psycopg.connect(url, autocommit=True) as conn:
            in_tables = conn.execute(
                "select count(*) from memories where content like %s", (f"%{WORD}%",)
            ).fetchone()
        figures = {"purged_memories": purged, "rows_left": in_tables[0] if in_tables else None}
        figures["segments_after_purge"] = segments_holding(local.data_dir, WORD)
        force(url)
        figures["segments_after_checkpoint_and_switch"] = segments_holding(local.data_dir, WORD)
        rounds = []
        for _ in range(ROUNDS):
            force(url, filler_rows=40_000)
            rounds.append(segments_holding(local.data_dir, WORD))
        figures["segments_after_each_filler_round"] = rounds
        with psycopg.connect(url, autocommit=True) as conn:
            settings_row = conn.execute(
                "select current_setting('min_wal_size'), current_setting('max_wal_size'),"
                " current_setting('wal_keep_size'), current_setting('wal_recycle')"
            ).fetchone()
        figures["server"] = dict(
            zip(
                ["min_wal_size", "max_wal_size", "wal_keep_size", "wal_recycle"],
                settings_row or [],
                strict=False,
            )
        )
    finally:
        local.stop()
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
