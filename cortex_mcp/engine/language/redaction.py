"""Secrets never reach the store, a log or a provider: keys, tokens, passwords, cards.

Every kind is one `SecretPattern` with the rule it uses written out for people; the table in
docs/privacy.md is `kinds_markdown()` and a test keeps the two in step. Personal data (phone
numbers, emails, addresses, ID numbers) is found by `language.personal` when the user or the
configuration asks for it; `redact` takes those kinds as `declared`.
"""

import math
import re
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import replace

from cortex_mcp.engine.language.detectors import MARKER, SecretPattern, apply_patterns
from cortex_mcp.engine.language.personal import PERSONAL_PATTERNS, personal_patterns
from cortex_mcp.search.tokenize import ENGLISH_STOPWORDS
from cortex_mcp.unicode_text import well_formed

NOT_A_MARKER = r"(?!\[REDACTED)"


def passes_luhn(digits: str) -> bool:
    """The checksum every payment card number satisfies."""
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = int(char)
        if position % 2 == 1:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def _card(match: re.Match[str]) -> bool:
    return passes_luhn(re.sub(r"\D", "", match.group(0)))


def shannon_bits(text: str) -> float:
    """Bits of entropy per character of `text`."""
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())


def looks_random(value: str) -> bool:
    """A token that looks generated, not a word: long, mixed classes, high entropy."""
    classes = sum(
        bool(re.search(p, value)) for p in (r"[a-z]", r"[A-Z]", r"[0-9]", r"[^A-Za-z0-9]")
    )
    return len(value) >= 16 and classes >= 2 and shannon_bits(value) >= 3.5


def _random_value(match: re.Match[str]) -> bool:
    return looks_random(match.group(1))


def _aws_secret(match: re.Match[str]) -> bool:
    """A 40-character base64 token with both cases and a digit, that has a slash or plus in it
    or stands within 80 characters after a word about AWS or secrets."""
    value = match.group(0)
    mixed = all(re.search(p, value) for p in (r"[a-z]", r"[A-Z]", r"[0-9]"))
    before = match.string[max(0, match.start() - 80) : match.start()].lower()
    near = any(word in before for word in ("aws", "secret", "amazon", "s3", "iam"))
    return mixed and (near or "/" in value or "+" in value)


def _password_in_prose(match: re.Match[str]) -> bool:
    """A word that reads as a password, not as English: a digit, a symbol or a capital inside
    it ("S3cr3tPassw0rd", "hunter2!"); not a version number ("v2.1"), nor a word whose only
    symbol ends its sentence ("Password for the wifi? Thanks!")."""
    value = match.group(1)
    if re.fullmatch(r"[vV]?\d+(?:\.\d+)+", value):
        return False
    return bool(re.search(r"\d|[^\w.-]|[a-z][A-Z]", value.rstrip("!?")))


def _words(text: str) -> frozenset[str]:
    """The words of `text`, separated by spaces."""
    return frozenset(text.split())


_DESCRIPTIONS = (
    "weak strong good bad wrong right correct incorrect invalid valid expired old new long short"
    " easy hard simple empty blank missing required needed optional set saved stored written"
    " changed reset hidden secret secure insecure encrypted hashed unknown probably still now"
    " here case-sensitive currently actually sensitive way really pretty quite kinda rather case"
    " one two three four five six seven eight nine ten eleven twelve fifteen sixteen twenty"
)
SAID_OF_A_PASSWORD = ENGLISH_STOPWORDS | frozenset(_DESCRIPTIONS.split())
_SAID_AFTER_A_VERB = (
    "compromised leaked rejected accepted fine hacked breached broken stale rotated longer shorter"
    " fixed unchanged changing working locked blocked lost sent gone weird same different unsafe"
    " public private personal temporary useless complicated annoying ok okay mine yours hers ours"
    " theirs below above mandatory elsewhere"
)
SAID_AFTER_A_VERB = SAID_OF_A_PASSWORD | frozenset(_SAID_AFTER_A_VERB.split())
"""What "my password was …" / "… it's …" says of a password ("stolen", "annoying")."""
"""Words said of a password ("my password is weak", "… is too long"), not one."""


def _names_no_description(match: re.Match[str]) -> bool:
    """The value after "password is" is no word said of a password ("weak", "too")."""
    return match.group(1).rstrip(".!?:)").lower() not in SAID_OF_A_PASSWORD


