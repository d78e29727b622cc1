"""Import and export: a lossless JSON round trip, MEMORY.md, daily logs and the official
memory server's knowledge graph, each idempotent."""

import json
from datetime import timedelta
from pathlib import Path

import pytest

from cortex_mcp.clock import to_text
from cortex_mcp.engine.facade import Engine, open_engine
from cortex_mcp.engine.language.redaction import Cleaner
from cortex_mcp.engine.lifecycle import run_lifecycle
from cortex_mcp.engine.mirror.write import write_mirror
from cortex_mcp.engine.transfer import export_json, export_markdown, import_path, import_text
from cortex_mcp.errors import InvalidInput
from cortex_mcp.models import Category, Layer
from cortex_mcp.store.relations import Relation, insert_relation, relations_of
from tests.conftest import FrozenClock
from tests.lifecycle.conftest import live, memory, plant, quiet_settings

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]

SEED_MEMORY_MD = """---
exported_at: 2026-02-20T03:00:00Z
total_entries: 7
source: cortex SQLite
---

## 用户画像

- Harry,东京居民,不动产投资者 + 技术评估专家
- 语言: 中文(母语) / 日文(流利) / 英文(流利)

## 偏好与习惯

- 投资风格: 低风险、稳定现金流、偏好东京都内
- 沟通偏好: 中文回答,直接高效,
  不要废话

## 关键决策记录

- [2026-02-15] 决定将 Chromebook 转换为 Ubuntu Server

## 历史记忆摘要

- [2026-01] 调研日本癌症治疗方案(BNCT/树突细胞);NTT路由器IPv6配置

Loose paragraph with a fact
that spans two lines.
"""

OFFICIAL_JSONL = "\n".join(
    json.dumps(record)
    for record in [
        {"type": "entity", "name": "default_user", "entityType": "person",
         "observations": ["Lives in Tokyo", "Prefers tea over coffee"]},
        {"type": "entity", "name": "Acme_Corp", "entityType": "organization",
         "observations": ["Harry's employer since 2021"]},
        {"type": "entity", "name": "Shinagawa_flat", "entityType": "property", "observations": []},
        {"type": "relation", "from": "default_user", "to": "Acme_Corp", "relationType": "works_at"},
        {"type": "relation", "from": "default_user", "to": "Shinagawa_flat",
         "relationType": "evaluates"},
    ]
)  # fmt: skip


async def fill_every_state(engine: Engine, clock: FrozenClock) -> None:
    """Memories in every layer and state, a supersede chain, a compressed month, relations."""
    await engine.remember("Harry lives in Tokyo", category=Category.IDENTITY, tags=["home"])
    old = await engine.remember("Budget is 50 million yen", category=Category.FACT)
    await engine.remember(
        "Budget is not decided yet", category=Category.CORRECTION, supersedes=old.id
    )
    gone = await engine.remember("A secret I regret", category=Category.FACT)
    await engine.forget(gone.id, reason="private")
    now = clock.now
    await plant(
        engine,
        memory("Discussing yields", layer=Layer.WORKING, created=now),
        memory(
            "Router notes",
            layer=Layer.ARCHIVE,
            created=now - timedelta(days=120),
            metadata={"archived_at": to_text(now - timedelta(days=95))},
        ),
        memory("Shared fact for all agents", created=now, agent_id=None),
    )
    async with engine.db.write() as conn:
        await insert_relation(
            conn, Relation("rel-1", "default", "Harry", "lives in", "Tokyo", 0.9, old.id, now, now)
        )
    await run_lifecycle(engine.runtime)  # compresses the archive month, writes a profile


