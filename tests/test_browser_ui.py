"""The memory browser for real: `cortex-mcp browse` serves the host page (official AppBridge and
MCP client), Playwright drives Debian's Chromium through it against the real server over
streamable HTTP; then the database is checked from outside. Screenshots go to a temporary
folder, or to docs/screenshots with CORTEX_UPDATE_SCREENSHOTS=1."""

import json
import os
import shutil
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.extension import advertise

from cortex_mcp.browser.app import APP_MIME_TYPE, UI_EXTENSION
from cortex_mcp.config import Settings
from cortex_mcp.server import build_server
from tests.conftest import FrozenClock, data_of, inspect_database, remember
from tests.servers import browse_server

ROOT = Path(__file__).resolve().parent.parent
UI = ROOT / "ui"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
BROWSER_TIMEOUT_S = 180
UPDATE_SCREENSHOTS = os.environ.get("CORTEX_UPDATE_SCREENSHOTS") == "1"  # read before fixtures

missing = [
    reason
    for reason, absent in [
        ("node is not installed", shutil.which("node") is None),
        (f"no Chromium at {CHROMIUM} (apt-get install chromium)", not Path(CHROMIUM).exists()),
        ("ui/node_modules is missing (npm install in ui/)", not (UI / "node_modules").exists()),
    ]
    if absent
]
pytestmark = pytest.mark.skipif(bool(missing), reason="; ".join(missing))


EPISODE = [
    {"role": "user", "content": "Please make the flaky login test pass."},
    {"role": "tool", "content": 'Bash {"command": "pytest tests/test_login.py"}'},
    {"role": "tool", "content": "Bash → E   fixture 'db_session' not found"},
    {"role": "assistant", "content": "I will move the db_session fixture to tests/conftest.py."},
    {"role": "tool", "content": 'Bash {"command": "pytest tests/test_login.py"}'},
    {"role": "tool", "content": "Bash → 4 passed"},
    {"role": "assistant", "content": "Fixed: the login tests pass now."},
]
"""A session with a failed tool call and its fix: its episode is shown (#26)."""


async def seed(settings: Settings, clock: FrozenClock) -> dict[str, str]:
    """Memories over several days, a correction chain, a search pair, relations (three
    inserted, and the one the fast channel draws from "My cat is called Mimi")."""
    ui = advertise(UI_EXTENSION, {"mimeTypes": [APP_MIME_TYPE]})
    async with Client(build_server(settings, clock), extensions=[ui]) as client:
        for n in range(26):
            stored = await remember(client, f"Weekly review note {n}: the team finished sprint {n}")
            if n % 5 == 0:
                await client.call_tool(
                    "cortex_app_edit", {"memory_id": stored["id"], "layer": "working"}
                )
            clock.advance(hours=9)
        await client.call_tool("cortex_flush", {"messages": EPISODE, "session_id": "s-login"})
        await remember(client, "The user plays the cello in an orchestra")
        rehearsals = await remember(client, "The user's orchestra rehearses on Tuesdays")
        await client.call_tool(
            "cortex_ingest",
            {"user_message": "My cat is called Mimi.", "assistant_message": "Lovely name."},
        )
        old = await remember(client, "The user's dentist is Dr. Alvarez")
        clock.advance(days=1)
        new = await remember(client, "The user's dentist is Dr. Chen", supersedes=old["id"])
        alice = await remember(client, "Alice manages the Atlas project")
        data_of(await client.call_tool("cortex_recall", {"query": "cello"}))
    with inspect_database(settings.database_path) as db:
        db.executemany(
            "insert into relations (id, agent_id, subject, predicate, object, confidence,"
            " source_memory_id, created_at, updated_at) values (?, 'default', ?, ?, ?, 0.9, ?,"
            " '2026-01-05T09:00:00Z', '2026-01-05T09:00:00Z')",
            [
                ("r1", "Alice", "manages", "Atlas", alice["id"]),
                ("r2", "Alice", "works with", "Bob", alice["id"]),
                ("r3", "Bob", "uses", "Postgres", None),
            ],
        )
        db.execute(  # a relation that no longer holds: drawn dashed, with its end date
            "insert into relations (id, agent_id, subject, predicate, object, confidence,"
            " created_at, updated_at, valid_to) values ('r4', 'default', 'Bob', 'uses', 'MySQL',"
            " 0.9, '2025-06-01T09:00:00Z', '2026-01-04T09:00:00Z', '2026-01-04T09:00:00Z')"
        )
    return {"old": old["id"], "new": new["id"], "rehearsals": rehearsals["id"]}


