"""A kind of sensitive text, how to find it, and how it is replaced: the shared shape of the
secret detectors (`redaction`) and the personal-data detectors (`personal`)."""

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

MARKER = "[REDACTED:{kind}]"


def always(match: re.Match[str]) -> bool:
    """Every match counts."""
    return True


@dataclass(frozen=True)
class SecretPattern:
    """One kind of sensitive text and how to find it; `group` is the part replaced (0 = whole
    match), `accept` a further check on a match, `rule` the rule in words for the docs."""

    kind: str
    pattern: re.Pattern[str]
    rule: str
    group: int = 0
    accept: Callable[[re.Match[str]], bool] = always
    needs: tuple[str, ...] = ()
    """Words one of which every match holds (lower case): where the text has none, the
    pattern is not tried (most messages name no password: a redaction of a LoCoMo turn took
    104 µs trying every pattern, SecretPattern.needs)."""


def apply_patterns(
    text: str,
    patterns: Iterable[SecretPattern],
    found: list[str],
    values: list[tuple[str, str]] | None = None,
) -> str:
    """`text` with every accepted match of `patterns` replaced by its marker; the kinds found
    are appended to `found` (and `(kind, value replaced)` to `values`, when given)."""
    lowered = text.casefold()
    for secret in patterns:
        if secret.needs and not any(word in lowered for word in secret.needs):
            continue

        def replace(match: re.Match[str], secret: SecretPattern = secret) -> str:
            if not secret.accept(match):
                return match.group(0)
            found.append(secret.kind)
            if values is not None:
                values.append((secret.kind, match.group(secret.group)))
            start, end = match.span(secret.group)
            offset = match.start(0)
            whole = match.group(0)
            marker = MARKER.format(kind=secret.kind)
            return whole[: start - offset] + marker + whole[end - offset :]

        text = secret.pattern.sub(replace, text)
    return text
