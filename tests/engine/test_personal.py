"""Personal data the user declared off-limits is found in the formats people write it in."""

import pytest

from cortex_mcp.engine.language.personal import cn_id_valid, declared_kinds, my_number_valid
from cortex_mcp.engine.language.redaction import redact
from tests.secret_samples import PHONES

pytestmark = [pytest.mark.engines, pytest.mark.usefixtures("database_engine")]


@pytest.mark.parametrize(
    ("words", "kinds"),
    [
        ("Please never remember my phone number or my address.", {"phone", "address"}),
        ("Don't store my email address, thanks.", {"email"}),
        ("Do not keep my passport or ID number.", {"id_number"}),
        ("请不要记住我的手机号和身份证号。", {"phone", "id_number"}),
        ("别记我的邮箱", {"email"}),
        ("住所とメールは覚えないでください", {"address", "email"}),
        ("電話番号は保存しないで", {"phone"}),
        ("I love my phone and my address book.", set()),
        ("Remember my email is the work one.", set()),
    ],
)
def test_profile_words_declare_the_kinds_they_name(words: str, kinds: set[str]) -> None:
    assert declared_kinds(words) == kinds


@pytest.mark.parametrize("phone", [*PHONES, "13800138000", "(03) 1234-5678", "+44 20 7946 0958"])
def test_declared_phone_numbers_are_redacted_in_every_format(phone: str) -> None:
    clean, kinds = redact(f"My phone number is {phone}, call after six.", {"phone"})

    assert phone not in clean and "phone" in kinds


def test_phone_numbers_are_kept_unless_declared() -> None:
    text = f"My phone number is {PHONES[0]}."

    assert redact(text) == (text, [])


@pytest.mark.parametrize(
    ("text", "gone"),
    [
        ("I live at 12 Xihu Road, Hangzhou.", "12 Xihu Road, Hangzhou"),
        ("Ship it to 5 Elm Street, Springfield please", "5 Elm Street, Springfield"),
        ("家住浙江省杭州市西湖区文三路90号2单元", "文三路90号"),
        ("住所は東京都千代田区丸の内1丁目9-2です", "丸の内1丁目9-2"),
    ],
)
def test_declared_addresses_are_redacted_where_a_pattern_finds_them(text: str, gone: str) -> None:
    clean, kinds = redact(text, {"address"})

    assert gone not in clean and "address" in kinds


def test_declared_emails_are_redacted() -> None:
    clean, _ = redact("write to alice.smith+memo@example.co.jp today", {"email"})

    assert "alice.smith" not in clean and "[REDACTED:email]" in clean


@pytest.mark.parametrize(
    ("text", "caught"),
    [
        ("身份证号 11010519491231002X", True),
        ("身份证号 110105194912310021", False),  # wrong check digit: some other number
        ("SSN 078-05-1120", True),
        ("part 666-05-1120", False),  # no SSN starts with 666
        ("マイナンバー 1234 5678 9018", True),
        ("serial 1234 5678 9012", False),  # wrong check digit
    ],
)
def test_id_numbers_are_recognised_by_shape_and_check_digit(text: str, caught: bool) -> None:
    _, kinds = redact(text, {"id_number"})

    assert ("id_number" in kinds) is caught


def test_check_digits() -> None:
    assert cn_id_valid("11010519491231002X")
    assert not cn_id_valid("11010519491231002Y")
    assert my_number_valid("123456789018")
    assert not my_number_valid("123456789012")
