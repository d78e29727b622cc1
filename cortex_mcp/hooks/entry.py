"""`cortex-mcp-hook HOST MOMENT`: what a coding agent's hook runs. It reads the host's JSON on
stdin, talks to the running cortex-mcp server over its local socket, prints what the host
should inject, and always exits 0: malformed stdin, a broken transcript path for a saving
moment or no server cost one line on stderr and inject nothing, never the user's prompt. A
transcript not written yet costs the injecting moments nothing: the prompt is their query.

The saving moments (stop, pre-compact, session-end) check their input, then fork: the host
gets its exit at once while the child reads the transcript and calls the server (or spools
a pointer when no server runs). Standard library only: an import-linter contract keeps the
MCP SDK, pydantic, the settings and the engine out of this module and what it imports. What
the parent of a detached save runs imports neither pathlib nor the moments (#25): those load
in the child, or for the moments the user waits for.
"""

from __future__ import annotations

import binascii
import json
import os
import sys
import time

from cortex_mcp.guidance import exposes
from cortex_mcp.hooks.client import NoServer
from cortex_mcp.hooks.event import TOOL_OF, TURN_FIELDS, Event, cursor_event_key, from_cursor
from cortex_mcp.hooks.output import EVENT_NAMES, HOSTS, MOMENTS, render
from cortex_mcp.hooks.paths import HOOKS_NAME, home_folder, published_settings

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from cortex_mcp.hooks.moments import Moments

MAX_STDIN = 4 << 20
INJECT_TIMEOUT_S = 2.0
"""The user waits for these: past it, nothing is injected."""
INJECT_TOTAL_S = 3.0
"""What an injecting moment's whole session with the server may take: the host gives the hook
5 s (the plugin's timeout), and starting, reading the event and the transcript take some."""
SAVE_TIMEOUT_S = 60.0
CHILD_NICENESS = 10
"""A detached save runs this much nicer than the hook's parent (#25)."""
SETTING_OF = {
    "session-start": "session_start",
    "prompt": "prompt",
    "stop": "stop",
    "pre-compact": "pre_compact",
    "session-end": "session_end",
}
USAGE = f"usage: cortex-mcp-hook {{{','.join(HOSTS)}}} {{{','.join(MOMENTS)}}}"


class HookError(Exception):
    """Bad input: one line for stderr."""


