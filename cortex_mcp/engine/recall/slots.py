"""Questions about a slot: "what's my name?", 我住在哪, 今使っているエディタは何 ask for the live
value of a slot (language/slots.py), however they are worded; recall answers them with that slot's
memories first, since neither keywords nor a small embedder reliably connect a question to a
statement worded unlike it ("What's my name?" found the cat before)."""

import re

from cortex_mcp.models import Category, Layer, Memory
from cortex_mcp.store import memories as rows
from cortex_mcp.store.db import Connection

SLOT_ANSWERS = 3

_KIN = (
    r"grandmother|grandma|granny|grandfather|grandpa|grandparents|aunt|auntie|uncle|cousin|"
    r"niece|nephew|grandson|granddaughter|grandkids|grandchildren|stepson|stepdaughter|"
    r"fianc[eé]e?|best friend"
)
"""Relations beyond the household asked about ("what's my grandma's name?"); each is its own
slot (language.slot_words.RELATIONS)."""

_ASKED: list[tuple[tuple[str, ...], re.Pattern[str]]] = [
    (
        ("name",),
        re.compile(r"(?i)\bmy name\b|\bwho am i\b|我(的名字|叫什么|是谁)|(私|僕|俺)の名前|私は誰"),
    ),
    (
        ("home",),
        re.compile(
            r"(?i)\bwhere (do|did) i live\b|\bmy (home|city|hometown)\b"
            r"|\bwhere am i (based|from)\b|\b(which|what) city\b"
            r"|我(现在|目前|如今)?住(在)?哪|哪个城市"
            r"|我(现在|目前|如今)?在哪(里|儿)?生活"
            r"|どこ(に住|で暮らし)|住んでいる場所"
        ),
    ),
    (
        ("workplace", "role"),
        re.compile(
            r"(?i)\bmy (job|work|role|occupation|profession|employer)\b|\bwhere do i work\b"
            r"|\bwhat do i do\b|\b(which|what) company\b|\bwho do i work for\b|我的(工作|职业)"
            r"|我(现在|目前|如今)?在哪(里|儿|家公司|个公司)?(工作|上班)|哪家公司|我是做什么|職業|仕事|勤め"
        ),
    ),
    (
        ("pet:",),
        re.compile(
            r"(?i)\bmy (pet|cat|dog)s?\b|\b(?:do|did) (?:i|we) (?:still )?(?:have|own) "
            r"(?:a |any )?(?:pets?|cats?|dogs?)\b|\bwhat pets?\b|\bpets do i\b"
            r"|宠物|我的(猫|狗)|ペット|うちの(猫|犬)"
        ),
    ),
    (
        ("person:", "birthday:"),
        re.compile(
            r"(?i)\b(?:my|our) (kids?|child|children|daughters?|sons?|wife|husband|partner|"
            rf"spouse|mother|father|brothers?|sisters?|{_KIN})\b|\b(am i|i'm|i am) married\b"
            r"|\bthe kids\b|\b(?:do|did) (?:i|we) have (?:any )?(?:kids|children)\b"
            r"|孩子|女儿|儿子|老婆|老公|子供|娘|息子|妻|夫"
        ),
    ),
    (("birthday:",), re.compile(r"(?i)\bbirthday\b|\bborn\b|生日|誕生日|生まれ")),
    (
        ("answer_language",),
        re.compile(r"(?i)\bwhich language\b|\bwhat language\b|什么语言|哪种语言|何語|言語"),
    ),
    (
        ("tool:editor",),
        re.compile(r"(?i)\b(text )?editor\b|\bIDE\b|编辑器|エディタ"),
    ),
    (
        ("tool:database", "uses:database"),
        re.compile(r"(?i)\bdatabases?\b|\bdb\b|数据库|データベース"),
    ),
    (("allergy:",), re.compile(r"(?i)\ballerg(y|ies|ic)\b|过敏|アレルギー")),
    *(
        ((f"uses:{kind}",), re.compile(words))
        for kind, words in {
            "ci": r"(?i)\bCI\b|\bcontinuous integration\b|持续集成",
            "package_manager": r"(?i)\bpackage manager\b|包管理",
            "cloud": r"(?i)\bcloud\b|云服务|部署在哪|クラウド",
            "frontend": r"(?i)\bfront-?end\b|前端|フロントエンド",
            "web_framework": r"(?i)\b(web )?framework\b|框架|フレームワーク",
            "test_runner": r"(?i)\btest (runner|framework)\b|测试框架|テストフレームワーク",
            "orchestrator": r"(?i)\borchestrat\w*|容器编排",
            "queue": r"(?i)\b(message )?(queue|broker)\b|消息队列|キュー",
            "monitoring": r"(?i)\bmonitoring\b|\bobservability\b|监控|監視",
            "build": r"(?i)\b(build tool|bundler)\b|构建工具|打包工具|ビルドツール",
        }.items()
    ),
    (
        ("name", "home", "workplace", "role", "answer_language"),
        re.compile(
            r"(?i)\babout me\b|\bwho i am\b|\bknow me\b|关于我|我的(情况|信息|资料)"
            r"|私について|僕について"
        ),
    ),
]
"""What a question asks, by its words, and the slot predicates that answer it (a prefix ending
in ':' takes every detail). The project's tool kinds ("which database do we use?") are the
language rules' attributes (uses:database), so an English question finds a Chinese statement of
the same slot (我们这个项目的数据库用的是MySQL) that neither its words nor its vector reach."""


