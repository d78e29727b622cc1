"""Personal data the user asked to keep out of memory: phone numbers, emails, addresses, IDs.

These detectors are off until declared, by `redaction.kinds` in the configuration or by the
user's own words in their profile ("never remember my phone number", "不要记住我的手机号",
"住所は覚えないで"): `declared_kinds` reads such sentences.
"""

import re
from collections.abc import Collection

from cortex_mcp.engine.language.detectors import SecretPattern

PERSONAL_KINDS = ("phone", "email", "address", "id_number")

CN_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
CN_ID_CHECK = "10X98765432"


def digit_count(text: str) -> int:
    """How many digits `text` has."""
    return sum(char.isdigit() for char in text)


def _phone_digits(match: re.Match[str]) -> bool:
    return 7 <= digit_count(match.group(0)) <= 15


def cn_id_valid(value: str) -> bool:
    """The ISO 7064 MOD 11-2 check digit of an 18-character Chinese resident ID."""
    body, check = value[:17], value[17:].upper()
    if len(value) != 18 or not body.isdigit():
        return False
    total = sum(int(d) * w for d, w in zip(body, CN_ID_WEIGHTS, strict=True))
    return CN_ID_CHECK[total % 11] == check


def my_number_valid(value: str) -> bool:
    """The check digit of a 12-digit Japanese Individual Number (My Number)."""
    digits = re.sub(r"\D", "", value)
    if len(digits) != 12:
        return False
    body = [int(d) for d in reversed(digits[:11])]
    total = sum(d * (n + 2 if n < 6 else n - 4) for n, d in enumerate(body, start=0))
    remainder = total % 11
    return int(digits[11]) == (0 if remainder <= 1 else 11 - remainder)


def _id_checked(match: re.Match[str]) -> bool:
    value = match.group(0)
    if re.fullmatch(r"\d{17}[\dXx]", value):
        return cn_id_valid(value)
    if digit_count(value) == 12:
        return my_number_valid(value)
    return True  # the SSN shape carries its own rules in the pattern


EN_STREET = (
    r"Street|St|Road|Rd|Avenue|Ave|Boulevard|Blvd|Lane|Ln|Drive|Dr|Way|Court|Ct|Place|Pl"
    r"|Terrace|Close|Crescent|Square|Sq|Highway|Hwy|Parkway|Pkwy|Alley|Row"
)

PERSONAL_PATTERNS: tuple[SecretPattern, ...] = (
    SecretPattern(
        "email",
        re.compile(
            r"(?<![\w.%+-])[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,8}"
            r"\.[A-Za-z]{2,24}"
        ),
        "`name@domain.tld`",
    ),
    SecretPattern(
        "id_number",
        re.compile(
            r"(?<![\dA-Za-z])(?:[1-9]\d{5}(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])"
            r"(?:0[1-9]|[12]\d|3[01])\d{3}[\dXx]"
            r"|(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}"
            r"|\d{4}[ -]?\d{4}[ -]?\d{4})(?![\dA-Za-z])"
        ),
        "Chinese resident ID (18 characters, birth date inside, MOD 11-2 check digit), US SSN"
        " shape `AAA-GG-SSSS` (no 000/666/9xx, 00, 0000), Japanese My Number (12 digits with its"
        " check digit)",
        accept=_id_checked,
    ),
    SecretPattern(
        "phone",
        re.compile(
            r"(?<![\w+])(?:"
            r"\+\d{1,3}[\s.-]?(?:\(\d{1,4}\)[\s.-]?)?\d{1,4}(?:[\s.-]?\d{2,4}){1,4}"
            r"|1[3-9]\d[\s-]?\d{4}[\s-]?\d{4}"
            r"|0\d{1,4}-\d{1,4}-\d{4}|0[5789]0-?\d{4}-?\d{4}|\(0\d{1,4}\)\s?\d{1,4}-\d{4}"
            r"|\(\d{3}\)\s?\d{3}[\s.-]\d{4}|\d{3}[.-]\d{3}[.-]\d{4}"
            r")(?![\w])"
        ),
        "international `+CC …` (7–15 digits), Chinese mobile `1[3-9]x xxxx xxxx`, Japanese"
        " `0x-xxxx-xxxx` / `090-xxxx-xxxx` / `(03) xxxx-xxxx`, North American `(xxx) xxx-xxxx`",
        accept=_phone_digits,
    ),
    SecretPattern(
        "address",
        re.compile(
            r"\b\d{1,5}[A-Za-z]?\s+(?:[A-Z][A-Za-z'-]*\s+){1,4}(?:" + EN_STREET + r")\b\.?"
            r"(?:,?\s+(?:Apt|Suite|Unit|Flat)\.?\s*[\w-]+)?(?:,\s*[A-Z][A-Za-z]+(?:\s[A-Z][A-Za-z]+)?)?"
            r"|[\u4e00-\u9fff]{2,20}?(?:路|街|大道|巷|弄|胡同)\d{1,5}号"
            r"(?:[\u4e00-\u9fff\d]{0,12}(?:室|楼|栋|幢|单元))?"
            r"|(?:東京都|北海道|京都府|大阪府|[\u4e00-\u9fff]{2,3}県)[\u4e00-\u9fff\u3040-\u30ff]{1,15}?"
            r"\d{1,4}(?:丁目|-|−|ー)\d{1,4}(?:(?:番地?|-|−|ー)\d{1,4}号?)?"
        ),
        "English `12 Elm Street` (number, capitalised words, a street word; apartment and city"
        " after it), Chinese `…路12号…室`, Japanese prefecture + town + `1丁目2-3`",
    ),
)

NEVER = re.compile(
    r"(?i)\b(?:never|don'?t|do not|please don'?t|stop)\s+(?:ever\s+)?"
    r"(?:remember|store|keep|save|record|log|memori[sz]e)"
    r"|keep\b[^.!?\n]{0,40}\bout of (?:your |the )?memory"
    r"|不要(?:再)?(?:记住|记录|記住|記錄|保存|存储|儲存|记|記|存)|别(?:记|記|存)|请勿(?:记|保存|存)|切勿(?:记|保存)"
    r"|(?:覚え|記憶し|保存し|記録し)(?:ないで|てほしくない|ないでください)"
)

KIND_WORDS: dict[str, re.Pattern[str]] = {
    "phone": re.compile(r"(?i)phone|mobile|\bcell\b|telephone|电话|電話|手机|手機|携帯"),
    "email": re.compile(r"(?i)e-?mail|邮箱|郵箱|邮件|電郵|电子邮|メール"),
    "address": re.compile(r"(?i)(?<!e-mail )(?<!email )\baddress|where i live|地址|住址|住所"),
    "id_number": re.compile(
        r"(?i)\bid\s*(?:number|card|no)|identity (?:number|card)|passport|social security|\bssn\b"
        r"|national id|身份证|身分證|证件号|マイナンバー|個人番号"
    ),
}

SENTENCE_END = re.compile(r"[.!?。！？\n]+")


def declared_kinds(text: str) -> set[str]:
    """The personal-data kinds the user asks never to be remembered in `text`."""
    kinds: set[str] = set()
    for sentence in SENTENCE_END.split(text):
        if NEVER.search(sentence):
            kinds |= {kind for kind, words in KIND_WORDS.items() if words.search(sentence)}
    return kinds


def personal_patterns(declared: Collection[str]) -> list[SecretPattern]:
    """The detectors of the declared kinds, in their fixed order."""
    return [p for p in PERSONAL_PATTERNS if p.kind in declared]