def _no_word_said_after_a_verb(match: re.Match[str]) -> bool:
    """The value after "my password was" / "… it's" is no word said of one: the listed ones,
    and a lower-case participle of six letters or more ("stolen", "exposed"); "Speeding2",
    "Redwing" and "bluebird" are passwords (found re-testing: a participle rule on every form
    let "Password: Redwing" through)."""
    word = match.group(1).rstrip(".!?:)")
    participle = word.islower() and len(word) >= 6 and _A_PARTICIPLE.fullmatch(word) is not None
    return word.lower() not in SAID_AFTER_A_VERB and not participle


_A_PARTICIPLE = re.compile(r"[a-z]+(?:ed|ing)|(?:stol|forgott|brok|tak|writt|hidd|giv|chos)en")


def _password_after_a_verb(match: re.Match[str]) -> bool:
    """A value after a password's verb: one that reads as a password, or a word that ends the
    clause and is no word said of one."""
    if _password_in_prose(match):
        return True
    return _no_word_said_after_a_verb(match) and _ends_its_clause(match)


def _password_answered(match: re.Match[str]) -> bool:
    """A value after "password for X? It's", "… is now", "pw:" or "changed my password to": as
    after a verb. Right after the question mark with no answer's verb, only one that reads as a
    password ("Password for the wifi? Thanks!" keeps its thanks)."""
    lead = match.string[match.start() : match.start(1)]
    if re.search(r"\?\s*[`\"']?$", lead):
        return _password_in_prose(match)
    return _password_after_a_verb(match)


def _ends_its_clause(match: re.Match[str]) -> bool:
    """Nothing but punctuation or the end of the text follows the match."""
    after = match.string[match.end() :]
    return re.match(rf"(?:{_WHEN_SAID})?\s*(?:$|[.,;:!?)\"'`\n])", after, re.I) is not None


_WHEN_SAID = r"\s+(?:yesterday|today|tonight|this (?:morning|week)|last (?:night|week))"
"""When it was changed, after the value: "I changed my password to bluebird yesterday."."""


def _password_after_words(match: re.Match[str]) -> bool:
    """A value after "password for X is": one that reads as a password ("hunter2"), or a word
    that is no description and ends the clause ("… is swordfish." but not "… is on the fridge")."""
    if _password_in_prose(match):
        return True
    return _names_no_description(match) and _ends_its_clause(match)


_NOUNS_OF_A_PASSWORD = _words("characters chars letters digits numbers symbols words long short")
"""What a password's length or make is counted in ("twelve characters", "four random words")."""
_WHEN_WORDS = _words(
    "yesterday today tonight tomorrow week month year morning night ago again soon already"
    " ever never always apparently anyway though somehow lol haha ugh sadly"
)
"""Words that say when or how the speaker takes it ("… was reset last week", "… is wrong
apparently": found re-testing): a sentence about a password, not one."""
_POINTING_ELSEWHERE = _words("see ask check use try call text look find via dm ping")
"""A first word that says where the password is ("pw: see 1Password"), not what it is."""


def _several_words(match: re.Match[str]) -> bool:
    """Words given as a password ("correct horse battery staple"): none of them a stopword
    or a word saying when ("… is on a sticky note", "… was reset last week"), the first not
    pointing elsewhere ("see 1Password"), and the last no word said of a password nor what
    one is counted in ("… is really weak", "… is twelve characters")."""
    words = match.group(1).lower().split()
    if any(word in ENGLISH_STOPWORDS or word in _WHEN_WORDS for word in words):
        return False
    if words[0] in _POINTING_ELSEWHERE:
        return False
    last = words[-1]
    participle = len(last) >= 6 and _A_PARTICIPLE.fullmatch(last) is not None
    return last not in SAID_AFTER_A_VERB | _NOUNS_OF_A_PASSWORD and not participle


def _quoted_password(match: re.Match[str]) -> bool:
    """Quoted words after "password is" that are not all words said of a password
    (`my password is "too long"`)."""
    words = re.findall(r"[\w'-]+", match.group(1).lower())
    return not all(word in SAID_AFTER_A_VERB for word in words)


_PASS_GUARDS = _words(
    "wifi wi-fi wlan router network admin root login account email e-mail vpn ssh server db"
    " database laptop computer my our"
)
"""Words before "pass" that make it a password ("wifi pass", "my pass"), not a boarding pass."""


