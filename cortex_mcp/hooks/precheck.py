"""Should this prompt recall at all? A rule-based pre-check (seed 003 §5.1-5.2): no recall
for acknowledgements ("ok", "继续", "好的"), slash commands, code-only prompts and prompts
too short to mean anything. Everything else recalls, and the relevance floor decides what
is injected. Standard library only."""

import re
import unicodedata
from functools import cache

ACKNOWLEDGEMENT_WORDS = """
    ok okay k kk yes y no n yep yup nope sure fine thanks thank you thx ty cool great nice
    good go go on continue proceed next done right correct agreed lgtm sgtm ack got it
    继续 好的 好 好啊 确认 是 是的 对 对的 嗯 嗯嗯 行 可以 没问题 谢谢 多谢 收到 明白 知道了 下一步
    はい うん 了解 続けて ありがとう 네 계속
"""
ACKNOWLEDGEMENTS = frozenset(ACKNOWLEDGEMENT_WORDS.split()) | {
    "go on",
    "thank you",
    "got it",
    "sounds good",
    "looks good",
    "keep going",
    "do it",
}
FILLER_WORDS = """
    please so much very a lot that it works perfect awesome alright all sounds looks
"""
ACKNOWLEDGING_WORDS = frozenset(ACKNOWLEDGEMENT_WORDS.split()) | frozenset(FILLER_WORDS.split())
"""Words a prompt made only of is an acknowledgement too ("great, thanks", "ok, thanks a lot",
"yes please", "perfect, that works"), whatever their order."""
COMMAND = r"^/[\w:.-]+(\s|$)"
FENCED = r"```.*?(```|\Z)"
CODE_LINE = (
    r"^\s*(\S.*[;{}()\[\]:,]\s*$|(def|class|import|from|return|if|for|while|const|let|var|"
    r"function|fn|pub|package|#include|SELECT|INSERT|UPDATE)\b.*|[}\])]+;?\s*$|[#/]{1,2}\s.*)$"
)
MEANING_CHARS = 3
READ_CHARS = 20_000
"""The pre-check reads a prompt's first this many characters: a longer prompt is neither an
acknowledgement nor too short, and reading 4 MB of it took the hook 2 s (found trying the
product: a pasted log ran past the hook's timeout)."""


@cache
def pattern(source: str) -> re.Pattern[str]:
    """A pattern compiled when first used (compiling all at import costs every hook run)."""
    return re.compile(source, re.DOTALL if source == FENCED else 0)


def _plain(prompt: str) -> str:
    """Lower case, without punctuation, symbols or repeated spaces."""
    kept = (
        ch if not unicodedata.category(ch).startswith(("P", "S")) else " " for ch in prompt.lower()
    )
    return " ".join("".join(kept).split())


def _is_code(prompt: str) -> bool:
    prose = pattern(FENCED).sub("", prompt)
    if prose != prompt and len(_plain(prose).replace(" ", "")) < MEANING_CHARS:
        return True  # code blocks with (almost) no words around them
    lines = [line for line in prompt.splitlines() if line.strip()]
    return len(lines) >= 2 and sum(bool(pattern(CODE_LINE).match(line)) for line in lines) == len(
        lines
    )


def skip_reason(prompt: str) -> str | None:
    """Why this prompt should not recall (a short reason), or None when it should; code-only
    is judged on the prompt's first READ_CHARS characters."""
    text = prompt[:READ_CHARS].strip()
    if text.startswith("/") and pattern(COMMAND).match(text):
        return "command"
    plain = _plain(text)
    if not plain:
        return "empty"
    if plain in ACKNOWLEDGEMENTS or set(plain.split()) <= ACKNOWLEDGING_WORDS:
        return "acknowledgement"
    if _is_code(text):
        return "code"
    letters = [ch for ch in plain if ch.isalnum()]
    wide = sum(unicodedata.east_asian_width(ch) in ("W", "F") for ch in letters)
    if wide < 2 and len(letters) < MEANING_CHARS:
        return "too short"
    return None


def should_retrieve(prompt: str) -> bool:
    """True when the prompt may depend on memory."""
    return skip_reason(prompt) is None
