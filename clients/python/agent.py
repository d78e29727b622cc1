"""A chat loop with long-term memory from cortex-mcp, over MCP stdio.

Before each answer it calls `cortex_recall`; after each exchange, `cortex_ingest`; before it trims
its history, `cortex_flush` with the messages it is about to drop. The "model" is a stand-in
that needs no network: replace `answer()` with a call to your LLM.

    .venv/bin/python clients/python/agent.py                      # chat on the terminal
    .venv/bin/python clients/python/agent.py --script lines.txt   # one user message per line
    python agent.py --server "uvx --from /absolute/path/to/cortex-mcp cortex-mcp-server"

By default the server is this Python's `-m cortex_mcp`: run it with the virtualenv the README's
first command makes in a checkout (cortex-mcp is not on PyPI yet).
"""

import argparse
import importlib.util
import os
import shlex
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp_types import CallToolResult, TextContent

Message = dict[str, str]


def answer(user_message: str, memory: str) -> str:
    """Stand-in for the model: says what it was given. A real agent puts `memory` in the prompt."""
    recalled = " ".join(memory.split())[:400] or "nothing yet"
    return f"[memory: {recalled}] You said: {user_message}"


class MemoryAgent:
    """Keeps a short history; cortex-mcp keeps everything worth keeping beyond it."""

    def __init__(self, cortex: Client, tools: set[str], session_id: str, keep: int) -> None:
        self.cortex = cortex
        self.tools = tools
        self.session_id = session_id
        self.keep = keep
        self.history: list[Message] = []
        self.calls: Counter[str] = Counter()

    async def call(self, tool: str, arguments: dict[str, Any]) -> CallToolResult:
        self.calls[tool] += 1
        result = await self.cortex.call_tool(tool, arguments)
        if result.is_error:
            raise RuntimeError(f"{tool}: {text_of(result)}")
        return result

    async def turn(self, user_message: str) -> str:
        memory = text_of(await self.call("cortex_recall", {"query": user_message}))
        reply = answer(user_message, memory)
        await self.ingest(user_message, reply)
        self.history += [
            {"role": "user", "content": user_message},
            {"role": "assistant", "content": reply},
        ]
        if len(self.history) > self.keep:
            await self.trim()
        return reply

    async def ingest(self, user_message: str, reply: str) -> None:
        if "cortex_ingest" in self.tools:
            arguments = {
                "user_message": user_message,
                "assistant_message": reply,
                "session_id": self.session_id,
            }
            await self.call("cortex_ingest", arguments)
        else:  # a server older than cortex_ingest: keep at least what the user said
            await self.call("cortex_remember", {"content": user_message})

    async def trim(self) -> None:
        dropped, self.history = self.history[: -self.keep], self.history[-self.keep :]
        if "cortex_flush" in self.tools:
            arguments = {"messages": dropped, "session_id": self.session_id, "reason": "compaction"}
            await self.call("cortex_flush", arguments)


def text_of(result: CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, TextContent))


async def user_lines(script: Path | None) -> list[str] | None:
    """The scripted messages, or None for an interactive session."""
    if script is None:
        return None
    text = await anyio.Path(script).read_text(encoding="utf-8")
    return [line.strip() for line in text.splitlines() if line.strip()]


async def chat(args: argparse.Namespace) -> None:
    command, *server_args = shlex.split(args.server)
    server = StdioServerParameters(command=command, args=server_args, env=dict(os.environ))
    scripted = await user_lines(args.script)
    async with Client(server) as cortex:
        tools = {tool.name for tool in (await cortex.list_tools()).tools}
        agent = MemoryAgent(cortex, tools, args.session_id, args.keep)
        while True:
            if scripted is None:
                try:
                    line = await anyio.to_thread.run_sync(input, "you> ")
                except EOFError:
                    print()
                    break
            elif scripted:
                line = scripted.pop(0)
                print(f"you> {line}")
            else:
                break
            print(f"agent> {await agent.turn(line)}", flush=True)
    calls = " ".join(f"{tool}={count}" for tool, count in sorted(agent.calls.items()))
    print(f"cortex calls: {calls}", file=sys.stderr)


THIS_PYTHON = shlex.join([sys.executable, "-m", "cortex_mcp"])
"""The default server: cortex-mcp installed beside the `mcp` SDK this script runs on."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--script", type=Path, help="file of user messages, one per line")
    parser.add_argument(
        "--server",
        default=THIS_PYTHON,
        help="command that starts cortex-mcp (default: this Python, -m cortex_mcp)",
    )
    parser.add_argument("--session-id", default="example-agent")
    parser.add_argument("--keep", type=int, default=6, help="messages kept before a flush")
    args = parser.parse_args()
    if args.keep < 2:
        parser.error("--keep must be at least 2 (one exchange)")
    if args.server == THIS_PYTHON and importlib.util.find_spec("cortex_mcp") is None:
        parser.error(
            f"{sys.executable} has no cortex_mcp: run this script with the Python of a"
            " virtualenv that has cortex-mcp installed, or pass --server"
        )
    anyio.run(chat, args)


if __name__ == "__main__":
    main()