_RELATION_ASKED = re.compile(
    r"(?i)\b(?:my|our|the|(?:do|did) (?:i|we) have(?: any)?) (kids?|child|children|daughters?|"
    r"sons?|wife|husband|partner|"
    rf"spouse|mother|father|brother|sister|{_KIN})\b|\b(?:am i|i'm|i am) (married)\b"
)
_ASKED_AS = {
    "kid": ("child", "daughter", "son"), "kids": ("child", "daughter", "son"),
    "child": ("child", "daughter", "son"), "children": ("child", "daughter", "son"),
    "daughters": ("daughter",), "sons": ("son",),
    "wife": ("wife", "spouse"), "husband": ("husband", "spouse"),
    "partner": ("partner", "spouse"), "spouse": ("spouse", "wife", "husband", "partner"),
    "married": ("spouse", "wife", "husband", "partner"),
    "grandma": ("grandmother",), "granny": ("grandmother",), "grandpa": ("grandfather",),
    "auntie": ("aunt",), "fiancé": ("fiance",), "fiancée": ("fiancee",),
    "grandparents": ("grandmother", "grandfather"), "grandkids": ("grandson", "granddaughter"),
    "grandchildren": ("grandson", "granddaughter"),
}  # fmt: skip
"""The relations a question's word names ("my wife" is also the user's spouse)."""


def asked_predicates(question: str) -> list[str]:
    """The slot predicates a question asks about ("what's my name?" → name), as prefixes; a
    recall puts the live memories of those slots first. A relation the question names comes
    before the others ("my wife's name": person:wife, person:spouse, then every person)."""
    found: list[str] = []
    for predicates, pattern in _ASKED:
        if pattern.search(question):
            found += [p for p in predicates if p not in found]
    if "person:" in found and (named := _RELATION_ASKED.search(question)):
        word = (named[1] or named[2]).casefold()
        specific = [f"person:{r}" for r in _ASKED_AS.get(word, (word,))]
        found = specific + [p for p in found if p not in specific]
    return found


def _named_first(named: list[str], memory: Memory) -> int:
    """Where a memory's predicate stands among the relations the question names (`named`:
    person:wife, person:spouse); after them, every other slot answer."""
    predicate = str(memory.metadata.get("predicate", ""))
    return named.index(predicate) if predicate in named else len(named)


async def slot_answers(
    conn: Connection,
    predicates: list[str],
    agent_id: str,
    layers: list[Layer],
    categories: list[Category] | None,
) -> list[Memory]:
    """The live memories of the slots a question asks about (`predicates`), newest first."""
    if not predicates:
        return []
    found = await rows.live_slot_memories(conn, agent_id, predicates, SLOT_ANSWERS * 4)
    named = [p for p in predicates if p.startswith("person:") and not p.endswith(":")]
    found.sort(key=lambda m: _named_first(named, m))  # stable: newest first within
    return [
        m for m in found if m.layer in layers and (categories is None or m.category in categories)
    ][:SLOT_ANSWERS]
