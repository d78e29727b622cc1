"""Token estimates and fitting lines into a budget."""

from hypothesis import given
from hypothesis import strategies as st

from cortex_mcp.search.budget import estimate_tokens, fit_lines, truncate_to_tokens


def test_cjk_characters_count_one_token_each_and_latin_four_characters() -> None:
    assert estimate_tokens("品川区") == 3
    assert estimate_tokens("abcdefgh") == 2
    assert estimate_tokens("") == 0


def test_characters_that_normalise_to_cjk_count_as_cjk() -> None:
    decomposed_hangul = "\u1112\u1161\u11ab"  # 한 as macOS writes it: three jamo
    squared = "\u337f"  # ㍿, four ideographs once normalised

    assert estimate_tokens(decomposed_hangul) == 2  # one syllable, plus the jamo's extra length
    assert estimate_tokens(squared) == 4  # counted as 株式会社, not as a quarter of a token


def test_fit_lines_keeps_the_prefix_that_fits() -> None:
    lines = ["x" * 40, "y" * 40, "z" * 40]

    assert fit_lines("", lines, "", 25) == lines[:2]


def test_a_first_line_larger_than_the_budget_is_cut_not_dropped() -> None:
    kept = fit_lines("header", ["品" * 500], "", 60)

    assert len(kept) == 1 and kept[0].endswith("…")
    assert estimate_tokens("header") + estimate_tokens(kept[0]) + 1 <= 60


@given(st.text(), st.integers(min_value=2, max_value=200))
def test_truncation_never_exceeds_the_budget(text: str, budget: int) -> None:
    assert estimate_tokens(truncate_to_tokens(text, budget)) <= budget
