"""An injecting hook's session with the server has a bound in all, not only per answer: the
host waits for it (5 s), and a few slow answers in a row, each under the per-answer bound,
could together pass it (left open by the resumed-session fix, rt20)."""

import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cortex_mcp.hooks.client import Connection, NoServer

PER_ANSWER_S = 30.0


@pytest.fixture
def slow_server(tmp_path: Path) -> Iterator[Path]:
    """A socket that answers `initialize` at once and every later request after 0.4 s."""
    path = tmp_path / "s.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(1)
    done = threading.Event()

    def serve() -> None:
        connection, _ = listener.accept()
        with connection, connection.makefile("rb") as lines:
            for line in lines:
                message = json.loads(line)
                if "id" not in message:
                    continue  # the initialized notification
                if message["method"] != "initialize" and done.wait(0.4):
                    return  # the test is over
                reply = {"jsonrpc": "2.0", "id": message["id"], "result": {}}
                connection.sendall(json.dumps(reply).encode() + b"\n")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield path
    finally:
        done.set()
        listener.close()
        thread.join(timeout=5)


def test_a_session_gives_up_once_its_total_is_spent(slow_server: Path) -> None:
    started = time.monotonic()
    with (
        Connection(slow_server, PER_ANSWER_S, total=1.0) as server,
        pytest.raises(NoServer, match="within 1 s in all"),
    ):
        for _ in range(20):  # 0.4 s each: the third or so passes the total
            server.call_tool("cortex_recall", {})
    assert time.monotonic() - started < PER_ANSWER_S / 2  # not the per-answer bound


def test_without_a_total_each_answer_has_its_own_bound(slow_server: Path) -> None:
    with Connection(slow_server, PER_ANSWER_S) as server:
        for _ in range(4):  # 1.6 s in all: a saving moment's session is not cut
            assert server.call_tool("cortex_recall", {}) == {}
