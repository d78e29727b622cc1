"""Imports check every row with the tools' rules: a bad row is skipped and reported as

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]
file:where: field: rule, a bad file is refused in one line, and nothing ends in a traceback."""

import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cortex_mcp import cli
from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import Engine, open_engine
from cortex_mcp.errors import InvalidInput
from cortex_mcp.models import Category, Layer, Memory, new_memory_id
from tests.conftest import inspect_database
from tests.lifecycle.conftest import QUIET

WHEN = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)


def exported(content: str, **changes: Any) -> dict[str, Any]:
    """One memory as `cortex-mcp export` writes it, with `changes`."""
    memory = Memory.fresh(
        id=new_memory_id(int(WHEN.timestamp() * 1000)),
        agent_id="default",
        layer=Layer.CORE,
        category=Category.FACT,
        content=content,
        source="user",
        importance=0.7,
        now=WHEN,
    )
    return memory.model_dump(mode="json") | changes


def export_file(path: Path, memories: list[dict[str, Any]]) -> Path:
    document = {"format": "cortex-mcp", "version": 1, "memories": memories, "relations": []}
    path.write_text(json.dumps(document), encoding="utf-8")  # NaN stays NaN, as json writes it
    return path


def memory_count(home: Path) -> int:
    if not (home / "cortex.db").exists():
        return 0
    conn = inspect_database(home / "cortex.db")
    try:
        return int(conn.execute("select count(*) from memories").fetchone()[0])
    finally:
        conn.close()


