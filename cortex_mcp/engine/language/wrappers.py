"""The conversational wrapper around a statement, and decisions that do not say what they decide.

People rarely state a fact bare: "Remember that my daughter's birthday is on March 3rd.",
"Hi, I'm Wang Wei.", "Also, my sister lives in Lyon.",
"更正一下：我现在住在杭州，不在上海了。", "OK, let's go with PostgreSQL then.",
"誕生日は3月3日だと覚えておいて". The memory keeps the statement (`unwrapped`); the original
words stay in the conversation log, and what the wrapper meant (a correction) is read from the
original before it is taken off.

A decision that names only what was chosen ("let's go with PostgreSQL") needs what it was chosen
for: `chosen_thing` finds such a decision and `purpose_for` looks for the purpose in the rest of
the exchange ("For the orders database, PostgreSQL or MongoDB?").
"""

import re

_SEPARATOR = r"[\s,，、:：!！.。~～-]*"

_LEADING = [
    # greetings
    r"(hi|hello|hey|good (morning|afternoon|evening)|greetings)( there| all| everyone)?"
    r"(?=\s*[,!.，！。])",
    r"(你好|您好|嗨|哈喽|早上好|晚上好|下午好|大家好)",
    r"(こんにちは|こんばんは|おはようございます|おはよう|はじめまして|どうも)",
    # acknowledgements that open a statement
    r"(ok(ay)?|alright|all right|sure|yes|yeah|yep|well|so|great|cool|fine|right)\b(?=[\s,!.])",
    r"(sounds (good|great)|perfect|got it|agreed|makes sense)(?=\s*[,!.])",
    r"(no wait|no|nope|wait)(?=\s*,)",  # "no, I live in Munich now, not Berlin"
    r"(不对|不是的|错了)(?=[，,！!])",
    r"(好的|好吧|嗯嗯|嗯|行吧|那好|好|行)(?=[，,！!。\s])",
    r"(はい|うん|じゃあ|では|それでは|よし|了解です|了解|わかりました)(?=[、，,！!。\s])",
    # discourse connectives that open a statement ("Also, my sister lives in Lyon.")
    r"(and also|also|and)\b(?=\s*,|\s+\w)",
    r"(plus|besides|anyway|anyways|oh|on another note|one more thing)(?=\s*,)",
    r"(还有|另外|而且|对了|哦对了|顺便)(?=[，,])",
    r"(あと|それと|それから|そういえば)(?=[、，,])",
    # "remember this" and its kin
    r"(please\s+)?((can|could|would) you\s+(please\s+)?)?(remember|note|keep in mind|don'?t "
    r"forget|make a note|take note|note down)(\s+(of\s+)?this)?(?=\s*[,:]|\s+that\b)",
    r"(for the record|just so you know|fyi|btw|by the way)\b",
    r"(correction|update|reminder|note)\s*(?=:)",
    r"((big|good|great|some|exciting) news|heads[- ]up|quick (update|intro[^:,]{0,50})|fun fact|"
    r"guess what)\s*(?=[:!,—-])",
    r"(请你?|帮我|麻烦)?(记住|记一下|记下来|记下|记得|备注一下|备注|注意一下|提醒一下)",
    r"(更正一下|更正|纠正一下|纠正|修正一下|补充一下|补充|顺便说一下|顺便说|(跟你|和你|给你)?说一下"
    r"|告诉你(一下)?)(?=[：:，,])",
    r"(覚えておいてください|覚えておいて|メモしてください|メモして|念のため|ちなみに|訂正です|訂正)"
    r"(?=[、：:，,])",
]
_LEADING_WRAPPER = re.compile(
    r"^\s*(?:" + "|".join(f"(?:{p})" for p in _LEADING) + r")" + _SEPARATOR, re.IGNORECASE
)
_LEADING_THAT = re.compile(r"(?i)^that\s+")
_TRAILING_WRAPPER = re.compile(
    r"(?:(?:ということ|こと)?(?:を|と)?(?:覚えておいて|メモして)(?:ください|ね|ほしい|おいて)?"
    r"|[，,]?\s*(?:请)?记住(?:了|哦|啊)?"
    r"|(?i:,?\s*(?:please\s+)?remember that|,?\s*please)"
    r"|(?i:,?\s+(?:btw|by the way|fyi|lol|haha+|for the record)))"
    r"(?=[。.!！]?\s*$)"
)
"""What closes a statement without being part of it: "覚えておいて", "please", and filler
("My name is Dmitri btw": found trying the product, stored with its "btw")."""
_DANGLING_THEN = re.compile(
    r"(?i)(?<!\bsince)(?<!\bback)(?<!\buntil)(?<!\btill)(?<!\bby)(?<!\bfrom)(?<!\bjust)"
    r"(?<!\bonly)(?<!\beven)(?<!\band)(?<!\bright)(,?\s+then|那就|那)(?=[.!。！]?\s*$)"
)
"""A decision's closing "then" ("let's go with PostgreSQL then"), never the time "then" of
"since then", "back then", "until then" (a LoCoMo turn lost its last word to it, #23)."""
MAX_ROUNDS = 3


