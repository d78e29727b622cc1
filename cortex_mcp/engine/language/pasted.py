"""What a user pastes for the assistant to work on, told from what the user says.

"Reply to this customer email for me:" followed by the email: "I'm John Smith and I live in
Dallas" there is the customer's, not the user's (found trying the product: it was stored as who
the user is). `own_words` is a message without what it pastes, for the fast channel to read:

- a fenced code block (``` or ~~~, to the next fence of that kind or, never closed, to the end)
  is left out wherever it stands;
- a lead-in is a clause ending in a colon that asks for work on a text ("Reply to this email
  for me:", "Can you summarize this:", "Translate to Chinese:", 帮我回复这封邮件：,
  以下のメールに返信して：), shows a pasted thing ("Here's the log:", "I keep getting this
  error:", 以下是日志：) or says who wrote it ("Karen wrote:", "This is what he said:", "He told
  me:", "My coworker sent this:", "You say:", 他说：, 彼女が言った：). What follows it is left
  out: the fenced or `>`-quoted block that starts the next line when there is one (the user
  may go on after it); a quoted span opening the rest of its line; what someone said on the
  lead-in's own line, to the end of its sentence (one in the first person runs on while its
  writer speaks: `_spoken_on`; a greeted one, a letter, to its paragraph's end); else the rest
  of the message, up to a paragraph where the user speaks again (`_back_in_own_words`);
- a colon after anything else introduces the user's own words ("Note: I live in Dallas.",
  "Quick update: I moved to Dallas.", "Two things: …", "Caroline: …") and is read, unless the
  message is a pasted conversation: lines of two speakers or more ("User: …", "Assistant: …";
  "Bob: …", "Alice: …", "me: …") are its speakers', the "me:" ones the user's
  (`_others_turns`);
- a quote someone said that ends its sentence ('Tom said "I live in Berlin." I live in
  Munich.') is left out, and the user's next sentence read (`_without_quotes_said`).

The other pasted parts were left out before this: `>`-quoted lines and quoted spans, by
`patterns.signal_sentences`, which reads what this returns; tool results never reach it.
"""

import re

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")

_THING = (
    r"(?:e-?mails?|mails?|messages?|texts?|dms?|logs?|outputs?|errors?|tracebacks?|stack ?traces?|"
    r"exceptions?|tickets?|reviews?|posts?|comments?|letters?|paragraphs?|essays?|snippets?|code|"
    r"scripts?|functions?|quer(?:y|ies)|documents?|docs?|articles?|tweets?|repl(?:y|ies)|"
    r"responses?|drafts?|transcripts?|passages?|sentences?|threads?|bios?|resumes?|cover letters?|"
    r"stor(?:y|ies)|poems?|diffs?|patch(?:es)?|configs?|files?|reports?|abstracts?|memos?|"
    r"complaints?|inquir(?:y|ies)|announcements?|descriptions?|contracts?|invoices?|listings?|"
    r"chat|conversation|feedback|lyrics|speech)"
)
"""What is pasted to be worked on: a text, a message, a machine's output."""

_TASK = (
    r"(?:repl(?:y|ying)|respond(?:ing)?|answer(?:ing)?|write back|summari[sz](?:e|ing)|sum up|"
    r"translat(?:e|ing)|rewrit(?:e|ing)|re-?word|rephrase|paraphrase|proofread(?:ing)?|"
    r"edit(?:ing)?|fix(?:ing)?|correct(?:ing)?|review(?:ing)?|check(?:ing)?|look (?:at|over)|"
    r"go over|read|explain|analy[sz]e|debug|improve|polish|shorten|simplify|clean up|critique)"
)
"""Work asked for on a pasted text."""

_ASKING = (
    r"(?:^|\b(?:please|pls|plz|can you|could you|would you|will you|help me|need to|want to|"
    r"have to|you to|trying to|how (?:do|should|can) i|how to)\s+)"
)
"""Where a task is asked for: at the clause's start ("Reply to …") or after a request."""

