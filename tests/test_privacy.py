"""Forget covers what was derived from an exchange; purge erases the bytes (issue 12)."""

import json
from pathlib import Path
from typing import Any

import anyio.to_thread
import pytest
from mcp import Client

from cortex_mcp import cli
from cortex_mcp.config import Settings
from cortex_mcp.engine import purge
from cortex_mcp.engine.facade import open_engine
from cortex_mcp.engine.ingest.backlog import extract_backlog
from cortex_mcp.server import build_server
from cortex_mcp.store.relations import Relation, insert_relation
from tests.conftest import FrozenClock, data_of, inspect_database, recall, remember, text_of
from tests.fakes import FakeOpenAI
from tests.secret_samples import PHONES

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]

ADDRESS_EXCHANGE = "My name is Alice Smith and I live at 5 Elm Street, Springfield."


async def ingest(client: Client, user: str, assistant: str = "Noted.") -> dict[str, Any]:
    return data_of(
        await client.call_tool(
            "cortex_ingest", {"user_message": user, "assistant_message": assistant}
        )
    )


async def forget(client: Client, memory_id: str, **arguments: Any) -> dict[str, Any]:
    return data_of(await client.call_tool("cortex_forget", {"memory_id": memory_id, **arguments}))


async def found_ids(client: Client, query: str) -> set[str]:
    return {m["id"] for m in (await recall(client, query))["memories"]}


async def text_matches(client: Client, query: str) -> set[str]:
    """Memories full-text search finds for the query (not those only a vector brings)."""
    debug = data_of(await client.call_tool("cortex_search_debug", {"query": query}))
    return {c["memory"]["id"] for c in debug["candidates"] if c["score"]["bm25"] is not None}


async def said(client: Client, query: str) -> set[str]:
    """The conversation-log messages a recall falls back on."""
    return {m["content"] for m in (await recall(client, query)).get("conversation", [])}


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """`cortex-mcp <argv>` in this process (on the test's CORTEX_HOME); its stdout."""
    capsys.readouterr()
    assert cli.main(list(argv)) == 0, capsys.readouterr().err
    return capsys.readouterr().out


def stored_bytes(home: Path) -> dict[str, bytes]:
    """Every file under the home (database, WAL, mirror pages), by name."""
    return {str(p.relative_to(home)): p.read_bytes() for p in home.rglob("*") if p.is_file()}


def files_holding(home: Path, *needles: str) -> list[str]:
    """Files under the home whose bytes hold any needle, in its case or in lower case."""
    wanted = [n.encode() for n in needles] + [n.lower().encode() for n in needles]
    return [name for name, data in stored_bytes(home).items() if any(w in data for w in wanted)]


async def test_forgetting_an_extracted_memory_hides_the_raw_exchange_and_restore_brings_both(
    client: Client,
) -> None:
    stored = await ingest(client, ADDRESS_EXCHANGE)
    (identity,) = stored["fast"]
    assert await found_ids(client, "Elm Street address") == {identity["id"]}
    assert await said(client, "Alice Smith Springfield") == set()  # its memory covers it

    await forget(client, identity["id"], reason="privacy: remove my address")

    assert await found_ids(client, "Elm Street address") == set()
    assert await said(client, "Elm Street address") == set()
    assert await said(client, "Alice Smith Springfield") == set()

    data_of(await client.call_tool("cortex_restore", {"memory_id": identity["id"]}))

    assert await found_ids(client, "Elm Street address") == {identity["id"]}


async def test_forgetting_one_memory_of_an_exchange_hides_the_exchange_its_siblings_carry(
    client: Client,
) -> None:
    stored = await ingest(
        client, "My name is Alice Smith. I live at 5 Elm Street, Springfield. I prefer tea."
    )
    by_text = {m["content"]: m["id"] for m in stored["fast"]}
    name = next(i for text, i in by_text.items() if "Alice" in text)
    assert await text_matches(client, "Elm Street") >= {name}  # by the exchange it carries
    assert await said(client, "Elm Street Springfield")  # (the message may stand for it, #23)

    await forget(client, name, reason="privacy")

    assert await text_matches(client, "Elm Street") == set()  # the exchange's words: hidden
    assert name not in await found_ids(client, "Elm Street")  # (a vector neighbour may show)
    assert await said(client, "Elm Street Springfield") == set()
    assert await found_ids(client, "tea") == {by_text["I prefer tea."]}  # the sibling stays

    data_of(await client.call_tool("cortex_restore", {"memory_id": name}))

    assert name in await text_matches(client, "Elm Street")


