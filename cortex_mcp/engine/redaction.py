"""Secrets never reach the store or an LLM: API keys, tokens, passwords, private keys, cards."""

import re
from dataclasses import dataclass

MARKER = "[REDACTED:{kind}]"


@dataclass(frozen=True)
class SecretPattern:
    """One kind of secret and how to find it; `group` is the part replaced (0 = whole match)."""

    kind: str
    pattern: re.Pattern[str]
    group: int = 0


SECRET_PATTERNS: tuple[SecretPattern, ...] = (
    SecretPattern(
        "private_key",
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----.*?"
            r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|\Z)",
            re.DOTALL,
        ),
    ),
    SecretPattern("bearer_token", re.compile(r"(?i)\bbearer\s+([A-Za-z0-9._~+/=-]{12,})"), 1),
    SecretPattern(
        "jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")
    ),
    SecretPattern(
        "api_key",
        re.compile(
            r"\b(?:sk-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_-]{16,}"
            r"|AKIA[0-9A-Z]{16}"
            r"|gh[pousr]_[A-Za-z0-9]{30,}"
            r"|github_pat_[A-Za-z0-9_]{30,}"
            r"|xox[abprs]-[A-Za-z0-9-]{10,}"
            r"|AIza[0-9A-Za-z_-]{35}"
            r"|glpat-[A-Za-z0-9_-]{20,})"
        ),
    ),
    SecretPattern(
        "api_key",
        re.compile(
            r"(?i)\b(?:api[_-]?key|secret[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret)"
            r"[\"']?\s*[:=]\s*[\"']?([^\s\"',;]{6,})"
        ),
        1,
    ),
    SecretPattern(
        "password",
        re.compile(
            r"(?i)(?:\bpassword|\bpasswd|\bpwd|\bpass|密码|密碼|口令|パスワード)"
            r"[\"']?\s*(?:[:=：]|是|为|為|は|is)\s*[\"']?([^\s\"'，。,;、]{3,})"
        ),
        1,
    ),
    SecretPattern("card_number", re.compile(r"(?<![\d-])(?:\d[ -]?){12,18}\d(?![\d-])")),
)


def passes_luhn(digits: str) -> bool:
    """The checksum every payment card number satisfies."""
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = int(char)
        if position % 2 == 1:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def redact(text: str) -> tuple[str, list[str]]:
    """The text with every secret replaced by a marker, and the kinds that were found."""
    found: list[str] = []
    for secret in SECRET_PATTERNS:

        def replace(match: re.Match[str], secret: SecretPattern = secret) -> str:
            if secret.kind == "card_number":
                digits = re.sub(r"\D", "", match.group(0))
                if not passes_luhn(digits):
                    return match.group(0)
            found.append(secret.kind)
            start, end = match.span(secret.group)
            offset = match.start(0)
            whole = match.group(0)
            marker = MARKER.format(kind=secret.kind)
            return whole[: start - offset] + marker + whole[end - offset :]

        text = secret.pattern.sub(replace, text)
    return text, found
