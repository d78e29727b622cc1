"""What the hooks injected, per turn and per session, from their state files: the budget
made visible (resource cortex://hooks/stats)."""

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from cortex_mcp.hooks.paths import state_dir
from cortex_mcp.hooks.state import read_state

SESSIONS_SHOWN = 50


def summary(data_home: Path) -> dict[str, Any]:
    """Totals over every session, and the latest sessions one by one."""
    sessions: list[dict[str, Any]] = []
    for path in sorted(state_dir(data_home).glob("*.json"), key=_modified, reverse=True):
        state = read_state(path)
        if state is None:
            continue
        turns = [int(t) for t in state.get("turns", [])]
        sessions.append(
            {
                "host": state.get("host"),
                "session_id": state.get("session_id"),
                "prompts": state.get("prompts", 0),
                "prompts_skipped": state.get("skipped", 0),
                "injections": sum(1 for t in turns if t),
                "tokens_injected": state.get("tokens", 0),
                "tokens_last_turn": turns[-1] if turns else 0,
                "tokens_per_turn_max": max(turns, default=0),
                "exchanges_ingested": state.get("ingested", 0),
                "messages_flushed": state.get("flushed", 0),
                "ended": state.get("ended", False),
            }
        )
    tokens = sum(int(s["tokens_injected"]) for s in sessions)
    injections = sum(int(s["injections"]) for s in sessions)
    return {
        "sessions": len(sessions),
        "prompts": sum(int(s["prompts"]) for s in sessions),
        "prompts_skipped": sum(int(s["prompts_skipped"]) for s in sessions),
        "injections": injections,
        "tokens_injected": tokens,
        "tokens_per_injection": round(tokens / injections, 1) if injections else 0,
        "exchanges_ingested": sum(int(s["exchanges_ingested"]) for s in sessions),
        "messages_flushed": sum(int(s["messages_flushed"]) for s in sessions),
        "latest": sessions[:SESSIONS_SHOWN],
    }


def _modified(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def resource(data_home: Path) -> Callable[[], Awaitable[str]]:
    """The cortex://hooks/stats resource of the server on `data_home`."""

    async def hooks_stats() -> str:
        """Tokens the hooks injected, per session and in total, and what they saved."""
        return json.dumps(summary(data_home), ensure_ascii=False, indent=2)

    return hooks_stats
