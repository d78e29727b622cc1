"""A message ingested just before the server exits is found by meaning after the next start
(#25: launch 1 exited before its back-fill ran, so the message had no vector, and launch 2
answered a question sharing no word with it from BM25 alone: "No stored memory matches")."""

from pathlib import Path

import pytest
from mcp import Client

from tests.servers import stdio_server

pytestmark = pytest.mark.anyio

SAID = "I just started a new job as a financial analyst at Globex last week"
ASKED = "Where do I work now?"


def launch(home: Path) -> Client:
    """A `python -m cortex_mcp` over stdio with no API key: the local embedder, no LLM."""
    params = stdio_server(home, CORTEX_LLM__PROVIDER="none", CORTEX_EMBEDDING__PROVIDER="local")
    return Client(params, mode="legacy")


async def test_a_message_said_before_exit_is_recalled_by_meaning_after_a_restart(
    tmp_path: Path,
) -> None:
    async with launch(tmp_path) as client:
        ingested = await client.call_tool(
            "cortex_ingest", {"user_message": SAID, "assistant_message": "Congratulations!"}
        )
        assert not ingested.is_error
    async with launch(tmp_path) as client:
        recalled = await client.call_tool("cortex_recall", {"query": ASKED})
    assert not recalled.is_error
    found = recalled.structured_content or {}
    said = [str(hit.get("content", "")) for hit in found.get("conversation", [])]
    kept = [str(hit.get("content", "")) for hit in found.get("memories", [])]
    assert any("Globex" in text for text in said + kept), found.get("context")
