"""Fixtures that each yield a real thing: a settings object on a tmp home, a clock, a client."""

import json
import sqlite3
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, cast

import pytest
from mcp import Client
from mcp_types import CallToolResult, TextContent, TextResourceContents

from cortex_mcp.config import Settings
from cortex_mcp.server import build_server
from cortex_mcp.store.sqlite import plain_connection
from tests.fakes import (  # noqa: F401 - fixtures for every test module
    FakeOpenAI,
    fake_anthropic,
    fake_anthropic_server,
    fake_openai,
    fake_openai_server,
)
from tests.postgres import (
    ENGINES,
    URL_VARIABLE,
    LocalPostgres,
    PostgresInspector,
    start_local_postgres,
)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Tests marked `engines` run once on SQLite and once on PostgreSQL (unless marked
    `sqlite_only`: the SQLite file itself is their subject)."""
    definition = metafunc.definition
    if (
        definition.get_closest_marker("engines")
        and not definition.get_closest_marker("sqlite_only")
        and "database_engine" in metafunc.fixturenames
    ):
        metafunc.parametrize("database_engine", ENGINES, indirect=True)


@pytest.fixture
def database_engine(request: pytest.FixtureRequest) -> str:
    """The engine under test: "sqlite" unless the test is marked `engines`."""
    return str(getattr(request, "param", "sqlite"))


_POSTGRES: dict[str, Any] = {}


@pytest.fixture(scope="session")
def local_postgres() -> Iterator[LocalPostgres]:
    """One PostgreSQL server for the session (skips its tests where it cannot start)."""
    try:
        server = start_local_postgres()
    except Exception as err:  # any failure to start means: skip, saying why
        pytest.skip(f"PostgreSQL (pgserver) cannot start here: {type(err).__name__}: {err}")
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def cortex_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> Iterator[Path]:
    """No test sees a developer's ~/.cortex or their CORTEX_* variables; a test on PostgreSQL
    gets a fresh database through CORTEX_DATABASE_URL (every Settings and child process
    built in the test reads it)."""
    import os

    for key in list(os.environ):
        if key.startswith("CORTEX_") or key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
            monkeypatch.delenv(key)
    home = tmp_path / "cortex-home"
    monkeypatch.setenv("CORTEX_HOME", str(home))
    engine = (
        request.getfixturevalue("database_engine")
        if "database_engine" in (request.fixturenames)
        else "sqlite"
    )
    if engine == "postgresql":
        server: LocalPostgres = request.getfixturevalue("local_postgres")
        monkeypatch.setenv(URL_VARIABLE, server.fresh_database())
    yield home


@dataclass
class FrozenClock:
    """A clock that moves only when a test says so."""

    now: datetime = field(default_factory=lambda: datetime(2026, 1, 1, 9, 0, tzinfo=UTC))

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def clock() -> FrozenClock:
    return FrozenClock()


@pytest.fixture
def settings(cortex_home: Path) -> Settings:
    return Settings(home=cortex_home)


@pytest.fixture
async def client(settings: Settings, clock: FrozenClock) -> AsyncIterator[Client]:
    async with Client(build_server(settings, clock)) as connected:
        yield connected


@pytest.fixture
def plain(cortex_home: Path) -> Settings:
    """A plain install without an LLM, searching by keywords only (a module may define its
    own)."""
    return Settings.model_validate({"home": cortex_home, "embedding": {"provider": "none"}})


@pytest.fixture
async def plain_client(plain: Settings, clock: FrozenClock) -> AsyncIterator[Client]:
    """An in-process MCP session of the plain install: the key-less path."""
    async with Client(build_server(plain, clock)) as connected:
        yield connected


async def say(client: Client, *messages: str) -> None:
    """Each message through `cortex_ingest` as the Stop hook sends it, with a short reply."""
    for message in messages:
        arguments = {"user_message": message, "assistant_message": "Noted."}
        data_of(await client.call_tool("cortex_ingest", arguments))


def inspect_database(path: Path | str) -> sqlite3.Connection:
    """A plain connection to check the store independently of the server's own code: the
    stdlib on the SQLite file, psycopg on the test's PostgreSQL database."""
    import os

    if url := os.environ.get(URL_VARIABLE):
        return cast(sqlite3.Connection, PostgresInspector(url))  # the same execute() shape
    return cast(sqlite3.Connection, plain_connection(path))  # the server's SQLite library


def text_of(result: CallToolResult) -> str:
    """All text blocks of a tool result, joined."""
    return "\n".join(block.text for block in result.content if isinstance(block, TextContent))


def data_of(result: CallToolResult) -> dict[str, Any]:
    """The structured content of a successful tool result (or its JSON text)."""
    assert not result.is_error, text_of(result)
    data = result.structured_content or json.loads(text_of(result))
    assert isinstance(data, dict)
    return data


async def read_text(client: Client, uri: str) -> str:
    """The text of a resource."""
    result = await client.read_resource(uri)
    block = result.contents[0]
    assert isinstance(block, TextResourceContents)
    return block.text


async def read_json(client: Client, uri: str) -> Any:
    return json.loads(await read_text(client, uri))


async def remember(client: Client, content: str, **arguments: Any) -> dict[str, Any]:
    """Store a memory through the tool and return its structured result."""
    return data_of(await client.call_tool("cortex_remember", {"content": content, **arguments}))


async def recall(client: Client, query: str, **arguments: Any) -> dict[str, Any]:
    return data_of(await client.call_tool("cortex_recall", {"query": query, **arguments}))


@pytest.fixture(scope="session")
def sdks_imported() -> None:
    """Import the SDKs once: providers import them on first use, which takes seconds and would
    count against the short deadlines some tests set."""
    import importlib

    for sdk in ("anthropic", "openai"):
        importlib.import_module(sdk)


@pytest.fixture
def llm_settings(
    cortex_home: Path, request: pytest.FixtureRequest, sdks_imported: None
) -> Settings:
    """Settings whose LLM is the fake OpenAI server (`fake_openai`); no embeddings."""
    fake: FakeOpenAI = request.getfixturevalue("fake_openai")
    return Settings.model_validate(
        {
            "home": cortex_home,
            "llm": {"provider": "openai", "base_url": fake.url, "api_key": "test", "timeout_s": 5},
            "embedding": {"provider": "none"},
        }
    )