_SAYS = (
    r"(?:said|says|wrote|writes|replied|replies|texted|posted|commented|emailed|messaged|sent|"
    r"sends|forwarded|told)(?:\s+(?:me|us|this|back|over|the following|to me|to us))*"
    r"(?:\s+(?:for|at|about|from|in|on|to)\s+(?:[\w'’-]+\s+){0,2}[\w'’-]+)?"
)
"""Who said or wrote what follows: "Karen wrote", "He told me", "My coworker sent this", "My son
wrote this for school"."""
_YOU_SAY = (
    r"^\W*(?:(?:and|then|now|so),?\s+)?you\s+(?:say|said|reply|answer|respond)"
    r"(?:\s+(?:to me|to him|to her|to them|back))?\s*$"
)
"""Lines given to the assistant to play ("Roleplay as a pirate. You say: 'I'm Captain Jack, I live
in Tortuga.'": found re-testing, Tortuga was stored as the user's home)."""

_LEAD_INS = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        # a task on a pasted text: "Reply to this customer email for me", "summarize this"
        rf"{_ASKING}{_TASK}\b(?!\s+(?:this|it) out\b)"
        rf".*\b(?:(?:this|these|that|the following|the|his|her|their|our|a|an)\s+(?:[\w-]+\s+)"
        rf"{{0,3}}{_THING}|{_THING}\s+below|this|these|the following|below|it)\b",
        # the writing itself: "Fix the grammar", "check the spelling in this"
        rf"^\W*{_ASKING}(?:fix|check|correct|improve|proofread)\s+(?:the\s+|my\s+)?"
        r"(?:grammar|spelling|wording|typos?|punctuation|tone|formatting)"
        r"(?:\s+(?:in|of)\s+(?:this|these|it|the following))?(?:\s+for me)?\s*$",
        # fiction asked for: "Write a short story that starts with", "continue this poem"
        r"^\W*(?:please\s+)?(?:(?:can|could|would) you\s+)?(?:write|draft|compose|continue|finish)"
        r"\s+(?:an?\s+|the\s+|this\s+|my\s+)?(?:[\w-]+\s+){0,3}(?:stor(?:y|ies)|poems?|scenes?|"
        r"songs?|dialogues?|scripts?|novels?|fan ?fics?|monologues?)\b.*$",
        # translating needs no thing named: "Translate to Chinese", "translate into Japanese"
        r"^\W*(?:please\s+)?(?:translate|summari[sz]e|proofread|paraphrase|rephrase|reword)"
        r"(?:\s+(?:it|this))?(?:\s+(?:to|into)\s+\w+)?(?:\s+for me)?\s*$",
        # a pasted thing shown: "Here's the log", "I keep getting this error", "Email from Bo"
        rf"\b(?:here'?s|here is|here are|this is|these are|below is|attached is)\s+"
        rf"(?!my (?:e-?mail|number|address|phone)\s*$)(?:[\w-]+\s+){{0,3}}{_THING}\b",
        rf"\b(?:this|these|the following)\s+(?:[\w-]+\s+){{0,2}}{_THING}"
        r"(?:\s+(?:from|by|of|that|which|i|he|she|they|we)\b[^:]*)?\s*$",
        rf"^\W*(?:an?\s+|the\s+)?(?:[\w-]+\s+)?{_THING}\s+(?:from|by)\s+[^:]+$",
        r"^\W*(?:the\s+)?(?:[\w-]+\s+)?(?:errors?|output|traceback|stack ?trace|logs?|stderr|"
        r"stdout|exception)(?:\s+(?:output|message|log))?\s*$",
        # who wrote it, not the user: "Karen wrote", "this is what he said", "my boss replied"
        r"^\W*(?!(?:and |so |then |but )*(?:i|we)\b)(?:[\w'’.-]+\s+){0,6}?"
        r"(?<!\bi\s)(?<!\bwe\s)"
        rf"{_SAYS}\s*$",
        _YOU_SAY,
        # zh: 帮我回复这封邮件, 翻译成英文, 以下是日志, 他说, 客户写道
        r"(?:回复|回覆|答复|回答|翻译|总结|概括|润色|改写|重写|修改|改一下|校对|检查|看看|看一下|"
        r"分析|解释|优化|点评)"
        r".*(?:这|那|以下|下面|如下|邮件|消息|信息|短信|文字|文本|文章|段落|日志|输出|报错|错误|"
        r"评论|帖子|工单|代码|[成为]\S{0,4}[文语])",
        r"^(?:翻译|总结|概括|润色|校对)(?:一下)?$",
        r"^(?:以下|下面|如下|这|这些)(?:是|为).*(?:邮件|消息|信息|短信|文字|文本|文章|段落|日志|"
        r"输出|报错|错误|评论|帖子|工单|代码)|这(?:封|条|段|篇|个|些)\S{0,6}(?:邮件|消息|信息|短信|"
        r"文字|文本|文章|段落|日志|输出|报错|错误|评论|帖子|工单|代码)$",
        r"(?:他|她|他们|她们|对方|客户|老板|同事|朋友|经理|老师|先生|女士|小姐|(?<![A-Za-z])[A-Za-z]+)"
        r"(?:跟我|对我|给我)?(?:说|说道|写道|回复说?|留言说?|发来)$|写道$",
        # ja: 以下のメールに返信して, 翻訳して, これがエラーです, 彼女が言った
        r"(?:以下|下記|次|この|これ|こちら|メール|メッセージ|文章|テキスト|ログ|出力|エラー|投稿|"
        r"コメント|チケット|コード|手紙|記事|語)\S*(?:返信|返事|回答|要約|翻訳|校正|添削|修正|確認|"
        r"チェック|レビュー|説明|分析|書き直|直し|直す|訳)",
        r"^(?:翻訳|要約|校正|添削)(?:して|してください|お願いします?)?$",
        r"^(?:以下|下記|次|これ|こちら)(?:は|が|の).*(?:メール|メッセージ|文章|テキスト|ログ|出力|"
        r"エラー|レビュー|投稿|コメント|チケット|コード|手紙|記事)",
        r"(?:彼|彼女|彼ら|相手|お客様|上司|同僚|友達|\S{1,8}(?:さん|様|くん|ちゃん))(?:が|は|から)"
        r"\S{0,10}(?:言った|言っていた|言いました|書いた|書いてきた|書きました|送ってきた)$",
    )
)
"""The clause before a colon that leads into pasted text, in English, Chinese and Japanese."""

