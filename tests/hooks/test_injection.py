"""What the injecting moments put in front of the model, found by driving the real hook command
with Claude Code's stdin and transcripts, key-less: nothing the model has already (this
session's own lines), nothing that answers nothing (a past question), the best answer even
when it shares one word with the prompt, and a digest without repeats or ids."""

from pathlib import Path

from tests.conftest import data_of, read_json
from tests.hooks.hosts import claude_exchange, hook_env, injected, payload, run_hook_async
from tests.hooks.hosts import write_jsonl as write
from tests.hooks.test_episode_hooks import said, tool_result, tool_use
from tests.hooks.test_story import running_server


async def ask(home: Path, session: str, transcript: Path | None, prompt: str) -> str:
    """What the UserPromptSubmit hook injects for `prompt` in `session`."""
    asked = payload("UserPromptSubmit", session, transcript, prompt=prompt)
    done = await run_hook_async("claude-code", "prompt", asked, hook_env(home))
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    return injected(done.stdout)


async def stop(home: Path, session: str, transcript: Path) -> None:
    done = await run_hook_async(
        "claude-code", "stop", payload("Stop", session, transcript), hook_env(home)
    )
    assert done.returncode == 0 and done.stderr == b"", done.stderr


async def test_the_prompt_hook_never_injects_this_sessions_own_lines(tmp_path: Path) -> None:
    """Session 1, turn 2 got "Memory from earlier sessions … [said …]" holding the user's own
    turn 1, already in the model's context (after a compaction, in its summary). Another
    session still gets it."""
    home = tmp_path / "home"
    said = "The flaky login test fails only on Tuesdays when the cache is cold."
    async with running_server(home):
        one = write(tmp_path / "one.jsonl", claude_exchange(said, "I will look at the cache."))
        await stop(home, "one", one)
        same = await ask(home, "one", one, "Why does the login test fail on Tuesdays?")
        later = await ask(home, "two", None, "Why does the login test fail on Tuesdays?")
    assert "Tuesdays" not in same, same
    assert "[said" in later and "cold" in later, later


async def test_a_question_asked_in_an_earlier_session_is_not_injected_as_memory(
    tmp_path: Path,
) -> None:
    """ "what port is staging on?", logged in session 1, came back to the same question in
    session 2 as a memory line: a past question says what was asked, not the answer."""
    home = tmp_path / "home"
    async with running_server(home):
        asked = claude_exchange("What port is the staging login service on?", "I don't know.")
        one = write(tmp_path / "one.jsonl", asked)
        await stop(home, "one", one)
        question = await ask(home, "two", None, "Which port is the staging login service on?")
    assert "What port" not in question, question


async def test_the_best_answer_is_injected_though_it_shares_one_word_or_none(
    tmp_path: Path,
) -> None:
    """Recall ranked "Let's use PostgreSQL for the billing service." first for "which database
    did we pick for billing?" (1.1, the floor 0.95) and the name first for "what is my name?",
    but the hook wanted two shared words (or all of a shorter prompt's): nothing was injected.
    A coding prompt that shares one word with a stored memory still gets nothing."""
    home = tmp_path / "home"
    async with running_server(home) as client:
        for said in ("Let's use PostgreSQL for the billing service.", "I'm Dana Whitfield."):
            await client.call_tool("cortex_remember", {"content": said})
        billing = await ask(home, "s", None, "which database did we pick for billing?")
        name = await ask(home, "s", None, "what is my name?")
        coding = "Fix the billing page CSS"
        unrelated = await ask(home, "s", None, coding)
        recalled = data_of(await client.call_tool("cortex_recall", {"query": coding}))
    assert "PostgreSQL" in recalled["context"], "recall ranks it first: the hook says no"
    assert "PostgreSQL" in billing, billing
    assert "Dana Whitfield" in name, name
    assert unrelated == "", unrelated


async def test_the_session_start_digest_spends_its_budget_on_distinct_lasting_things(
    tmp_path: Path,
) -> None:
    """The digest showed the user twice (a `core · profile` line and a `core · identity` line
    with the same text), an id on every memory line, an episode whose goal was the greeting
    ("Episode: Hi! I'm Dana … → …") and a stale log line picked because it names the project
    (the digest searches with the project's name)."""
    home = tmp_path / "home"
    greeting = "Hi! I'm Dana Whitfield, backend lead at Acme."
    request = "Rewrite tests/test_api.py to use pytest fixtures."
    session = [
        said("user", greeting),
        said("assistant", "Hi Dana! How can I help?"),
        said("user", request),
        tool_use("t1", "Edit", {"file_path": "tests/test_api.py"}),
        tool_result("t1", "The file tests/test_api.py has been updated."),
        said("assistant", "Rewrote tests/test_api.py with pytest fixtures."),
        said("user", "Ugh, the pelican checkout is slow on this laptop today."),
        said("assistant", "Sorry to hear that."),
    ]
    async with running_server(home) as client:
        one = write(tmp_path / "one.jsonl", session)
        await stop(home, "one", one)
        end = payload("SessionEnd", "one", one, reason="exit")
        assert (
            await run_hook_async("claude-code", "session-end", end, hook_env(home))
        ).returncode == 0
        await client.call_tool("cortex_lifecycle", {"action": "run"})  # writes the profile
        start = payload("SessionStart", "two", write(tmp_path / "two.jsonl", []))
        started = await run_hook_async("claude-code", "session-start", start, hook_env(home))
        goals = [e["goal"] for e in (await read_json(client, "cortex://episodes"))["episodes"]]
    digest = injected(started.stdout)
    assert started.returncode == 0 and started.stderr == b"", started.stderr
    wasted = [
        *(["the user twice"] if digest.count("I'm Dana Whitfield") > 1 else []),
        *(["ids"] if "(id " in digest else []),
        *(["a log line"] if "[said" in digest or "checkout is slow" in digest else []),
        *(["a greeting as a goal"] if goals != [request] else []),
    ]
    assert wasted == [], digest
    assert "Dana Whitfield" in digest, digest


async def test_the_prompt_hook_injects_nothing_of_another_project(tmp_path: Path) -> None:
    """Found trying the product: in the billing API, whose rule is "never use yarn here", the
    mobile app's "we use yarn workspaces" came first for "should i use yarn or npm?"."""
    home = tmp_path / "home"
    question = "should i use yarn or npm to add stripe-node?"
    async with running_server(home):
        said = claude_exchange("In the mobile app we use yarn workspaces, never npm.", "Noted.")
        mobile = write(tmp_path / "m.jsonl", said)
        env = hook_env(home)
        saved = payload("Stop", "m", mobile, cwd="/work/mobile-app")
        done = await run_hook_async("claude-code", "stop", saved, env)
        assert done.returncode == 0, done.stderr
        answers = {}
        for project in ("billing-api", "mobile-app"):
            asked = payload(
                "UserPromptSubmit", project, None, prompt=question, cwd=f"/work/{project}"
            )
            done = await run_hook_async("claude-code", "prompt", asked, env)
            answers[project] = injected(done.stdout)
    assert "yarn workspaces" not in answers["billing-api"], answers
    assert "yarn workspaces" in answers["mobile-app"], answers
