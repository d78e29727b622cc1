"""What the prompt hook injects for an ordinary question, found trying the product (tester 13)
by driving the real hook command with Claude Code's stdin and transcripts: the answer to the
slot the prompt asks about (not the one the turn before asked about), nothing matched on two
speakers' names alone, who the user is for "what do you remember about me?"; and a session
flushed late is dated by its transcript, as `import --transcripts` dates it."""

from pathlib import Path

from tests.hooks.hosts import claude_exchange, claude_line, hook_env, payload, run_hook_async
from tests.hooks.hosts import write_jsonl as write
from tests.hooks.test_injection import ask, stop
from tests.hooks.test_story import running_server
from tests.servers import query_one


async def test_the_prompt_gets_the_slot_it_asks_about_not_the_one_the_last_turn_asked(
    tmp_path: Path,
) -> None:
    """After "我叫什么名字？", "我现在住在哪里？" injected only the name (the last turns pad
    the query, so recall marked the name the answer) and "when is the release deadline?" after
    "what editor do I use?" the VS Code preference."""
    home = tmp_path / "home"
    async with running_server(home) as client:
        for said in (
            "我叫王小明。",
            "我住在上海。",
            "I gave up on vim, I switched to VS Code last week.",
            "Actually the release deadline is March 3, not March 1.",
        ):
            await client.call_tool("cortex_remember", {"content": said})
        chinese = write(tmp_path / "zh.jsonl", claude_exchange("我叫什么名字？", "你叫王小明。"))
        home_asked = await ask(home, "zh", chinese, "我现在住在哪里？")
        english = write(tmp_path / "en.jsonl", claude_exchange("what editor do I use?", "VS Code."))
        deadline = await ask(home, "en", english, "when is the release deadline?")
    assert "上海" in home_asked and "王小明" not in home_asked, home_asked
    assert "March 3" in deadline and "VS Code" not in deadline, deadline


async def test_a_slot_the_last_turn_asked_about_leaves_the_prompt_its_first_memory(
    tmp_path: Path,
) -> None:
    """Round seventeen's re-test (D7): after "Where do I live?", "Which database did we pick
    for billing?" got nothing (without that turn, the billing decision): the home, the answer
    to the turn before, ranked first, and the decision second shares one word with the
    prompt, not enough unless it is first."""
    home = tmp_path / "home"
    async with running_server(home) as client:
        for said in ("I live in Lisbon.", "Let's use PostgreSQL for the billing service."):
            await client.call_tool("cortex_remember", {"content": said})
        before = write(tmp_path / "home.jsonl", claude_exchange("Where do I live?", "I'll check."))
        found = await ask(home, "s", before, "Which database did we pick for billing?")
        alone = await ask(home, "t", None, "Which database did we pick for billing?")
    assert "PostgreSQL" in alone, alone
    assert "PostgreSQL" in found and "Lisbon" not in found, found


async def test_a_short_question_a_slot_answers_gets_no_small_talk(tmp_path: Path) -> None:
    """Round seventeen's re-test (D9b): "What's my name?" got "[said] Pixel is a great name for
    a cat." beside the name, and "Where do I live?" a line about live listings."""
    home = tmp_path / "home"
    talk = [
        ("Pixel is a great name for a cat.", "It is!"),
        ("Can you check live listings for flats?", "I can't check live listings, sorry."),
    ]
    async with running_server(home) as client:
        for said in ("My name is Dana.", "I live in Lisbon."):
            await client.call_tool("cortex_remember", {"content": said})
        for number, (user, reply) in enumerate(talk):
            transcript = write(tmp_path / f"{number}.jsonl", claude_exchange(user, reply))
            await stop(home, f"talk{number}", transcript)
        name = await ask(home, "s", None, "What's my name?")
        where = await ask(home, "t", None, "Where do I live?")
        cat = await ask(home, "u", None, "Which name did I like for a cat?")
    assert "Dana" in name and "Pixel" not in name, name
    assert "Lisbon" in where and "listings" not in where, where
    assert "Pixel" in cat, cat  # a longer question still gets the line


async def test_two_speakers_names_alone_are_no_shared_words(tmp_path: Path) -> None:
    """ "What do Jon and Gina both have in common?" got eight small-talk lines that share only
    the speakers' names with it; a line saying what they have in common still comes."""
    home = tmp_path / "home"
    talk = [
        ("Gina: Thanks, Jon! Appreciate your support!", "Jon: Hey Gina! Good to see you."),
        ("Gina: Jon and I both love dancing, it is what we have in common.", "Jon: True!"),
    ]
    async with running_server(home):
        for number, (user, reply) in enumerate(talk):
            transcript = write(tmp_path / f"{number}.jsonl", claude_exchange(user, reply))
            await stop(home, f"talk{number}", transcript)
        found = await ask(home, "later", None, "What do Jon and Gina both have in common?")
    assert "love dancing" in found, found
    assert "Thanks" not in found and "Good to see you" not in found, found


async def test_what_do_you_remember_about_me_injects_who_the_user_is(tmp_path: Path) -> None:
    home = tmp_path / "home"
    async with running_server(home) as client:
        for said in ("My name is Dana.", "I live in Lisbon."):
            await client.call_tool("cortex_remember", {"content": said})
        found = await ask(home, "s", None, "what do you remember about me?")
    assert "My name is Dana." in found and "I live in Lisbon." in found, found


async def test_a_session_flushed_late_is_dated_by_its_transcript(tmp_path: Path) -> None:
    """SessionEnd logged a message of a transcript written on 2023-01-20 as said today."""
    home = tmp_path / "home"
    when = "2023-01-20T16:04:00.000Z"
    lines = [
        claude_line("user", "The release train leaves on Thursdays.", timestamp=when),
        claude_line("assistant", [{"type": "text", "text": "Noted."}], timestamp=when),
    ]
    async with running_server(home):
        transcript = write(tmp_path / "old.jsonl", lines)
        end = payload("SessionEnd", "old", transcript, reason="exit")
        done = await run_hook_async("claude-code", "session-end", end, hook_env(home))
        assert done.returncode == 0 and done.stderr == b"", done.stderr
    said = query_one(
        home / "cortex.db",
        "select created_at from conversation_log where content like '%release train%'",
    )
    assert str(said).startswith("2023-01-20"), said