def run_cli(*argv: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def home(cortex_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CORTEX_LLM__PROVIDER", "none")
    monkeypatch.setenv("CORTEX_EMBEDDING__PROVIDER", "none")
    return cortex_home


def bad_rows_file(folder: Path) -> Path:
    duplicate = exported("first of two rows with one id")
    return export_file(
        folder / "bad-rows.json",
        [
            exported("a good memory"),
            exported("importance five", importance=5),
            duplicate,
            duplicate | {"content": "second row with the same id"},
            exported("a path as id", id="../../etc/passwd"),
            exported("an agent id with a path", agent_id="../../x y"),
            exported("x" * 120_000),
            exported("y" * 200_000),
            exported("a date out of range", created_at="9999-12-31T00:00:00Z"),
        ],
    )


def test_bad_rows_are_skipped_counted_and_named_by_file_row_field_and_rule(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    path = bad_rows_file(tmp_path)

    code, out, err = run_cli("import", str(path), capsys=capsys)

    report = json.loads(out)
    assert (code, err) == (0, "")
    assert (report["memories_added"], report["rows_invalid"]) == (2, 7)
    assert report["problems"] == [
        "bad-rows.json:memories[1]: importance: must be a number from 0 to 1",
        "bad-rows.json:memories[3]: id: appears twice in the file",
        "bad-rows.json:memories[4]: id: must be a memory id (a UUID)",
        "bad-rows.json:memories[5]: agent_id: must be 1-64 characters of letters, digits and _.:@-",
        "bad-rows.json:memories[6]: content: 120,000 characters; the limit is 8,000",
        "bad-rows.json:memories[7]: content: 200,000 characters; the limit is 8,000",
        "bad-rows.json:memories[8]: created_at: must be a date between 1900 and 2999",
    ]
    assert memory_count(home) == 2


def test_strict_refuses_a_file_with_any_bad_row_in_one_line(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    path = bad_rows_file(tmp_path)

    code, out, err = run_cli("import", "--strict", str(path), capsys=capsys)

    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and "refused (strict): memories[1]: importance" in err
    assert memory_count(home) == 0


def test_check_validates_and_counts_without_writing(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    path = bad_rows_file(tmp_path)

    code, out, _ = run_cli("import", "--check", str(path), capsys=capsys)

    report = json.loads(out)
    assert code == 0 and report["dry_run"] is True
    assert (report["memories_added"], report["rows_invalid"]) == (2, 7)
    assert memory_count(home) == 0


MALFORMED_FILES: dict[str, bytes] = {
    "version.json": b'{"format": "cortex-mcp", "version": "1x", "memories": []}',
    "newer.json": b'{"format": "cortex-mcp", "version": 99, "memories": []}',
    "nan.json": b'{"format": "cortex-mcp", "version": 1, "memories": [{"importance": NaN}]}',
    "truncated.json": b'{"format": "cortex-mcp", "version": 1, "memories": [{"id": "x"',
    "deep.json": b"[" * 100_000 + b"]" * 100_000,
    "deep-object.json": b'{"format": "cortex-mcp", "memories": ' + b"[" * 50_000 + b"]" * 50_000,
    "memories-not-a-list.json": b'{"format": "cortex-mcp", "version": 1, "memories": 3}',
    "latin1.md": "Café au lait\n".encode("latin-1"),
    "binary.json": bytes(range(256)) * 4,
    "9999-12-31.md": b"- a note from the far future\n",
    "0000-01-01.md": b"- not a day\n",
}


@pytest.mark.parametrize("name", sorted(MALFORMED_FILES))
def test_a_malformed_file_is_one_line_without_a_traceback_and_changes_nothing(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
):
    path = tmp_path / name
    path.write_bytes(MALFORMED_FILES[name])

    code, out, err = run_cli("import", str(path), capsys=capsys)

    if code == 0:  # read as text with nothing wrong in it (0000-01-01.md is no daily log)
        assert json.loads(out)["files"] == 1
        return
    assert (code, out) == (2, "")
    assert err.startswith(f"cortex-mcp: {path}: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    assert memory_count(home) == 0


def test_jsonl_rows_are_checked_one_line_at_a_time(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    path = tmp_path / "memory.jsonl"
    lines = [
        {"type": "entity", "name": "Harry", "entityType": "person", "observations": ["Tokyo"]},
        {"type": "entity", "name": "Acme", "observations": "notalist"},
        "not json at all",
        {"type": "entity", "name": "Big", "observations": ["z" * 9000]},
        {"type": "relation", "from": "Harry", "relationType": "works_at", "to": ""},
        {"type": "relation", "from": "Harry", "relationType": "works_at", "to": "Acme"},
    ]
    path.write_text(
        "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines),
        encoding="utf-8",
    )

    code, out, _ = run_cli("import", str(path), capsys=capsys)

    report = json.loads(out)
    assert code == 0
    assert (report["memories_added"], report["relations_added"]) == (1, 1)
    assert report["problems"] == [
        "memory.jsonl:2: observations: must be a list of strings",
        "memory.jsonl:3: line: is not JSON",
        "memory.jsonl:5: to: must be a non-empty string",
        "memory.jsonl:4: content: 9,005 characters; the limit is 8,000",
    ]


def test_markdown_items_are_checked_and_named_by_line(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    path = tmp_path / "MEMORY.md"
    path.write_text(
        "---\ngenerator: someone\n---\n# Notes\n\n- fine\n- "
        + "w" * 9000
        + "\n- [2026-13-45] odd\n",
        encoding="utf-8",
    )

    code, out, _ = run_cli("import", str(path), capsys=capsys)

    report = json.loads(out)
    assert code == 0 and report["memories_added"] == 2
    assert report["problems"] == ["MEMORY.md:7: content: 9,000 characters; the limit is 8,000"]


# Any bytes at all: a report with counts, or one InvalidInput with the database unchanged.

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=8,
)
EXPORT_ROWS = st.fixed_dictionaries(
    {"format": st.just("cortex-mcp")},
    optional={
        "version": JSON_VALUES,
        "memories": st.lists(
            st.builds(exported, st.text(max_size=30)).flatmap(
                lambda row: st.dictionaries(st.sampled_from(sorted(row)), JSON_VALUES).map(
                    lambda changes: row | changes
                )
            ),
            max_size=3,
        )
        | JSON_VALUES,
        "relations": JSON_VALUES,
    },
)
FILE_BYTES = st.one_of(
    st.binary(max_size=300),
    st.text(max_size=300).map(lambda text: text.encode("utf-8", "surrogatepass")),
    JSON_VALUES.map(lambda value: json.dumps(value).encode()),
    EXPORT_ROWS.map(lambda value: json.dumps(value).encode()),
    st.lists(JSON_VALUES.map(json.dumps), max_size=4).map(lambda rows: "\n".join(rows).encode()),
)
NAMES = ["x.json", "x.jsonl", "MEMORY.md", "2026-01-01.md", "9999-12-31.md", "notes.md"]


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def shared_engine(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Engine]:
    home = tmp_path_factory.mktemp("import-fuzz")
    settings = Settings.model_validate({"home": home, **QUIET, "mirror": {"enabled": False}})
    async with open_engine(settings, environ={}) as engine:
        yield engine


@given(name=st.sampled_from(NAMES), data=FILE_BYTES)
@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
async def test_any_file_bytes_import_with_counts_or_fail_in_one_line_changing_nothing(
    shared_engine: Engine, tmp_path_factory: pytest.TempPathFactory, name: str, data: bytes
) -> None:
    folder = tmp_path_factory.mktemp("file")
    path = folder / name
    path.write_bytes(data)
    before = await engine_count(shared_engine)

    try:
        report = await shared_engine.import_memory(path)
    except InvalidInput as error:
        assert "\n" not in str(error) and str(error).startswith(f"{path}: ")
        assert await engine_count(shared_engine) == before
    else:
        assert report.files == 1
        assert await engine_count(shared_engine) - before == report.memories_added


async def engine_count(engine: Engine) -> int:
    """Counted on the engine's own connection: a second SQLite library in this process (the
    stdlib beside sqlean) would not be a reliable witness while the engine holds the file."""
    async with engine.db.read() as conn:
        row = await conn.fetch_one("select count(*) from memories")
    assert row is not None
    return int(row[0])