def _pass_means_password(match: re.Match[str]) -> bool:
    """The word "pass" is short for password: a word before it says what it guards or whose
    it is ("the wifi pass is …", "my pass is …"), or it is a label ("pass: …", "pass=…") that
    starts a clause or follows a user name ("user: bob pass: …"); and the value is one."""
    before = match.string[max(0, match.start() - 60) : match.start()]
    clause = re.split(r"[.!?;\n]", before)[-1]
    words = clause.split()
    guarded = bool(words) and words[-1].lower() in _PASS_GUARDS
    labelled = re.match(r"pass\s*[:=]", match.group(0), re.I) is not None
    after_a_user = re.search(r"(?i)\b(?:user(?:name)?|login)\b", clause) is not None
    at_clause_start = not clause.strip() or clause.rstrip().endswith(",")
    if not (guarded or (labelled and (at_clause_start or after_a_user))):
        return False
    return _password_after_a_verb(match)


_LOGIN_METHODS = _words(
    "password passwords pass pw pwd passcode pin email e-mail phone sms sso otp 2fa mfa token"
    " key code none blank nothing"
)
"""What a login names in place of a password ("login: email / password")."""


def _login_password(match: re.Match[str]) -> bool:
    """The part after `user /` in a login: one that reads as a password, or a word that is no
    way of logging in ("email / password") and ends the clause, not two capitalised names
    ("Google / Apple")."""
    if _password_in_prose(match):
        return True
    user = match.string[match.start() : match.start(1)].rstrip(" /:`\"'").split()[-1]
    value = match.group(1).rstrip(".!?:)")
    names = user[:1].isupper() and value[:1].isupper()
    word = value.lower()
    return word not in _LOGIN_METHODS | SAID_AFTER_A_VERB and not names and _ends_its_clause(match)


_KINDS_OF_CODE = _words("building dress zip postal area source error promo discount tax")
"""Codes that open nothing: "the building code for the gate is 2018 IBC"."""


def _an_access_code(match: re.Match[str]) -> bool:
    """The code is to a gate or a door: "code for the gate …" is no building, dress, zip or
    area code."""
    words = match.string[max(0, match.start() - 30) : match.start()].split()
    return not words or words[-1].lower() not in _KINDS_OF_CODE


def _ssn_valid(match: re.Match[str]) -> bool:
    """No area 000, 666 or 900–999, no group 00, no serial 0000: those are never issued."""
    digits = re.sub(r"\D", "", match.group(1))
    area, group, serial = digits[:3], digits[3:5], digits[5:]
    return area not in ("000", "666") and area[0] != "9" and group != "00" and serial != "0000"