@pytest.mark.sqlite_only  # a second store at another home: one PostgreSQL database here
async def test_json_export_and_import_round_trip_without_loss(
    engine: Engine, clock: FrozenClock, tmp_path: Path
):
    await fill_every_state(engine, clock)
    exported = await export_json(engine.runtime, include_forgotten=True)

    async with open_engine(quiet_settings(tmp_path / "elsewhere"), clock, {}) as other:
        report = await import_text(other.runtime, Cleaner(True), exported, "cortex-export.json")
        again = await import_text(other.runtime, Cleaner(True), exported, "cortex-export.json")
        reexported = await export_json(other.runtime, include_forgotten=True)

    original, restored = json.loads(exported), json.loads(reexported)
    assert restored["memories"] == original["memories"]
    assert restored["relations"] == original["relations"]
    states = {m["layer"] for m in original["memories"]}
    assert states == {"core", "working", "archive"}
    assert any(m["superseded_by"] for m in original["memories"])
    assert any(m["deleted_at"] for m in original["memories"])
    assert any(m["metadata"].get("compressed_into") for m in original["memories"])
    assert report.memories_added == len(original["memories"]) and report.relations_added == 1
    assert again.memories_added == 0 and again.memories_skipped == len(original["memories"])


async def test_an_imported_export_is_searchable(engine: Engine, clock: FrozenClock, tmp_path: Path):
    await engine.remember("品川の利回りは4.28%", category=Category.FACT)
    exported = await export_json(engine.runtime)

    async with open_engine(quiet_settings(tmp_path / "elsewhere"), clock, {}) as other:
        await import_text(other.runtime, Cleaner(True), exported, "export.json")
        found = await other.recall("利回")

    assert [m.content for m in found.memories] == ["品川の利回りは4.28%"]


async def test_a_seed_memory_md_imports_one_memory_per_item_by_section(engine: Engine):
    report = await import_text(engine.runtime, Cleaner(True), SEED_MEMORY_MD, "MEMORY.md")

    core = {m.content: m for m in await live(engine, Layer.CORE)}
    assert report.memories_added == 7 == len(core)
    assert core["Harry,东京居民,不动产投资者 + 技术评估专家"].category == Category.IDENTITY
    assert core["沟通偏好: 中文回答,直接高效, 不要废话"].category == Category.PREFERENCE
    decision = core["决定将 Chromebook 转换为 Ubuntu Server"]
    assert (
        decision.category == Category.DECISION
        and decision.created_at.date().isoformat() == "2026-02-15"
    )
    assert any(
        c.startswith("[2026-01] 调研") and m.category == Category.SUMMARY for c, m in core.items()
    )
    assert core["Loose paragraph with a fact that spans two lines."].category == Category.SUMMARY
    assert (
        await import_text(engine.runtime, Cleaner(True), SEED_MEMORY_MD, "MEMORY.md")
    ).memories_added == 0


async def test_our_own_memory_md_imports_back_into_the_same_categories(
    engine: Engine, tmp_path: Path, clock: FrozenClock
):
    for category in (Category.IDENTITY, Category.PREFERENCE, Category.DECISION, Category.TODO):
        await engine.remember(f"A {category.value} to carry over", category=category)
    await write_mirror(engine.runtime)
    page = (engine.settings.home / "MEMORY.md").read_text(encoding="utf-8")

    async with open_engine(quiet_settings(tmp_path / "elsewhere"), clock, {}) as other:
        await import_text(other.runtime, Cleaner(True), page, "MEMORY.md")
        imported = {(m.content, m.category) for m in await live(other, Layer.CORE)}

    assert imported == {
        (f"A {c.value} to carry over", c)
        for c in (Category.IDENTITY, Category.PREFERENCE, Category.DECISION, Category.TODO)
    }


async def test_daily_logs_are_dated_and_go_to_working_or_archive_by_age(
    engine: Engine, tmp_path: Path, clock: FrozenClock
):
    workspace = tmp_path / "workspace"
    (workspace / "memory").mkdir(parents=True)
    (workspace / "MEMORY.md").write_text("## Preferences\n\n- Likes tea\n", encoding="utf-8")
    (workspace / "memory" / "2025-12-01.md").write_text(
        "# 2025-12-01\n\n- Set up the VPS firewall\n- Todo: renew the domain\n", encoding="utf-8"
    )
    (workspace / "memory" / "2025-12-31.md").write_text(
        "Talked about the budget.\n", encoding="utf-8"
    )
    (workspace / "notes.txt").write_text("not memory", encoding="utf-8")

    report = await import_path(engine.runtime, Cleaner(True), workspace)

    assert sorted(report.formats) == ["daily-log", "daily-log", "memory-md"]
    archived = await live(engine, Layer.ARCHIVE)
    assert sorted(m.content for m in archived) == [
        "Set up the VPS firewall",
        "Todo: renew the domain",
    ]
    assert all(m.created_at.date().isoformat() == "2025-12-01" for m in archived)
    (recent,) = await live(engine, Layer.WORKING)
    assert recent.content == "Talked about the budget." and recent.expires_at is not None
    assert [m.category for m in await live(engine, Layer.CORE)] == [Category.PREFERENCE]
    assert (await import_path(engine.runtime, Cleaner(True), workspace)).memories_added == 0


