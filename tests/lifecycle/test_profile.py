"""The user profile: synthesized from who the user is and what they prefer; hand edits stay."""

import json
from typing import Any

import pytest

from cortex_mcp.engine.facade import Engine
from cortex_mcp.engine.ingest.channels import profile_text
from cortex_mcp.engine.lifecycle import run_lifecycle, set_manual_profile
from cortex_mcp.engine.lifecycle.profile import PROFILE_PROMPT, parse_profile
from cortex_mcp.errors import InvalidInput
from cortex_mcp.models import Category
from tests.conftest import FrozenClock
from tests.fakes import FakeOpenAI

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]

SEED_PROFILE: dict[str, Any] = {
    "summary": "Harry is a Tokyo property investor who runs his own servers.",
    "domains": ["Japanese real estate", "Linux servers"],
    "high_value_signals": ["yields and prices of properties"],
    "low_value_signals": ["small talk about the weather"],
    "language_preferences": "Chinese, with Japanese property terms",
    "active_projects": ["Shinagawa 1LDK evaluation"],
}


async def remember_who(engine: Engine) -> None:
    await engine.remember("Harry lives in Tokyo", category=Category.IDENTITY, importance=1.0)
    await engine.remember("Prefers low-risk investments", category=Category.PREFERENCE)
    await engine.remember("Fluent in Chinese, Japanese and English", category=Category.SKILL)
    await engine.remember("Evaluating a 1LDK in Shinagawa", category=Category.PROJECT_STATE)


async def test_without_an_llm_the_profile_is_built_from_the_top_memories(engine: Engine):
    await remember_who(engine)

    report = await run_lifecycle(engine.runtime)
    text = await profile_text(engine.runtime, "default")

    assert [p.by for p in report.profiles] == ["plain"]
    assert text is not None
    for fact in ("Harry lives in Tokyo", "Prefers low-risk", "Fluent in Chinese"):
        assert fact in text


async def test_the_plain_profile_holds_each_sentence_once_and_no_projects_state(engine: Engine):
    """The profile opening every session-start digest listed other projects' state ("This
    service targets Python 3.11" in another repository's digest) and a preference twice (in the
    summary and under "High-value information")."""
    await remember_who(engine)
    await engine.remember("I love all dances, contemporary most.", category=Category.PREFERENCE)

    await run_lifecycle(engine.runtime)
    text = await profile_text(engine.runtime, "default") or ""

    assert "Shinagawa" not in text and "Active projects" not in text, text
    assert text.count("I love all dances") == 1 and text.count("Prefers low-risk") == 1, text


async def test_the_profile_is_synthesized_again_only_when_its_memories_change(
    engine: Engine, clock: FrozenClock
):
    await remember_who(engine)
    first = await run_lifecycle(engine.runtime)
    clock.advance(days=1)

    unchanged = await run_lifecycle(engine.runtime)
    await engine.remember("Started learning Rust", category=Category.SKILL)
    changed = await run_lifecycle(engine.runtime)

    assert len(first.profiles) == 1 and unchanged.profiles == [] and len(changed.profiles) == 1
    assert "Started learning Rust" in (await profile_text(engine.runtime, "default") or "")


async def test_an_llm_synthesizes_the_seed_profile(llm_engine: Engine, fake_openai: FakeOpenAI):
    await remember_who(llm_engine)
    fake_openai.replies.append(json.dumps(SEED_PROFILE, ensure_ascii=False))

    report = await run_lifecycle(llm_engine.runtime)
    text = await profile_text(llm_engine.runtime, "default") or ""

    assert [p.by for p in report.profiles] == ["llm"]
    assert text.startswith(SEED_PROFILE["summary"])
    assert "- Japanese real estate" in text and "Language: Chinese" in text
    prompt = fake_openai.requests[-1].body["messages"][1]["content"]
    assert "- identity: Harry lives in Tokyo" in prompt
    assert prompt.startswith(PROFILE_PROMPT[:80])


async def test_a_manual_edit_survives_resynthesis(engine: Engine, clock: FrozenClock):
    await remember_who(engine)
    await run_lifecycle(engine.runtime)
    await set_manual_profile(engine.runtime, "Never suggest leveraged investments.")
    clock.advance(days=1)
    await engine.remember("Started learning Rust", category=Category.SKILL)

    report = await run_lifecycle(engine.runtime)
    text = await profile_text(engine.runtime, "default") or ""

    assert len(report.profiles) == 1
    assert text.startswith("In the user's own words:\nNever suggest leveraged investments.")
    assert "Started learning Rust" in text


async def test_a_manual_profile_can_come_first_and_be_cleared(engine: Engine):
    edited = await set_manual_profile(engine.runtime, "Call me Harry.")
    assert edited.source == "manual"
    assert (
        await profile_text(engine.runtime, "default") == "In the user's own words:\nCall me Harry."
    )
    with pytest.raises(InvalidInput, match="content"):
        await set_manual_profile(engine.runtime, "   ")


def test_an_unusable_llm_answer_is_not_a_profile():
    assert parse_profile(None) is None
    assert parse_profile("I cannot do that") is None
    assert parse_profile('{"domains": ["x"]}') is None
    assert parse_profile('```json\n{"summary": "Harry", "domains": "x"}\n```') == {
        "summary": "Harry",
        "domains": [],
        "high_value_signals": [],
        "low_value_signals": [],
        "language_preferences": "",
        "active_projects": [],
    }


async def test_a_profile_a_write_replaced_during_a_run_is_made_again_from_live_memories(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
):
    """Found trying the product (tester 13): a run planned a merge and a new profile; a write
    replaced the profile before the run applied, so the run's profile was skipped and the one
    left listed a memory the run's merge had superseded, until the next change. A skipped
    profile is made again from the live memories."""
    from cortex_mcp.engine.lifecycle import run

    await remember_who(engine)
    await run_lifecycle(engine.runtime)
    await engine.remember("Prefers dark mode in every tool", category=Category.PREFERENCE)
    planned = run.plan_lifecycle

    async def plan_then_a_write(*arguments: Any) -> Any:
        plan = await planned(*arguments)
        await set_manual_profile(engine.runtime, "Call me Harry.")
        return plan

    monkeypatch.setattr(run, "plan_lifecycle", plan_then_a_write)
    await run_lifecycle(engine.runtime)
    text = await profile_text(engine.runtime, "default") or ""

    assert "Call me Harry." in text and "dark mode" in text, text
