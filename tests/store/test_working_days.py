"""The mirror's marks of its working days, kept between writes: after every change this process
makes, and after a commit by another process, they equal the marks read from every live
working memory; after a write of its own only the days it touched are read again (#28 item 2:
reading every day took 35 ms at 100,000 memories after each write, and a recall waited)."""

from pathlib import Path

import pytest

from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import Engine, open_engine
from cortex_mcp.store.sqlite import plain_connection
from cortex_mcp.store.working_days import working_day_marks

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]

EVERY_DAY = (
    "select substr(created_at, 1, 10), count(*), max(updated_at), sum(seq) from memories"
    " where layer = 'working' and deleted_at is null and superseded_by is null"
    " and (agent_id = 'default' or agent_id is null) group by 1"
)
"""The marks as the mirror read them before they were kept: every live working memory."""


def settings_at(home: Path) -> Settings:
    return Settings.model_validate(
        {"home": home, "embedding": {"provider": "none"}, "mirror": {"enabled": False}}
    )


async def every_day(engine: Engine) -> dict[str, str]:
    async with engine.db.read() as conn:
        rows = await conn.fetch_all(EVERY_DAY)
    return {str(row[0]): f"{row[1]} {row[2]} {row[3]}" for row in rows}


async def to_working(engine: Engine, memory_id: str, day: str) -> None:
    """File a memory under working memory on `day` (as the fast channel and decay do)."""
    async with engine.db.write() as conn:
        await conn.execute(
            "update memories set layer = 'working', created_at = :at where id = :id",
            {"at": f"{day}T10:00:00.000000Z", "id": memory_id},
        )


async def test_kept_marks_follow_every_change_of_this_process(tmp_path: Path) -> None:
    async with open_engine(settings_at(tmp_path)) as engine:
        ids = []
        for i, day in enumerate(["2026-03-01", "2026-03-01", "2026-03-02", "2026-03-03"]):
            kept = await engine.remember(f"Working note {i}: the build queue is number {i * 7}.")
            await to_working(engine, kept.id, day)
            ids.append(kept.id)
        assert await working_day_marks(engine.db, "default") == await every_day(engine)
        assert set(await every_day(engine)) == {"2026-03-01", "2026-03-02", "2026-03-03"}

        async def still_equal() -> None:
            assert await working_day_marks(engine.db, "default") == await every_day(engine)

        new = await engine.remember("Working note 9: the deploy window is Thursday at 14:00.")
        await to_working(engine, new.id, "2026-03-04")  # a new day
        await still_equal()
        await engine.forget(ids[0])  # one of two on a day
        await still_equal()
        await engine.remember("Working note 3 replaced: the queue is 99.", supersedes=ids[3])
        await still_equal()  # its day is gone
        assert "2026-03-03" not in await working_day_marks(engine.db, "default")
        await to_working(engine, ids[2], "2026-03-01")  # moved to another day
        await still_equal()
        async with engine.db.write() as conn:  # back to core
            await conn.execute("update memories set layer = 'core' where id = :id", {"id": new.id})
        await still_equal()
        await engine.purge([ids[0]])  # gone for good
        await still_equal()
        with pytest.raises(RuntimeError):  # a write that never lands changes no mark
            async with engine.db.write() as conn:
                await conn.execute("delete from memories where id = :id", {"id": ids[1]})
                raise RuntimeError("cut short")
        await still_equal()
        assert list(await working_day_marks(engine.db, "default")) == ["2026-03-01"]


@pytest.mark.sqlite_only  # the marks kept between calls, and another process's commit
async def test_only_the_days_touched_are_read_again(tmp_path: Path) -> None:
    async with open_engine(settings_at(tmp_path)) as engine:
        for i in range(3):
            kept = await engine.remember(f"Working note {i}: the build queue is number {i * 7}.")
            await to_working(engine, kept.id, f"2026-03-0{i + 1}")
        await working_day_marks(engine.db, "default")  # every day, read once
        statements: list[str] = []
        async with engine.db.read() as conn:
            raw = conn.raw
        await raw.set_trace_callback(statements.append)
        try:
            await working_day_marks(engine.db, "default")  # nothing changed: nothing read
            nothing = list(statements)
            await to_working(engine, kept.id, "2026-03-09")
            statements.clear()
            marks = await working_day_marks(engine.db, "default")
        finally:
            await raw.set_trace_callback(None)
        assert not [s for s in nothing if "from memories" in s], nothing
        read = [s for s in statements if "from memories" in s or "from json_each" in s]
        assert len(read) == 1 and "json_each(" in read[0], read  # these days, not every day
        assert "2026-03-03" in read[0] and "2026-03-09" in read[0] and "2026-03-01" not in read[0]
        assert marks == await every_day(engine)

        other = plain_connection(str(tmp_path / "cortex.db"))  # another process forgets a memory
        try:
            other.execute("update memories set deleted_at = '2026-03-10' where id = ?", [kept.id])
            other.commit()
        finally:
            other.close()
        assert "2026-03-09" not in await working_day_marks(engine.db, "default")
        assert await working_day_marks(engine.db, "default") == await every_day(engine)
