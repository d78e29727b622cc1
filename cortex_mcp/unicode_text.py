"""Text every file, socket and database can hold (standard library only).

A JSON escape of half an emoji (`"\\ud83d"`, what a host writes when it cut a string between
the two halves of a character) decodes to a lone surrogate: no UTF-8 file, socket or SQLite
string takes it, and one such character in a transcript lost the whole session it was in.
"""

REPLACEMENT = "\ufffd"


def well_formed(text: str) -> str:
    """`text` with each lone surrogate replaced by U+FFFD; a pair of halves stays the
    character it makes. The text itself when it is already well formed (the common case)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text
