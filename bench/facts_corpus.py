"""Distinct template facts that differ in one name, place, item or number, and true restatements.

Each fact is a template sentence (English, Chinese, Japanese) filled with a person and an item,
place or number; two facts of one template differ in exactly one of them, so their term overlap
is high and only the definition of "the same fact" keeps them apart. Restatements say a fact
again with other function words, case, punctuation, intensifiers or "I" / "the user".
Deterministic for a seed.
"""

import random
from dataclasses import dataclass

FIRST_EN = [
    "Isaac", "Alice", "Carol", "David", "Emma", "Frank", "Grace", "Henry", "Irene", "Jack",
    "Karen", "Liam", "Mia", "Noah", "Olivia", "Peter", "Quinn", "Rosa", "Sam", "Tina",
]  # fmt: skip
LAST_EN = [
    "Nelson", "Baker", "Garcia", "Smith", "Brown", "Clark", "Davis", "Evans", "Foster", "Green",
    "Hughes", "Irving", "Jones", "Keller", "Lopez", "Moore", "Nolan", "Owens", "Price", "Reed",
]  # fmt: skip
SURNAME_ZH = list("张王李赵刘陈杨黄周吴徐孙胡朱高林何郭马罗")
GIVEN_ZH = ["子涵", "欣怡", "浩然", "梓萱", "宇轩", "雨桐", "俊杰", "思远", "佳琪", "志强"]
SURNAME_JA = ["佐藤", "鈴木", "高橋", "田中", "伊藤", "渡辺", "山本", "中村", "小林", "加藤"]
GIVEN_JA = ["太郎", "花子", "健太", "美咲", "翔太", "結衣", "大輔", "さくら", "蓮", "葵"]

ITEMS_EN = ["bee stings", "peanuts", "penicillin", "shellfish", "cats", "latex", "pollen", "eggs"]
ITEMS_ZH = ["花生", "青霉素", "海鲜", "芒果", "猫毛", "花粉", "鸡蛋", "牛奶"]
ITEMS_JA = ["そば", "卵", "えび", "小麦", "ピーナッツ", "猫", "花粉", "牛乳"]
CITIES_EN = ["Berlin", "Lisbon", "Osaka", "Toronto", "Madrid", "Denver", "Dublin", "Austin"]
CITIES_ZH = ["杭州", "上海", "成都", "西安", "南京", "深圳", "厦门", "青岛"]
CITIES_JA = ["大阪", "京都", "福岡", "札幌", "神戸", "横浜", "仙台", "名古屋"]

TEMPLATES = {
    "en": [
        "{p} is allergic to {i}; carry the medication kit when visiting.",
        "{p} moved to {c} and works remotely from there.",
        "{p} pays {n} dollars a month for the storage unit.",
        "{p} prefers {i}-free meals at the team dinner.",
    ],
    "zh": [
        "{p}对{i}过敏，聚餐时要注意。",
        "{p}搬到了{c}，现在远程工作。",
        "{p}每月的房租是{n}元。",
        "{p}不吃{i}，订餐时要备注。",
    ],
    "ja": [
        "{p}さんは{i}アレルギーなので、食事に注意してください。",
        "{p}さんは{c}に引っ越して、リモートで働いています。",
        "{p}さんの家賃は月{n}円です。",
    ],
}
RESTATE = {
    "en": [
        lambda s: s.upper(),
        lambda s: s.rstrip(".") + "!",
        lambda s: "  " + s.lower() + "  ",
        lambda s: s.replace(" is ", " is really ", 1).replace(" pays ", " really pays ", 1),
    ],
    "zh": [lambda s: s.rstrip("。"), lambda s: s.replace("。", "！"), lambda s: s + " "],
    "ja": [lambda s: s.rstrip("。"), lambda s: s.replace("。", "！")],
}


@dataclass(frozen=True)
class Fact:
    """One generated fact: its text, its language and template, and what fills it."""

    text: str
    language: str
    template: int
    person: str
    filler: str


def person(language: str, rng: random.Random) -> str:
    """A random full name in the language's script."""
    if language == "en":
        return f"{rng.choice(FIRST_EN)} {rng.choice(LAST_EN)}"
    if language == "zh":
        return rng.choice(SURNAME_ZH) + rng.choice(GIVEN_ZH)
    return rng.choice(SURNAME_JA) + rng.choice(GIVEN_JA)


def distinct_facts(count: int, seed: int = 7) -> list[Fact]:
    """`count` facts with distinct texts: 60 % English, 25 % Chinese, 15 % Japanese."""
    rng = random.Random(seed)
    items = {"en": ITEMS_EN, "zh": ITEMS_ZH, "ja": ITEMS_JA}
    cities = {"en": CITIES_EN, "zh": CITIES_ZH, "ja": CITIES_JA}
    seen: set[str] = set()
    facts: list[Fact] = []
    while len(facts) < count:
        roll = rng.random()
        language = "en" if roll < 0.6 else "zh" if roll < 0.85 else "ja"
        template = rng.randrange(len(TEMPLATES[language]))
        who = person(language, rng)
        pattern = TEMPLATES[language][template]
        filler = (
            rng.choice(items[language])
            if "{i}" in pattern
            else rng.choice(cities[language])
            if "{c}" in pattern
            else str(rng.randint(80, 9999))
        )
        text = pattern.format(p=who, i=filler, c=filler, n=filler)
        key = text.casefold()
        if key in seen:
            continue
        seen.add(key)
        facts.append(Fact(text, language, template, who, filler))
    return facts


def restatements(facts: list[Fact], count: int, seed: int = 11) -> list[tuple[Fact, str]]:
    """`count` (fact, the same fact said again) pairs."""
    rng = random.Random(seed)
    chosen = rng.sample(facts, min(count, len(facts)))
    return [(fact, rng.choice(RESTATE[fact.language])(fact.text)) for fact in chosen]
