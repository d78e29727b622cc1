"""The should-retrieve pre-check (seed 003 §5.1): acknowledgements, slash commands and
code-only prompts never recall; questions and statements in any language do."""

from pathlib import Path

import pytest

from cortex_mcp.hooks import moments, precheck
from cortex_mcp.hooks.event import Event
from cortex_mcp.hooks.paths import FALLBACK_SETTINGS
from cortex_mcp.hooks.precheck import should_retrieve, skip_reason
from tests.hooks.test_transcripts import CannedRecall


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


def _pasted_log() -> str:
    return "please refactor the billing module so that it uses the new client; " * 60_000


def test_a_pasted_four_megabyte_prompt_is_judged_on_its_head(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Found trying the product: a 4 MB prompt (a pasted log) spent 2 s in the pre-check and
    0.8 s more counting its words, past the hook's timeout under load."""
    read: list[int] = []
    plain = precheck._plain

    def reading(text: str) -> str:
        read.append(len(text))
        return plain(text)

    monkeypatch.setattr(precheck, "_plain", reading)
    assert should_retrieve(_pasted_log())
    assert read and max(read) <= precheck.READ_CHARS


def test_the_prompt_hook_counts_the_words_of_a_pasted_prompt_s_head_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    counted: list[int] = []
    words = moments.content_words

    def counting(text: str) -> set[str]:
        counted.append(len(text))
        return words(text)

    monkeypatch.setattr(moments, "content_words", counting)
    hook = moments.Moments(tmp_path, dict(FALLBACK_SETTINGS), 1.0)
    server = CannedRecall({"memories": [], "conversation": []})
    monkeypatch.setattr(hook, "connect", lambda: server)
    event = Event("claude-code", "prompt", "s1", None, str(tmp_path), _pasted_log(), "")
    assert hook.prompt(event) == ""
    assert counted and max(counted) <= moments.QUERY_CHARS
