"""The lifecycle engine: memory stays small and sharp over months, and nothing is ever lost.

Phases, in order: working memories are promoted to core or, once expired, archived (promote);
near-duplicate core memories merge (merge); core memories decay by category and fall to the
archive (decay); archive months past their TTL compress into core summaries (compress); the
user profile is re-synthesized when its memories changed (profile); the Markdown mirror is
rewritten (mirror). `run_lifecycle` runs them (or previews them), `LifecycleScheduler` runs
them on the cron schedule in one process at a time; `mirror.writer` keeps the mirror fresh
between runs.
"""

from cortex_mcp.engine.lease import LeaseLost, LifecycleBusy
from cortex_mcp.engine.lifecycle.profile import set_manual_profile
from cortex_mcp.engine.lifecycle.refresh import concerns_profile, refresh_profile
from cortex_mcp.engine.lifecycle.report import LifecycleReport
from cortex_mcp.engine.lifecycle.run import plan_lifecycle, run_lifecycle
from cortex_mcp.engine.lifecycle.schedule import LifecycleScheduler, is_due
from cortex_mcp.engine.lifecycle.status import lifecycle_log, lifecycle_status

__all__ = [
    "LeaseLost",
    "LifecycleBusy",
    "LifecycleReport",
    "LifecycleScheduler",
    "concerns_profile",
    "is_due",
    "lifecycle_log",
    "lifecycle_status",
    "plan_lifecycle",
    "refresh_profile",
    "run_lifecycle",
    "set_manual_profile",
]