_COLON = re.compile(r"[:：]")
_CLAUSE_END = re.compile(r"[.!?。！？:：]")


def own_words(message: str) -> str:
    """The message without what it pastes (the module's docstring says what that is)."""
    lines = message.splitlines()
    others = _others_turns(lines)
    kept: list[str] = []
    at = 0
    while at < len(lines):
        line = lines[at]
        if fence := _FENCE.match(line):
            at = _after_block(lines, at, fence.group(1))
            continue
        if at in others:
            at += 1  # "User: My name is Kevin.\nAssistant: Hi Kevin!": a pasted transcript
            continue
        if _LOG_LINE.match(line) or _CHAT_LINE.match(line):
            at += 1  # "2024-05-01T12:00:00Z WARN [svc] I live in /var/lib/app0": a program's
            continue
        if _an_email_begins(lines, at):
            at = _email_end(lines, at + 1)  # an email sent on: to the user's next paragraph
            continue
        found = _lead_in_end(line)
        if found is None and _asks_for_work_below(lines, at):
            kept.append(line)  # "Can you help me reply to this email?\n\n---\nHi Daniel, …"
            at = _after_the_letter(lines, at + 1)
            continue
        if found is None:
            kept += _without_quotes_said(line)
            at += 1
            continue
        lead_in, clause = found
        pasted = line[lead_in:]
        following = next((later for later in lines[at + 1 :] if later.strip()), "")
        if not pasted.strip() and (_FENCE.match(following) or following.lstrip().startswith(">")):
            kept.append(line[:lead_in])
            at += 1  # a fenced or quoted block, left out by its own rule
            continue
        kept.append(line[:lead_in])
        end = _quote_end(pasted, clause)
        if end is not None:  # "Mom wrote: call me. I live in Oslo": the quote is what she said
            going_on = pasted[end:].strip()
            kept += [going_on] if going_on else []
            at += 1
            continue
        if _SAYING.search(clause) and _a_letter(pasted):  # a greeted letter on its line: pasted
            at = next((i for i in range(at + 1, len(lines)) if not lines[i].strip()), len(lines))
            continue
        machine = _MACHINE.search(clause) is not None and _WRITTEN.search(clause) is None
        at = _back_in_own_words(lines, at + 1, machine)  # to the end, or the user's own again
    return message if kept == lines else "\n".join(kept)