async def run_browse(home: Path, shots: Path) -> dict[str, Any]:
    """Start `cortex-mcp browse --no-open`, drive it with ui/tests/browser.mjs, stop it."""
    # No scheduled run: a catch-up run starting while the test is slow (a loaded machine)
    # would come first in the lifecycle history the test reads ("Run now" still runs).
    async with browse_server(home, CORTEX_LIFECYCLE__ENABLED="false") as url:
        assert url.startswith("http://127.0.0.1:")
        with anyio.fail_after(BROWSER_TIMEOUT_S):
            done = await anyio.run_process(
                ["node", "tests/browser.mjs", url, str(shots)],
                cwd=UI,
                env={**os.environ, "CHROMIUM": CHROMIUM},
                check=False,
            )
    assert done.returncode == 0, done.stderr.decode()
    report: dict[str, Any] = json.loads(done.stdout)
    return report


@pytest.mark.timeout(300)
async def test_the_memory_browser_in_chromium_lists_edits_forgets_searches_and_previews(
    settings: Settings, clock: FrozenClock, cortex_home: Path, tmp_path: Path
) -> None:
    ids = await seed(settings, clock)
    shots = ROOT / "docs" / "screenshots" if UPDATE_SCREENSHOTS else tmp_path / "screenshots"

    report = await run_browse(cortex_home, shots)

    assert report["ok"], report.get("error")
    steps = report["steps"]
    assert report["outside_requests"] == []
    assert report.get("page_errors") is None
    assert (steps["first_page_rows"], steps["second_page_rows"]) == (25, 7)  # cat, episode
    assert steps["working_rows"] == 7
    assert "Goal: Please make the flaky login test pass." in steps["episode"]
    assert "✗ E fixture 'db_session' not found" in steps["episode"]
    assert "Then: I will move the db_session fixture" in steps["episode"]
    assert "✓ 4 passed" in steps["episode"]
    assert steps["timeline_days"] >= 9  # page 1: 24 notes over 9 days, and the episode
    assert [link.count("Dr.") for link in steps["chain"]] == [1, 1]
    assert "Alvarez" in steps["chain"][0] and "Chen" in steps["chain"][1]
    assert steps["edited"] == "The user's dentist is Dr. Chen on Elm Street"
    assert (steps["after_forget"], steps["after_restore"]) == ("forgotten", "live")
    assert steps["chain_after_restore"] == ["live"]  # Dr. Alvarez restored: no longer replaced
    assert steps["bm25_first"].endswith("The user plays the cello in an orchestra")
    assert steps["hybrid_first"].endswith("The user plays the cello in an orchestra")
    assert steps["breakdown_rows"] >= 2
    assert steps["breakdown_header"].split("\t")[2:5] == ["final", "bm25", "text"]
    assert steps["graph_nodes"] == 7  # Alice, Atlas, Bob, Postgres, MySQL; the user —has cat→ Mimi
    assert steps["ended_edges"] == 1
    assert steps["ended_labels"] == ["uses (ended 2026-01-04)"]
    assert "Alice —manages→ Atlas" in steps["entity"]
    assert "Alice manages the Atlas project" in steps["entity"]
    assert "promoted" in steps["preview"]
    assert "Before" in steps["changes"] and "After" in steps["changes"], steps["preview"]
    assert "core" in steps["stats"] and "p99" in steps["stats"]
    assert steps["own_words"] == "I am a cellist who lives in Lisbon."
    assert "My cat is called Mimi." in steps["log"] and "fast" in steps["log"]
    assert "erase for good" in steps["purge_armed"]
    assert "rehearses on Tuesdays" not in steps["after_purge"]
    assert steps["app_theme"] == "dark"
    assert steps["narrow_overflow"] is False
    assert "No memories match." in steps["other_agent"]
    for name in ["memories", "detail", "search", "graph", "lifecycle", "stats", "memories-dark"]:
        assert (shots / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
    with inspect_database(settings.database_path) as db:
        content, importance, deleted = db.execute(
            "select content, importance, deleted_at from memories where id = ?", (ids["new"],)
        ).fetchone()
        actions = [row[0] for row in db.execute("select action from lifecycle_log")]
        alvarez = db.execute(
            "select superseded_by, deleted_at from memories where id = ?", (ids["old"],)
        ).fetchone()
        purged = db.execute(
            "select count(*) from memories where id = ?", (ids["rehearsals"],)
        ).fetchone()[0]
    assert (content, importance, deleted) == (
        "The user's dentist is Dr. Chen on Elm Street",
        0.95,
        None,
    )
    assert {"edit", "forget", "restore", "restore_superseded", "purge"} <= set(actions)
    assert purged == 0
    assert tuple(alvarez) == (None, None)  # live again beside Dr. Chen
