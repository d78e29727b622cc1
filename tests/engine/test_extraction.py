"""The extraction prompt and the parser that never raises on what an LLM returns."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cortex_mcp.engine.language.extraction import (
    SYSTEM_PROMPT,
    is_parseable,
    parse_extraction,
    transcript_prompt,
    user_prompt,
)
from cortex_mcp.models import Category

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]


@given(st.text())
def test_any_llm_output_parses_to_a_list_and_never_raises(text: str) -> None:
    assert isinstance(parse_extraction(text), list)


@given(
    st.lists(
        st.dictionaries(
            st.sampled_from(["content", "category", "importance", "source", "reasoning"]),
            st.none() | st.integers() | st.floats() | st.text() | st.lists(st.integers()),
        ),
        max_size=5,
    )
)
def test_any_json_items_parse_item_by_item(items: list[dict[str, object]]) -> None:
    for memory in parse_extraction(json.dumps({"memories": items})):
        assert memory.content.strip()
        assert 0 <= memory.importance <= 1
        assert memory.category in set(Category)


def test_fenced_json_with_trailing_commas_and_loose_values_is_repaired() -> None:
    answer = """Sure! Here you go:
```json
{"memories": [
  {"content": "用户偏好简单方案", "category": "Preferences", "importance": 7, "source": "USER"},
  {"content": "  ", "category": "fact", "importance": 0.5},
  {"content": "Budget is unknown", "category": "gossip", "importance": 0.5},
  {"content": "Deploy with GitHub Pages", "category": "decision", "importance": "high"},
]}
```"""

    memories = parse_extraction(answer)

    assert [(m.content, m.category, m.importance, m.source) for m in memories] == [
        ("用户偏好简单方案", Category.PREFERENCE, 0.7, "user"),
        ("Deploy with GitHub Pages", Category.DECISION, 0.8, "both"),
    ]


def test_an_empty_memories_list_is_a_readable_answer_with_nothing_to_keep() -> None:
    assert is_parseable('{"memories": []}')
    assert parse_extraction('{"memories": []}') == []
    assert not is_parseable("I cannot help with that.")


def test_the_prompt_sees_both_sides_the_profile_and_the_language_rule() -> None:
    prompt = user_prompt("帮我算利回", "实际利回4.28%", "Harry, investor in Tokyo", "Skip weather.")

    assert "<user>帮我算利回</user>" in prompt
    assert "<assistant>实际利回4.28%</assistant>" in prompt
    assert "CONTEXT ABOUT THIS USER" in prompt and "Harry, investor in Tokyo" in prompt
    assert "Skip weather." in prompt
    assert "never translate" in prompt.lower()
    assert "NEVER translate" in SYSTEM_PROMPT


def test_without_a_profile_the_prompt_has_no_profile_section() -> None:
    assert "CONTEXT ABOUT THIS USER" not in user_prompt("a", "b", None, "")
    assert "<conversation>\nuser: hi\n</conversation>" in transcript_prompt("user: hi", None, "")
