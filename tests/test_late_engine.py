"""#28 item 5: `initialize` is answered before the store is opened (it used to wait for the
store, its migrations and the providers); the engine opens once the client says it is
initialized, calls that need it wait for it, and a store that cannot be opened still ends the
server with one line naming it, exit code 2, the file left as it was."""

import json
import os
import selectors
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

from tests.servers import INITIALIZE, INITIALIZED

WAIT_S = 60
LIST = {"jsonrpc": "2.0", "id": 3, "method": "tools/list"}
RECALL = {
    "jsonrpc": "2.0",
    "id": 2,
    "method": "tools/call",
    "params": {"name": "cortex_recall", "arguments": {"query": "tea"}},
}


def server(home: Path) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CORTEX_")}
    return subprocess.Popen(
        [sys.executable, "-m", "cortex_mcp"],
        env={**env, "CORTEX_HOME": str(home), "CORTEX_EMBEDDING__PROVIDER": "none"},
        bufsize=0,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def send(process: subprocess.Popen[bytes], message: dict[str, Any]) -> None:
    assert process.stdin is not None
    process.stdin.write(json.dumps(message).encode("utf-8") + b"\n")


def reply(stream: IO[bytes] | None) -> dict[str, Any]:
    """The next JSON-RPC message on `stream`, waiting at most WAIT_S for it."""
    assert stream is not None
    with selectors.DefaultSelector() as selector:
        selector.register(stream, selectors.EVENT_READ)
        assert selector.select(WAIT_S), "no reply within the time limit"
    answer: dict[str, Any] = json.loads(stream.readline())
    return answer


def test_initialize_is_answered_before_the_store_is_opened(tmp_path: Path) -> None:
    with server(tmp_path) as process:
        try:
            talk_until_recall(process, tmp_path)
        finally:
            process.kill()


def talk_until_recall(process: subprocess.Popen[bytes], home: Path) -> None:
    """initialize, tools/list, then a recall; the store exists only after the handshake."""
    send(process, INITIALIZE)
    assert reply(process.stdout)["result"]["serverInfo"]["name"] == "cortex-mcp"
    # The handshake asked nothing of the engine: the store does not exist yet.
    assert not (home / "cortex.db").exists()
    send(process, LIST)  # needs no engine (it starts the opening, waits for none)
    names = {tool["name"] for tool in reply(process.stdout)["result"]["tools"]}
    assert "cortex_recall" in names

    send(process, INITIALIZED)
    send(process, RECALL)
    answer = reply(process.stdout)
    assert answer["id"] == 2 and not answer["result"]["isError"], answer
    assert (home / "cortex.db").exists()


def test_a_corrupt_store_found_after_the_handshake_ends_the_server_in_one_line(
    tmp_path: Path,
) -> None:
    database = tmp_path / "cortex.db"
    garbage = b"this is not a SQLite file " * 400
    database.write_bytes(garbage)
    with server(tmp_path) as process:
        try:
            send(process, INITIALIZE)
            assert "result" in reply(process.stdout)
            send(process, INITIALIZED)
            send(process, RECALL)
            assert process.stdout is not None and process.stderr is not None
            rest = process.stdout.read()  # the server ends without answering the call
            code = process.wait(timeout=WAIT_S)
            stderr = process.stderr.read().decode("utf-8")
        finally:
            process.kill()
    assert code == 2, stderr
    assert rest == b""
    (line,) = stderr.splitlines()
    assert line.startswith(f"cortex-mcp: database {database}: ")
    assert "not a SQLite database" in line
    assert database.read_bytes() == garbage
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cortex.db"]
