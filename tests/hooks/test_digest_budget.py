"""The SessionStart digest fills its token budget, driven through the real hook command as
Claude Code runs it. A home with eleven core memories got eight lines (about 130 of its 400
tokens): the hook asked recall for the default eight memories, and dropped the digest's
"3 more" line, so the agent never learnt the rest existed (the key-less re-test)."""

from pathlib import Path

from mcp import Client

from cortex_mcp.guidance import is_digest_more
from tests.conftest import data_of
from tests.hooks.hosts import hook_env, injected, payload, run_hook_async, write_jsonl
from tests.hooks.test_story import running_server

ELEVEN = [
    ("I'm Dana Whitfield, backend lead at Acme.", "identity", ""),
    ("I live in Lisbon with my cat Pixel.", "identity", ""),
    ("I prefer tabs over spaces, and please keep answers short.", "preference", ""),
    ("Answer in English even when I write in Portuguese.", "preference", ""),
    ("I use Neovim with the LazyVim setup.", "preference", ""),
    ("My working hours are nine to five, Lisbon time.", "fact", ""),
    ("I run the test suite with pytest -x before every commit.", "preference", ""),
    ("My laptop is a ThinkPad X1 running Fedora.", "fact", ""),
    ("Never push straight to main; open a pull request.", "preference", ""),
    ("We decided to deploy the pelican API on Fly.io.", "decision", "pelican"),
    ("We decided to keep pelican's billing data in PostgreSQL 16.", "decision", "pelican"),
]


async def remember_all(client: Client, memories: list[tuple[str, str, str]]) -> None:
    for content, category, project in memories:
        arguments = {"content": content, "category": category, "importance": 0.9}
        await client.call_tool(
            "cortex_remember", arguments | ({"project": project} if project else {})
        )


async def session_start(home: Path, tmp_path: Path) -> str:
    """What the SessionStart hook injects in a new session in /work/pelican."""
    start = payload("SessionStart", "new", write_jsonl(tmp_path / "new.jsonl", []))
    done = await run_hook_async("claude-code", "session-start", start, hook_env(home))
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    return injected(done.stdout)


async def core_count(client: Client) -> int:
    digest = data_of(await client.call_tool("cortex_recall", {"max_results": 50}))
    return len(digest["memories"])


async def test_eleven_core_memories_all_reach_the_session_start_digest(tmp_path: Path) -> None:
    home = tmp_path / "home"
    async with running_server(home) as client:
        await remember_all(client, ELEVEN)
        assert await core_count(client) == len(ELEVEN), "all eleven are core memories"
        digest = await session_start(home, tmp_path)
    missing = [content for content, _, _ in ELEVEN if content not in digest]
    assert missing == [], digest
    assert " more: ask cortex_recall" not in digest, digest  # nothing was left out


async def test_the_digest_says_how_many_memories_its_budget_left_out(tmp_path: Path) -> None:
    """With a budget too small for eleven, the digest says how many more there are: "N more"
    counts every core memory not shown, and the lines shown plus N make eleven."""
    home = tmp_path / "home"
    async with running_server(home, CORTEX_HOOKS__SESSION_START_TOKENS="120") as client:
        await remember_all(client, ELEVEN)
        digest = await session_start(home, tmp_path)
    shown = sum(content in digest for content, _, _ in ELEVEN)
    more = [line for line in digest.splitlines() if is_digest_more(line)]
    assert 0 < shown < len(ELEVEN), digest
    assert len(more) == 1, digest
    assert int(more[0].split()[0]) == len(ELEVEN) - shown, digest