_LEVEL = r"\[?(?:TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL|CRITICAL|[EWIF]\d{4})\]?"
_TIMESTAMP = r"\[?(?:\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}|\d{2}:\d{2}:\d{2})[^\s\]]*\]?"
_LOG_LINE = re.compile(
    rf"^\s*(?:{_TIMESTAMP}\s+(?:\S+\s+){{0,2}}?{_LEVEL}[\s:]"
    rf"|{_LEVEL}(?::|\s+)(?:\[[^\]\n]{{1,40}}\]|[\w.$-]{{1,60}}:))"
)
"""A line a program logged: a timestamp and a level, or a level and where it comes from
("2024-05-01T12:00:00Z WARN [svc] …", "ERROR [svc] …", "INFO:root:…"); found re-testing:
twenty pasted log lines became twenty core memories, "I live in /var/lib/app0" among them.
A level alone is the user's emphasis ("WARNING: I'm allergic to peanuts")."""
_CHAT_LINE = re.compile(
    r"^\s*(?:\[\d{1,2}:\d{2}(?::\d{2})?(?:\s*[AaPp][Mm])?\]\s*[^:\n]{1,40}:"
    r"|[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*){0,2}\s*\([^()\n]*\d{1,2}:\d{2}[^()\n]*\)\s*:)"
)
"""A line of a pasted chat, its sender timed: "Bob (Slack, 10:42): …", "[10:42] Bob: …". Its
sender's words are apart by spaces: a word of a thousand capitals before a colon, each capital
a word of its own, took 4.6 s (found re-testing this module's speed)."""
_SPEAKER = re.compile(
    r"^\s*((?:[Mm]y [a-z]{2,20}|[A-Za-z][\w.'-]{0,30}(?: [A-Z][\w.'-]{0,30}){0,2}))\s*:(?!//)"
)
"""A line's speaker label: "Bob:", "Mary Ann:", "User:", "me:", "My sister:"."""
_SAYS_I = re.compile(r"(?i)\s*(?:i|i'm|i've|i'd|i'll|my|we|we're|we've|our)\b")
"""A line that goes on in the first person after its label: someone speaking."""
_ROLE = re.compile(
    r"(?i)(?:user|assistant|ai|bot|chatbot|human|customer|client|agent|support|rep|system|"
    r"model|chatgpt|gpt|claude|gemini|copilot|interviewer|interviewee)$"
)
"""A speaker a transcript names by role: its "User" is not the one talking to this assistant."""
_ME = re.compile(r"(?i)(?:me|myself)$")
_HEADING = re.compile(
    r"(?i)(?:notes?|update|edit|todo|reminder|context|background|q|a|question|answer|summary|"
    r"ps|p\.s\.?|tldr|fyi|example|input|output|result|step|goal|problem|issue|error|warning|"
    r"info|name|subject|from|to|date|re|fwd?|https?|ftp)$"
)
"""A label heading the user's own words, not a speaker ("Note: I live in Dallas.")."""