_PIN_OWNERS = [
    "my", "our", "his", "her", "their", "your", "the", "'s", "’s", "card", "bank", "debit",
    "credit", "atm", "phone", "iphone", "sim", "door", "alarm", "safe", "garage", "gate",
    "lockbox", "voicemail", "visa", "wps",
]  # fmt: skip
_AFTER_AN_OWNER = "|".join(
    f"(?<={re.escape(form)} )"
    for owner in _PIN_OWNERS
    for form in sorted({owner, owner.capitalize(), owner.upper()})
)
"""Whose PIN it is, just before it ("my bank pin", "my mom's pin", "the garage pin"), as
lookbehinds: a pattern starting at "pin" is tried fast where the text has none (the same as
words before it cost 25 µs a message); "Dropped a pin: 2200 Broadway" and "the LED pin is
1023" name none (found re-testing)."""
_AT_A_CLAUSE_START = r"^|(?<=\n)|(?<=[.!?;,] )|(?<=[.!?;,])"
_STREET = (
    r"st|street|ave|avenue|rd|road|blvd|boulevard|lane|ln|dr|drive|way|broadway|parkway|pkwy|"
    r"terrace|place|pl|court|ct|highway|hwy|square|sq|plaza"
)
"""Words ending an address: the number before them is no PIN ("pin: 1600 Amphitheatre Parkway")."""
_NO_ADDRESS_NOR_UNIT = (
    r"(?!\s+(?:[A-Z]\w*\s+){0,2}(?i:" + _STREET + r")\b|\s+\d+(?:st|nd|rd|th)\b"
    r"|\s*(?i:v|volts?|mv|ma|amps?|ohms?|hz|khz|mhz|rpm|mm|cm|microns?|um)\b)"
)
"""After a PIN's or a code's digits: no street ("1000 5th Ave") and no unit ("3000 volts")."""
_WORD = NOT_A_MARKER + r"(?:[^\s:=?!.,;\"'`]|\.(?=[^\s.]))+"
"""A word between "password for" and the value; a dot inside one is kept ("root at 10.0.0.5")."""
_VALUE = r"([^\s`\"'，。,;、]{2,}[^\s`\"'，。,;、.:)?])"
ASSIGNED = r"[\"']?\s*(?:[:=]|=>)\s*[\"']?" + NOT_A_MARKER
_IS_GIVEN = r"(?:\s*[:=]|\s+(?:is|was)\b(?:\s+(?:now|still|currently|actually)\b)?)"
"""A value given: ":", "=", "is", "was", "is now"."""
_WHOSE = r"(?:\s+(?:for|of|to|on|at)(?:\s+" + _WORD + r"){1,5}?)?"
"""What a password or a login is for, when said: "for the NAS", "for root at 10.0.0.5"."""
_A_PASSWORD_IS = (
    r"(?i)\b(?:password|passwd|passphrase|passcode|pwd|pw)" + _WHOSE + _IS_GIVEN + r"\s*"
)
"""The words that give a password: "password:", "the password for the wifi is (now)"."""
_A_PHRASE_WORD = r"(?!(?:and|but|so|because|which|since)\b)[^\s.,;:!?\"'`()]{1,40}"
"""A word of a password of several words; a conjunction ends it ("… purple monkey and …")."""
_SEVERAL_WORDS = r"((?:" + _A_PHRASE_WORD + r" ){1,5}" + _A_PHRASE_WORD + r")"
_CLAUSE_ENDS = r"(?=\s*(?:$|[.,;:!?)\n])|\s+(?:and|but|so|because|which|since)\b)"
_CODE_OWNER = (
    r"(?:door|garage|gate|alarm|lock ?box|key ?box|key ?safe|safe|keypad|entry|padlock|locker)"
)
"""What an access code opens: "the garage code", "the code to the front door"."""
_AN_ACCESS_CODE = (
    r"(?i)\b(?:" + _CODE_OWNER + r"\s+code"
    r"|code\s+(?:for|to|of|on)\s+(?:[\w'-]+\s+){0,3}?" + _CODE_OWNER + r"(?:\s+door)?)"
)
"""A code and what it opens: "garage code", "the code to the front door"."""
_ANSWERED = r"\s*\?(?:\s*it(?:\s+(?:is|was)\b|'s|’s))?"
"""A question and its answer's verb: "…? It's", "…? it was", or nothing after the mark."""
_CODE_GIVEN = r"(?:" + _IS_GIVEN + r"|" + _ANSWERED + r")?"
"""A code's digits given ("is", ":", "? It's") or following it right away ("gate code 4821")."""

