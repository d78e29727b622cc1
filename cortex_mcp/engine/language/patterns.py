"""High-signal patterns of the fast channel, as data: Chinese, English and Japanese.

A hit in a user's statement is written to core at once, before any LLM is asked. Patterns never
fire on questions ("do you prefer…?", "你喜欢…吗") or on quoted text: `signal_sentences` strips
quotes and drops questions before the patterns see a sentence. The Chinese ones start from the
seed design (seed 000, §5.2.3); English and Japanese are their equivalents.
"""

import re
from dataclasses import dataclass

from cortex_mcp.engine.language.naming import BARE_CORRECTION
from cortex_mcp.models import Category


@dataclass(frozen=True)
class Signal:
    """One kind of high-signal statement: where it goes and how much it matters."""

    name: str
    category: Category
    importance: float
    patterns: tuple[re.Pattern[str], ...]


def _any(*patterns: str, flags: int = 0) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p, flags) for p in patterns)


_RULE_VERBS = (
    r"(?:use|run|write|commit|(?:force[- ]?)?push|merge|deploy|add|include|put|keep|store|place|"
    r"format|name|prefix|call|check|test|document|reply|answer|respond|cite|start|end|log|return|wrap|pin|"
    r"lint|sign|review|squash|rebase|import|mock|hard-?code|delete|edit|modify|touch|expose|"
    r"print|catch|raise|leave|skip|disable|bypass|rename|mention|ship|release|type|annotate)"
)
"""What a convention tells one to do ("Always use type hints", "Never commit secrets"); not
"Never give up", "Always up for something sweet"."""

