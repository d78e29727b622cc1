"""Where an ingest's CPU goes, per call: the steps of `cortex_ingest`'s request path timed with
`time.process_time()` (every thread: SQLite's work in the driver's thread counts), for
`bench.ingest_cpu --spans`.

Each step is a function of the engine wrapped where its caller looks it up (a module attribute);
a step's time includes the steps it calls (the decision includes the same-statement search).
`sql` counts the statements sent to the store. Only for measuring: nothing here runs in the
server.
"""

import functools
import importlib
import inspect
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any

STEPS = [
    ("cortex_mcp.engine.writes", "cleaner_for", "profile read for redaction"),
    ("cortex_mcp.engine.ingest", "fast_proposals", "fast channel: patterns"),
    ("cortex_mcp.engine.ingest", "rule_on", "decision (reads)"),
    ("cortex_mcp.engine.ingest.write", "settle", "  same-fact rules"),
    ("cortex_mcp.engine.ingest.verdict", "find_duplicate", "    same-statement search"),
    ("cortex_mcp.engine.ingest.duplicates", "document_counts", "      word counts"),
    ("cortex_mcp.engine.ingest.duplicates", "live_containing", "      memories holding them"),
    ("cortex_mcp.engine.ingest.verdict", "closest_for_correction", "    correction: closest"),
    ("cortex_mcp.engine.ingest.channels", "nearby_memories", "  correction: by meaning"),
    ("cortex_mcp.engine.ingest", "write_ruled", "write: memories (re-check, insert)"),
    ("cortex_mcp.engine.ingest.write", "still_holds", "  re-check"),
    ("cortex_mcp.engine.ingest.write", "supersede", "  supersede"),
    ("cortex_mcp.engine.ingest", "append_in", "write: log rows"),
    ("cortex_mcp.engine.writes", "follow_up", "mirror, embedding, profile"),
]


class Spans:
    """CPU milliseconds per step of the call being timed (`begin`, `end`)."""

    def __init__(self) -> None:
        self.current: dict[str, float] | None = None
        self.calls: list[dict[str, Any]] = []

    def add(self, name: str, ms: float) -> None:
        """Count `ms` to step `name` of the current call."""
        if self.current is not None:
            self.current[name] = self.current.get(name, 0.0) + ms

    def wrap(self, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        """`function` (a coroutine function or a plain one) timed as step `name`."""
        if inspect.iscoroutinefunction(function):

            @functools.wraps(function)
            async def timed(*args: Any, **kwargs: Any) -> Any:
                started = time.process_time()
                try:
                    return await function(*args, **kwargs)
                finally:
                    self.add(name, (time.process_time() - started) * 1000)

            return timed

        @functools.wraps(function)
        def timed_sync(*args: Any, **kwargs: Any) -> Any:
            started = time.process_time()
            try:
                return function(*args, **kwargs)
            finally:
                self.add(name, (time.process_time() - started) * 1000)

        return timed_sync

    def install(self, connection_class: type) -> None:
        """Wrap every step in `STEPS`, and count the statements of `connection_class`."""
        for module_name, attribute, name in STEPS:
            module = importlib.import_module(module_name)
            if hasattr(module, attribute):  # an older tree may lack a step
                setattr(module, attribute, self.wrap(name, getattr(module, attribute)))
        for method in ("fetch_all", "execute"):
            original = getattr(connection_class, method)
            setattr(connection_class, method, self._counted(original))

    def _counted(self, original: Callable[..., Awaitable[Any]]) -> Callable[..., Any]:
        async def counted(*args: Any, **kwargs: Any) -> Any:
            self.add("sql", 1)
            return await original(*args, **kwargs)

        return counted

    def begin(self) -> None:
        """A call starts."""
        self.current = {}

    def end(self, total_ms: float, text: str, actions: list[str]) -> None:
        """The call ended: keep its steps."""
        assert self.current is not None
        self.calls.append(
            {"total": total_ms, "text": text[:80], "actions": actions, **self.current}
        )
        self.current = None

    def report(self, share: float = 0.05) -> dict[str, Any]:
        """Mean CPU of each step over the slowest `share` of the calls (the tail from p95) and
        over all calls; the slowest calls themselves."""
        ordered = sorted(self.calls, key=lambda call: -call["total"])
        tail = ordered[: max(1, round(len(ordered) * share))]
        names = ["total", *(name for _, _, name in STEPS), "sql"]

        def mean(calls: list[dict[str, Any]], name: str) -> float:
            return round(statistics.fmean(call.get(name, 0.0) for call in calls), 2)

        return {
            "tail_share": share,
            "steps_ms": {
                name: {"tail": mean(tail, name), "all": mean(ordered, name)} for name in names
            },
            "slowest": [
                {"ms": round(call["total"], 1), "actions": call["actions"], "text": call["text"]}
                for call in tail
            ],
        }


def table(report: dict[str, Any]) -> str:
    """The report as a Markdown table (step, tail mean, all-calls mean)."""
    rows = ["| step | slowest 5 % (mean ms CPU) | all calls |", "|---|---|---|"]
    for name, ms in report["steps_ms"].items():
        rows.append(f"| {name} | {ms['tail']} | {ms['all']} |")
    return "\n".join(rows)