SECRET_PATTERNS: tuple[SecretPattern, ...] = (
    SecretPattern(
        "private_key",
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----.*?"
            r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|\Z)",
            re.DOTALL,
        ),
        "a PEM block `-----BEGIN … PRIVATE KEY-----` to its END line (or the end of the text)",
    ),
    SecretPattern(
        "url_password",
        re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s:/@\"'<>]+:([^\s@/\"'<>]+)@"),
        "the password in `scheme://user:PASSWORD@host` (postgres, mysql, redis, amqp, https …)",
        1,
    ),
    SecretPattern(
        "sentry_dsn",
        re.compile(r"\bhttps?://([0-9A-Za-z]{12,64})@[\w.-]*(?:sentry|ingest)[\w.-]*/\d+"),
        "the key in a Sentry DSN `https://KEY@o123.ingest.sentry.io/456`",
        1,
    ),
    SecretPattern(
        "slack_webhook",
        re.compile(r"https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9/_-]{20,}"),
        "a Slack incoming-webhook URL `https://hooks.slack.com/services/…`",
    ),
    SecretPattern(
        "bearer_token",
        re.compile(r"(?i)\bbearer\s+" + NOT_A_MARKER + r"([A-Za-z0-9._~+/=-]{12,})"),
        "`Bearer` followed by a token of 12+ characters",
        1,
    ),
    SecretPattern(
        "jwt",
        re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
        "three base64url parts separated by dots, the first starting `eyJ`",
    ),
    SecretPattern(
        "stripe_key",
        re.compile(r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}|\bwhsec_[0-9A-Za-z]{24,}"),
        "`sk_live_`, `sk_test_`, `rk_live_`, `rk_test_` or `whsec_` and 16+ letters and digits",
    ),
    SecretPattern(
        "google_oauth",
        re.compile(
            r"\bGOCSPX-[A-Za-z0-9_-]{20,}|\bya29\.[0-9A-Za-z_-]{20,}|\b1//0[0-9A-Za-z_-]{30,}"
        ),
        "client secret `GOCSPX-…`, access token `ya29.…` or refresh token `1//0…`",
    ),
    SecretPattern(
        "sendgrid_key",
        re.compile(r"\bSG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{32,64}"),
        "`SG.` then two dot-separated base64url parts (22 and 43 characters)",
    ),
    SecretPattern(
        "npm_token",
        re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"),
        "`npm_` and 36 letters and digits",
    ),
    SecretPattern(
        "twilio_key",
        re.compile(r"\bSK[0-9a-f]{32}\b"),
        "an API key SID: `SK` and 32 lower-case hex digits",
    ),
    SecretPattern(
        "azure_key",
        re.compile(
            r"(?i)\b(?:AccountKey|SharedAccessKey|sig)=" + NOT_A_MARKER + r"([A-Za-z0-9%+/=]{20,})"
        ),
        "the value of `AccountKey=`, `SharedAccessKey=` (connection strings) or `sig=` (SAS URLs)",
        1,
    ),
    SecretPattern(
        "aws_secret_key",
        re.compile(
            r"(?i)\baws[_ -]?secret[_ -]?(?:access[_ -]?)?key" + ASSIGNED + r"([A-Za-z0-9/+=]{20,})"
        ),
        "the value of `aws_secret_access_key =` / `AWS_SECRET_ACCESS_KEY:`",
        1,
    ),
    SecretPattern(
        "aws_secret_key",
        re.compile(r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])"),
        "in prose: a 40-character base64 token with both cases and a digit, with `/` or `+` in it"
        " or within 80 characters after aws / amazon / s3 / iam / secret",
        accept=_aws_secret,
    ),
    SecretPattern(
        "api_key",
        re.compile(
            r"\b(?:sk-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_-]{16,}"
            r"|(?:AKIA|ASIA)[0-9A-Z]{16}"
            r"|gh[pousr]_[A-Za-z0-9]{30,}"
            r"|github_pat_[A-Za-z0-9_]{30,}"
            r"|xox[abprs]-[A-Za-z0-9-]{10,}"
            r"|AIza[0-9A-Za-z_-]{35}"
            r"|glpat-[A-Za-z0-9_-]{20,}"
            r"|hf_[A-Za-z0-9]{30,})"
        ),
        "OpenAI/Anthropic `sk-…`, AWS access key id `AKIA…`/`ASIA…`, GitHub `ghp_…`/"
        "`github_pat_…`, Slack `xox…-`, Google `AIza…`, GitLab `glpat-…`, Hugging Face `hf_…`",
    ),
    SecretPattern(
        "api_key",
        re.compile(
            r"(?i)\b(?:api[_-]?key|secret[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret)"
            + ASSIGNED
            + r"([^\s\"',;]{6,})"
        ),
        "the value (6+ characters) of `api_key`, `secret_key`, `access_token`, `auth_token`,"
        " `client_secret` after `:` or `=`",
        1,
    ),
    SecretPattern(
        "secret_assignment",
        re.compile(
            r"(?i)\b[A-Za-z0-9_.-]{0,40}"  # bounded: a long dotted run must not cost n²
            r"(?:secret|token|passphrase|credential|private[_-]?key|signing[_-]?key)"
            r"[A-Za-z0-9_.-]{0,40}" + ASSIGNED + r"([A-Za-z0-9+/=_.~-]{16,})"
        ),
        "a name with secret / token / passphrase / credential / private key assigned a value of"
        " 16+ characters that looks generated (two character classes, ≥ 3.5 bits per character)",
        1,
        _random_value,
    ),
    SecretPattern(
        "password",
        re.compile(_A_PASSWORD_IS + r"[\"'`“‘]" + NOT_A_MARKER + r"([^\"'`“”‘’\n]{2,64}?)[\"'`”’]"),
        'in quotes after `password is` / `password:` / `passphrase is` (`my password is "correct'
        ' horse battery staple"`), unless every word in them is said of a password'
        ' (`my password is "too long"`)',
        1,
        _quoted_password,
    ),
    SecretPattern(
        "password",
        re.compile(_A_PASSWORD_IS + NOT_A_MARKER + _SEVERAL_WORDS + _CLAUSE_ENDS),
        "several words (2–6) after `password is` / `password:` / `passphrase is` that end the"
        " clause (`my password is correct horse battery staple`, `… purple monkey, don't tell`),"
        " when none of them is a stopword or a word saying when (`… is on a sticky note`, `… is"
        " the same as my email`, `… was reset last week`), the first does not point elsewhere"
        " (`pw: see 1Password`) and the last is no word said of a password nor what one is"
        " counted in (`… is really weak`, `… is twelve characters`)",
        1,
        _several_words,
    ),
    SecretPattern(
        "password",
        re.compile(
            r"(?i)(?:\b[a-z0-9_]{0,40}?(?:password|passwd|passcode)|\bpwd|密码|密碼|口令|パスワード)"
            r"(?:\\?[\"'])?\s*(?:[:=：]|是|为|為|は|is\b)\s*(?:\\?[\"'])?"
            + NOT_A_MARKER
            + r"([^\s\"'，。,;、]{3,})"  # a backslash in it is kept: part of the password
        ),
        "the word after password / passwd / passcode (also ending a name: `DB_PASSWORD`,"
        " `PGPASSWORD`) / pwd / 密码 / 密碼 / 口令 / パスワード and `:` `=` is 是 为 は"
        " (quotes, escaped or not, around the name or the value); not a word said of a"
        " password (`my password is weak`, `… is too long`)",
        1,
        _names_no_description,
    ),
    SecretPattern(
        "password",
        re.compile(r"(?i)\bpass" + _IS_GIVEN + r"\s*[`\"']?" + NOT_A_MARKER + _VALUE),
        "`pass` for password: after a word saying what it guards or whose it is (`the wifi pass"
        " is …`, `my pass is …`), or as a label at a clause's start or after a user name"
        " (`pass: …`, `user: bob pass: …`), when the value reads as a password or is a word"
        " that ends the clause and is no description; a boarding, bus, hall or free pass and"
        " `pass is valid until …` are left",
        1,
        _pass_means_password,
    ),
    SecretPattern(
        "password",
        re.compile(
            r"(?i)\b(?:password|passwd|passcode|pwd)"
            r"(?:\s+(?:for|of|to|on|at)(?:\s+" + _WORD + r"){1,5}?(?:\s*[:=]|\s+is\b:?)"
            r"|\s*\?\s*it(?:\s+is\b|'s|’s))\s*[`\"']?" + NOT_A_MARKER + _VALUE
        ),
        "with words between: `password for the staging db is …`, `password for root at"
        " 10.0.0.5: …`, `password of the db is …`, `the db password? it is …`, when the value"
        " has a digit, a symbol or a capital inside it, or is a word that ends the clause and is"
        " no description (`… is on the fridge`, `… is expired` are left)",
        1,
        _password_after_words,
    ),
    SecretPattern(
        "password",
        re.compile(
            r"(?i)\b(?:password|passwd|passcode|pwd)"
            r"(?:\s*[?,]\s*it(?:\s+(?:is|was)\b|'s|’s)|['’]s|\s+(?:is|was)\b)"
            r"\s*(?:(?:now|still|currently|actually)\s+)?[`\"']?" + NOT_A_MARKER + _VALUE
        ),
        "said with a verb: `… is now s3cr3tPass`, `my password is currently …`, `the staging db"
        " password, it's …`, `my password's …`, `my password was …`, when the value has a"
        " digit, a symbol or a capital inside it, or is a word that ends the clause and is no"
        " description (`my password was compromised.` is left)",
        1,
        _password_after_a_verb,
    ),
    SecretPattern(
        "password",
        re.compile(
            r"(?i)(?:\b(?:password|passwd|passcode|pwd)\s+(?:for|of|to|on|at)(?:\s+" + _WORD + r")"
            r"{1,5}?(?:\s*\?(?:\s*it(?:\s+(?:is|was)\b|'s|’s))?"
            r"|\s+(?:is|was)\s+(?:now|still|currently|actually)\b)|\bpw(?:\s+(?:for|of|to|on|at)(?:\s+"
            + _WORD
            + r"){1,5}?)?"
            r"(?:\s*[:=]|\s+(?:is|was)\b)"
            r"|\b(?:changed|set|reset|updated|change)\s+(?:my\s+|the\s+|our\s+)?(?:[\w-]+\s+)?"
            r"(?:password|pw|passcode)\s+to"
            r"|\b(?:changed|set|reset|updated|change)\s+(?:my\s+|the\s+|our\s+)?"
            r"(?:wi-?fi|wlan|router|network|admin|root|vpn|e-?mail)\s+pass\s+to)"
            r"\s*[`\"']?" + NOT_A_MARKER + _VALUE
        ),
        "asked and answered, short or changed: `Password for staging? …` when the value has a"
        " digit, a symbol or a capital inside it; `password for the wifi? It's …`, `the password"
        " for prod is now …`, `my pw is …`, `wifi pw: …`, `I changed my password to …`, `I set"
        " the wifi pass to …` also when it is a word that ends the clause and is no word said of"
        " a password",
        1,
        _password_answered,
    ),
    SecretPattern(
        "password",
        re.compile(
            r"(?i)\b(?:password|passwd|passphrase|passcode)\s+"
            + NOT_A_MARKER
            + r"[`\"']?([^\s`\"'，。,;、]{5,}[^\s`\"'，。,;、.:)])"
        ),
        "in prose: the word right after password / passwd / passphrase / passcode (`with password"
        " S3cr3t!x`) when it has a digit, a symbol or a capital inside it; ordinary words"
        " (`password reset`, `the password field`) are left",
        1,
        _password_in_prose,
    ),
    SecretPattern(
        "password",
        re.compile(
            r"(?i)\b(?:password|passwd|passcode|pwd|pw)" + _WHOSE + r"\s*\?[^.?!:\n\[]{0,60}:"
            r"\s*[`\"']?" + NOT_A_MARKER + _VALUE
        ),
        "after a colon in the answer to `password?`: `My password? It's the same as always:"
        " …`, when the value reads as a password or is a word that ends the clause and is no"
        " description (`Forgot my password? Options: reset it …` is left)",
        1,
        _password_after_a_verb,
    ),
    SecretPattern(
        "password",
        re.compile(
            r"(?i)\b(?:log-?in|logon|credentials|creds)(?:\s+(?:details|info))?"
            + _WHOSE
            + r"(?:\s*[:=]|\s+(?:is|are|was|were)\b)\s*[`\"']?[^\s/:`\"']{1,64}"
            r"(?:\s*/\s*|:)[`\"']?" + NOT_A_MARKER + _VALUE
        ),
        "the password of a login given as `user / password`: `NAS login: admin / …`, `login for"
        " the NAS is admin / …` (the user name is kept), when it reads as a password or is a"
        " word that ends the clause and names no way of logging in (`login: email / password`,"
        " `Google / Apple` are left)",
        1,
        _login_password,
    ),
    SecretPattern(
        "password",
        re.compile(
            r"(?=[Pp])(?:PIN\b|(?:" + _AFTER_AN_OWNER + r")(?i:pin)\b|(?i:pin (?:code|number))\b"
            r"|(?:" + _AT_A_CLAUSE_START + r")(?i:pin)(?=\s*(?:[:=]|(?i:is|was)\b)))"
            r"(?:\s+(?i:for|of|to|on)(?:\s+[^\s:=?!.,;]+){1,5}?)?"
            r"(?:\s*[:=]|\s+(?i:is|was)\b|(?i:"
            + _ANSWERED
            + r"))\s*"
            + NOT_A_MARKER
            + r"(\d{4,8})\b"
            + _NO_ADDRESS_NOR_UNIT
        ),
        "a PIN's digits: `PIN for my card is 1234`, `my bank pin is 9911`, `pin code: 4321`,"
        " `what's my bank pin? It's 4821` (not a map's pin, `Dropped a pin: 2200 Broadway`,"
        " nor a street number)",
        1,
    ),
    SecretPattern(
        "password",
        re.compile(_AN_ACCESS_CODE + _CODE_GIVEN + r"\s*[#*]?(\d{4,8})\b" + _NO_ADDRESS_NOR_UNIT),
        "the digits (4–8) of a code to a door, garage, gate, alarm, lockbox, key box, safe,"
        " keypad, entry, padlock or locker: `the door code is …`, `garage code: …`, `the code"
        " for the garage is …`, `what's the alarm code? It's …` (not a building, dress, zip or"
        " area code, nor a street number)",
        1,
        _an_access_code,
    ),
    SecretPattern(
        "id_number",
        re.compile(
            r"(?i)(?:\bssn\b|\bss#|\bsocial\b)[^\d\n]{0,40}?(?<![\d-])(\d{3}([- ]?)\d{2}\2\d{4})"
            r"(?![\d-])"
        ),
        "a US Social Security number `123-45-6789` / `123 45 6789` / `123456789` within 40"
        " characters after SSN, SS# or social (security number), no digit between; never issued"
        " ones (area 000, 666 or 9xx, group 00, serial 0000) are left, and so is the shape"
        " without those words (a phone, part or ticket number)",
        1,
        _ssn_valid,
    ),
    SecretPattern(
        "card_number",
        re.compile(r"(?<![A-Za-z0-9_-])(?:\d[ -]?){12,18}\d(?![A-Za-z0-9_-])"),
        "13–19 digits (spaces or dashes allowed), not inside a longer word such as a UUID, "
        "that pass the Luhn checksum",
        accept=_card,
    ),
)


