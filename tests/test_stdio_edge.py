"""The stdio edge as a client and a terminal meet it: every malformed line is answered (mcp 2.3's
own reader drops it and the client waits for ever), a terminal gets one line saying what the
server waits for, and Ctrl-C or SIGTERM stop it at once with the shell's exit codes."""

import fcntl
import json
import os
import selectors
import signal
import subprocess
import sys
import termios
from pathlib import Path
from typing import IO, Any

import pytest

from cortex_mcp.stdio import INVALID_REQUEST, PARSE_ERROR, rejection

WAIT_S = 60
PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}


def server(home: Path, **streams: Any) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CORTEX_")}
    return subprocess.Popen(  # unbuffered: a buffered readline could take two replies off the
        # pipe at once, and select() would then wait for the second one in vain (seen in CI)
        [sys.executable, "-m", "cortex_mcp"],
        env={**env, "CORTEX_HOME": str(home)},
        bufsize=0,
        **streams,
    )


def read_line(stream: IO[bytes]) -> bytes:
    """One line of `stream`, waiting at most WAIT_S for it."""
    with selectors.DefaultSelector() as selector:
        selector.register(stream, selectors.EVENT_READ)
        assert selector.select(WAIT_S), "no line within the time limit"
    return stream.readline()


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


MALFORMED = [  # (line, expected code, expected id)
    ("{not json", PARSE_ERROR, None),
    ('{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"q": "\\ud800"}}', -32600, 7),
    (
        '{"jsonrpc": "2.0", "id": "deep", "method": "ping", "params": {"a": ' + nested(200) + "}}",
        -32600,
        "deep",
    ),
    ('{"id": 9, "method": 3}', INVALID_REQUEST, 9),
    ("[1, 2, 3]", INVALID_REQUEST, None),
]


@pytest.mark.parametrize(("line", "code", "request_id"), MALFORMED)
def test_a_line_the_sdk_would_drop_gets_an_error_reply(
    line: str, code: int, request_id: object
) -> None:
    reply = rejection(line)

    assert reply is not None
    assert (reply.error.code, reply.id) == (code, request_id)


def test_a_valid_message_is_left_to_the_sdk() -> None:
    assert rejection(json.dumps(PING)) is None


def test_malformed_lines_over_stdio_are_each_answered_and_the_server_keeps_serving(
    cortex_home: Path,
) -> None:
    lines = [json.dumps(INITIALIZE), *(line for line, _, _ in MALFORMED), json.dumps(PING)]
    process = server(cortex_home, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(("\n".join(lines) + "\n").encode())
    process.stdin.flush()
    replies = [json.loads(read_line(process.stdout)) for _ in lines]
    process.stdin.close()
    assert process.wait(timeout=WAIT_S) == 0, "EOF ends it"
    process.stdout.close()

    results = {r["id"]: r["result"] for r in replies if "result" in r}
    errors = [(r["error"]["code"], r["id"]) for r in replies if "error" in r]

    assert results[0]["serverInfo"]["name"] == "cortex-mcp"
    assert sorted(errors, key=str) == sorted(
        [(code, request_id) for _, code, request_id in MALFORMED], key=str
    )
    assert results[1] == {}, "the ping after them is answered: still serving"
    assert len(replies) == len(lines)


def test_each_answered_line_is_warned_once_on_stderr(cortex_home: Path) -> None:
    process = server(
        cortex_home, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    _, stderr = process.communicate(b"{not json\n\n[1]\n", timeout=WAIT_S)
    warnings = [line for line in stderr.decode("utf-8").splitlines() if "stdin:" in line]

    assert process.returncode == 0
    assert len(warnings) == 2, "two bad lines; the blank one is skipped"
    assert "-32700" in warnings[0] and "-32600" in warnings[1]


def test_sigterm_stops_a_waiting_server_with_143(cortex_home: Path) -> None:
    process = server(
        cortex_home, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
    process.stdin.flush()
    assert b"serverInfo" in read_line(process.stdout)

    process.send_signal(signal.SIGTERM)

    _, stderr = process.communicate(timeout=WAIT_S)

    assert process.returncode == 128 + signal.SIGTERM
    assert b"Traceback" not in stderr


def take_terminal() -> None:  # runs in the child: its stdin, a pty, becomes its terminal
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


@pytest.mark.skipif(sys.platform != "linux", reason="pty and TIOCSCTTY as on Linux")
def test_in_a_terminal_it_says_what_it_waits_for_and_ctrl_c_stops_it_with_130(
    cortex_home: Path,
) -> None:
    controller, terminal = os.openpty()
    try:
        process = server(
            cortex_home,
            stdin=terminal,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            preexec_fn=take_terminal,  # a terminal session needs setsid + TIOCSCTTY
        )
        assert process.stderr is not None and process.stdout is not None
        notice = read_line(process.stderr).decode("utf-8")

        os.write(controller, b"\x03")  # Ctrl-C, as typed: the terminal sends SIGINT

        stdout, rest = process.communicate(timeout=WAIT_S)

        assert process.returncode == 128 + signal.SIGINT
        assert "waits for a client's JSON-RPC messages on stdin" in notice
        assert "Ctrl-C stops it" in notice
        assert rest == b"", "one line, nothing after it"
        assert stdout == b"", "stdout is the protocol: nothing was written to it"
    finally:
        os.close(controller)
        os.close(terminal)


def test_arguments_that_are_not_an_object_get_one_line_naming_the_field(cortex_home: Path) -> None:
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    calls = [
        {"name": "cortex_recall", "arguments": "notadict"},
        {"name": "cortex_remember", "arguments": ["The user likes tea"]},
    ]
    lines = [
        INITIALIZE,
        initialized,
        *(
            {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": p}
            for n, p in enumerate(calls, 1)
        ),
        PING | {"id": 9},
    ]
    process = server(cortex_home, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("".join(json.dumps(line) + "\n" for line in lines).encode())
    process.stdin.flush()
    replies = {r["id"]: r for r in (json.loads(read_line(process.stdout)) for _ in range(4))}
    process.stdin.close()
    assert process.wait(timeout=WAIT_S) == 0
    process.stdout.close()

    assert replies[1]["error"] == {
        "code": -32602,
        "message": "params.arguments: must be an object of named arguments, not a string",
    }
    assert replies[2]["error"]["message"].endswith("not a list")
    assert replies[9]["result"] == {}
