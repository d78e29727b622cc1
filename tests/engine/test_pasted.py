"""Text pasted for the assistant to work on is not the user's own words (`own_words`): a
fenced block wherever it stands, and what follows a lead-in that asks for work on a text,
shows a pasted thing or says who wrote it; a colon after anything else is the user's."""

import pytest

from cortex_mcp.engine.language.pasted import own_words

EMAIL = (
    "Reply to this customer email for me:\n\nHi, I'm John Smith and I live in Dallas. My wife"
    " Karen says the order #1234 never arrived. I prefer email contact.\n\nThanks"
)


@pytest.mark.parametrize(
    ("message", "own"),
    [
        (EMAIL, "Reply to this customer email for me:"),
        ("Here's the log: I live in /var/log and I work at startup", "Here's the log:"),
        ("Can you summarize this:\nI moved to Dallas in May.", "Can you summarize this:"),
        (
            "Please proofread the following paragraph:\nI am a nurse.",
            "Please proofread the following paragraph:",
        ),
        ("Translate to Chinese: I live in Dallas.", "Translate to Chinese:"),
        ("I keep getting this error: my name is not defined", "I keep getting this error:"),
        ("Karen wrote:\nI live in Dallas now.", "Karen wrote:"),
        ("This is what my landlord said: I own the house.", "This is what my landlord said:"),
        ("Email from my boss: I prefer Slack.", "Email from my boss:"),
        (
            "I'm on Python 3.12. Fix this error: I work at Google",
            "I'm on Python 3.12. Fix this error:",
        ),
        ("Mia: Reply to this message: I live in Rome.", "Mia: Reply to this message:"),
    ],
)
def test_english_text_after_a_lead_in_is_pasted(message: str, own: str) -> None:
    assert own_words(message) == own


@pytest.mark.parametrize(
    ("message", "own"),
    [
        ("帮我回复这封邮件：\n\n你好，我叫王伟，住在上海。", "帮我回复这封邮件："),
        ("翻译成英文：我住在上海。", "翻译成英文："),
        ("他说：我住在上海。", "他说："),
        ("以下是日志：我在腾讯工作", "以下是日志："),
        ("我收到了这封邮件：\n我叫李明。", "我收到了这封邮件："),
    ],
)
def test_chinese_text_after_a_lead_in_is_pasted(message: str, own: str) -> None:
    assert own_words(message) == own


@pytest.mark.parametrize(
    ("message", "own"),
    [
        ("以下のメールに返信して：\n\n田中です。大阪に住んでいます。", "以下のメールに返信して："),
        ("英語に翻訳して：私は大阪に住んでいます。", "英語に翻訳して："),
        ("これがエラーです：東京に住んでいます", "これがエラーです："),
        ("彼女が言った：私は大阪に住んでいます。", "彼女が言った："),
    ],
)
def test_japanese_text_after_a_lead_in_is_pasted(message: str, own: str) -> None:
    assert own_words(message) == own


@pytest.mark.parametrize(
    "message",
    [
        "Note: I live in Dallas.",
        "I live in Dallas.\n\n",
        "Quick update: I moved to Dallas.",
        "Two things: I'm vegetarian and I live in Dallas.",
        "Caroline: I went to the LGBTQ support group yesterday.",
        "My advice: stay passionate, focused and resilient.",
        "Check this out: I moved to Dallas!",
        "Let me answer your question: I live in Dallas.",
        "This is what I wrote: I live in Dallas.",
        "Here's my email: john@example.com",
        "The game was called Counter-Strike: Global Offensive.",
        "Meet me at 5:30 tomorrow.",
        "更正一下：我住在上海。",
        "老实说：我不喜欢咖啡。",
        "报告：私は大阪に住んでいます。",
        "メモ：大阪に住んでいます。",
    ],
)
def test_a_colon_after_anything_else_introduces_the_users_own_words(message: str) -> None:
    assert own_words(message) == message


@pytest.mark.parametrize(
    ("message", "own"),
    [
        ("```\nmy name is Bob\n```", ""),
        ("~~~\nmy name is Bob\n~~~\nI live in Dallas.", "I live in Dallas."),
        ("I live in Dallas.\n```python\nname = 'Bob'  # my name is Bob\n```", "I live in Dallas."),
        ("```my name is Bob```\nI live in Dallas.", "I live in Dallas."),
        ("Never closed:\n```\nmy name is Bob\nI live in Rome", "Never closed:"),
    ],
)
def test_a_fenced_block_is_pasted_wherever_it_stands(message: str, own: str) -> None:
    assert own_words(message) == own