def unwrapped(text: str) -> str:
    """The statement without the greeting, acknowledgement or "remember that" around it; the
    text unchanged when nothing is left or nothing was taken off."""
    statement = text.strip()
    for _ in range(MAX_ROUNDS):
        stripped = _LEADING_WRAPPER.sub("", statement, count=1)
        stripped = _LEADING_THAT.sub("", stripped) if stripped != statement else stripped
        stripped = _TRAILING_WRAPPER.sub("", stripped).strip()
        stripped = _DANGLING_THEN.sub("", stripped).strip()
        if stripped == statement:
            break
        statement = stripped
    if not _has_content(statement):
        return text.strip()
    if statement != text.strip() and statement[:1].islower() and text.strip()[:1].isascii():
        statement = statement[0].upper() + statement[1:]
    if statement != text.strip() and not re.search(r"[.!?。！？]$", statement):
        statement += "。" if re.search(r"[\u3040-\u30ff\u4e00-\u9fff]$", statement) else "."
    return statement


def _has_content(text: str) -> bool:
    """More than punctuation and one short word."""
    letters = re.sub(r"[\W_]", "", text)
    return len(letters) >= 3


_CHOSEN = [
    re.compile(
        r"(?i)^(?:let'?s|we'?ll|we will|i'?ll|i will|we should)\s+(?:go with|use|pick|choose|"
        r"take|stick with|try)\s+(?P<thing>[\w.+#-]+(?: [A-Z0-9][\w.+#-]*)?)"
        r"(?:,?\s+then)?\s*[.!]?$"
    ),
    re.compile(
        r"^(?:那就|就|那)?(?:用|选|选择|上)"
        r"(?P<thing>[A-Za-z0-9.+# -]{2,30}|[\u4e00-\u9fff]{2,8})吧?[。！!]?$"
    ),
    re.compile(
        r"^(?P<thing>[\w.+# -]{2,30})"
        r"(?:にしましょう|でいきましょう|にします|で行きましょう|でお願いします)[。！!]?$"
    ),
]
_PURPOSE = re.compile(
    r"(?i)\bfor (?P<purpose>(?:the |our |my |a |an |this )?[\w\- ]{2,50}?)"
    r"(?=\s*(?:[,?.:;!]|$| should| shall| do| would| we| I| you| is| are))"
)


def chosen_thing(decision: str) -> str | None:
    """What a bare decision chose ("let's go with PostgreSQL then" → PostgreSQL), or None when
    the decision is not bare (it says what for, or is no such decision)."""
    text = unwrapped(decision).strip()
    for pattern in _CHOSEN:
        match = pattern.match(text)
        if match is not None:
            return match.group("thing").strip().rstrip(".!")
    return None


def with_purpose(decision: str, around: list[str]) -> str:
    """A bare decision with what it was chosen for, when the exchange says it ("Let's go with
    PostgreSQL." → "Let's go with PostgreSQL for the orders database."); else as it is."""
    thing = chosen_thing(decision)
    purpose = purpose_for(thing, around) if thing else None
    if purpose is None:
        return decision
    ending = re.search(r"[.!。！]$", decision)
    body = decision[: ending.start()] if ending else decision
    return f"{body} for {purpose}."


def purpose_for(thing: str, around: list[str]) -> str | None:
    """What `thing` was chosen for, read from the other messages of the exchange: the first
    sentence naming it that says "for …" ("For the orders database, PostgreSQL or MongoDB?"
    → "the orders database"); None when none says."""
    for message in around:
        for sentence in re.split(r"(?<=[.?!。？！])\s*|\n+", message):
            if thing.lower() not in sentence.lower():
                continue
            match = _PURPOSE.search(sentence)
            if match is not None and thing.lower() not in match.group("purpose").lower():
                return match.group("purpose").strip()
    return None
