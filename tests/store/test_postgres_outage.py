"""PostgreSQL going away and coming back (#27): every read resource answers one line while it
is down, and the pool reconnects with a capped backoff."""

from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from cortex_mcp.config import Settings
from cortex_mcp.server import build_server
from cortex_mcp.store.postgres import CappedBackoff
from tests.conftest import FrozenClock, data_of
from tests.postgres import LocalPostgres, start_local_postgres

READS = [
    "cortex://stats",
    "cortex://core",
    "cortex://profile",
    "cortex://relations",
    "cortex://lifecycle/log",
    "cortex://memory/{id}",
    "cortex://entity/Porto",
    "cortex://working/2026-01-01",
    "cortex://archive/2026-01",
]


def quiet(home: Path, url: str) -> Settings:
    return Settings.model_validate(
        {
            "home": home,
            "llm": {"provider": "none"},
            "embedding": {"provider": "none"},
            "database": {"url": url},
        }
    )


async def test_every_read_resource_answers_one_database_line_while_postgresql_is_down(
    tmp_path: Path, clock: FrozenClock, local_postgres: LocalPostgres
) -> None:
    own = await anyio.to_thread.run_sync(start_local_postgres)  # its own, to stop
    try:
        async with Client(build_server(quiet(tmp_path, own.url("cortex_template")), clock)) as c:
            stored = data_of(await c.call_tool("cortex_remember", {"content": "I live in Porto"}))
            await anyio.to_thread.run_sync(own.server.cleanup)  # PostgreSQL goes away
            answers = []
            for uri in READS:
                with pytest.raises(MCPError) as refused:
                    await c.read_resource(uri.format(id=stored["id"]))
                answers.append(str(refused.value))
    finally:
        await anyio.to_thread.run_sync(own.stop)
    for uri, message in zip(READS, answers, strict=True):
        assert message.startswith("database: PostgreSQL is unreachable"), (uri, message)
        assert "\n" not in message


def test_the_reconnect_backoff_doubles_from_a_tenth_of_a_second_up_to_its_cap() -> None:
    attempt = CappedBackoff(timeout=300, most_s=0.5)
    delays = []
    for step in range(8):
        attempt.update_delay(float(step))
        delays.append(attempt.delay)
    assert 0.09 <= delays[0] <= 0.11
    assert delays[1] == pytest.approx(delays[0] * 2)
    assert max(delays) == 0.5 and delays[-1] == 0.5
