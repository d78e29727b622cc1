"""A new user's first recall, side by side with the official MCP memory server (#29).

cortex-mcp, as its README says today: a fresh clone of this repository, its first command
(`python3 -m venv .venv && .venv/bin/pip install .`, with an empty pip cache), then the
server started by an MCP client over stdio, one `cortex_remember`, one `cortex_recall`.
server-memory, as its README says: `npx -y @modelcontextprotocol/server-memory` (an empty npm
cache), then `create_entities` and `search_nodes`. Both clocks run from the first command to the
first recall that returns the fact. Steps are what the user types or edits, the client's config
entry included. Also: whether a question in plain words finds the fact.

    nice -n 19 python -m bench.onboarding         # writes bench/results/onboarding.json

Needs the network to PyPI and npm (both installs start from empty caches).
"""

import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp_types import CallToolResult, TextContent

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
FACT = "My daughter's birthday is on March 3rd."
QUESTION = "When is my daughter's birthday?"
KEYWORD = "birthday"
TIMEOUT_S = 900


def text_of(result: CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, TextContent))


def timed_run(command: list[str], cwd: Path, env: dict[str, str]) -> float:
    """Run one of the user's commands to completion; the seconds it took."""
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, env=env, check=True, capture_output=True, timeout=TIMEOUT_S)
    return time.perf_counter() - started


async def first_recall(server: StdioServerParameters, store: Any, recall: Any) -> dict[str, Any]:
    """Start the server, store the fact, recall it: seconds for each part and what was found."""
    started = time.perf_counter()
    async with Client(server) as client:
        initialized = time.perf_counter()
        await store(client)
        stored = time.perf_counter()
        by_keyword, by_question = await recall(client)
        recalled = time.perf_counter()
    return {
        "start_and_initialize_s": round(initialized - started, 2),
        "store_s": round(stored - initialized, 3),
        "recall_s": round(recalled - stored, 3),
        "found_by_keyword": by_keyword,
        "found_by_question": by_question,
    }


async def cortex(work: Path) -> dict[str, Any]:
    """A fresh clone, the README's first command, then the first recall."""
    env = {**os.environ, "PIP_CACHE_DIR": str(work / "pip-cache")}
    env = {k: v for k, v in env.items() if not k.startswith(("CORTEX_", "OPENAI_", "ANTHROPIC_"))}
    clone = timed_run(["git", "clone", "--quiet", str(ROOT), "clone"], work, env)
    install = timed_run(
        ["sh", "-c", "python3 -m venv .venv && .venv/bin/pip install --quiet ."],
        work / "clone",
        env,
    )
    server = StdioServerParameters(
        command=str(work / "clone" / ".venv" / "bin" / "cortex-mcp-server"),
        env={"CORTEX_HOME": str(work / "cortex-home")},
    )

    async def store(client: Client) -> None:
        await client.call_tool("cortex_remember", {"content": FACT})

    async def recall(client: Client) -> tuple[bool, bool]:
        keyword = text_of(await client.call_tool("cortex_recall", {"query": KEYWORD}))
        question = text_of(await client.call_tool("cortex_recall", {"query": QUESTION}))
        return "March 3rd" in keyword, "March 3rd" in question

    run = await first_recall(server, store, recall)
    steps = ["git clone", "python3 -m venv .venv && .venv/bin/pip install .", "client config"]
    return {"steps": steps, "clone_s": round(clone, 2), "install_s": round(install, 2), **run}


async def server_memory(work: Path) -> dict[str, Any]:
    """`npx -y @modelcontextprotocol/server-memory` from an empty npm cache, the first recall."""
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(work),
        "npm_config_cache": str(work / "npm-cache"),
        "MEMORY_FILE_PATH": str(work / "memory.jsonl"),
    }
    server = StdioServerParameters(
        command="npx", args=["-y", "@modelcontextprotocol/server-memory"], env=env
    )

    async def store(client: Client) -> None:
        entity = {"name": "daughter", "entityType": "person", "observations": [FACT]}
        await client.call_tool("create_entities", {"entities": [entity]})

    async def recall(client: Client) -> tuple[bool, bool]:
        keyword = text_of(await client.call_tool("search_nodes", {"query": KEYWORD}))
        question = text_of(await client.call_tool("search_nodes", {"query": QUESTION}))
        return "March 3rd" in keyword, "March 3rd" in question

    run = await first_recall(server, store, recall)
    return {"steps": ["client config (npx -y @modelcontextprotocol/server-memory)"], **run}


def total(run: dict[str, Any]) -> float:
    parts = ("clone_s", "install_s", "start_and_initialize_s", "store_s", "recall_s")
    return round(sum(float(run.get(part, 0.0)) for part in parts), 1)


async def main() -> None:
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        ours = await cortex(Path(a))
        theirs = await server_memory(Path(b))
    ours["to_first_recall_s"], theirs["to_first_recall_s"] = total(ours), total(theirs)
    result = {
        "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores (shared)",
        "python": platform.python_version(),
        "note": "empty pip and npm caches; package indexes on the network; run under nice -n 19",
        "cortex-mcp": ours,
        "server-memory": theirs,
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "onboarding.json").write_text(json.dumps(result, indent=2) + "\n", "utf-8")
    sys.stdout.write(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    anyio.run(main)
