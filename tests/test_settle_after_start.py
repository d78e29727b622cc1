"""What a server does once its first background pass is done (#25 item 4): the LLM's client
is made then, not on the first extraction beside the user's next calls, and the garbage
collector stops walking what the start made."""

import gc

import pytest

from cortex_mcp.config import Settings
from cortex_mcp.engine.host import EngineHost
from cortex_mcp.providers.openai import OpenAIChat
from tests.fakes import FakeOpenAI

pytestmark = pytest.mark.anyio


async def test_the_llm_client_is_ready_before_any_extraction_was_asked_for(
    llm_settings: Settings, fake_openai: FakeOpenAI
) -> None:
    async with EngineHost(llm_settings).use() as engine:
        rt = engine.runtime
        [provider] = rt.llm.cascade.providers
        assert isinstance(provider, OpenAIChat)
        await rt.passes.wait_beyond(0)
        assert provider._connection._client is not None  # made by the start, not by a call
    assert fake_openai.requests == []  # and nothing was asked of the LLM for it
    assert gc.get_freeze_count() > 0  # what the start made is out of the collector's sight
