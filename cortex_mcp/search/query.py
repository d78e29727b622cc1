"""The FTS5 MATCH expression: every term quoted, so the user's words are never query syntax."""

from cortex_mcp.search.tokenize import query_terms

MAX_QUERY_TERMS = 64


def quote_term(term: str) -> str:
    """A term as an FTS5 string: double quotes doubled inside, NUL removed."""
    return '"' + term.replace("\x00", "").replace('"', '""') + '"'


def match_expression(text: str) -> str | None:
    """OR of the quoted query terms, or None when the text has no searchable term."""
    terms = query_terms(text)[:MAX_QUERY_TERMS]
    return " OR ".join(quote_term(t) for t in terms) or None
