"""Subject–attribute–value outside the personal slots: what a project (or the user) uses, runs
on, upgraded, migrated or switched to, in English, Chinese and Japanese.

"My project uses Python 3.10" reads (project, version:python, Python 3.10); "We upgraded the
project to Python 3.12" reads (project, version:python, Python 3.12), so the second supersedes
the first. A tool named without a version is read only when its kind is known (a database, a
CI, a cloud …): "we migrated to PostgreSQL" replaces the project's database, while "we use
React" and "we use Redis" stay two facts. "We", "our", "the project" are one subject, the
project; "I" and "my" with no thing named are the user.
"""

import re
from dataclasses import dataclass

KINDS: dict[str, tuple[str, ...]] = {
    "database": ("PostgreSQL", "Postgres", "MySQL", "MongoDB", "SQLite", "MariaDB", "Oracle",
                 "DynamoDB", "Cassandra", "ClickHouse", "CockroachDB", "SQL Server"),
    "ci": ("Jenkins", "GitHub Actions", "GitLab CI", "CircleCI", "Travis CI", "Buildkite",
           "Azure Pipelines", "Drone"),
    "cloud": ("AWS", "GCP", "Google Cloud", "Azure", "DigitalOcean", "Hetzner", "Heroku",
              "Vercel", "Netlify", "Fly.io", "Cloudflare"),
    "frontend": ("React", "Vue", "Angular", "Svelte", "SvelteKit", "Next.js", "Nuxt", "SolidJS"),
    "web_framework": ("Django", "Flask", "FastAPI", "Rails", "Express", "Spring Boot", "Spring",
                      "Laravel", "NestJS", "Gin"),
    "package_manager": ("npm", "yarn", "pnpm", "poetry", "pip", "uv", "conda", "bun"),
    "test_runner": ("pytest", "jest", "vitest", "mocha", "unittest", "JUnit", "RSpec"),
    "orchestrator": ("Kubernetes", "k8s", "Nomad", "Docker Swarm", "ECS"),
    "queue": ("Kafka", "RabbitMQ", "SQS", "NATS", "Celery"),
    "monitoring": ("Grafana", "Kibana", "Datadog", "Prometheus", "New Relic", "Sentry"),
    "build": ("webpack", "Vite", "esbuild", "Rollup", "Parcel", "Gradle", "Maven", "Bazel"),
}  # fmt: skip
_BY_NAME = {name.casefold(): kind for kind, names in KINDS.items() for name in names}
_KNOWN = "|".join(
    re.escape(n) for n in sorted((n for ns in KINDS.values() for n in ns), key=len, reverse=True)
)
_NOT_TOOL = (
    r"(?!(?:to|at|in|on|of|the|a|an|version|v|and|for|with|from|by|about|around|over|under|"
    r"page|chapter|step|level|day|week|month|year|room|floor|times?|hours?|minutes?|people|"
    r"percent|kids|years|plan|tier)\b)"
)
_VERSIONED = (
    rf"{_NOT_TOOL}(?P<name>[A-Za-z][\w+#-]*(?:\.js)?) ?v?(?P<ver>\d+(?:\.\d+){{0,2}})(?![\w.]*\d)"
)
_TOOL = rf"(?:{_VERSIONED}|(?P<known>(?i:{_KNOWN}))(?!\w|\.\w))"
_KIND_WORDS = ("ci", "database", "db", "cloud", "hosting", "tests", "test runner", "build",
               "bundler", "package manager", "queue", "monitoring")  # fmt: skip
"""A kind of tool named as the thing changed ("we switched the CI from Jenkins to GitHub
Actions"): the project's, like "we" and "the project"."""
_KIND_NAMES = "|".join(sorted(_KIND_WORDS, key=len, reverse=True))
_THINGS_EN = (
    r"project|app|application|service|backend|frontend|api|site|website|repo|codebase|server|"
    r"stack|cluster|pipeline|infra|infrastructure|team|company|product|"
    rf"{_KIND_NAMES}"
)
_THINGS_ZH = r"项目|应用|服务|后端|前端|系统|网站|仓库|集群|团队|公司|产品"
_THINGS_JA = r"プロジェクト|アプリ|サービス|バックエンド|フロントエンド|システム|サイト|チーム|会社"

_WHOLE = r"(?! (?i:for|in|on) (?i:the|our|its|some|a|an|all|one) \w)"
"""Not for a part of the project: "uses Python 3.10 for the lambda workers" is not the
project's Python (it replaced "We upgraded the project to Python 3.12")."""

