"""Realistic fake secrets, one or more per kind cortex redacts: each has the shape of the real
thing (prefix, length, alphabet, checksum) and belongs to nobody."""

from dataclasses import dataclass

BASE = "Qz7Wm3Lp9Xr2Tn8Vb4Kd6Hs1Jf5Gy0UaE3cR7iO2pN9bM4vC6xZ1kL8jH5gF2dS7a"
"""64 letters and digits; each sample takes a different rotation, so no two share a run."""


def token(length: int, shift: int, alphabet: str = BASE) -> str:
    """`length` characters of the base alphabet, rotated by `shift`."""
    rotated = alphabet[shift % len(alphabet) :] + alphabet[: shift % len(alphabet)]
    return (rotated * 3)[:length]


def hexed(length: int, shift: int) -> str:
    return token(length, shift, "3f9a1c7e5b2d8046a9c3e1f7b5d2804639fa1ce7b53d2048")


@dataclass(frozen=True)
class Sample:
    """A sentence a user might write, the secret inside it, and the kind that must catch it."""

    kind: str
    text: str
    secret: str


def _sample(kind: str, template: str, secret: str) -> Sample:
    return Sample(kind, template.format(secret), secret)


AWS_SECRET = token(19, 3) + "/" + token(20, 30)
SAMPLES: tuple[Sample, ...] = (
    _sample(
        "private_key",
        "Deploy key:\n-----BEGIN RSA PRIVATE KEY-----\n{}\n-----END RSA PRIVATE KEY-----",
        "MIIEowIBAAKCAQEA" + token(48, 5),
    ),
    _sample(
        "url_password",
        "DATABASE_URL=postgres://admin:{}@db.prod.internal:5432/orders",
        token(14, 7),
    ),
    _sample(
        "sentry_dsn",
        "https://{}@o45.ingest.sentry.io/1",
        hexed(32, 27),
    ),
    _sample(
        "slack_webhook",
        "Alerts go to {}",
        "https://hooks.slack.com/services/T04ABCD12/B05EFGH56/" + token(24, 9),
    ),
    _sample("bearer_token", "curl -H 'Authorization: Bearer {}'", token(28, 11)),
    _sample(
        "jwt", "session cookie {}", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9." + token(30, 13)
    ),
    _sample("stripe_key", "Stripe live key: {}", "sk_live_51" + token(30, 15)),
    _sample("stripe_key", "restricted key {}", "rk_live_51" + token(28, 17)),
    _sample("google_oauth", "Google client secret {}", "GOCSPX-" + token(28, 19)),
    _sample("google_oauth", "access token {}", "ya29.a0Af" + token(40, 21)),
    _sample("sendgrid_key", "SENDGRID={}", "SG." + token(22, 23) + "." + token(43, 25)),
    _sample("npm_token", "//registry.npmjs.org/:_authToken={}", "npm_" + token(36, 27)),
    _sample("twilio_key", "Twilio API key {}", "SK" + hexed(32, 4)),
    _sample(
        "azure_key",
        "DefaultEndpointsProtocol=https;AccountName=acmeprod;AccountKey={};EndpointSuffix=core.windows.net",
        token(64, 29) + "==",
    ),
    _sample("aws_secret_key", "aws_secret_access_key = {}", AWS_SECRET),
    _sample("aws_secret_key", "Our AWS secret key is {}", token(40, 33)),
    _sample("api_key", "OPENAI_API_KEY {}", "sk-proj-" + token(40, 35)),
    _sample("api_key", "anthropic key {}", "sk-ant-api03-" + token(40, 37)),
    _sample("api_key", "aws access key id {}", "AKIA" + token(16, 39).upper()),
    _sample("api_key", "GitHub token {}", "ghp_" + token(36, 41)),
    _sample("api_key", "slack bot token {}", "xoxb-2811736459012-4829105736281-" + token(24, 43)),
    _sample("api_key", "maps key {}", "AIza" + token(35, 45)),
    _sample("api_key", "GitLab token {}", "glpat-" + token(20, 47)),
    _sample("api_key", "HF token {}", "hf_" + token(34, 49)),
    _sample("api_key", "config: api_key={}", token(20, 51)),
    _sample("secret_assignment", "JWT_SIGNING_SECRET={}", token(32, 53)),
    _sample("password", "the db password is {}", "Tr0ub4dor&3" + token(4, 55)),
    # found trying the product: .env lines, and tool calls read from transcripts (JSON-escaped)
    _sample("password", "DB_PASSWORD={}", "Tr0ub4-" + token(8, 61)),
    _sample("password", 'PGPASSWORD=\\"{}\\"', token(12, 63)),
    _sample("password", '{{\\"password\\": \\"{}\\"}}', token(13, 4)),
    _sample("password", "我的邮箱密码是 {}", token(10, 57)),
    _sample("password", "パスワードは {} です", token(10, 59)),
    _sample("card_number", "card {} expires 12/29", "5555 5555 5555 4444"),
)
"""Every secret kind, some in several forms."""

PHONES = ("+86 138 0013 8000", "090-1234-5678", "+1 (415) 555-0134")
"""A Chinese mobile in international form, a Japanese mobile, a North American number."""
