"""The JSON export carries the conversation log, and import restores it: an export the README
calls lossless keeps a fact said once and never extracted (issue #27, item 10)."""

import json
from pathlib import Path

import pytest

from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import Engine, open_engine
from cortex_mcp.engine.language.redaction import Cleaner
from cortex_mcp.engine.transfer import export_json, import_text
from tests.conftest import FrozenClock
from tests.lifecycle.conftest import quiet_settings
from tests.postgres import LocalPostgres

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]

SAID = "the spare key is under the blue flowerpot"


async def log_two_exchanges(engine: Engine) -> str:
    """One exchange kept, one forgotten (hidden); the hidden one's id."""
    await engine.flush([("user", SAID), ("assistant", "Noted.")], session_id="s1")
    await engine.flush([("user", "my old gym pass is 7788")], session_id="s1")
    found = await engine.recall("gym pass")
    hidden = found.conversation[0].exchange_id
    await engine.forget(hidden)
    return hidden


async def test_the_json_export_holds_the_log_and_hidden_messages_only_when_asked(
    engine: Engine,
) -> None:
    hidden = await log_two_exchanges(engine)

    plain = json.loads(await export_json(engine.runtime))
    whole = json.loads(await export_json(engine.runtime, include_forgotten=True))

    assert [m["content"] for m in plain["conversation"]] == [SAID, "Noted."]
    assert [m["role"] for m in plain["conversation"]] == ["user", "assistant"]
    assert {m["session_id"] for m in plain["conversation"]} == {"s1"}
    assert [m["exchange_id"] for m in whole["conversation"] if m["hidden_at"]] == [hidden]


@pytest.mark.sqlite_only  # a second store at another home: one PostgreSQL database here
async def test_an_export_imports_its_log_exactly_once(
    engine: Engine, clock: FrozenClock, tmp_path: Path
) -> None:
    await log_two_exchanges(engine)
    exported = await export_json(engine.runtime, include_forgotten=True)

    async with open_engine(quiet_settings(tmp_path / "elsewhere"), clock, {}) as other:
        report = await import_text(other.runtime, Cleaner(True), exported, "cortex-export.json")
        again = await import_text(other.runtime, Cleaner(True), exported, "cortex-export.json")
        reexported = json.loads(await export_json(other.runtime, include_forgotten=True))
        found = await other.recall("spare key flowerpot")

    assert report.messages_added == 3 and again.messages_added == 0
    assert again.messages_skipped == 3
    assert reexported["conversation"] == json.loads(exported)["conversation"]
    assert [h.content for h in found.conversation] == [SAID]


async def test_a_bad_log_row_is_skipped_with_its_field_named(engine: Engine) -> None:
    document = {
        "format": "cortex-mcp",
        "version": 1,
        "memories": [],
        "relations": [],
        "conversation": [{"exchange_id": "nope", "role": "user", "content": "x"}],
    }
    report = await import_text(engine.runtime, Cleaner(True), json.dumps(document), "x.json")

    assert report.messages_added == 0 and report.rows_invalid == 1
    assert report.problems == [
        "x.json:conversation[0]: exchange_id: must be an exchange id (a UUID)"
    ]


def another_store(home: Path, database_engine: str, request: pytest.FixtureRequest) -> Settings:
    """A second, empty store on the engine under test (PostgreSQL: a database of its own)."""
    if database_engine != "postgresql":
        return quiet_settings(home)
    server: LocalPostgres = request.getfixturevalue("local_postgres")
    return quiet_settings(home, database={"url": server.fresh_database()})


async def log_under_projects(engine: Engine) -> None:
    """An exchange filed under billing-api, one under garden, one under no project."""
    await engine.ingest(
        "The billing API retries webhooks three times.",
        "Noted.",
        session_id="s1",
        project="billing-api",
    )
    await engine.flush(
        [("user", "the garden sensor reports every ten minutes")], session_id="s2", project="garden"
    )
    await engine.ingest("What a sunny day.", "Enjoy it.", session_id="s3")


async def test_an_export_and_import_keep_the_project_of_every_logged_message(
    engine: Engine,
    clock: FrozenClock,
    tmp_path: Path,
    database_engine: str,
    request: pytest.FixtureRequest,
) -> None:
    await log_under_projects(engine)
    exported = json.loads(await export_json(engine.runtime))

    async with open_engine(
        another_store(tmp_path / "elsewhere", database_engine, request), clock, {}
    ) as other:
        await import_text(other.runtime, Cleaner(True), json.dumps(exported), "cortex-export.json")
        reexported = json.loads(await export_json(other.runtime))

    filed = [(m["content"], m.get("project")) for m in exported["conversation"]]
    assert filed == [
        ("The billing API retries webhooks three times.", "billing-api"),
        ("Noted.", "billing-api"),
        ("the garden sensor reports every ten minutes", "garden"),
        ("What a sunny day.", None),
        ("Enjoy it.", None),
    ]
    assert [(m["content"], m.get("project")) for m in reexported["conversation"]] == filed


async def test_an_export_written_before_projects_still_imports_its_log(
    engine: Engine,
    clock: FrozenClock,
    tmp_path: Path,
    database_engine: str,
    request: pytest.FixtureRequest,
) -> None:
    await log_under_projects(engine)
    exported = json.loads(await export_json(engine.runtime))
    for message in exported["conversation"]:
        message.pop("project", None)

    async with open_engine(
        another_store(tmp_path / "elsewhere", database_engine, request), clock, {}
    ) as other:
        report = await import_text(other.runtime, Cleaner(True), json.dumps(exported), "old.json")
        reexported = json.loads(await export_json(other.runtime))

    assert report.messages_added == 5 and report.problems == []
    assert [m.get("project") for m in reexported["conversation"]] == [None] * 5
