"""Engines on real SQLite files under a frozen clock, and a way to plant memories exactly."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import pytest

from cortex_mcp.config import Settings
from cortex_mcp.engine.facade import Engine, open_engine
from cortex_mcp.engine.lease import Lease
from cortex_mcp.models import Category, Layer, Memory, new_memory_id
from cortex_mcp.store import memories as rows
from tests.conftest import FrozenClock
from tests.fakes import FakeOpenAI

QUIET = {"llm": {"provider": "none"}, "embedding": {"provider": "none"}}


def quiet_settings(home: Path, **sections: Any) -> Settings:
    """No LLM, no embeddings, the schedule read in UTC."""
    lifecycle = {"timezone": "UTC", **sections.pop("lifecycle", {})}
    return Settings.model_validate({"home": home, **QUIET, "lifecycle": lifecycle, **sections})


@pytest.fixture
def settings(cortex_home: Path) -> Settings:
    return quiet_settings(cortex_home)


@pytest.fixture
async def engine(settings: Settings, clock: FrozenClock) -> AsyncIterator[Engine]:
    async with open_engine(settings, clock, environ={}) as opened:
        yield opened


@pytest.fixture
async def llm_engine(
    cortex_home: Path, fake_openai: FakeOpenAI, sdks_imported: None, clock: FrozenClock
) -> AsyncIterator[Engine]:
    """An engine whose LLM is the fake OpenAI server."""
    settings = Settings.model_validate(
        {
            "home": cortex_home,
            "llm": {"provider": "openai", "base_url": fake_openai.url, "api_key": "test"},
            "embedding": {"provider": "none"},
            "lifecycle": {"timezone": "UTC"},
        }
    )
    async with open_engine(settings, clock, environ={}) as opened:
        yield opened


def memory(
    content: str,
    *,
    category: Category = Category.FACT,
    layer: Layer = Layer.CORE,
    created: datetime,
    importance: float = 0.7,
    agent_id: str | None = "default",
    **fields: Any,
) -> Memory:
    """A memory as the sieve or remember would have stored it at `created`."""
    values: dict[str, Any] = {
        "id": new_memory_id(int(created.timestamp() * 1000)),
        "agent_id": agent_id,
        "layer": layer,
        "category": category,
        "content": content,
        "source": "user",
        "importance": importance,
        "confidence": 0.8,
        "decay_score": 1.0,
        "access_count": 0,
        "last_accessed": None,
        "created_at": created,
        "updated_at": created,
        "expires_at": created + timedelta(hours=48) if layer == Layer.WORKING else None,
        "superseded_by": None,
        "deleted_at": None,
        "metadata": {},
    }
    return Memory.model_validate(values | fields)


async def plant(engine: Engine, *memories: Memory) -> list[str]:
    """Write memories straight into the store; their ids."""
    async with engine.db.write() as conn:
        for m in memories:
            await rows.insert_memory(conn, m)
    return [m.id for m in memories]


async def stored(engine: Engine, memory_id: str) -> Memory:
    async with engine.db.read() as conn:
        found = await rows.get_memory(conn, memory_id)
    assert found is not None
    return found


async def live(engine: Engine, layer: Layer, agent: str = "default") -> list[Memory]:
    async with engine.db.read() as conn:
        return await rows.live_memories(conn, agent, [layer], limit=100_000)


@asynccontextmanager
async def lease_held_elsewhere(
    engine: Engine, owner: str | None = None, for_s: float | None = None
) -> AsyncIterator[None]:
    """The lifecycle lease held through the block by a task of its own (so the block's calls
    do not hold it, as another process's would not), or for `for_s` seconds of it."""
    held, done = anyio.Event(), anyio.Event()

    async def hold() -> None:
        lease = Lease(engine.runtime, owner)
        await lease.take()
        held.set()
        if for_s is None:
            await done.wait()
        else:
            await anyio.sleep(for_s)
        await lease.release()

    async with anyio.create_task_group() as group:
        group.start_soon(hold)
        await held.wait()
        yield
        done.set()
