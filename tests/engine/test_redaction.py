"""Secrets are replaced with a marker before anything is stored or sent to an LLM."""

import pytest

from cortex_mcp.engine.redaction import passes_luhn, redact

SAMPLES = [
    (
        "OpenAI key sk-proj-4fGh7Jk9Lm2Np5Qr8St1Uv3Wx6Yz0AbCdEf",
        "sk-proj-4fGh7Jk9Lm2Np5Qr8St1Uv3Wx6Yz0AbCdEf",
        "api_key",
    ),
    (
        "anthropic: sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Jh1Gf0",
        "sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Jh1Gf0",
        "api_key",
    ),
    ("aws AKIAIOSFODNN7EXAMPLE in the config", "AKIAIOSFODNN7EXAMPLE", "api_key"),
    (
        "token ghp_1234567890abcdefghijABCDEFGHIJ123456",
        "ghp_1234567890abcdefghijABCDEFGHIJ123456",
        "api_key",
    ),
    ("API_KEY=9f8e7d6c5b4a3210", "9f8e7d6c5b4a3210", "api_key"),
    (
        "curl -H 'Authorization: Bearer abc123def456ghi789jkl'",
        "abc123def456ghi789jkl",
        "bearer_token",
    ),
    ("password=hunter2!", "hunter2!", "password"),
    ("the db password is Tr0ub4dor&3", "Tr0ub4dor&3", "password"),
    ("我的邮箱密码是 Abc12345", "Abc12345", "password"),
    ("密码：qwerty987", "qwerty987", "password"),
    ("パスワードは secret99 です", "secret99", "password"),
    ("card 4111 1111 1111 1111 expires 12/29", "4111 1111 1111 1111", "card_number"),
    ("visa 4012-8888-8888-1881", "4012-8888-8888-1881", "card_number"),
    (
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n"
        "-----END OPENSSH PRIVATE KEY-----",
        "b3BlbnNzaC1rZXktdjEAAAAA",
        "private_key",
    ),
]


@pytest.mark.parametrize(("text", "secret", "kind"), SAMPLES)
def test_each_kind_of_secret_is_replaced_with_a_marker(text: str, secret: str, kind: str) -> None:
    clean, kinds = redact(text)

    assert secret not in clean
    assert f"[REDACTED:{kind}]" in clean
    assert kind in kinds


@pytest.mark.parametrize(
    "text",
    [
        "The password policy requires 12 characters",
        "Order number 1234567890123 shipped",
        "品川区1LDK实际利回约4.28%",
        "Use the bearer scheme for the API",
    ],
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert redact(text) == (text, [])


def test_luhn_tells_card_numbers_from_other_long_numbers() -> None:
    assert passes_luhn("4111111111111111")
    assert not passes_luhn("4111111111111112")