def _others_turns(lines: list[str]) -> set[int]:
    """The lines of a pasted conversation said by someone other than the user: a message with
    two speakers or more, one named by a role ("User:", "Assistant:") or as the user ("me:")
    or one speaking twice ("Bob:", "Alice:", "Bob:"), or each in the first person ("Bob: I'm
    allergic to shellfish.\nAlice: my cat is Tom."), with what each line goes on
    to say before the next speaker's (found re-testing: "User: My name is Kevin.\nAssistant: Hi
    Kevin!" and "Bob: …\nAlice: I work at Amazon\nme: …" were stored as the user's). One
    speaker's lines are the user's ("Caroline: I went to the support group yesterday.")."""
    turns = [(at, _speaker(line)) for at, line in enumerate(lines)]
    spoken = [(at, who) for at, who in turns if who]
    speakers = [who for _, who in spoken]
    named = any(_ROLE.match(who) or _ME.match(who) for who in speakers)
    twice = len(speakers) > len(set(speakers))
    in_person = all(_in_the_first_person(lines[at]) for at, _ in spoken)
    if len(set(speakers)) < 2 or not (named or twice or in_person):
        return set()
    others: set[int] = set()
    theirs = False
    for at, who in turns[spoken[0][0] : spoken[-1][0] + 1]:
        theirs = not _ME.match(who) if who else theirs and bool(lines[at].strip())
        if theirs:
            others.add(at)
    return others


def _in_the_first_person(line: str) -> bool:
    """The labelled line speaks in the first person ("Bob: I'm allergic to shellfish.")."""
    label = _SPEAKER.match(line)
    return label is not None and _SAYS_I.match(line, label.end()) is not None


def _speaker(line: str) -> str:
    """The speaker a line is labelled with, or "" (a heading is no speaker; nor is a word in
    lower case other than a role, "me", "my sister" or one speaking in the first person:
    "bob: I work at Amazon.")."""
    label = _SPEAKER.match(line)
    if label is None:
        return ""
    who = label.group(1)
    if _HEADING.match(who):
        return ""
    cased = who[0].isupper() or who.startswith("my ")
    if not (cased or _ROLE.match(who) or _ME.match(who) or _in_the_first_person(line)):
        return ""
    return who.casefold()


_FORWARDED = re.compile(
    r"(?i)^\s*(?:-{2,}\s*(?:forwarded message|original message)\s*-{2,}"
    r"|begin forwarded message:)\s*$"
)
_HEADER = re.compile(r"(?i)^\s*(?:from|to|cc|bcc|subject|date|sent|reply-to):\s*\S")


def _an_email_begins(lines: list[str], at: int) -> bool:
    """A pasted email begins at line `at`: its forwarding line, or a "From:" header naming an
    address and followed by another header (found re-testing: "From: Bob Smith … my name is Bob
    and I live in Austin" was stored as the user; "From: Dana\nTo: Support" may be the user's
    own draft)."""
    line = lines[at]
    if _FORWARDED.match(line):
        return True
    if not line.lstrip().lower().startswith("from:") or "@" not in line:
        return False
    following = lines[at + 1] if at + 1 < len(lines) else ""
    return _HEADER.match(following) is not None


def _email_end(lines: list[str], start: int) -> int:
    """Where a pasted email ends: a paragraph where the user speaks to the assistant again
    ("Can you summarize this? By the way, I live in Austin.", "For context I live in Austin"),
    else the message's end (found re-testing: the user's facts after an email were lost)."""
    for at in range(max(start, 1), len(lines)):
        if lines[at - 1].strip():
            continue
        line = lines[at]
        if _TO_THE_ASSISTANT.search(line) or _BACK.match(line) or _BACK_AFTER_A_LINE.match(line):
            return at
    return len(lines)


_TO_THE_ASSISTANT = re.compile(
    r"(?i)\b(?:can|could|would|will) you\b|\bplease\b|\bfor context\b|\bme again\b"
    r"|\b(?:draft|write) (?:a |me a )?(?:reply|response|answer)\b"
)