async def test_export_leaves_forgotten_memories_out_unless_asked(
    client: Client, capsys: pytest.CaptureFixture[str]
) -> None:
    kept = await remember(client, "The team standup is at 9:30")
    gone = await remember(client, "My old locker code was 4417 at the gym")
    await forget(client, gone["id"], reason="privacy")

    plain = await anyio.to_thread.run_sync(run_cli, capsys, "export")
    full = await anyio.to_thread.run_sync(run_cli, capsys, "export", "--include-forgotten")

    assert [m["id"] for m in json.loads(plain)["memories"]] == [kept["id"]]
    assert {m["id"] for m in json.loads(full)["memories"]} == {kept["id"], gone["id"]}
    assert "locker" not in plain


async def test_purge_erases_every_copy_from_the_database_the_wal_the_mirror_and_exports(
    client: Client, cortex_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = "Quillfeather, 77 Marigold Crescent"
    stored = await ingest(client, f"My name is Zanzi {secret}. I prefer green tea.")
    (identity,) = [m["id"] for m in stored["fast"] if "Marigold" in m["content"]]
    await recall(client, "Marigold Crescent")
    data_of(await client.call_tool("cortex_lifecycle", {"action": "run"}))  # writes the mirror
    assert files_holding(cortex_home, "Marigold"), "the text was never stored"
    assert "MEMORY.md" in files_holding(cortex_home, "Marigold")
    await forget(client, identity, reason="privacy")

    purged = await forget(client, identity, purge=True)  # a forgotten memory can be purged

    assert purged["memory_id"] == identity
    assert files_holding(cortex_home, "Marigold", "Quillfeather") == []
    exported = await anyio.to_thread.run_sync(run_cli, capsys, "export", "--include-forgotten")
    markdown = await anyio.to_thread.run_sync(run_cli, capsys, "export", "--format", "markdown")
    assert "marigold" not in (exported + markdown).lower()
    after = await recall(client, "Marigold Crescent")
    # Nothing holds the words any more; a vector neighbour ("I prefer green tea.") may come
    # back once the back-fill has run, which is timing, not a leak.
    assert identity not in {m["id"] for m in after["memories"]}
    assert "marigold" not in json.dumps(after).lower()
    conn = inspect_database(cortex_home / "cortex.db")
    try:
        (log,) = conn.execute(
            "select memory_ids, details from lifecycle_log where action = 'purge'"
        ).fetchall()
        assert identity in json.loads(log[0]) and json.loads(log[1]) == {}
        assert (
            conn.execute("select count(*) from memories where id = ?", (identity,)).fetchone()[0]
            == 0
        )
    finally:
        conn.close()


async def test_purging_a_correction_forgets_the_fact_it_replaced_instead_of_reviving_it(
    client: Client,
) -> None:
    old = await remember(client, "The budget is 50 million yen")
    new = await remember(client, "The budget is 60 million yen", supersedes=old["id"])

    await forget(client, new["id"], purge=True)

    assert await found_ids(client, "budget million yen") == set()
    memory = json.loads(text_of(await client.call_tool("cortex_restore", {"memory_id": old["id"]})))
    assert memory["deleted"] is False


async def test_purge_of_an_unknown_id_is_an_error_that_changes_nothing(client: Client) -> None:
    kept = await remember(client, "Keep this one")

    result = await client.call_tool(
        "cortex_forget", {"memory_id": "0190f3a2-7b4c-7d1e-9f20-3c4b5a6d7e8f", "purge": True}
    )

    assert result.is_error and "memory_id" in text_of(result)
    assert await found_ids(client, "Keep this one") == {kept["id"]}


async def test_cli_purge_matching_shows_a_preview_then_erases_with_yes(
    client: Client, cortex_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one = await remember(client, "Her passport number is X1234-PZQ and it expires in May")
    aside = await remember(client, "She renewed it", context="the passport X1234-PZQ, in May")
    two = await remember(client, "Booked the flight; passport X1234-PZQ was used")
    other = await remember(client, "The flight leaves at 7")

    preview = json.loads(
        await anyio.to_thread.run_sync(run_cli, capsys, "purge", "--matching", "x1234-pzq")
    )

    assert {m["id"] for m in preview["memories"]} == {one["id"], two["id"]}
    assert preview["rewritten"] == [aside["id"]]
    assert await found_ids(client, "X1234-PZQ") == {one["id"], two["id"], aside["id"]}

    report = json.loads(
        await anyio.to_thread.run_sync(run_cli, capsys, "purge", "--matching", "x1234-pzq", "--yes")
    )

    assert set(report["purged"]) == {one["id"], two["id"]} and aside["id"] in report["rewritten"]
    assert report["wal_truncated"]
    assert files_holding(cortex_home, "X1234-PZQ") == []
    flight = await found_ids(client, "flight")  # vectors may add a near neighbour
    assert other["id"] in flight and not flight & {one["id"], two["id"]}
    assert aside["id"] in await found_ids(client, "renewed")  # the text cut out of its context


async def test_a_recall_buffered_while_another_process_purges_never_writes_the_text_back(
    settings: Settings, clock: FrozenClock, cortex_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with Client(build_server(settings, clock)) as client:
        await remember(client, "She renewed it", context="the passport X1234-PZQ, in May")
        await remember(client, "Her passport number is X1234-PZQ")
        assert await found_ids(client, "X1234-PZQ")  # the query waits in the server's buffer
        await anyio.to_thread.run_sync(run_cli, capsys, "purge", "--matching", "x1234-pzq", "--yes")
        assert await found_ids(client, "renewed")
    # The server flushed its buffered recalls at shutdown, after the purge: counted, no text.

    assert files_holding(cortex_home, "X1234-PZQ") == []
    with inspect_database(settings.database_path) as conn:
        queries = [row[0] for row in conn.execute("select query from access_log")]
    assert queries  # the recalls still count


async def test_cli_purge_by_id_previews_without_yes(
    client: Client, capsys: pytest.CaptureFixture[str]
) -> None:
    memory = await remember(client, "A thing to erase later")

    preview = json.loads(await anyio.to_thread.run_sync(run_cli, capsys, "purge", memory["id"]))

    assert preview["would_purge"][0]["id"] == memory["id"]
    assert await found_ids(client, "thing to erase") == {memory["id"]}

    await anyio.to_thread.run_sync(run_cli, capsys, "purge", memory["id"], "--yes")

    assert await found_ids(client, "thing to erase") == set()


async def test_never_remember_my_phone_number_keeps_phone_numbers_out(
    client: Client, cortex_home: Path
) -> None:
    data_of(
        await client.call_tool(
            "cortex_profile", {"content": "Please never remember my phone number or my address."}
        )
    )

    await ingest(client, f"My phone number is {PHONES[0]} and I live at 12 Xihu Road, Hangzhou.")
    await remember(client, f"Bo's mobile is {PHONES[1]}, call him there")
    data_of(
        await client.call_tool(
            "cortex_flush",
            {"messages": [{"role": "user", "content": f"Office line: {PHONES[2]}"}]},
        )
    )

    digits = [p.replace(" ", "") for p in PHONES] + list(PHONES) + ["Xihu Road"]
    assert files_holding(cortex_home, *digits) == []
    found = await recall(client, "phone number mobile office line")
    assert found["memories"], "the memories were stored, without the numbers"
    assert not any(p in found["context"] for p in PHONES)


def test_purge_needs_ids_or_matching(
    settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["purge"]) == 2
    assert "purge" in capsys.readouterr().err


async def test_a_forgotten_exchange_is_not_extracted_again_from_the_log(
    llm_settings: Settings, fake_openai: FakeOpenAI, clock: FrozenClock
) -> None:
    fake_openai.replies.append("not json")  # the deep channel fails: the exchange is owed
    async with open_engine(llm_settings, clock, {}) as engine:
        stored = await engine.ingest(ADDRESS_EXCHANGE, "Noted.")
        assert stored.queued
        await engine.forget(stored.fast[0].id, reason="privacy")
        asked = len(fake_openai.requests)
        clock.advance(hours=1)

        assert await extract_backlog(engine.runtime) == 0
        assert len(fake_openai.requests) == asked


async def test_purge_removes_the_vectors_and_cached_embeddings(
    cortex_home: Path, fake_openai: FakeOpenAI, clock: FrozenClock
) -> None:
    settings = Settings.model_validate(
        {
            "home": cortex_home,
            "llm": {"provider": "none"},
            "embedding": {"provider": "openai", "base_url": fake_openai.url, "api_key": "test"},
        }
    )
    async with open_engine(settings, clock, {}) as engine:
        kept = await engine.remember("The staging database lives in Frankfurt")
        gone = await engine.remember("The vault combination is kept in the red binder")
        assert await engine.vectors.index_memories([kept.id, gone.id]) == 2

        await engine.purge([gone.id])

    on_postgresql = engine.db.dialect == "postgresql"
    # sqlite-vec's shadow table of the vec0 index is readable without the extension
    vectors = "memory_vectors" if on_postgresql else "memory_vectors_rowids"
    conn = inspect_database(cortex_home / "cortex.db")
    try:
        assert conn.execute("select count(*) from embedding_cache").fetchone()[0] == 1
        assert conn.execute(f"select count(*) from {vectors}").fetchone()[0] == 1
        (binder,) = conn.execute(
            "select count(*) from memories where content like '%red binder%'"
        ).fetchone()
    finally:
        conn.close()
    assert binder == 0
    if not on_postgresql:
        assert b"red binder" not in (cortex_home / "cortex.db").read_bytes()


async def test_forgetting_a_memory_from_a_flush_hides_the_raw_batch_it_came_from(
    client: Client,
) -> None:
    flushed = data_of(
        await client.call_tool(
            "cortex_flush",
            {
                "messages": [
                    {"role": "user", "content": "My name is Alice Smith and I live on Elm Street."},
                    {"role": "assistant", "content": "Thanks, Alice."},
                ]
            },
        )
    )
    (identity,) = [m["id"] for m in flushed["memories"] if m["layer"] == "core"]
    copies = {m["id"] for m in flushed["memories"] if m["layer"] == "working"}
    assert flushed["summary"] is None  # no LLM: no pseudo-summary to forget with it (#23)
    assert await found_ids(client, "Elm Street") == {identity, *copies}

    forgotten = await forget(client, identity, reason="privacy")

    assert set(forgotten["derived"]) == copies
    assert await found_ids(client, "Elm Street") == set()


@pytest.mark.sqlite_only  # reads the bytes of the SQLite file
async def test_purging_a_memory_extracted_later_erases_the_logged_exchange_it_came_from(
    llm_settings: Settings, fake_openai: FakeOpenAI, clock: FrozenClock
) -> None:
    reply = {"memories": [{"content": "Alice lives on Elm Street", "category": "identity"}]}
    async with open_engine(llm_settings, clock, {}) as engine:
        stored = await engine.ingest("I moved; my place is on Elm Street now.", "Noted.")
        assert stored.queued  # the deep channel runs later, from the log
        fake_openai.replies.extend(["not json", json.dumps(reply), '{"memories": []}'])
        assert await extract_backlog(engine.runtime) == 0  # an unreadable answer: retried
        clock.advance(hours=1)
        assert await extract_backlog(engine.runtime) == 1
        extracted = await engine.recall("Alice Elm Street")
        (memory,) = [m for m in extracted.memories if m.content == "Alice lives on Elm Street"]

        await engine.purge([memory.id])

    conn = inspect_database(llm_settings.database_path)
    try:
        for table in ("memories", "conversation_log"):
            assert (
                conn.execute(
                    f"select count(*) from {table} where instr(content, 'Elm Street') > 0"
                ).fetchone()[0]
                == 0
            ), table
    finally:
        conn.close()
    assert b"Elm Street" not in llm_settings.database_path.read_bytes()


async def test_purge_matching_removes_relations_that_name_the_text(
    settings: Settings, clock: FrozenClock
) -> None:
    async with open_engine(settings, clock, {}) as engine:
        memory = await engine.remember("Harry's landlord is Mr Quimby of Elm Street")
        async with engine.db.write() as conn:
            await insert_relation(
                conn,
                Relation(
                    "rel-1",
                    "default",
                    "Harry",
                    "rents from",
                    "Mr Quimby",
                    0.9,
                    None,  # not drawn from the memory: found by its text
                    clock.now,
                    clock.now,
                ),
            )
            await insert_relation(
                conn,
                Relation(
                    "rel-2", "default", "Harry", "works at", "Acme", 0.9, None, clock.now, clock.now
                ),
            )

        report = await purge.purge_matching(engine.runtime, "quimby")

    assert report.purged == [memory.id]
    check = inspect_database(settings.database_path)
    try:
        assert [r[0] for r in check.execute("select id from relations")] == ["rel-2"]
    finally:
        check.close()


async def test_a_secret_in_a_recall_query_never_reaches_the_access_log(
    client: Client, settings: Settings
) -> None:
    await remember(client, "The deploy key lives in the team vault")
    key = "sk-proj-4fGh7Jk9Lm2Np5Qr8St1Uv3Wx6Yz0AbCdEf"

    await recall(client, f"deploy key {key}")
    await client.read_resource("cortex://stats")  # flushes the buffered access counts

    conn = inspect_database(settings.database_path)
    try:
        queries = [row[0] for row in conn.execute("select query from access_log")]
    finally:
        conn.close()
    assert queries and all(key not in q and "deploy key" in q for q in queries)


async def test_a_password_said_for_a_named_system_is_neither_logged_nor_recalled(
    cortex_home: Path, clock: FrozenClock
) -> None:
    """Key-less re-test: 'My password for the staging db is hunter2' came back from recall."""
    settings = Settings.model_validate(
        {"home": cortex_home, "llm": {"provider": "none"}, "embedding": {"provider": "none"}}
    )
    async with Client(build_server(settings, clock)) as client:
        await ingest(client, "My password for the staging db is hunter2, remember that.")
        found = await recall(client, "password for the staging db")
        by_value = await recall(client, "hunter2")

    conn = inspect_database(settings.database_path)
    try:
        logged = [row[0] for row in conn.execute("select content from conversation_log")]
    finally:
        conn.close()
    assert "hunter2" not in json.dumps(found) + json.dumps(by_value)
    assert not any("hunter2" in message for message in logged)
    assert any("staging db is [REDACTED:password]" in message for message in logged)
    assert found.get("conversation") or found["memories"], "the exchange itself is found"