SIGNALS: tuple[Signal, ...] = (
    Signal(
        "correction",
        Category.CORRECTION,
        0.9,
        _any(
            r"不是[^，。,]+[，,。]\s*(而)?是|其实|搞错了|更正|纠正一下|说错了|不再|已经不|改成了?|换成了?",
            r"[，,]\s*(而)?不是\s*[A-Za-z0-9\u4e00-\u9fff][^，。,]{0,20}[。！!]?$|^不对[，,]",
            r"(那条|这条)[^，。]{0,6}(取消|作废|不算)",
        )
        + _any(
            r"\b(actually|to correct|i was wrong|that'?s (not right|wrong)|"
            r"i misspoke|i meant|no longer|not anymore|any ?more|switched from|changed (it )?to)\b",
            r"\bcorrection\s*[:：,]",
            r"\bi misremembered\b|\bi was mistaken\b",
            r"(?:\b(?:is|are|uses|runs? on|named|called)|\b(?:it|that|my \w+)['’]s)\s+"
            r"[A-Z0-9][\w.+#-]*(?: [\w.+#-]+)?,"
            r"\s*not\s+(?:the\s+)?[A-Z0-9]",
            r"\b(?:forget|ignore|disregard) (?:what I said|what I told you|the rule|that rule)\b",
            r"\bnot\b[^,.;]{1,40},\s*but\b",
            flags=re.IGNORECASE,
        )
        + _any(
            r"実は|間違い(でした|です)|訂正|ではなく[^。]{1,30}(です|だ)|じゃなくて",
            r"もう[^。]{0,20}ない",
        )
        + (BARE_CORRECTION,),  # "Yes Boston, not Austin.", "sorry, it's max not rex"
    ),
    Signal(
        "identity",
        Category.IDENTITY,
        0.9,
        _any(
            r"我是[^，。,？?]{0,12}(人|工程师|投资者|开发者|学生|老师|医生|设计师|经理|创业者|程序员)",
            r"我叫|我的名字是|我住在|我在[^，。,]{1,10}(工作|上班|生活|读书)",
        )
        + _any(
            r"\bmy name is\b|\bcall me\b|\bI live in\b|\bI'?m from\b|\bI work (at|for|as)\b",
            r"\bI(?: am|'m) an? (?!bit\b|little\b|lot\b|fan\b)[a-z-]+(?: [a-z-]+)?\b",
            flags=re.IGNORECASE,
        )
        + _any(
            r"(私|僕|俺)の名前は|と申します|に住んで(い|お)ます|で働いて(い|お)ます|出身です",
            r"(私|僕)は[^。、]{0,12}(エンジニア|開発者|投資家|学生|会社員|医者|デザイナー|教師)",
        ),
    ),
    Signal(
        "rule",
        Category.RULE,
        0.85,
        _any(
            rf"^\W*(?:please )?(?:always|never|do not|don'?t) (?:ever )?{_RULE_VERBS}\b",
            r"^(?!\W*(?:i|we|you|he|she|they|it|it's|that|this|there|these|those|one|must)\b)"
            r"[^,;!]*?(?<!\ba )\b(?:must|shall)(?: not|n't)? (?:always |never |only )?"
            r"(?!(?:be|feel|have|look|seem|sound|taste|get|go|know|love|for|see|visit|try|do|"
            r"admit|say)\b)[a-z]+",
            r"^(?!\W*(?:i|we|you|he|she|they|it|it's|that|this|there|these|those|one|must)\b)"
            r"[^,;!]*?\b(?:must|shall)(?: not|n't)? (?:always |never |only )?be [a-z]+(?:ed|en)\b",
            r"\b(?:is|are) (?:not )?(?:allowed|required|forbidden|prohibited) to "
            rf"{_RULE_VERBS}\b|\b(?:is|are) (?:forbidden|prohibited|not allowed)\b",
            r"\b(?:the|our|my|team|house|project|code) (?:rule|convention|policy|guideline) "
            r"(?:here )?is(?: that|:| to)|^\W*(?:rule|convention|policy)\s*[:：]",
            flags=re.IGNORECASE,
        )
        + _any(
            r"(?<![我你他她])(?:必须|禁止|不得|不允许|严禁|一律|务必)",
            r"(?:规范|原则|规则|约定|规定)(?:是|[:：])",
            r"(?<![我你他她])(?:不能|不要|不可以)(?=[^，。]*(?:代码|文件|目录|测试|提交|分支|接口|函数|"
            r"变量|依赖|数据库|主分支|[A-Za-z]{2,}))",
        )
        + _any(
            r"禁止|ルール(?:は|です|として)|規約|規則|してはいけない|してはならない|してはダメ",
            r"必ず[^。]*(?:こと|てください|ください)(?:[。]|$)",
            r"(?:ないこと|ること)[。]?$",
        ),
    ),
    Signal(
        "preference",
        Category.PREFERENCE,
        0.8,
        _any(r"我(很|最|比较|更|一直|不太|不)?(喜欢|偏好|不要|不想|讨厌|倾向|习惯|prefer)")
        + _any(
            r"\bI (really |much |strongly |usually |always )?(prefer|like|love|hate|dislike|"
            r"enjoy|can'?t stand|don'?t (like|want)|do not (like|want))\b",
            r"\bmy favou?rite\b",
            r"\b(keep|make) (your |the )?(answers|replies|responses) "
            r"(short|brief|concise|detailed)",
            r"\b(answer|reply|respond) (briefly|concisely|in detail|in bullet points|with code)\b",
            r"\b(no|don'?t use|without) emojis?\b",
            flags=re.IGNORECASE,
        )
        + _any(
            r"(回答|回复)(请|要|都)?(简洁|简短|详细)|(请|以后|今后)(都)?(简洁|简短|详细)(一点|些)?地?(回答|回复)",
            r"不要(用|加)?表情|用要点(回答|列出)",
        )
        + _any(
            r"(が|は)(大)?(好き|嫌い|苦手)(です|だ|なんです)?(?!か)|の方が(いい|好き)|を好みます",
            r"(簡潔|短く|詳しく)(に)?(答えて|回答して|説明して)|箇条書きで(答えて|お願い)",
        ),
    ),
    Signal(
        "decision",
        Category.DECISION,
        0.8,
        _any(r"决定|选择了|最终用|确定用|就这样吧|就用|最后选了|选用了|定了用")
        + _any(
            r"\b(I|we)('ve| have)? (decided|chose|picked|settled on)\b",
            r"\b(I|we)('ll| will| are going to) go with\b|\blet'?s go with\b|\bfinal decision\b",
            r"\b(I|we)('ve| have)? (went|gone|ended up going) with (?!(?:my|our|the kids|him|her|"
            r"them|friends|family|mom|dad|\w+ (?:for|to) (?:lunch|dinner|breakfast|a walk|a drive|"
            r"coffee|drinks))\b)"
            r"[\w./+-]+(?: [A-Z][\w./+-]*)? (?:for|over|instead of|rather than|as|because)\b",
            r"\bwe('re| are) going with\b|\b(I|we) opted for\b",
            # "Let's use PostgreSQL for the billing service", "we'll use PostgreSQL, not MySQL":
            # a tool chosen for a purpose or over another (not "let's use a for loop here",
            # "let's use it for now")
            r"\b(let'?s|(I|we)('ll| will| are going to)) (use|switch to|move to) "
            r"(?!(?:a|an|the|this|that|these|those|some|it|them|my|our|your)\b)"
            r"[\w./+-]+(?: [A-Z][\w./+-]*)?(?: (?:for|over|instead of|rather than|as)|, not)\b",
            flags=re.IGNORECASE,
        )
        + _any(
            r"(に|と)決めました|に決定|にします|を選びました|で行きます|で決まり",
            r"(を使う|を採用する|にする|で行く)ことにしました|を採用しました",
        ),
    ),
    Signal(
        "remember",
        Category.FACT,
        0.85,
        _any(r"^(请|麻烦)?(你)?(帮我)?(记住|记一下|记下)|(请|你要)记住|请记得(?!要|去)")
        + _any(
            r"^\W*(please )?(remember|note)(,| that\b|:)|^\W*remember my\b",
            r"\b(don'?t|do not|never) forget (that|about my)\b|\bplease remember\b(?! to\b)",
            flags=re.IGNORECASE,
        )
        + _any(r"覚えて(おいて|おいてください|ください)|覚えといて|忘れないでね?[。、]"),
    ),
    Signal(
        "todo",
        Category.TODO,
        0.7,
        _any(r"(?<!我)记得(要|去)|提醒我|待办|(我|我们)(还)?(需要|得|要)去?做")
        + _any(
            r"\b(remind me|don'?t forget|remember to|to-?do:?|I need to|I have to|I must)\b",
            flags=re.IGNORECASE,
        )
        + _any(r"忘れずに|覚えておいて|リマインド|しなければ(なりません|ならない)|やること"),
    ),
    Signal(
        "important",
        Category.FACT,
        0.8,
        _any(r"重要[：:]|关键是|核心是|本质上|最重要的是")
        + _any(
            r"\bimportant:|\bthe key (is|point)\b|\bkeep in mind\b|\bcrucially\b",
            flags=re.IGNORECASE,
        )
        + _any(r"重要なのは|ポイントは|大事なのは|本質的に"),
    ),
)

