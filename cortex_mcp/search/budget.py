"""Token estimates and fitting recalled memories into a budget, without a tokenizer download."""

import math
from collections.abc import Sequence

from cortex_mcp.search.tokenize import cjk_character_count


def estimate_tokens(text: str) -> int:
    """A conservative token estimate: one per CJK character, one per four other characters."""
    cjk = cjk_character_count(text)
    other = len(text) - cjk
    return cjk + math.ceil(other / 4)


def fit_lines(header: str, lines: Sequence[str], footer: str, max_tokens: int) -> list[str]:
    """The longest prefix of `lines` that fits in `max_tokens` with the header and footer.

    A line that alone would overflow the budget is cut short with an ellipsis rather than
    dropped when it is the first one, so a large memory still shows its beginning.
    """
    used = estimate_tokens(header) + estimate_tokens(footer)
    kept: list[str] = []
    for line in lines:
        cost = estimate_tokens(line) + 1
        if used + cost <= max_tokens:
            kept.append(line)
            used += cost
        elif not kept:
            kept.append(truncate_to_tokens(line, max_tokens - used - 1))
            break
        else:
            break
    return kept


def truncate_to_tokens(text: str, max_tokens: int) -> str:
    """Cut `text` so its estimate stays within `max_tokens`, marking the cut with an ellipsis."""
    if max_tokens <= 1:
        return ""
    if estimate_tokens(text) <= max_tokens:
        return text
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if estimate_tokens(text[:middle]) + 1 <= max_tokens:
            low = middle
        else:
            high = middle - 1
    return text[:low] + "…"
