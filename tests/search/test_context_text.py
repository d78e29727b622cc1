"""The context a memory's metadata carries, as the full-text index sees it."""

from cortex_mcp.search.tokenize import context_of


def test_the_context_is_the_stripped_text_of_metadata_context() -> None:
    assert context_of({"context": "  Melanie: Did you go to the support group?\n"}) == (
        "Melanie: Did you go to the support group?"
    )


def test_without_a_textual_context_there_is_none() -> None:
    assert context_of({}) == ""
    assert context_of({"context": "   "}) == ""
    assert context_of({"context": ["not", "text"]}) == ""