DECISION = next(s for s in SIGNALS if s.name == "decision")
REMEMBER = next(s for s in SIGNALS if s.name == "remember")

_AGREES = re.compile(
    r"(?i)^\W*(yes|yeah|yep|sure|ok(ay)?|sounds good|agreed|deal|let'?s do (it|that)|"
    r"go (for it|ahead)|perfect|great|that works|makes sense|do it)\b"
    r"|^\W*(好的?|行|可以|同意|没问题|就这么(办|定了?)|就这样|对|嗯)"
    r"|^\W*(はい|ええ|いいね|いいですね|それで(お願いします|いきましょう|行きましょう)|了解|賛成|オッケー)"
)
_REPORTS_DECISION = re.compile(
    r"(?i)\b(we|you|I)('ve| have)? (decided|agreed|settled on|chose|picked|went with|opted for)\b"
    r"|\bwe'?re going with\b|\bthe decision (is|was)\b"
    r"|决定了|已经决定|定下来了|商定|最终(选择|决定)了|決めました|決定しました|決まりました"
)


def agrees(user: str) -> bool:
    """True when the user's message opens by agreeing ("sounds good", 好的, いいですね)."""
    return bool(_AGREES.search(user))


def reports_decision(sentence: str) -> bool:
    """True when a sentence reports a decision already made ("We decided to use Redis")."""
    return bool(_REPORTS_DECISION.search(sentence))


