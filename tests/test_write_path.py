"""One door for every write (#22): whatever path user-supplied text comes in by — remember (its
content, context and relations), ingest, flush, the profile, an import and the memory browser's
hand edit — it is redacted before it is stored, and no file under the home keeps a secret."""

from pathlib import Path
from typing import Any

from mcp import Client

from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import open_engine
from cortex_mcp.server import build_server
from tests.conftest import FrozenClock, data_of, remember
from tests.secret_samples import SAMPLES

ALL = "\n".join(sample.text for sample in SAMPLES)
SHORT = [s for s in SAMPLES if len(s.text) < 200]
"""The samples short enough to be a relation's object."""


def leaks(data: bytes) -> list[str]:
    """The kinds whose secret occurs in `data` (as written, or lower-cased as indexed)."""
    return [
        s.kind for s in SAMPLES if s.secret.encode() in data or s.secret.lower().encode() in data
    ]


def every_file_under(home: Path) -> dict[str, bytes]:
    return {str(p.relative_to(home)): p.read_bytes() for p in home.rglob("*") if p.is_file()}


async def test_a_secret_typed_in_the_memory_browsers_editor_is_redacted(
    settings: Settings, clock: FrozenClock
) -> None:
    async with Client(build_server(settings, clock)) as client:
        stored = await remember(client, "The staging deploy uses the shared key canary-edit")
        detail = data_of(
            await client.call_tool(
                "cortex_app_edit",
                {"memory_id": stored["id"], "content": f"The staging key canary-edit:\n{ALL}"},
            )
        )

    content = detail["memory"]["content"]
    assert "canary-edit" in content and "[REDACTED:" in content
    assert leaks(content.encode()) == []
    files = every_file_under(settings.home)
    assert any(b"canary-edit" in data for data in files.values())
    assert {name: leaks(data) for name, data in files.items() if leaks(data)} == {}


async def test_no_write_path_stores_a_secret_in_any_file_under_the_home(
    settings: Settings, clock: FrozenClock, tmp_path: Path
) -> None:
    async with Client(build_server(settings, clock)) as client:
        calls: list[dict[str, Any]] = [
            {"content": f"Ops notes canary-remember:\n{ALL}"},
            {"content": "Ops rotated keys canary-context", "context": ALL},
            *(
                {
                    "content": f"The deploy box canary-relations holds key set {i}",
                    "relations": [["deploy box", "holds", s.text] for s in batch],
                }
                for i, batch in enumerate((SHORT[:20], SHORT[20:]))
            ),
        ]
        for arguments in calls:
            data_of(await client.call_tool("cortex_remember", arguments))
        data_of(
            await client.call_tool(
                "cortex_ingest",
                {
                    "user_message": f"I decided to vault these canary-ingest:\n{ALL}",
                    "assistant_message": f"Stored canary-reply:\n{ALL}",
                },
            )
        )
        data_of(
            await client.call_tool(
                "cortex_flush",
                {"messages": [{"role": "user", "content": f"Keep these canary-flush:\n{ALL}"}]},
            )
        )
        data_of(await client.call_tool("cortex_profile", {"content": f"canary-profile {ALL}"}))
        stored = await remember(client, "The staging key is shared canary-before-edit")
        data_of(
            await client.call_tool(
                "cortex_app_edit", {"memory_id": stored["id"], "content": f"canary-edit {ALL}"}
            )
        )
    imported = tmp_path / "import" / "MEMORY.md"
    imported.parent.mkdir()
    lines = "\n".join(f"- {s.text}" for s in SAMPLES)
    imported.write_text(f"# Notes\n\n- Imported canary-import\n{lines}\n", encoding="utf-8")
    async with open_engine(settings, clock) as engine:
        report = await engine.import_memory(imported)
    assert report.memories_added > 0

    files = every_file_under(settings.home)
    everything = b"".join(files.values())
    for canary in ("remember", "context", "relations", "ingest", "flush", "profile", "edit"):
        assert f"canary-{canary}".encode() in everything, f"the {canary} path stored nothing"
    assert b"canary-import" in everything
    assert {name: leaks(data) for name, data in files.items() if leaks(data)} == {}
