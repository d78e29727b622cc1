"""A BM25 recall's fixed costs cut without changing what it returns (#28 item 7): the full-text
candidates in one statement when the ranked pool held every match, the graph step and the
conversation log's text leg skipped while the store holds no relation or no message (known
from the data version the candidates' statement reads and this connection's changes, without a
statement of its own), and the memories shown as the log's fusion would show them."""

import itertools
import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from cortex_mcp.config import SearchSettings, Settings
from cortex_mcp.engine.facade import Engine, open_engine
from cortex_mcp.engine.recall.log import with_log_hits
from cortex_mcp.engine.recall.unlogged import without_log
from cortex_mcp.models import Category, Layer, Memory, RecallResult, new_memory_id
from cortex_mcp.search.query import match_expression
from cortex_mcp.search.scoring import Relevance, final_score, layer_weight, score_candidate
from cortex_mcp.store import fts
from cortex_mcp.store.memories import insert_memory
from cortex_mcp.store.shape import Mark, change_mark, store_shape
from tests.conftest import FrozenClock

pytestmark = [pytest.mark.anyio, pytest.mark.engines, pytest.mark.usefixtures("database_engine")]

NOW = datetime(2026, 11, 26, 9, 0, tzinfo=UTC)
_ids = itertools.count(1)


@pytest.fixture
def plain(cortex_home: Path) -> Settings:
    """No LLM, no vectors: BM25 only, so what recall finds is deterministic."""
    return Settings.model_validate(
        {"home": cortex_home, "llm": {"provider": "none"}, "embedding": {"provider": "none"}}
    )


def memory(content: str, agent: str | None = "default") -> Memory:
    return Memory.fresh(
        id=new_memory_id(int(NOW.timestamp() * 1000), next(_ids)),
        agent_id=agent,
        layer=Layer.WORKING,
        category=Category.FACT,
        content=content,
        source="manual",
        importance=0.7,
        now=NOW,
    )


async def seed(engine: Engine, memories: list[Memory]) -> None:
    async with engine.db.write() as conn:
        for m in memories:
            await insert_memory(conn, m)


def shown(result: RecallResult) -> tuple[str, list[str], list[str]]:
    """What a recall shows: its context block, its memories and its log lines."""
    return (
        result.context,
        [item.id for item in result.memories],
        [line.content for line in result.conversation],
    )


async def test_a_message_logged_by_another_process_is_found_at_once(
    plain: Settings, clock: FrozenClock
) -> None:
    """The shape kept while the log was empty does not outlive the first message another
    connection (another process) logs: the next recall searches the log and shows it."""
    async with open_engine(plain, clock, {}) as first, open_engine(plain, clock, {}) as second:
        await first.remember("The user drinks oolong tea every morning")
        before = await first.recall("which tea does the user drink in the morning")
        assert before.conversation == []
        await second.flush(
            [("user", "My grandmother grew jasmine tea in Fujian every spring")],
            session_id="s1",
            reason="compaction",
        )
        after = await first.recall("jasmine tea Fujian grandmother")
        assert [line.content for line in after.conversation] == [
            "My grandmother grew jasmine tea in Fujian every spring"
        ]


async def test_a_relation_written_elsewhere_lifts_recall_at_once(
    plain: Settings, clock: FrozenClock
) -> None:
    """A recall made while the store had no relation answers the same as a fresh process once
    another connection writes one (the graph step is not skipped any more)."""
    question = "where does Priya work"
    async with open_engine(plain, clock, {}) as first, open_engine(plain, clock, {}) as second:
        await first.remember("Priya has a cat called Miso")
        await first.recall(question)  # kept: no relation
        await second.remember(
            "Priya joined Acme Robotics as a staff engineer",
            relations=[["Priya", "works at", "Acme Robotics"]],
        )
        seen = await first.recall(question)
    async with open_engine(plain, clock, {}) as fresh:
        expected = await fresh.recall(question)
    assert shown(seen) == shown(expected)
    assert "Acme Robotics" in seen.context


async def test_own_writes_change_the_shape(plain: Settings, clock: FrozenClock) -> None:
    """The process's own commits move the mark too: a message it logs itself is found next."""
    async with open_engine(plain, clock, {}) as engine:
        await engine.remember("The user keeps bees on the roof")
        assert (await engine.recall("honey from the roof bees")).conversation == []
        await engine.flush([("user", "The bees on my roof made honey twice this summer")])
        found = await engine.recall("honey from the roof bees")
        assert [line.content for line in found.conversation] == [
            "The bees on my roof made honey twice this summer"
        ]


async def mark_of(engine: Engine) -> Mark | None:
    """The store's mark as a recall's candidate statement sees it."""
    match = match_expression("cycles")
    assert match is not None
    async with engine.db.read() as conn:
        rows = await fts.text_rows(conn, match, "default", list(Layer), None, limit=10)
    version = rows[0]["data_version"] if rows and engine.db.dialect == "sqlite" else None
    return change_mark(engine.db, version)


