"""Tester 13's `cat .env` session through the real Stop hook: the tool result's database
password was redacted, the reply that repeated it in prose was logged verbatim."""

from pathlib import Path

from tests.hooks.hosts import claude_exchange, hook_env, payload, run_hook_async
from tests.hooks.hosts import write_jsonl as write
from tests.hooks.test_story import running_server
from tests.servers import read_only

PASSWORD = "S3cr3tPassw0rd"
ENV_FILE = f"DATABASE_URL=postgres://admin:{PASSWORD}@db.prod:5432/app\nSTRIPE_KEY=none"


async def test_a_password_from_a_tool_result_repeated_in_the_reply_is_stored_nowhere(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    exchange = claude_exchange(
        "The deploy is failing, can you check the env file?",
        f"The DATABASE_URL points at db.prod; the admin's {PASSWORD} expired, I'll fix the env.",
        tool=("Bash", {"command": "cat .env"}, ENV_FILE),
    )
    transcript = write(tmp_path / "tools1.jsonl", exchange)
    async with running_server(home):
        done = await run_hook_async(
            "claude-code", "stop", payload("Stop", "tools1", transcript), hook_env(home)
        )
        assert done.returncode == 0 and done.stderr == b"", done.stderr

    conn = read_only(home / "cortex.db")
    try:
        said = [row[0] for row in conn.execute("select content from conversation_log")]
    finally:
        conn.close()
    assert any("[REDACTED:url_password]" in text for text in said), said
    assert not [text for text in said if PASSWORD in text]