_SAYING = re.compile(
    rf"(?i){_SAYS}\s*$|{_YOU_SAY}"
    r"|(?:说|说道|写道|回复说?|留言说?|发来)$|(?:言った|言っていた|言いました|書いた|書いてきた|書きました|送ってきた)$"
)
"""A lead-in that says who wrote or said it: what follows on its line is a quote, one sentence
or a quoted span, after which the user goes on (found re-testing: "My boss wrote: great job.
Anyway, I live in Oslo." lost the home)."""
_SAID_END = re.compile(
    r"^\s*(?:[\"“«「『][^\"”»」』]*[\"”»」』][.!?。！？]*"
    r"|[^.!?。！？]*(?:[.!?]+[\"”’]?(?=\s|$)|[。！？]+[」』”]?))"
)
"""The end of what was said, on the lead-in's line: a quoted span, or one sentence."""
_BACK = re.compile(
    r"(?i)^\s*(?:(?:also,? )?unrelated|separately|on (?:another|a different|an unrelated) note|"
    r"switching topics?|different topic)\b"
    r"|^\s*(?:换个话题|说点别的|题外话)|^\s*(?:話は変わりますが|別件)"
)
"""Where the user speaks again after a paste: a paragraph that begins by leaving its topic
("Unrelated, I moved to Dallas." after a log). "Also", "Anyway", "P.S." and "By the way" begin
paragraphs of pasted emails as often (found re-testing: "Also, I work at Acme Corp" in a
customer's email became the user's workplace): they count only after a separator line, or
after a blank line below a machine's output (`_MACHINE`)."""
_BACK_AFTER_A_LINE = re.compile(
    r"(?i)^\s*(?:by the way|btw|anyway|also|p\.?s\.?|oh,? and|one more thing)\b"
    r"|^\s*(?:顺便|另外|对了|还有)|^\s*(?:ところで|それと|あと、)"
)
_SEPARATOR = re.compile(r"^\s*(?:[-*_=]\s*){3,}$")
_MACHINE = re.compile(
    r"(?i)\b(?:logs?|errors?|output|tracebacks?|stack ?traces?|exceptions?|stderr|stdout|crash"
    r"(?:es)?|dumps?)\b|日志|报错|错误|输出|ログ|エラー|出力"
)
"""A lead-in to a machine's text: after it, "Also", "By the way" or "P.S." opening a paragraph
is the user again (an email's paragraphs begin so too; a log's do not)."""
_WRITTEN = re.compile(
    r"(?i)\b(?:e-?mails?|mails?|letters?|repl(?:y|ies)|dms?|(?:messages?|texts?|notes?|posts?|"
    r"reviews?) (?:from|by|to)\b)|邮件|信|メール|手紙"
)
"""A lead-in to what a person wrote, whatever it is about ("the email from a customer about the
crash"): its paragraphs may begin "Also" or "P.S." too. Not "the error message", "the user's
machine", "the ticket" (found re-testing: each lost the user's "Also, my name is Priya.")."""
_GREETING = re.compile(
    r"(?i)^\s*(?:hi|hello|hey|dear|good (?:morning|afternoon|evening)|greetings)\b"
    r"|^\s*(?:你好|您好|こんにちは|お世話になって)"
)


_QUOTE_SPAN = re.compile(r"^\s*(?:[\"“«「『][^\"”»」』\n]*[\"”»」』]|'[^\n]*?'(?!\w))[.!?。！？]*")
"""A quoted span opening what a lead-in's line pastes, in double quotes, CJK brackets or single
quotes (one closing before a letter is an apostrophe: 'I'm Captain Jack')."""
_FIRST_PERSON = re.compile(r"(?i)\b(?:i|my|mine|we|our)\b|[我私僕俺]")
_SENTENCE = re.compile(r"[^.!?。！？]+(?:[.!?]+[\"”’']?|[。！？]+[」』”]?)?")
_ASIDE = re.compile(r"(?i)\b(?:by the way|btw|anyway|for context|unrelated)\b|顺便|对了|ところで")
_ASKED = re.compile(r"[?？]\s*$")