_PATTERNS = [
    re.compile(p)
    for p in (
        rf"(?i:\b(?P<owner>my|our|the|this) (?:(?P<qualifier>\w+ )?(?P<thing>{_THINGS_EN}))?"
        rf"\s*(?:now |currently |still |already )?(?:uses|is using|runs on|is running|is on|"
        rf"is built (?:on|with)|is written in|targets|depends on) ){_TOOL}{_WHOLE}",
        rf"(?i:\b(?P<owner>we|I)(?:'ve| have)? (?:just |recently |finally |now )?(?:upgraded|"
        rf"migrated|moved|switched|bumped|updated|ported|changed)(?: (?:(?:the|our|my) "
        rf"(?P<qualifier>\w+ )?)?(?P<thing>{_THINGS_EN}))?(?: (?:from|off) [^,.;]{{1,40}}?)? "
        rf"(?:over )?to ){_TOOL}{_WHOLE}",
        rf"(?i:\b(?P<owner>we)(?:'re| are)? (?:now |currently |still )?(?:use|run|are on|are "
        rf"using|'re on|'re using|on|using|run on) ){_TOOL}{_WHOLE}",
        rf"(?i:\b(?P<owner>everything|it all|all of it) (?:now |currently |still )?(?:runs on|"
        rf"is running on|is on|runs in) ){_TOOL}{_WHOLE}",
        rf"(?i:\b(?P<owner>my|our|the|this) (?:project's |repo's )?(?P<thing>{_KIND_NAMES})"
        rf" is (?:now |still |currently )?(?:on )?){_TOOL}{_WHOLE}",
        rf"(?P<thing>{_THINGS_ZH}|(?P<owner>我们|我))?(?:现在|目前|已经|也)?(?:用的是|使用的是|"
        rf"用|使用|基于|跑在|运行在|采用)\s*{_TOOL}",
        rf"(?:把)?(?P<thing2>{_THINGS_ZH})?(?:从\s*[^，,。]{{1,30}}?)?(?:升级|迁移|切换|换|改|更新)"
        rf"(?:到|成|为)了?\s*{_TOOL}",
        rf"(?:(?P<thing>{_THINGS_JA})(?:は|で)\s*)?{_TOOL}\s*(?:を使って|で動いて|を採用して|で"
        rf"開発して|を使用して)",
        rf"(?:(?P<thing>{_THINGS_JA})(?:は|を)\s*)?(?:[^、。]{{1,30}}から)?{_TOOL}\s*(?:に|へ)"
        rf"(?:アップグレード|移行|切り替え|乗り換え|更新|変更)",
    )
]
_PROJECT_ALIASES = frozenset(
    ["we", "our", "the", "this", "project", "我们", "项目", "プロジェクト", "repo", "codebase",
     "仓库", "team", "团队", "チーム", *_KIND_WORDS]
)  # fmt: skip
_ENGLISH_THING = {
    "应用": "app", "服务": "service", "后端": "backend", "前端": "frontend", "系统": "system",
    "网站": "site", "集群": "cluster", "公司": "company", "产品": "product", "アプリ": "app",
    "サービス": "service", "バックエンド": "backend", "フロントエンド": "frontend",
    "システム": "system", "サイト": "site", "会社": "company", "application": "app",
    "website": "site", "infrastructure": "infra",
}  # fmt: skip


@dataclass(frozen=True)
class Attribute:
    """`subject` has `attribute` = `value`: (project, version:python, Python 3.12)."""

    subject: str
    attribute: str
    value: str
    start: int


_ENGLISH_PATTERNS = 5
"""The first patterns are English; the rest read only a sentence with CJK characters."""
_FIRST_WORDS = frozenset(name.split()[0].casefold() for names in KINDS.values() for name in names)
_WORDS = re.compile(r"[A-Za-z][\w.]*", re.ASCII)
"""Latin words, ending where Chinese or Japanese starts: the CI in 我们的CI用的是Jenkins."""


def _worth_reading(sentence: str) -> bool:
    """Every attribute names a version or a known tool: a sentence with neither is skipped."""
    if any(map(str.isdigit, sentence)):
        return True
    return any(w.casefold().rstrip(".") in _FIRST_WORDS for w in _WORDS.findall(sentence))


def find_attributes(sentence: str, cjk: bool = True) -> list[Attribute]:
    """The attributes a statement sets, one per attribute, in order (`cjk`: whether the
    sentence has Chinese or Japanese characters, so their patterns need reading)."""
    found: dict[tuple[str, str], Attribute] = {}
    if not _worth_reading(sentence):
        return []
    for pattern in _PATTERNS if cjk else _PATTERNS[:_ENGLISH_PATTERNS]:
        for match in pattern.finditer(sentence):
            attribute = _attribute(match)
            if attribute is not None:
                found.setdefault((attribute.subject, attribute.attribute), attribute)
    return sorted(found.values(), key=lambda a: a.start)


def _attribute(match: re.Match[str]) -> Attribute | None:
    groups = match.groupdict()
    if groups.get("qualifier") and (groups.get("thing") or "").casefold() in _KIND_WORDS:
        return None  # "the staging database": one of several, not the project's only one
    if groups.get("known"):
        name = groups["known"]
        kind = _BY_NAME.get(name.casefold())
        if kind is None:
            return None
        attribute, value = f"uses:{kind}", name
    else:
        name, version = groups["name"], groups["ver"]
        attribute, value = f"version:{name.casefold()}", f"{name} {version}"
    return Attribute(_subject_of(groups), attribute, value, match.start())


def _subject_of(groups: dict[str, str | None]) -> str:
    thing = (groups.get("thing") or groups.get("thing2") or "").casefold()
    owner = (groups.get("owner") or "").casefold()
    if thing and thing not in _PROJECT_ALIASES:
        return _ENGLISH_THING.get(thing, thing)
    return "user" if owner in ("i", "my", "我") and not thing else "project"