def say(line: str) -> None:
    """One line on stderr (the host shows or logs it; it never reaches the model)."""
    try:
        sys.stderr.write(f"cortex-mcp-hook: {line}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def read_payload() -> tuple[dict[str, Any], str]:
    """The host's JSON object from stdin, and a fingerprint of its bytes (what tells two runs
    of our hook for one event: the host hands each the same input)."""
    data = sys.stdin.buffer.read(MAX_STDIN + 1)
    if len(data) > MAX_STDIN:
        raise HookError(f"stdin: larger than {MAX_STDIN:,} bytes")
    try:
        payload = json.loads(data or b"null")
    except ValueError as err:
        raise HookError(f"stdin: not JSON ({err})") from err
    if not isinstance(payload, dict):
        raise HookError("stdin: must be a JSON object")
    return payload, f"{binascii.crc32(data):08x}-{len(data)}"


def same_input(payload: dict[str, Any]) -> str:
    """A fingerprint of the host's input whatever the event is named in it and in whatever
    order its keys come (Cursor's entry and the Claude Code entry Cursor maps it to)."""
    rest = {key: value for key, value in payload.items() if key != "hook_event_name"}
    return f"{binascii.crc32(json.dumps(rest, sort_keys=True).encode()):08x}"


def first_run(data_home: str, event: Event, fingerprint: str, payload: dict[str, Any]) -> bool:
    """False when this is a copy of a run already under way for the same event: the host
    found our hook in two settings files (`state.first_run`; imported here, so the parent of a
    detached save never loads it). A saving moment's event is also told by its transcript's
    size and time: a Stop's input can be the same for every exchange of a session. So is a
    prompt's when the host sends nothing that tells one turn from the next (`TURN_FIELDS`):
    the same prompt said again comes after the first one's exchange went to the transcript,
    while copies of one event, started together, see one size (Claude Code writes the prompt
    there with what its hooks added, once they have answered)."""
    from pathlib import Path

    by_turn = event.moment == "prompt" and any(payload.get(key) for key in TURN_FIELDS)
    if event.moment != "session-start" and not by_turn and event.transcript_path is not None:
        try:
            found = os.stat(event.transcript_path)
            fingerprint = f"{fingerprint}-{found.st_size}-{found.st_mtime_ns}"
        except OSError:
            pass

    from cortex_mcp.hooks.state import first_run as first

    return first(
        Path(data_home), event.host, event.session_id, event.moment, fingerprint, time.time()
    )


def check_saving(event: Event, payload: dict[str, Any]) -> None:
    """A saving moment needs a session to file what it saves under and a transcript path that
    is text (found trying the product: a null or numeric one saved nothing, silently)."""
    if not event.session_id.strip():
        raise HookError("session_id: missing or empty; nothing saved")
    transcript = payload.get("transcript_path")
    if transcript is not None and not isinstance(transcript, str):
        raise HookError(f"transcript_path: must be text, not {type(transcript).__name__}")
    check_transcript(event)


def check_transcript(event: Event) -> None:
    """A transcript path the host gave must name a readable file, unless the exchange came
    inline (Gemini CLI's AfterAgent: its prompt and reply; found trying the product: a
    missing session file lost them)."""
    if event.transcript_readable():
        return
    if event.moment == "stop" and event.prompt and event.inline_reply:
        event.transcript_path = None
        return
    raise HookError(f"transcript_path: {event.transcript_path} is not a readable file")


def detach() -> bool:
    """Fork; True in the parent (which returns to the host at once). The child leaves the
    host's session and pipes, so the host stops waiting when the parent exits."""
    if os.environ.get("CORTEX_HOOK_FOREGROUND") or not hasattr(os, "fork"):
        return False
    if os.fork():
        return True
    os.setsid()
    null = os.open(os.devnull, os.O_RDWR)
    for descriptor in (0, 1, 2):
        os.dup2(null, descriptor)
    try:  # noqa: SIM105 - contextlib is not imported here; the host waits for the parent
        os.nice(CHILD_NICENESS)
    except OSError:
        pass
    return False


def log(data_home: str, line: str) -> None:
    """A detached child's trouble, one line in <home>/hooks/hooks.log (no conversation)."""
    try:
        folder = os.path.join(data_home, HOOKS_NAME)
        os.makedirs(folder, mode=0o700, exist_ok=True)
        name = os.path.join(folder, "hooks.log")
        descriptor = os.open(name, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        with os.fdopen(descriptor, "a", encoding="utf-8") as handle:
            handle.write(line + "\n")
    except OSError:
        pass


def moments_of(
    data_home: str, settings: dict[str, Any], timeout: float, total: float | None = None
) -> Moments:
    """The moments on `data_home` (imported here: the parent of a detached save never
    needs them)."""
    from pathlib import Path

    from cortex_mcp.hooks.moments import Moments

    return Moments(Path(data_home), settings, timeout, total)


def save(moments: Moments, event: Event) -> None:
    """Run a saving moment; with no server, spool its pointer for the next one."""
    try:
        getattr(moments, event.moment.replace("-", "_"))(event)
    except NoServer:
        from cortex_mcp.hooks import spool

        spool.put(moments.home, event.pointer())


def run(host: str, moment: str, payload: dict[str, Any], fingerprint: str) -> str:
    """The moment for this host; what goes to stdout. A copy of a run for the same event
    (`first_run`) injects and saves nothing."""
    if moment not in EVENT_NAMES[host]:
        raise HookError(f"{host} has no {moment} hook here (README: Hooks)")
    source = host
    if from_cursor(payload):  # Cursor runs our Claude Code entries too: the event is Cursor's
        if moment not in EVENT_NAMES["cursor"]:
            return render(host, moment, "")  # its beforeSubmitPrompt cannot add context
        source, fingerprint = "cursor", cursor_event_key(payload) or same_input(payload)
    data_home = home_folder()
    settings = published_settings(data_home)
    event = Event.of(source, moment, payload)
    if not settings[SETTING_OF[moment]]:
        return render(host, moment, "")
    if not exposes(settings["tools"], TOOL_OF[moment]):
        say(f"{moment}: {TOOL_OF[moment]} is not among CORTEX_TOOLS; skipped")
        return render(host, moment, "")
    if moment in ("session-start", "prompt"):
        if not first_run(data_home, event, fingerprint, payload):
            return render(host, moment, "")
        if not event.transcript_readable():
            # not written yet: the first session in a new folder gets a path whose folder does
            # not exist (anthropics/claude-code#41310), and so may a session after /clear;
            # the prompt alone is the query then, and nothing is wrong
            event.transcript_path = None
        moments = moments_of(data_home, settings, INJECT_TIMEOUT_S, INJECT_TOTAL_S)
        try:
            context = getattr(moments, moment.replace("-", "_"))(event)
        except NoServer as err:
            context = fallback(data_home, moment, settings)
            if not context:
                say(f"{moment}: {err}; nothing injected")
        return render(host, moment, context)
    check_saving(event, payload)
    if detach():
        return render(host, moment, "")
    try:
        if first_run(data_home, event, fingerprint, payload):
            save(moments_of(data_home, settings, SAVE_TIMEOUT_S), event)
    except Exception as err:
        log(data_home, f"{moment} {event.session_id[:16]}: {type(err).__name__}: {err}")
        if os.environ.get("CORTEX_HOOK_FOREGROUND"):
            raise
    prune(data_home)
    return render(host, moment, "")


def prune(data_home: str) -> None:
    """Old sessions' state taken away (`prune.prune_sessions`: at most once a day), by a
    detached save, which no one waits for; trouble costs a line in hooks.log, never the save."""
    from pathlib import Path

    from cortex_mcp.hooks.prune import prune_sessions

    try:
        prune_sessions(Path(data_home), time.time())
    except OSError as err:
        log(data_home, f"prune: {type(err).__name__}: {err}")


def fallback(data_home: str, moment: str, settings: dict[str, Any]) -> str:
    """With no server: the start of MEMORY.md (the mirror) at session start, else nothing
    (opening the store here would cost the user a second per prompt)."""
    if moment != "session-start":
        return ""
    from cortex_mcp.hooks.moments import DIGEST_HEAD, digest_within

    try:
        with open(os.path.join(data_home, "MEMORY.md"), encoding="utf-8") as file:
            mirror = file.read()
    except OSError:
        return ""
    if mirror.startswith("---\n") and (end := mirror.find("\n---\n", 4)) != -1:
        mirror = mirror[end + 5 :]  # its front matter (generator, updated_at) is for tools
    return digest_within(f"{DIGEST_HEAD}\n{mirror.lstrip()}", settings)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `cortex-mcp-hook`; always 0 (a hook never blocks the host)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 2 or args[0] not in HOSTS or args[1] not in MOMENTS:
        say(USAGE)
        return 0
    host, moment = args
    try:
        output = run(host, moment, *read_payload())
    except HookError as err:
        say(str(err))
        output = render(host, moment, "")
    except NoServer as err:
        say(f"{moment}: {err}; nothing injected")
        output = render(host, moment, "")
    except Exception as err:  # the top of a hook: one line, never a traceback
        first = str(err).splitlines()[0][:200] if str(err) else ""
        say(f"{moment}: {type(err).__name__}: {first}")
        output = render(host, moment, "")
    try:
        sys.stdout.write(output)
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    if argv is None:  # the command itself: skip the interpreter's teardown, its output is out
        os._exit(0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
