"""Settings files edited in place: the result holds the new value, a comment outside what
changes stays, and undoing an addition gives back the same bytes."""

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cortex_mcp.hooks import jsonc

SCALARS = st.none() | st.booleans() | st.integers() | st.text(max_size=8)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)
OBJECTS = st.dictionaries(st.text(max_size=6), VALUES, max_size=5)
INDENTS = st.sampled_from([None, 2, 4, "\t"])


def never(value: Any) -> bool:
    return False


def text_of(value: Any, indent: int | str | None) -> str:
    return json.dumps(value, indent=indent, ensure_ascii=False) + "\n"


@given(OBJECTS, OBJECTS, INDENTS)
def test_an_edit_holds_the_new_value_and_a_comment_outside_it_stays(
    old: dict[str, Any], new: dict[str, Any], indent: int | str | None
) -> None:
    text = "// mine\n" + text_of(old, indent)

    done = jsonc.edit(text, new, never)

    assert jsonc.same(jsonc.parse(done, comments=True), new)
    assert done.startswith("// mine\n")


@given(OBJECTS, VALUES, st.sampled_from([2, 4, "\t"]), st.booleans())
def test_adding_a_member_then_taking_it_away_gives_back_the_same_text(
    old: dict[str, Any], added: Any, indent: int | str, crlf: bool
) -> None:
    text = text_of(old, indent)
    if crlf:
        text = text.replace("\n", "\r\n")
    key = "cortex" + "-" * max(map(len, old), default=0)  # not one of old's keys

    with_it = jsonc.edit(text, {**old, key: added}, never)

    assert jsonc.parse(with_it, comments=False) == {**old, key: added}
    assert jsonc.edit(with_it, old, never) == text


@given(st.lists(VALUES, min_size=1, max_size=4), VALUES, st.sampled_from([2, 4]))
def test_appending_to_a_list_then_taking_it_away_gives_back_the_same_text(
    entries: list[Any], ours: Any, indent: int
) -> None:
    text = text_of({"hooks": {"Stop": entries}}, indent)

    with_it = jsonc.edit(text, {"hooks": {"Stop": [*entries, ours]}}, never)

    assert jsonc.parse(with_it, comments=False) == {"hooks": {"Stop": [*entries, ours]}}
    assert jsonc.edit(with_it, {"hooks": {"Stop": entries}}, never) == text


def test_a_comment_goes_with_a_value_that_may_go_and_is_never_lost_otherwise() -> None:
    text = '{\n  "keep": 1,\n  "gone": {\n    // about gone\n    "x": 1\n  }\n}\n'

    assert jsonc.edit(text, {"keep": 1}, lambda value: value == {"x": 1}) == '{\n  "keep": 1\n}\n'
    with pytest.raises(jsonc.CommentWouldBeLost) as lost:
        jsonc.edit(text, {"keep": 1}, never)
    assert lost.value.line == 4


def test_comment_markers_inside_strings_are_text_and_a_key_twice_is_refused() -> None:
    text = '{"url": "https://example.com/*x*/", "n": 1} // end'

    assert jsonc.parse(text, comments=True) == {"url": "https://example.com/*x*/", "n": 1}
    with pytest.raises(json.JSONDecodeError):
        jsonc.parse(text, comments=False)
    with pytest.raises(json.JSONDecodeError) as twice:
        jsonc.parse('{\n  "hooks": {},\n  "hooks": {}\n}', comments=False)
    assert twice.value.lineno == 3