_QUOTED = re.compile(r"“[^”]*”|「[^」]*」|『[^』]*』|\"[^\"]*\"|(?<![\w])'[^']*'(?![\w])")
"""Quoted speech, which patterns must not fire on. Not code in backticks: "Always run `tox -e
py312` before tagging a release." is a rule about that command, and without it the memory read
"Always run   before tagging a release." (found trying the product)."""
_SENTENCE_END = re.compile(r"(?<=[。！？!?；])|(?<=[.])\s+|\n+")
"""Where a message's sentences end; not at an English ";", which joins two halves of one
thought ("Always use pytest; never use unittest." kept "Always use pytest;" alone: the second
half, starting in lowercase, was a fragment)."""
_QUESTION_END = re.compile(r"[?？]\s*$|(吗|嗎|呢|么|麼|ですか|ますか|でしょうか|か)\s*[。.]?\s*$")
_QUESTION_START = re.compile(
    r"^\s*(do|does|did|would|could|can|should|will|shall|is|are|was|were|have|has)\s+(you|i|we)\b"
    r"|^\s*(is|was|isn't|wasn't)\s+(it|that)\s+(true|right|correct)\b"
    r"|^\s*(what|which|who|whom|whose|why|how|when|where)\b",
    re.IGNORECASE,
)
_QUESTION_ASK = re.compile(r"你(是否|有没有)|是不是|(请|可以)?问(一下)?")


_HEARSAY = re.compile(
    r"(?i)\b(he|she|they|my (friend|colleague|boss|manager)|someone|people|everyone)"
    r"\s+(said|says|told|thinks|claims)\b|\btold me\b"
    r"|^\s*(if(?!\s+(?:I'm|I am) (?:being )?honest|\s+it helps|\s+you(?:'re| are) wondering"
    r"|\s+you (?:need|must|want) to know|\s+anything\b)|suppose|supposing|imagine|maybe|perhaps)\b"
    r"|(他|她|他们|朋友|同事|老板|老师|别人)(说|告诉我|觉得)|^(如果|假如|要是|假设|也许)|^你(说|觉得|以为)"
    r"|と(言って|言った|言いました|話して)|だそうです|^もし|かもしれ"
)


def is_hearsay(sentence: str) -> bool:
    """True for reported speech and hypotheticals: what someone else said, what might be (not
    "If I'm honest, …", "If it helps, …": found re-testing, the fact after them was lost)."""
    return bool(_HEARSAY.search(sentence))


def is_question(sentence: str) -> bool:
    """True for a question in any of the three languages, with or without a question mark."""
    return bool(
        _QUESTION_END.search(sentence)
        or _QUESTION_START.search(sentence)
        or _QUESTION_ASK.search(sentence)
    )


_LINE_BREAKS = re.compile(r"\n+")
_TITLE_BEFORE_A_NAME = re.compile(r"(?:^|[\s(])(?:St|Ste|Mt|Ft|Dr|Mr|Mrs|Ms|Prof|Sen|Gen)\.$")
"""A full stop no sentence ends on: a saint's, mount's or fort's, a title's before a name (St.
Louis, Dr. Smith)."""
_INITIAL_OR_FIRM = re.compile(r"(?:(?:^|[\s.(])[A-Z]|\b(?:Corp|Inc|Co|Ltd|Bros))\.$")
"""A full stop a name goes on after (J.P. Morgan, L.A., Acme Corp. Labs), unless what follows
begins a sentence."""
_BEGINS_A_SENTENCE = re.compile(
    r"(?:I|I'm|I've|I'd|We|You|He|She|They|It|It's|This|That|There|The|A|An|My|Our|Your|Do|Does|"
    r"Did|Are|Is|Was|Were|Can|Could|Will|Would|Should|What|Why|How|When|Where|Who|Which|And|But|"
    r"So|Also|Thanks|Thank|Yes|No|Ok|Okay|Let's|Please|Have|Has|Had|Just|Not|Any|As)\b"
)


def split_sentences(text: str) -> list[str]:
    """The text split where sentences end (after 。！？!?；, a full stop and a space, a line
    break), but not after a title or an initial that a name goes on after: "I work at J.P.
    Morgan." was stored as "I work at J.P." (found trying the product)."""
    pieces: list[str] = []
    for line in _LINE_BREAKS.split(text):
        start = len(pieces)
        for piece in _SENTENCE_END.split(line):
            if len(pieces) > start and _goes_on(pieces[-1], piece):
                pieces[-1] = f"{pieces[-1]} {piece}"
            else:
                pieces.append(piece)
    return pieces