_NEEDED_WORDS = {
    "password": ("pass", "pw", "pin", "code", "log", "cred", "密码", "密碼", "口令", "パスワード"),
    "secret_assignment": ("secret", "token", "passphrase", "credential", "private", "signing"),
}
"""For a kind, the words one of which each of its patterns needs in the text (a password's
name, a PIN, a code, a login; a secret's name), lower case."""
SECRET_PATTERNS = tuple(
    replace(secret, needs=_NEEDED_WORDS.get(secret.kind, ())) for secret in SECRET_PATTERNS
)


def redact(
    text: str, declared: Collection[str] = (), values: list[tuple[str, str]] | None = None
) -> tuple[str, list[str]]:
    """The text with every secret (and every personal-data kind in `declared`) replaced by a
    marker, and the kinds that were found (`values` collects each `(kind, value)` replaced)."""
    found: list[str] = []
    text = apply_patterns(text, SECRET_PATTERNS, found, values)
    if declared:
        text = apply_patterns(text, personal_patterns(declared), found, values)
    return text, found


ECHO_MIN_CHARS = 6
"""A value redacted once is looked for elsewhere only from this length, and only when it is
no plain word (letters, lower case after the first): those are too likely to be ordinary."""


def redact_echoes(text: str, values: list[tuple[str, str]]) -> tuple[str, list[str]]:
    """`text` with every other occurrence of a value already redacted (as a whole token, not
    inside a longer word) replaced by that value's marker, and the kinds replaced."""
    found: list[str] = []
    for kind, value in values:
        plain_word = re.fullmatch(r"[A-Za-z][a-z]*", value) is not None
        if len(value) < ECHO_MIN_CHARS or plain_word or value not in text:
            continue  # "the password is probably…" must not take "probably" everywhere
        echo = re.compile(r"(?<![A-Za-z0-9])" + re.escape(value) + r"(?![A-Za-z0-9])")
        parts = echo.split(text)
        text = MARKER.format(kind=kind).join(parts)
        count = len(parts) - 1
        found += [kind] * bool(count)
    return text, found