async def test_the_mark_moves_with_every_commit(plain: Settings, clock: FrozenClock) -> None:
    """On SQLite the mark stays while nothing is committed and moves with a commit of this
    connection (its changes) or of another (the data version); on PostgreSQL there is none and
    nothing is kept (every step runs)."""
    async with open_engine(plain, clock, {}) as engine, open_engine(plain, clock, {}) as other:
        await engine.remember("The user cycles to work")
        first = await mark_of(engine)
        if engine.db.dialect != "sqlite":
            assert first is None
            async with engine.db.read() as conn:
                assert await store_shape(conn, engine.db, first) is None
            return
        assert first is not None and await mark_of(engine) == first
        async with engine.db.read() as conn:
            shape = await store_shape(conn, engine.db, first)
        assert shape is not None and (shape.relations, shape.log) == (False, False)
        await engine.remember("Priya cycles to Acme", relations=[["Priya", "works at", "Acme"]])
        own = await mark_of(engine)
        assert own is not None and own != first and own[0] == first[0]
        async with engine.db.read() as conn:
            shape = await store_shape(conn, engine.db, own)
        assert shape is not None and shape.relations and not shape.log
        await other.flush([("user", "I cycle to work when it does not rain")])
        theirs = await mark_of(engine)
        assert theirs is not None and theirs[0] != own[0]
        async with engine.db.read() as conn:
            shape = await store_shape(conn, engine.db, theirs)
        assert shape is not None and shape.relations and shape.log


async def test_without_log_is_what_the_fusion_gives_an_empty_log(
    plain: Settings, clock: FrozenClock
) -> None:
    """`without_log` orders the memories exactly as `with_log_hits` does when the log holds
    no message: answers first, then the matched, then the rest, `limit` in all."""
    async with open_engine(plain, clock, {}) as engine:
        memories = [
            memory(f"fact number {i} about gardens and {w}") for i, w in enumerate("abcdefgh")
        ]
        await seed(engine, memories)
        found = [(m, 1.0 - i / 10) for i, m in enumerate(memories)]
        cases = [
            ({m.id for m in memories[::2]}, [], 8),
            ({m.id for m in memories[1:4]}, [memories[5]], 5),
            (set(), [memories[7], memories[2]], 3),
            ({m.id for m in memories}, [], 4),
        ]
        async with engine.db.read() as conn:
            for matched, answers, limit in cases:
                fused, said = await with_log_hits(
                    conn,
                    match_expression("gardens"),
                    "default",
                    found,
                    matched,
                    answers,
                    limit,
                    ["gardens"],
                )
                assert said == []
                assert without_log(found, matched, answers, limit) == fused


async def test_candidates_are_exact_whether_or_not_the_pool_was_full(
    plain: Settings, clock: FrozenClock
) -> None:
    """The pool held every match: its rows are the answer, in one statement. The pool was full
    and the filters left too few: the exact query finds the agent's weaker match beyond it."""
    others = [memory(f"kiwi kiwi orchard row {i}", agent="someone-else") for i in range(70)]
    mine_strong = memory("kiwi")
    mine_weak = memory(
        "a long note about the market, apples, pears, plums, cherries and, once, a kiwi,"
        " then bread, cheese, olives, coffee, tea, milk, honey, butter and more bread"
    )
    async with open_engine(plain, clock, {}) as engine:
        await seed(engine, [*others, mine_strong, mine_weak])
        match = match_expression("kiwi")
        assert match is not None
        layers = list(Layer)
        async with engine.db.read() as conn:
            few = await fts.text_candidates(conn, match, "default", layers, None, limit=3)
            many = await fts.text_candidates(conn, match, "default", layers, None, limit=100)
            if conn.dialect == "sqlite":  # the exact query, straight
                exact = await conn.fetch_all(
                    fts._CANDIDATES.format(columns=fts.SLIM, version="1", limit=100),
                    {
                        "match": match,
                        "agent_id": "default",
                        "layers": json.dumps([layer.value for layer in layers]),
                        "categories": None,
                        "context_weight": 1.0,
                        "shared": True,
                    },
                )
                assert [c.id for _, c in many] == [row["id"] for row in exact]
    assert [c.id for _, c in few] == [mine_strong.id, mine_weak.id]  # beyond a full pool
    assert [c.id for _, c in many] == [mine_strong.id, mine_weak.id]  # the pool held all


async def test_final_score_is_the_breakdowns() -> None:
    """Candidates are sorted by `final_score` without a breakdown each; it is exactly the
    breakdown's `final_score`, which is put together only for the candidates shown."""
    settings = SearchSettings()
    rng = random.Random(28)
    for _ in range(500):
        relevance = Relevance(
            bm25=-rng.random() * 9, text_score=rng.random(), fused_score=rng.random()
        )
        factors = (
            relevance,
            rng.choice(list(Layer)),
            NOW - timedelta(days=rng.uniform(0, 90)),
            rng.randrange(0, 40),
            NOW,
            settings,
            rng.choice([1.0, 1.0 + settings.date_boost]),
        )
        weights = {layer: layer_weight(layer, settings) for layer in Layer}
        breakdown = score_candidate(*factors)
        expected = breakdown.final_score
        assert final_score(*factors) == final_score(*factors, weights) == expected
        assert expected == (
            breakdown.fused_score
            * breakdown.date_boost
            * breakdown.layer_weight
            * breakdown.recency_boost
            * breakdown.access_boost
        )
