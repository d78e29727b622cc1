"""The should-retrieve pre-check (seed 003 §5.1): acknowledgements, slash commands and
code-only prompts never recall; questions and statements in any language do."""

import pytest

from cortex_mcp.hooks.precheck import should_retrieve, skip_reason


@pytest.mark.parametrize(
    ("prompt", "reason"),
    [
        ("ok", "acknowledgement"),
        ("OK!", "acknowledgement"),
        ("继续", "acknowledgement"),
        ("好的", "acknowledgement"),
        ("好的。", "acknowledgement"),
        ("确认", "acknowledgement"),
        ("yes", "acknowledgement"),
        ("  continue  ", "acknowledgement"),
        ("thanks!", "acknowledgement"),
        ("great, thanks", "acknowledgement"),  # found trying the hooks: it recalled
        ("ok, thanks a lot!", "acknowledgement"),
        ("yes please", "acknowledgement"),
        ("perfect, that works", "acknowledgement"),
        ("/compact", "command"),
        ("/review src/app.py", "command"),
        ("/mcp__cortex__load", "command"),
        ("```python\ndef f(x):\n    return x + 1\n```", "code"),
        ("def f(x):\n    return x + 1", "code"),
        ("const a = 1;\nconsole.log(a);", "code"),
        ("", "empty"),
        ("???", "empty"),
        ("hm", "too short"),
    ],
)
def test_these_prompts_do_not_recall(prompt: str, reason: str) -> None:
    assert skip_reason(prompt) == reason
    assert not should_retrieve(prompt)


@pytest.mark.parametrize(
    "prompt",
    [
        "Which package manager do I use?",
        "我叫什么？",
        "上次我们决定用什么数据库",
        "前回のデプロイ先はどこでしたか",
        "Fix the flaky test in utils.py",
        "Why does this fail?\n```python\nraise ValueError\n```",
        "okay so what did we decide about the cache",
        "thanks, now fix the tests",
        "great, what port is staging on?",
        "/ is the root folder, right?",
    ],
)
def test_these_prompts_recall(prompt: str) -> None:
    assert skip_reason(prompt) is None
