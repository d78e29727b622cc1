"""Agent guidance respects CORTEX_TOOLS (#25 item 8): the instructions never point at a tool
the server does not expose."""

import re
from pathlib import Path

from mcp import Client

from cortex_mcp.config import Settings
from cortex_mcp.server import build_server


async def test_instructions_name_only_the_exposed_tools(tmp_path: Path) -> None:
    for chosen in ("cortex_recall,cortex_ingest,cortex_flush", "cortex_recall,cortex_remember"):
        settings = Settings.model_validate({"home": tmp_path, "tools": chosen})

        async with Client(build_server(settings)) as client:
            named = set(re.findall(r"cortex_[a-z_]+", client.instructions or ""))

        assert named == set(chosen.split(",")), chosen