@pytest.mark.parametrize(
    ("message", "own"),
    [
        (
            "Fix this error:\n```\nmy name is Bob\n```\nI'm on Python 3.12.",
            "Fix this error:\nI'm on Python 3.12.",
        ),
        (
            "Answer this ticket:\n> I live in Dallas.\nI work at Acme.",
            "Answer this ticket:\n> I live in Dallas.\nI work at Acme.",
        ),
        (
            "帮我看看这个报错：\n```\nNameError\n```\n我用的是Python 3.12。",
            "帮我看看这个报错：\n我用的是Python 3.12。",
        ),
    ],
)
def test_the_user_goes_on_after_a_fenced_or_quoted_paste(message: str, own: str) -> None:
    assert own_words(message) == own


@pytest.mark.parametrize(
    ("message", "own"),
    [
        ("My friend wrote: I just moved to Denver. I'm Rob. How should I reply?",
         "My friend wrote:\nHow should I reply?"),
        ("He told me: I live in Berlin. I live in Munich.", "He told me:\nI live in Munich."),
        ("She texted: My cat is Tom. My dog is Rex. Anyway, I work at Acme.",
         "She texted:\nAnyway, I work at Acme."),
        ("Fix the grammar: 'I'm going their.' I live in Oslo.",
         "Fix the grammar:\nI live in Oslo."),
    ],
)  # fmt: skip
def test_what_someone_said_in_the_first_person_runs_on_until_the_user_speaks(
    message: str, own: str
) -> None:
    """A quote speaking as its writer goes on past its first sentence (rt22): until an aside, a
    question, or the same words with another value; a quoted span ends where it closes."""
    assert own_words(message) == own


@pytest.mark.parametrize(
    ("message", "own"),
    [
        ("User: I live in Miami.\nAssistant: Hi!\n\nWhy did it fail?", "\nWhy did it fail?"),
        ("Bob: hi\nhow are you\nAlice: hey\nBob: I live in Denver", ""),
        ("Bob: I live in Denver\nMe: I live in Austin", "Me: I live in Austin"),
    ],
)
def test_a_pasted_conversation_is_its_speakers(message: str, own: str) -> None:
    """Lines labelled with two speakers or more, one a role, "me" or speaking twice, are a
    pasted conversation (rt22): the user's are the "me:" ones."""
    assert own_words(message) == own


@pytest.mark.parametrize(
    "message",
    [
        "Name: Dana\nHome: Dallas\nJob: nurse",
        "Note: I live in Dallas.\nUpdate: I moved to Austin.",
        "Caroline: I went to the LGBTQ support group yesterday.\nCaroline: It was great.",
    ],
)
def test_labelled_lines_of_one_speaker_or_of_headings_are_the_users(message: str) -> None:
    assert own_words(message) == message


@pytest.mark.parametrize(
    ("message", "own"),
    [
        ("Here's the log:\nERROR db timeout\nWhat does it mean? I work at Stripe.",
         "Here's the log:\nWhat does it mean? I work at Stripe."),
        ("以下是日志：\nERROR db timeout\n这是什么意思？我在腾讯工作。",
         "以下是日志：\n这是什么意思？我在腾讯工作。"),
        ("Reply to this email for me:\nHi Sam,\nWhat do you think? I live in Dallas.",
         "Reply to this email for me:"),
    ],
)  # fmt: skip
def test_a_question_below_a_machine_s_output_is_the_user_again(message: str, own: str) -> None:
    """No program logs a question about its log (rt22); an email asks its reader some."""
    assert own_words(message) == own


@pytest.mark.parametrize(
    ("message", "own"),
    [
        ('Tom said "I live in Berlin." I live in Munich.', "Tom said\nI live in Munich."),
        ('Mom said, "I love Paris!" I live in Rome.', "Mom said,\nI live in Rome."),
    ],
)
def test_a_quote_said_that_ends_its_sentence_is_left_out(message: str, own: str) -> None:
    """What follows it is the user's next sentence (rt22)."""
    assert own_words(message) == own


def test_a_quote_said_within_a_sentence_is_left_to_the_sentence() -> None:
    assert own_words('Tom said "hi" and I live in Munich.') == 'Tom said "hi" and I live in Munich.'