def _quote_end(pasted: str, clause: str) -> int | None:
    """Where what a lead-in's line pastes ends when the user goes on after it on that line: a
    quoted span after any lead-in ('Fix the grammar: "Their going to the store." Also, I live in
    Austin.': found re-testing, Austin was lost), else what someone said (`_spoken_on`); None
    when it runs on past the line, or is a greeted letter (`_a_letter`)."""
    quoted = _QUOTE_SPAN.match(pasted)
    if quoted is not None:
        return quoted.end()
    if not pasted.strip() or not _SAYING.search(clause) or _a_letter(pasted):
        return None
    said = _SAID_END.search(pasted)
    return None if said is None else _spoken_on(pasted, said.end())


def _spoken_on(pasted: str, end: int) -> int:
    """Where what someone said ends, its first sentence ending at `end`: there, unless that
    sentence speaks as its writer ("My friend wrote: I just moved to Denver. My name is Rob.",
    "He told me: My name is Bond. I live in London.": found re-testing, Rob and London were
    stored as the user's); then its writer goes on until the user speaks again: an aside ("My
    wife is Anna by the way."), a question ("How should I respond?") or the same words with
    another value (他说：我住在北京。我住在上海。)."""
    first = pasted[:end]
    if not _FIRST_PERSON.search(first):
        return end
    for sentence in _SENTENCE.finditer(pasted, end):
        said = sentence.group().strip()
        if said and (_ASIDE.search(said) or _ASKED.search(said) or _said_again(first, said)):
            return sentence.start()
        end = sentence.end()
    return end