async def test_the_official_memory_servers_graph_becomes_memories_and_relations(
    engine: Engine,
):
    report = await import_text(engine.runtime, Cleaner(True), OFFICIAL_JSONL, "memory.jsonl")
    again = await import_text(engine.runtime, Cleaner(True), OFFICIAL_JSONL, "memory.jsonl")

    core = {m.content: m for m in await live(engine, Layer.CORE)}
    assert set(core) == {
        "default_user: Lives in Tokyo",
        "default_user: Prefers tea over coffee",
        "Acme_Corp: Harry's employer since 2021",
        "Shinagawa_flat (property)",
    }
    assert core["default_user: Lives in Tokyo"].category == Category.IDENTITY
    assert core["Acme_Corp: Harry's employer since 2021"].category == Category.RELATIONSHIP
    assert core["Acme_Corp: Harry's employer since 2021"].metadata["entities"] == ["Acme_Corp"]
    async with engine.db.read() as conn:
        relations = await relations_of(conn, "default")
    assert {(r.subject, r.predicate, r.object) for r in relations} == {
        ("default_user", "works_at", "Acme_Corp"),
        ("default_user", "evaluates", "Shinagawa_flat"),
    }
    assert (report.memories_added, report.relations_added) == (4, 2)
    assert (again.memories_added, again.relations_added) == (0, 0)


async def test_markdown_export_has_every_layer(engine: Engine, clock: FrozenClock):
    await fill_every_state(engine, clock)

    text = await export_markdown(engine.runtime)

    assert "Harry lives in Tokyo" in text and "Discussing yields" in text
    assert "Router notes" in text and "Harry ──lives in──▶ Tokyo" in text
    assert "A secret I regret" not in text


async def test_broken_files_are_refused_without_changes(engine: Engine, tmp_path: Path):
    with pytest.raises(InvalidInput, match="file"):
        await import_text(engine.runtime, Cleaner(True), '{"format": "something-else"}', "x.json")
    with pytest.raises(InvalidInput, match="path"):
        await import_path(engine.runtime, Cleaner(True), tmp_path / "missing.md")
    assert await live(engine, Layer.CORE) == []


async def test_one_bad_jsonl_line_is_skipped_and_reported_not_the_whole_file(engine: Engine):
    report = await import_text(
        engine.runtime, Cleaner(True), '{"type": "entity", "name": "a"}\nnot json', "g.jsonl"
    )

    assert (report.memories_added, report.rows_invalid) == (1, 1)
    assert report.problems == ["g.jsonl:2: line: is not JSON"]


async def test_a_folder_with_nothing_importable_says_why_it_read_no_file(
    engine: Engine, tmp_path: Path
):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "todo.txt").write_text("buy milk", encoding="utf-8")
    await write_mirror(engine.runtime)
    (notes / "MEMORY.md").write_bytes((engine.runtime.settings.home / "MEMORY.md").read_bytes())

    report = await import_path(engine.runtime, Cleaner(True), notes)

    assert report.files == 0
    assert report.note is not None
    assert "MEMORY.md, daily logs named YYYY-MM-DD.md, .json and .jsonl" in report.note
    assert "1 page(s) cortex-mcp generated itself were skipped" in report.note
    assert "1 other file(s) were not read" in report.note
    populated = await import_text(
        engine.runtime, Cleaner(True), "# Notes\n- I like tea\n", "MEMORY.md"
    )
    assert populated.note is None
