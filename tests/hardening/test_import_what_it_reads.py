"""`cortex-mcp import FILE` reads memory files only (tester 13): /etc/passwd, a script or a
LICENSE was read as a MEMORY.md and its lines became core facts. Such a file, and a Markdown
file with no heading or list item that cortex-mcp did not write, is refused with one line and
nothing is written. An export's conversation log is counted in the report (it said 0 added, 0
skipped while it restored every message)."""

import json
from pathlib import Path

import pytest

from cortex_mcp import cli
from tests.hardening.test_import_validation import memory_count, run_cli

PASSWD = "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"
PROSE = "This project is licensed under the MIT License.\n\nPermission is hereby granted.\n"


@pytest.fixture
def home(cortex_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CORTEX_LLM__PROVIDER", "none")
    monkeypatch.setenv("CORTEX_EMBEDDING__PROVIDER", "none")
    return cortex_home


@pytest.mark.parametrize(
    ("name", "text"),
    [("passwd", PASSWD), ("cli.py", "import sys\n\n\ndef main():\n    pass\n"), ("LICENSE", PROSE)],
)
def test_a_file_that_is_no_memory_file_is_refused_in_one_line(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str
) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")

    for check in ([], ["--check"]):
        code, out, err = run_cli("import", str(path), *check, capsys=capsys)

        assert (code, out) == (2, "")
        assert err == (
            f"cortex-mcp: {path}: is not a memory file: import reads MEMORY.md, daily logs named"
            " YYYY-MM-DD.md, .json and .jsonl files; nothing was imported\n"
        )
    assert memory_count(home) == 0


def test_a_markdown_file_of_prose_is_refused_and_one_with_items_is_read(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prose = tmp_path / "NOTES.md"
    prose.write_text(PROSE, encoding="utf-8")
    listed = tmp_path / "MEMORY.md"
    listed.write_text("# Who the user is\n\n- I live in Porto.\n", encoding="utf-8")

    code, out, err = run_cli("import", str(prose), capsys=capsys)
    assert (code, out) == (2, "")
    assert err.startswith(f"cortex-mcp: {prose}: has no Markdown heading or list item")
    assert err.count("\n") == 1 and memory_count(home) == 0

    code, out, err = run_cli("import", str(listed), capsys=capsys)
    assert (code, err) == (0, "")
    assert json.loads(out)["memories_added"] == 1


def test_an_export_s_messages_are_counted_added_then_skipped(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    seeds = tmp_path / "seed.json"
    log = [
        {
            "exchange_id": f"0190f3a2-7b4c-7d1e-9f20-3c4b5a6d7e{n // 2:02d}",
            "seq": n,
            "agent_id": "default",
            "session_id": "s1",
            "origin": "ingest",
            "role": role,
            "content": f"message {n}",
            "created_at": "2026-01-01T09:00:00+00:00",
        }
        for n, role in enumerate(["user", "assistant", "user", "assistant"])
    ]
    document = {"format": "cortex-mcp", "version": 1, "memories": [], "relations": []}
    seeds.write_text(json.dumps(document | {"conversation": log}), encoding="utf-8")
    assert cli.main(["import", str(seeds)]) == 0
    exported = tmp_path / "export.json"
    assert cli.main(["export", "--output", str(exported)]) == 0
    capsys.readouterr()
    monkeypatch.setenv("CORTEX_HOME", str(tmp_path / "elsewhere"))

    code, out, _ = run_cli("import", str(exported), capsys=capsys)
    again_code, again, _ = run_cli("import", str(exported), capsys=capsys)

    assert (code, again_code) == (0, 0)
    assert (json.loads(out)["messages_added"], json.loads(out)["messages_skipped"]) == (4, 0)
    assert (json.loads(again)["messages_added"], json.loads(again)["messages_skipped"]) == (0, 4)


def test_an_exchange_split_between_two_batches_is_restored_whole(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = [
        {
            "exchange_id": f"0190f3a2-7b4c-7d1e-9f20-{(n + 1) // 2:012x}",
            "agent_id": "default",
            "session_id": "s1",
            "origin": "flush",
            "role": "user" if n % 2 else "assistant",
            "content": f"message {n}",
            "created_at": "2026-01-01T09:00:00+00:00",
        }
        for n in range(502)  # messages 499 and 500, one exchange, fall into two batches of 500
    ]
    document = {"format": "cortex-mcp", "version": 1, "memories": [], "relations": []}
    path = tmp_path / "export.json"
    path.write_text(json.dumps(document | {"conversation": log}), encoding="utf-8")

    code, out, _ = run_cli("import", str(path), capsys=capsys)

    assert code == 0
    assert (json.loads(out)["messages_added"], json.loads(out)["messages_skipped"]) == (502, 0)
