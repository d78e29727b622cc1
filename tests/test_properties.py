"""Arbitrary tool arguments give a result or a tool error; an error changes nothing."""

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client

from cortex_mcp.config import Settings
from cortex_mcp.server import build_server
from tests.conftest import inspect_database

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=50),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=10), inner, max_size=3)
    ),
    max_leaves=6,
)
ARGUMENTS = st.fixed_dictionaries(
    {},
    optional={
        "content": st.text(max_size=200) | JSON,
        "query": st.text(max_size=200) | JSON,
        "memory_id": st.text(max_size=40) | JSON,
        "category": st.sampled_from(["fact", "preference", "gossip", ""]) | JSON,
        "importance": st.floats(min_value=-2, max_value=3) | JSON,
        "max_results": st.integers(-5, 80),
        "max_tokens": st.integers(-5, 40_000),
        "layers": st.lists(st.sampled_from(["core", "working", "attic"]), max_size=3),
        "agent_id": st.text(max_size=70),
        "scope": st.sampled_from(["agent", "shared", "world"]),
        "tags": JSON,
        "supersedes": st.text(max_size=40),
    },
)
TOOLS = [
    "cortex_remember",
    "cortex_recall",
    "cortex_forget",
    "cortex_restore",
    "cortex_search_debug",
]


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def shared_client(
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[tuple[Client, Path]]:
    home = tmp_path_factory.mktemp("props")
    settings = Settings(home=home)
    async with Client(build_server(settings)) as client:
        yield client, settings.database_path


def snapshot(path: Path) -> list[Any]:
    with inspect_database(path) as conn:
        return conn.execute(
            "select id, layer, content, importance, deleted_at, superseded_by, metadata "
            "from memories order by id"
        ).fetchall()


@given(tool=st.sampled_from(TOOLS), arguments=ARGUMENTS)
@settings(
    max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
async def test_any_arguments_give_a_result_or_an_error_that_changes_nothing(
    shared_client: tuple[Client, Path], tool: str, arguments: dict[str, Any]
) -> None:
    client, path = shared_client
    before = snapshot(path)

    result = await client.call_tool(tool, arguments)

    if result.is_error:
        assert snapshot(path) == before
        text = result.content[0].text  # type: ignore[union-attr]
        assert len(text.splitlines()) == 1 and ": " in text, text  # `field: rule`, one line
        assert "Error executing tool" not in text and "pydantic" not in text, text
        assert "Arguments" not in text, "no generated model name"