def kinds_markdown() -> str:
    """The table of kinds for docs/privacy.md: kind, when it applies, the rule."""
    lines = ["| kind | applies | rule |", "|---|---|---|"]
    for secret in SECRET_PATTERNS:
        lines.append(f"| `{secret.kind}` | always | {secret.rule} |")
    for personal in PERSONAL_PATTERNS:
        lines.append(f"| `{personal.kind}` | when declared | {personal.rule} |")
    return "\n".join(lines) + "\n"


class Cleaner:
    """Redacts secrets (when configured), and the personal-data kinds the user declared, and
    remembers which kinds it removed."""

    def __init__(self, enabled: bool, declared: Collection[str] = ()) -> None:
        self.enabled = enabled
        self.declared = frozenset(declared)
        self.kinds: list[str] = []

    def __call__(self, text: str) -> str:
        """The text without secrets (and well formed: `unicode_text`)."""
        text = well_formed(text)
        if not self.enabled:
            return text
        clean, kinds = redact(text, self.declared)
        self.kinds += [k for k in kinds if k not in self.kinds]
        return clean

    def together(self, texts: Sequence[str]) -> list[str]:
        """The texts of one exchange or batch cleaned, and a value redacted in any of them
        redacted wherever else it appears in them too (a password found in a tool's output
        that the reply repeats in prose)."""
        texts = [well_formed(text) for text in texts]
        if not self.enabled:
            return texts
        values: list[tuple[str, str]] = []
        cleaned = []
        for text in texts:
            clean, kinds = redact(text, self.declared, values)
            self.kinds += [k for k in kinds if k not in self.kinds]
            cleaned.append(clean)
        values.sort(key=lambda pair: -len(pair[1]))  # a longer value before a part of it
        echoes = []
        for text in cleaned:
            clean, kinds = redact_echoes(text, values)
            self.kinds += [k for k in kinds if k not in self.kinds]
            echoes.append(clean)
        return echoes


class ProviderGuard:
    """The last redaction before text leaves the process for an LLM or an embeddings endpoint:
    secrets always (unless redaction is switched off), and the configured personal kinds."""

    def __init__(self, enabled: bool = True, declared: Collection[str] = ()) -> None:
        self.enabled = enabled
        self.declared = frozenset(declared)

    def __call__(self, text: str) -> str:
        """`text` as it may be sent."""
        return redact(text, self.declared)[0] if self.enabled else text