def _goes_on(before: str, after: str) -> bool:
    """True when the sentence `before` ends on an abbreviation the text `after` continues."""
    if not before.endswith(".") or not after[:1].isalpha():
        return False
    if _TITLE_BEFORE_A_NAME.search(before):
        return True
    if not _INITIAL_OR_FIRM.search(before):
        return False
    if after[:1].islower():  # "Is it true that I work at Acme Corp. now?" asks whole
        return True
    # "I work at Apple Inc. Got any tips?" states, then asks
    return not _BEGINS_A_SENTENCE.match(after) and not ends_asking(after)


def sentences_of(text: str) -> list[str]:
    """The text's sentences (`split_sentences`), stripped."""
    return [piece.strip() for piece in split_sentences(text) if piece.strip()]


_ENDS_ASKING = re.compile(
    r"(?:[?？]|[吗嗎]\s*[。.]?|(?:ます|ました|です|でした|でしょう|ません)か\s*[。.]?)\s*$"
)


_LAST_OF_ASKING = frozenset("?？吗嗎か")
_FULL_STOPS = frozenset("。.")


def ends_asking(text: str) -> bool:
    """True when a text ends on a question ("Cool! What did it look like?", "…你去过吗？"): it
    asks for a fact more than it states one."""
    # the pattern can only match where the last sign (before a full stop, if any) asks; this
    # check spares the scan of the whole text for nearly every memory (0.2 ms a recall at
    # 100,000 memories, where few candidates were seen before)
    tail = text.rstrip()
    if tail and tail[-1] in _FULL_STOPS:
        tail = tail[:-1].rstrip()
    if not tail or tail[-1] not in _LAST_OF_ASKING:
        return False
    return bool(_ENDS_ASKING.search(text))


def only_asks(text: str) -> bool:
    """True when every sentence of a message asks ("what port is staging on?", "你去过吗？"):
    it says what someone wanted to know, not what is so ("Hi! What port?" greets first)."""
    sentences = sentences_of(text)
    return bool(sentences) and all(ends_asking(sentence) for sentence in sentences)


_RECALLED_LINE = re.compile(
    r"^\s*-\s*\[\d{4}-\d{2}-\d{2} · [^\]]*\]"
    r"|^\s*(Relevant memories|Core memory digest|Said in earlier conversations) \("
)
"""A line of a context block recall gave out (`- [2026-01-01 · core · decision] …`), quoted
back in a reply: what was recalled, not something said now."""


def without_recalled(text: str) -> str:
    """The text without the lines of context blocks it quotes."""
    return "\n".join(line for line in text.splitlines() if not _RECALLED_LINE.search(line))


_ASKED_BACK = re.compile(
    r"(?i:[,;]?\s*(?:(?:and|but|so)\s+)?(?:how|what)\s+about\s+you(?:rself|rs)?"
    r"|,\s*(?:and\s+)?(?:do|does|did|are|is|have|can|will|would)\s+you(?:\s+\w+){0,3}"
    r"|,\s*(?:and\s+)?you)\s*[?？]\s*$"
    r"|[，,、；;\s]?(?:那|而)?(?:你|您|你们)(?:呢|也是吗|也是)\s*[？?]?\s*$"
    r"|[，,](?=[^，,。]*(?:你|您))[^，,。]*(?:吗|嗎|呢)?\s*[？?]\s*$"
    r"|(?:が|けど|けれど)?[、,\s]?(?:あなた|君|きみ)(?:は|も)\s*[？?]?\s*$"
)
"""The question a statement ends on, asked back of the listener: "I live in Denver, how about
you?", 我住在北京你呢, 札幌に住んでいますが、あなたは？, 我搬到深圳了，你去过深圳吗？ (found
trying the product: each stored nothing, as a question)."""


_ASKS_WHICH = re.compile(r"(?:哪里|哪儿|哪个|哪家|什么|谁|誰|多少|どこ|だれ)[呢啊呀]?\s*[。.]?\s*$")
"""A question word of Chinese or Japanese ending a clause: 我住在哪里 (typed without its question
mark), 我住在哪里，你知道吗？ ask; 我住在北京，谁都知道 states (found re-testing)."""


