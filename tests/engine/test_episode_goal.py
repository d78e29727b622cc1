"""An episode's goal without an LLM: the user's first request, never a greeting or an
introduction, and without the introduction that opens it."""

from datetime import UTC, datetime

import pytest

from cortex_mcp.engine.episodes.parts import Said, goal_of

AT = datetime(2026, 11, 27, tzinfo=UTC)


def _users(*texts: str) -> list[Said]:
    return [Said("user", text, AT) for text in texts]


@pytest.mark.parametrize(
    ("messages", "goal"),
    [
        # found trying the product: the whole first message, greeting included, was the goal
        (
            ["hey, my name is Dmitri btw. we're building the billing api in this repo"],
            "we're building the billing api in this repo",
        ),
        (
            ["Hi! I'm Dana Whitfield, backend lead at Acme.", "Rewrite tests/test_api.py."],
            "Rewrite tests/test_api.py.",
        ),
        (["hi", "/compact", "Fix the flaky login test."], "Fix the flaky login test."),
        (["I'm Dana, please fix the login test."], "I'm Dana, please fix the login test."),
        (["Hello!"], ""),
    ],
)
def test_the_goal_is_the_first_request_without_its_introduction(
    messages: list[str], goal: str
) -> None:
    assert goal_of(_users(*messages)) == goal