def _said_again(first: str, then: str) -> bool:
    """True when `then` begins with the words `first` begins with and goes on differently: the
    user's answer to what was said ("I live in Berlin." / "I live in Munich."), not more of it."""
    first, then = first.strip().casefold(), then.strip().casefold()
    same = 0
    for one, other in zip(first, then, strict=False):
        if one != other:
            break
        same += 1
    return first != then and same >= max(3, 2 * min(len(first), len(then)) // 5)


_QUOTE_SAID = re.compile(
    rf"(?i)\b{_SAYS}\s*,?\s*(?P<quote>[\"“][^\"”\n]*?(?P<stop>[.!?]?)[\"”])(?P<after>[.!?]*)\s+(?=\S)"
)
"""A quote someone said, without a colon, with more after it: 'Tom said "I live in Berlin." …'."""


def _without_quotes_said(line: str) -> list[str]:
    """The line without each quote someone said that ends its sentence, what follows it on a
    line of its own: the user's next sentence (found re-testing: 'Tom said "I live in Berlin." I
    live in Munich.' was one sentence of Tom's, and Munich was lost)."""
    pieces: list[str] = []
    start = 0
    for said in _QUOTE_SAID.finditer(line):
        if said.group("stop") or said.group("after"):
            pieces.append(line[start : said.start("quote")].rstrip())
            start = said.end()
    return [*pieces, line[start:]] if pieces else [line]


def _a_letter(pasted: str) -> bool:
    """A quote that opens with a greeting is a letter, not a sentence said: it runs on to the
    end of its paragraph ("Karen wrote: Hi! I'm Karen Lee and I live in Austin." gave the user
    Karen's name). Telling by whether it names its writer let a landlord's "Hi! I'm Bob Smith"
    through (re-test 5): what the user says after a greeted quote on its line is left unread,
    what they say after a blank line is read (re-test 6)."""
    return _GREETING.match(pasted) is not None


_ASKS_ABOUT_IT = re.compile(
    r"(?i)^\s*(?:what|why|how|can you|could you|would you|any idea|is (?:this|it|that)|"
    r"does (?:this|it|that)|should i)\b[^\n?？]*[?？]|^\s*(?:这|为什么|怎么|是什么).*[?？]"
)
"""A line asking the assistant about a machine's output above it ("What does it mean?"): no
program logs that, so the user speaks again, blank line or not (found re-testing: "Here's the
log:\n<a log line>\nWhat does it mean? By the way I work at Stripe." lost the workplace)."""


def _back_in_own_words(lines: list[str], after: int, machine: bool = False) -> int:
    """The first line from `after` where the user speaks again (a paragraph that begins with
    `_BACK`, after a separator line with `_BACK_AFTER_A_LINE`, or below a machine's output a
    question about it: `_ASKS_ABOUT_IT`), else the end: the rest is pasted."""
    for at in range(max(after, 1), len(lines)):
        before = lines[at - 1]
        if machine and _ASKS_ABOUT_IT.match(lines[at]):
            return at
        apart = _SEPARATOR.match(before) or (machine and not before.strip())
        if apart and _BACK_AFTER_A_LINE.match(lines[at]):
            return at
        if (not before.strip() or _SEPARATOR.match(before)) and _BACK.match(lines[at]):
            return at
    return len(lines)


def _asks_for_work_below(lines: list[str], at: int) -> bool:
    """Line `at` asks for work on a text and ends there, and the text follows set apart (a
    blank line, a separator line, a greeting): "Can you help me reply to this email from a
    vendor?" then the vendor's email (found re-testing: her name, home and editor replaced the
    user's, with no colon to tell the paste)."""
    line = lines[at].strip()
    if not line.endswith(("?", ".", "？", "。")) or at + 1 >= len(lines):
        return False
    if not _WRITTEN.search(line) or not any(p.search(line.rstrip("?.？。")) for p in _LEAD_INS):
        return False  # "Can you explain this?\n\nI work at Google and …" is the user's own
    below = lines[at + 1]
    return not below.strip() or bool(_SEPARATOR.match(below) or _GREETING.match(below))


_SIGN_OFF = re.compile(
    r"(?i)^\s*(?:best|best regards|regards|kind regards|warm regards|thanks|thank you|many thanks"
    r"|cheers|sincerely|yours|love|talk soon)\b[,!.]?(?:\s+[A-Z][\w'-]*){0,3}\s*$"
)
"""A letter's sign-off ("Best, Karen", "Thanks,"): the letter ends with its paragraph."""


def _after_the_letter(lines: list[str], start: int) -> int:
    """Where the user speaks again after a letter pasted from `start`: the paragraph after its
    sign-off ("Best, Alex\n\nFor context, I work at Stripe.": found re-testing, the user's
    workplace went with the letter), else where `_back_in_own_words` says."""
    for at in range(start, len(lines)):
        if _SIGN_OFF.match(lines[at]):
            rest = range(at + 1, len(lines))
            return next((i + 1 for i in rest if not lines[i].strip()), len(lines))
    return _back_in_own_words(lines, start)


def _lead_in_end(line: str) -> tuple[int, str] | None:
    """Where the first lead-in of a line ends (after its colon), if it has one, and the lead-in
    ("Karen wrote", "Here's the log")."""
    start = 0  # where the clause before the next colon starts: after the last sign ending one
    ends = _CLAUSE_END.finditer(line)  # read once along the line (from its start for each
    for colon in _COLON.finditer(line):  # colon, a line of JSON took 180 ms)
        for end in ends:
            if end.start() >= colon.start():
                break
            start = end.end()
        clause = line[start : colon.start()].strip()
        start = colon.end()
        if any(pattern.search(clause) for pattern in _LEAD_INS):
            return colon.end(), clause
    return None


def _after_block(lines: list[str], opening: int, fence: str) -> int:
    """The line after the fenced block opening at `opening` (a one-line block: the next)."""
    if len(lines[opening].strip()) > len(fence) and lines[opening].rstrip().endswith(fence):
        return opening + 1  # ```my name is Bob```
    marker = fence[0] * 3
    closing = next(
        (at for at in range(opening + 1, len(lines)) if lines[at].lstrip().startswith(marker)),
        len(lines),
    )
    return closing + 1