def stated_before_asking(sentence: str) -> str | None:
    """The statement a question asked back follows (`_ASKED_BACK`), when it asks nothing
    itself; None for any other question."""
    asked_back = _ASKED_BACK.search(sentence)
    if asked_back is None:
        return None
    stated = sentence[: asked_back.start()].strip(" ,;，、；")
    if not stated or is_question(stated) or _ASKS_WHICH.search(stated):
        return None
    if stated[-1] in ".!。！":
        return stated
    return stated + ("." if stated[-1].isascii() else "。")


def signal_sentences(text: str) -> list[str]:
    """The statements of a message that patterns may fire on: no quotes, no questions, no
    reported speech or hypotheticals."""
    kept: list[str] = []
    for line in text.splitlines():
        if line.lstrip().startswith(">") or _RECALLED_LINE.search(line):
            continue  # a quoted reply, or a memory recall gave out
        for sentence in split_sentences(line):
            stripped = sentence.strip()
            if stripped and (is_question(stripped) or _ASKS_WHICH.search(stripped)):
                stripped = stated_before_asking(stripped) or ""
            if stripped and not is_hearsay(stripped):
                unquoted = _QUOTED.sub(" ", stripped).strip()
                if unquoted:
                    kept.append(stripped if unquoted == stripped else unquoted)
    return kept


@dataclass(frozen=True)
class SignalHit:
    """A sentence that carries a high signal, and which one."""

    signal: Signal
    sentence: str


def detect_signals(text: str) -> list[SignalHit]:
    """Each high-signal sentence of a user's message, with the first signal it matches."""
    hits: list[SignalHit] = []
    for sentence in signal_sentences(text):
        for signal in SIGNALS:
            if any(p.search(sentence) for p in signal.patterns):
                hits.append(SignalHit(signal, sentence))
                break
    return hits


_SMALL_TALK = re.compile(
    r"^\W*(hi|hello|hey|yo|thanks|thank you|thx|ok|okay|cool|nice|great|bye|good (morning|night|"
    r"evening|afternoon)|lol|haha|你好|您好|嗨|谢谢|多谢|好的|好吧|嗯|哈哈|再见|早上好|晚安|"
    r"こんにちは|こんばんは|おはよう|ありがとう|どうも|了解|はい|さようなら|おやすみ)\W*$",
    re.IGNORECASE,
)
_WEATHER = re.compile(r"天气|天氣|weather|天気|sunny|下雨|晴天|いい天気", re.IGNORECASE)


def is_small_talk(user_message: str, assistant_message: str) -> bool:
    """Greetings, thanks and weather chat with a short answer: nothing worth an LLM call."""
    user = user_message.strip()
    if len(assistant_message.strip()) >= 100 or len(user) > 40 or detect_signals(user):
        return False
    return bool(_SMALL_TALK.match(user) or _WEATHER.search(user) or not user)


_CORRECTION_MARKERS = re.compile(
    r"(?i)\b(actually|correction|to correct|i was wrong|i misspoke|i meant|no longer|"
    r"not anymore|anymore|any more)\b[:,]?|更正一下|更正|纠正一下|其实|说错了|搞错了|実は|訂正"
)


def without_correction_markers(text: str) -> str:
    """A correction's statement without the words that mark it as one ("actually", 更正…),
    for comparing it with the memory it corrects."""
    return " ".join(_CORRECTION_MARKERS.sub(" ", text).split())


CORRECTION = next(signal for signal in SIGNALS if signal.name == "correction")


_AGREEING_ACTUALLY = re.compile(r"(?i)\b(?:yeah|yes|yep|yup)\b[,!.]?\s*actually\b")
"""An "actually" that follows a yes: it agrees and goes on ("Yeah actually - I'm currently
participating in the video game tournament again"), it corrects nothing."""


def is_correction(text: str) -> bool:
    """True when the text corrects something said before (an "actually" right after a yes
    does not count)."""
    text = _AGREEING_ACTUALLY.sub(" ", text)
    return any(p.search(text) for p in CORRECTION.patterns)
