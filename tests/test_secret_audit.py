"""The secrets audit of issue 12, kept: every secret kind, fed through every path in to a real
stdio server logging at DEBUG, is found at no sink: the database and WAL bytes, the Markdown
mirror, both exports, stderr, and the requests the fake LLM and embeddings servers received."""

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

from tests.conftest import data_of
from tests.fakes import FakeAnthropic, FakeOpenAI
from tests.secret_samples import SAMPLES
from tests.servers import STARTUP_TIMEOUT_S, server_env

ALL = "\n".join(sample.text for sample in SAMPLES)
CANARIES = (
    "canary-remember-content",
    "canary-remember-context",
    "canary-ingest-user",
    "canary-ingest-assistant",
    "canary-ingest-tools",
    "canary-flush",
    "canary-profile",
    "canary-scratchpad",
    "canary-import",
)
"""One harmless word per path in, to show each path stored something."""


def leaks(text: str | bytes) -> list[str]:
    """The kinds whose secret occurs in `text` (as written, or lower-cased as indexed)."""
    data = text.encode() if isinstance(text, str) else text
    return [
        s.kind for s in SAMPLES if s.secret.encode() in data or s.secret.lower().encode() in data
    ]


def environment(home: Path, provider: str, llm_url: str, embeddings_url: str) -> dict[str, str]:
    return server_env(
        home,
        CORTEX_LOG_LEVEL="DEBUG",
        CORTEX_LLM__PROVIDER=provider,
        CORTEX_LLM__BASE_URL=llm_url,
        CORTEX_LLM__API_KEY="test",
        CORTEX_LLM__TIMEOUT_S="5",
        CORTEX_EMBEDDING__PROVIDER="openai",
        CORTEX_EMBEDDING__BASE_URL=embeddings_url,
        CORTEX_EMBEDDING__API_KEY="test",
        CORTEX_MIRROR__DEBOUNCE_S="0",
    )


def markdown_files(home: Path) -> dict[str, str]:
    """The mirror: every Markdown page under the home, by name."""
    return {p.name: p.read_text(encoding="utf-8") for p in home.rglob("*.md")}


async def feed_every_path(client: Client) -> None:
    """Every secret through every tool that takes text in."""
    calls: list[tuple[str, dict[str, Any]]] = [
        ("cortex_remember", {"content": f"Ops notes canary-remember-content:\n{ALL}"}),
        (
            "cortex_remember",
            {"content": "Ops rotated the keys canary-remember-context", "context": ALL},
        ),
        (
            "cortex_ingest",
            {"user_message": f"I decided to vault these canary-ingest-user:\n{ALL}"},
        ),
        (
            "cortex_ingest",
            {
                "user_message": "Where are the deploy settings?",
                "assistant_message": f"Here they are canary-ingest-assistant:\n{ALL}",
            },
        ),
        (
            "cortex_ingest",
            {
                "user_message": "Check the environment of the deploy box",
                "assistant_message": "Done, see the tool output.",
                "tool_calls": [{"name": "read_env canary-ingest-tools", "output": ALL}],
            },
        ),
        (
            "cortex_flush",
            {
                "messages": [
                    {"role": "user", "content": f"Keep these canary-flush:\n{ALL}"},
                    {"role": "assistant", "content": ALL},
                ]
            },
        ),
        ("cortex_profile", {"content": f"I am Dana, a DevOps lead canary-profile.\n{ALL}"}),
        ("cortex_scratchpad", {"action": "replace", "text": f"canary-scratchpad\n{ALL}"}),
    ]
    for name, arguments in calls:
        data_of(await client.call_tool(name, arguments))


async def cli(home: Path, env: dict[str, str], *args: str) -> tuple[str, str]:
    """`cortex-mcp <args>` as a process on `home`; (stdout, stderr)."""
    done = await anyio.run_process(
        [sys.executable, "-m", "cortex_mcp", *args], env=env, check=False
    )
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout.decode(), done.stderr.decode()


async def wait_for_embeddings(fake: FakeOpenAI) -> None:
    """Until the background embedder has sent the remembered notes."""
    with anyio.fail_after(STARTUP_TIMEOUT_S):
        while True:
            if any("canary-remember-content" in text for text in fake.embedded):
                return
            await anyio.sleep(0.05)


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
async def test_no_secret_of_any_kind_reaches_any_sink_through_any_path(
    provider: str,
    cortex_home: Path,
    tmp_path: Path,
    fake_openai: FakeOpenAI,
    fake_anthropic: FakeAnthropic,
) -> None:
    llm: FakeOpenAI | FakeAnthropic = fake_openai if provider == "openai" else fake_anthropic
    env = environment(cortex_home, provider, llm.url, fake_openai.url)
    stderr_path = tmp_path / "server-stderr.log"
    command = f"exec {shlex.quote(sys.executable)} -m cortex_mcp 2>{shlex.quote(str(stderr_path))}"
    server = StdioServerParameters(command="sh", args=["-c", command], env=env)
    memory_md = tmp_path / "import" / "MEMORY.md"
    memory_md.parent.mkdir()
    memory_md.write_text(
        "# Notes\n\n- Imported canary-import from the old vault\n"
        + "\n".join(f"- {s.text}" for s in SAMPLES)
        + "\n",
        encoding="utf-8",
    )
    database = cortex_home / "cortex.db"

    with anyio.fail_after(STARTUP_TIMEOUT_S * 4):
        async with Client(server) as client:
            await feed_every_path(client)
            _, import_err = await cli(cortex_home, env, "import", str(memory_md))
            data_of(await client.call_tool("cortex_recall", {"query": "deploy key rotation"}))
            data_of(await client.call_tool("cortex_lifecycle", {"action": "run"}))
            await wait_for_embeddings(fake_openai)
            live = database.read_bytes() + (cortex_home / "cortex.db-wal").read_bytes()
            exported, export_err = await cli(cortex_home, env, "export", "--include-forgotten")
            markdown, _ = await cli(cortex_home, env, "export", "--format", "markdown")

    stored = live + database.read_bytes()
    for canary in CANARIES:
        assert canary.encode() in stored, f"{canary}: that path stored nothing"
    sent = [json.dumps(r.body, ensure_ascii=False) for r in [*llm.requests, *fake_openai.requests]]
    assert any("[REDACTED:" in body for body in sent if "canary" in body), "no LLM call seen"
    stderr = stderr_path.read_text(encoding="utf-8") + import_err + export_err
    assert "cortex_mcp.engine.ingest ingest: " in stderr, "the server did not log its decisions"
    mirror = markdown_files(cortex_home)
    assert "MEMORY.md" in mirror

    assert leaks(stored) == []
    for name, page in mirror.items():
        assert leaks(page) == [], name
    assert leaks(exported) == [] and leaks(markdown) == []
    assert leaks("\n".join(sent)) == [] and leaks("\n".join(fake_openai.embedded)) == []
    assert leaks(stderr) == []
    assert [c for c in CANARIES if c in stderr] == [], "memory text in the logs"
