"""Waiting for the deep channel, which runs in the background after cortex_ingest returns."""

import anyio

from cortex_mcp.engine.host import EngineHost
from cortex_mcp.store import conversation


async def deep_channel_done(host: EngineHost) -> None:
    """Return once the background passes have extracted every exchange owed now (no sleeps:
    each wait is for the next finished pass)."""
    rt = host.engine.runtime
    with anyio.fail_after(10):
        while True:
            count = rt.passes.count
            async with rt.db.read() as conn:
                owed = await conversation.log_counts(conn)
            if owed["pending_exchanges"] == 0:
                return
            rt.wake.set()
            await rt.passes.wait_beyond(count)
