"""What the host waits for at Stop and PreCompact (#25 item 3): the hook's parent checks its
input, forks and exits. It imports neither pathlib (with urllib.parse and ipaddress) nor the
moments, the transcript reader or the socket client: those load in the detached child, which
still does the work (here, with no server running, it spools the moment)."""

import time
from pathlib import Path

from cortex_mcp.hooks.paths import spool_dir
from tests.hooks.hosts import claude_exchange, hook_env, payload, run_hook, write_jsonl

LEFT_TO_THE_CHILD = (
    "pathlib",
    "urllib.parse",
    "cortex_mcp.hooks.moments",
    "cortex_mcp.hooks.transcripts",
    "cortex_mcp.hooks.state",
    "cortex_mcp.hooks.spool",
)


def imported(stderr: bytes) -> set[str]:
    """The modules `-X importtime` reported on stderr."""
    lines = stderr.decode("utf-8", "replace").splitlines()
    return {line.rsplit("|", 1)[1].strip() for line in lines if line.startswith("import time:")}


def test_the_parent_of_a_saving_moment_leaves_the_heavy_imports_to_its_child(
    tmp_path: Path,
) -> None:
    transcript = write_jsonl(tmp_path / "t.jsonl", claude_exchange("Deploy on Fridays?", "No."))
    env = hook_env(tmp_path / "home", PYTHONPROFILEIMPORTTIME="1")
    del env["CORTEX_HOOK_FOREGROUND"]  # as a host runs it: the parent forks
    for moment, event in (("stop", "Stop"), ("pre-compact", "PreCompact")):
        done = run_hook("claude-code", moment, payload(event, f"s-{moment}", transcript), env)

        assert done.returncode == 0 and done.stdout == b""
        parent = imported(done.stderr)
        assert "cortex_mcp.hooks.entry" in parent  # the report is there at all
        assert not parent & set(LEFT_TO_THE_CHILD), sorted(parent & set(LEFT_TO_THE_CHILD))
    deadline = time.monotonic() + 60  # the children, with no server, spool both moments
    while len(list(spool_dir(tmp_path / "home").glob("*.json"))) < 2:
        assert time.monotonic() < deadline, "the detached children spooled nothing"
        time.sleep(0.05)  # noqa: TID251 - polling another process's output, no event loop
