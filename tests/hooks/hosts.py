"""Transcripts as each host writes them (from the hosts' documented formats), and the real
hook command run as a host runs it: JSON on stdin, the environment, exit code and stdout."""

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio

HOOK = Path(sys.executable).parent / "cortex-mcp-hook"
HOOK_TIMEOUT_S = 60


def claude_line(role: str, content: Any, session: str = "s", **extra: Any) -> dict[str, Any]:
    """One Claude Code transcript line (a user or assistant message)."""
    return {
        "type": role,
        "uuid": f"u-{abs(hash((role, str(content)))) % 10**8}",
        "sessionId": session,
        "timestamp": "2026-11-25T10:00:00.000Z",
        "message": {"role": role, "content": content},
        **extra,
    }


def claude_exchange(user: str, reply: str, tool: tuple[str, dict[str, Any], str] | None = None):
    """A user prompt, the assistant's reply (and one tool call with its result)."""
    lines = [claude_line("user", user)]
    if tool is not None:
        name, arguments, result = tool
        lines.append(
            claude_line(
                "assistant",
                [{"type": "tool_use", "id": "toolu_1", "name": name, "input": arguments}],
            )
        )
        lines.append(
            claude_line(
                "user",
                [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_1",
                        "content": [{"type": "text", "text": result}],
                    }
                ],
            )
        )
    lines.append(claude_line("assistant", [{"type": "text", "text": reply}]))
    return lines


def codex_exchange(user: str, reply: str, call: tuple[str, str, str] | None = None):
    """A Codex CLI rollout: session meta, the user's message, a function call, the reply."""
    lines: list[dict[str, Any]] = [
        {
            "timestamp": "2026-11-25T10:00:00Z",
            "type": "session_meta",
            "payload": {"id": "c1", "cwd": "/p"},
        },
        {
            "timestamp": "2026-11-25T10:00:01Z",
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "<environment_context>cwd</environment_context>"}
                ],
            },
        },
        {
            "timestamp": "2026-11-25T10:00:02Z",
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": user}],
            },
        },
        {
            "timestamp": "2026-11-25T10:00:02Z",
            "type": "event_msg",
            "payload": {"type": "user_message", "message": user},
        },
    ]
    if call is not None:
        name, arguments, output = call
        lines += [
            {
                "type": "response_item",
                "payload": {
                    "type": "function_call",
                    "name": name,
                    "arguments": arguments,
                    "call_id": "call_1",
                },
            },
            {
                "type": "response_item",
                "payload": {"type": "function_call_output", "call_id": "call_1", "output": output},
            },
        ]
    lines.append(
        {
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": reply}],
            },
        }
    )
    return lines


def gemini_session(pairs: list[tuple[str, str]]) -> dict[str, Any]:
    """A Gemini CLI session file: messages of type user and gemini."""
    messages: list[dict[str, Any]] = []
    for number, (user, reply) in enumerate(pairs):
        messages.append(
            {
                "id": f"m{number}u",
                "timestamp": "2026-11-25T10:00:00Z",
                "type": "user",
                "content": user,
            }
        )
        messages.append(
            {
                "id": f"m{number}g",
                "timestamp": "2026-11-25T10:00:01Z",
                "type": "gemini",
                "content": reply,
            }
        )
    return {"sessionId": "g1", "projectHash": "x", "messages": messages}


def write_jsonl(path: Path, lines: list[dict[str, Any]], append: bool = False) -> Path:
    with path.open("a" if append else "w", encoding="utf-8") as handle:
        for line in lines:
            handle.write(json.dumps(line, ensure_ascii=False) + "\n")
    return path


def hook_env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CORTEX_")}
    return {**env, "CORTEX_HOME": str(home), "CORTEX_HOOK_FOREGROUND": "1", **extra}


def payload(
    moment_event: str, session: str, transcript: Path | None, **fields: Any
) -> dict[str, Any]:
    """What Claude Code (and Codex) send on stdin."""
    return {
        "session_id": session,
        "transcript_path": str(transcript) if transcript else None,
        "cwd": "/work/pelican",
        "hook_event_name": moment_event,
        **fields,
    }


def run_hook(host: str, moment: str, stdin: bytes | dict[str, Any], env: dict[str, str]):
    data = stdin if isinstance(stdin, bytes) else json.dumps(stdin).encode()
    return subprocess.run(
        [str(HOOK), host, moment],
        input=data,
        capture_output=True,
        env=env,
        timeout=HOOK_TIMEOUT_S,
        check=False,
    )


async def run_hook_async(host: str, moment: str, stdin: dict[str, Any], env: dict[str, str]):
    return await anyio.run_process(
        [str(HOOK), host, moment], input=json.dumps(stdin).encode(), env=env, check=False
    )


def injected(stdout: bytes) -> str:
    """The additionalContext a Claude Code / Codex / Gemini hook printed ("" for none)."""
    text = stdout.decode()
    if not text.strip():
        return ""
    output = json.loads(text)
    return str(output.get("hookSpecificOutput", {}).get("additionalContext", ""))


def stderr_lines(stderr: bytes) -> list[str]:
    return [line for line in stderr.decode().splitlines() if line.strip()]
