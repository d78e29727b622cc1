"""Transcripts in each host's format become messages, read from where the last moment
stopped; what goes to ingest and flush is cut to its limits."""

import json
from pathlib import Path
from typing import Any

import pytest

from cortex_mcp.hooks import transcripts
from cortex_mcp.hooks.messages import exchange_arguments, flush_messages
from cortex_mcp.hooks.moments import Event, Moments
from cortex_mcp.hooks.paths import FALLBACK_SETTINGS
from tests.hooks.hosts import (
    claude_exchange,
    claude_line,
    codex_exchange,
    gemini_session,
    write_jsonl,
)


def test_claude_code_jsonl_keeps_texts_and_tool_calls_and_skips_host_lines(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [
            {"type": "summary", "summary": "earlier", "leafUuid": "x"},
            claude_line("user", "<command-name>/clear</command-name>"),
            claude_line("user", "Caveat: local commands", isMeta=True),
            *claude_exchange(
                "Run the tests", "All green.", ("Bash", {"command": "pytest"}, "3 passed")
            ),
            claude_line("assistant", [{"type": "text", "text": "side"}], isSidechain=True),
        ],
    )

    chunk = transcripts.read_since("claude-code", path, 0)

    assert [(m.role, m.text) for m in chunk.messages] == [
        ("user", "Run the tests"),
        ("tool_call", '{"command": "pytest"}'),
        ("tool_result", "3 passed"),
        ("assistant", "All green."),
    ]
    assert chunk.messages[1].tool == "Bash"
    assert chunk.position == path.stat().st_size


def test_a_position_reads_only_what_is_new_and_a_half_written_line_waits(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "s.jsonl", claude_exchange("one", "reply one"))
    first = transcripts.read_since("claude-code", path, 0)
    write_jsonl(path, claude_exchange("two", "reply two"), append=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(claude_line("user", "three"))[:30])  # still being written

    second = transcripts.read_since("claude-code", path, first.position)

    assert [m.text for m in second.messages] == ["two", "reply two"]
    assert second.position < path.stat().st_size
    again = transcripts.read_since("claude-code", path, second.position)
    assert again.messages == [] and again.position == second.position


def test_codex_rollout_reads_response_items_once(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "rollout.jsonl",
        codex_exchange("List the files", "Two files.", ("shell", '{"command":["ls"]}', "a\nb")),
    )

    messages = transcripts.read_since("codex", path, 0).messages

    assert [(m.role, m.text) for m in messages] == [
        ("user", "List the files"),
        ("tool_call", '{"command":["ls"]}'),
        ("tool_result", "a\nb"),
        ("assistant", "Two files."),
    ]


def test_gemini_session_json_reads_from_a_message_index(tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    path.write_text(
        json.dumps(gemini_session([("hi there", "hello"), ("and now?", "done")])), encoding="utf-8"
    )

    first = transcripts.read_since("gemini", path, 0)
    second = transcripts.read_since("gemini", path, 2)

    assert [m.text for m in first.messages] == ["hi there", "hello", "and now?", "done"]
    assert [m.text for m in second.messages] == ["and now?", "done"] and second.position == 4


def test_each_message_keeps_the_time_its_host_wrote_on_it(tmp_path: Path) -> None:
    """An import dates each message when it was said: each line's `timestamp` is kept as
    written; a line without one, or with one that is not text, is still read (time "")."""
    claude = write_jsonl(
        tmp_path / "c.jsonl",
        claude_exchange("Run the tests", "Green.", ("Bash", {"command": "pytest"}, "ok")),
    )
    rollout = codex_exchange("List the files", "Two files.", ("shell", "{}", "a"))
    rollout[-1]["timestamp"] = 1764064805  # not ISO-8601 text
    codex = write_jsonl(tmp_path / "r.jsonl", rollout)
    gemini = tmp_path / "g.json"
    gemini.write_text(json.dumps(gemini_session([("hi there", "hello")])), encoding="utf-8")

    read = {
        host: [(m.role, m.said_at) for m in transcripts.read_since(host, path, 0, True).messages]
        for host, path in (("claude-code", claude), ("codex", codex), ("gemini", gemini))
    }

    assert read["claude-code"] == [
        (role, "2026-11-25T10:00:00.000Z")
        for role in ("user", "tool_call", "tool_result", "assistant")
    ]
    assert read["codex"] == [
        ("user", "2026-11-25T10:00:02Z"),
        ("tool_call", ""),
        ("tool_result", ""),
        ("assistant", ""),
    ]
    assert read["gemini"] == [
        ("user", "2026-11-25T10:00:00Z"),
        ("assistant", "2026-11-25T10:00:01Z"),
    ]


def test_strict_reading_names_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    good = json.dumps(claude_line("user", "fine"))
    path.write_text(f"{good}\n{good}\n{{not json\n", encoding="utf-8")

    with pytest.raises(transcripts.BadTranscript, match=r"bad\.jsonl:3: "):
        transcripts.read_since("claude-code", path, 0, strict=True)
    assert len(transcripts.read_since("claude-code", path, 0).messages) == 2  # hooks skip it


def test_recent_texts_come_from_the_end_of_a_large_file(tmp_path: Path) -> None:
    lines = [line for n in range(3000) for line in claude_exchange(f"question {n}", f"answer {n}")]
    path = write_jsonl(tmp_path / "big.jsonl", lines)
    assert path.stat().st_size > transcripts.TAIL_BYTES

    recent = transcripts.recent_texts("claude-code", path, 2)

    assert [m.text for m in recent] == ["question 2999", "answer 2999"]


def test_tool_results_over_the_limit_are_cut_never_sent_whole() -> None:
    settings = {**FALLBACK_SETTINGS, "tool_result_chars": 200}
    huge = "x" * 50_000
    messages = [
        transcripts.Message("user", "read the log"),
        transcripts.Message("tool_call", '{"path": "app.log"}', "t1", "Read"),
        transcripts.Message("tool_result", huge, "t1"),
        transcripts.Message("assistant", "The log is long."),
    ]
    event = Event("claude-code", "stop", "s1", None, "", "", "")

    arguments = exchange_arguments(event, messages, settings)
    flushed = flush_messages(messages, settings)

    call = arguments["tool_calls"][0]
    assert call["name"] == "Read" and len(call["result"]) <= 200
    assert "characters cut" in call["result"]
    assert arguments["user_message"] == "read the log"
    assert arguments["assistant_message"] == "The log is long."
    assert all(len(m["content"]) <= 200 + len("Read → ") for m in flushed if m["role"] == "tool")
    assert [m["role"] for m in flushed] == ["user", "tool", "tool", "assistant"]


def test_text_the_host_writes_as_a_user_line_is_not_the_user_s() -> None:
    """Found trying the product: Codex's AGENTS.md block was saved as said by the user and
    injected at every session start; Claude Code's bash mode output became the user's words."""
    agents = {
        "type": "response_item",
        "payload": {
            "type": "message",
            "role": "user",
            "content": [
                {
                    "type": "input_text",
                    "text": "# AGENTS.md instructions for /p\n\n<INSTRUCTIONS>Run make lint."
                    "</INSTRUCTIONS>",
                }
            ],
        },
    }
    assert transcripts.codex_messages(agents) == []
    for text in (
        "<bash-input>cat ticket.txt</bash-input>",
        "<bash-stdout>my name is Carlos</bash-stdout><bash-stderr></bash-stderr>",
        "<task-notification>build finished</task-notification>",
        "[Request interrupted by user]",  # found trying the product: logged as the user's
        "[Request interrupted by user for tool use]",
    ):
        assert transcripts.claude_messages(claude_line("user", text)) == []
    summary = claude_line("user", "Continued from before: I live in Oslo.", isCompactSummary=True)
    assert transcripts.claude_messages(summary) == []
    # found driving the hooks: the host's failed-request notice was saved as the model's reply
    failed = claude_line("assistant", "API Error: 529 overloaded", isApiErrorMessage=True)
    assert transcripts.claude_messages(failed) == []
    assert transcripts.claude_messages(claude_line("user", "I live in Porto.")) == [
        transcripts.Message("user", "I live in Porto.")
    ]


def test_gemini_sessions_in_jsonl_and_with_parts_are_read(tmp_path: Path) -> None:
    """Found trying the product: Gemini CLI's current session files (JSONL: a metadata line,
    then a message a line, content as a list of parts) could not be read, so PreCompress and
    SessionEnd saved nothing; parts without a `type` read as empty user messages."""
    lines: list[dict[str, Any]] = [
        {"sessionId": "g2", "projectHash": "x", "startTime": "2026-11-25T10:00:00Z"},
        {"id": "m0u", "type": "user", "content": [{"text": "We deploy pelican on Fridays."}]},
        {"id": "m0g", "type": "gemini", "content": [{"text": "Noted: Friday deploys."}]},
    ]
    jsonl = write_jsonl(tmp_path / "session-g2.jsonl", lines)
    expected = [
        transcripts.Message("user", "We deploy pelican on Fridays."),
        transcripts.Message("assistant", "Noted: Friday deploys."),
    ]
    assert transcripts.read_since("gemini", jsonl, 0).messages == expected
    document = tmp_path / "session-g2.json"
    document.write_text(json.dumps({"sessionId": "g2", "messages": lines[1:]}), encoding="utf-8")
    assert transcripts.read_since("gemini", document, 0).messages == expected
    assert transcripts.read_since("gemini", jsonl, 1).messages == expected[1:]
    with jsonl.open("a", encoding="utf-8") as handle:
        handle.write('{"id": "m1u", "type": "user", "content": [{"te')  # being written
    assert transcripts.read_since("gemini", jsonl, 0).messages == expected


def test_an_exchange_the_transcript_does_not_hold_yet_takes_the_prompt_from_the_event() -> None:
    """Gemini CLI's AfterAgent sends the prompt and the reply inline; when its transcript does
    not hold them (yet), the user's side came out empty and only the reply was saved."""
    event = Event("gemini", "stop", "g3", None, "", "Our on-call rotation changes Tuesdays.", "OK")
    arguments = exchange_arguments(event, [], dict(FALLBACK_SETTINGS))
    assert arguments["user_message"] == "Our on-call rotation changes Tuesdays."
    assert arguments["assistant_message"] == "OK"


class CannedRecall:
    """A server that answers every cortex_recall with one result (a connection to it too)."""

    def __init__(self, result: dict[str, object]) -> None:
        self.result = result

    def __enter__(self) -> "CannedRecall":
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def call_tool(self, name: str, arguments: dict[str, object]) -> dict[str, object]:
        return self.result


def test_a_tool_call_s_record_is_never_injected_as_something_said(tmp_path: Path) -> None:
    """Found trying the product: a session start spent its budget on "<tool_calls> Edit
    {"file_path": ".../petshop/filters.py"}", which matched only because the path holds the
    project's name."""
    said = {"exchange_id": "e1", "created_at": "2026-11-26T10:00:00Z"}
    server = CannedRecall(
        {
            "memories": [],
            "conversation": [
                {**said, "role": "tool", "content": '<tool_calls> Edit {"file": "petshop/f.py"}'},
                {**said, "role": "user", "content": "petshop ships on Fridays."},
            ],
        }
    )
    moments = Moments(tmp_path, dict(FALLBACK_SETTINGS), 1.0)
    found = moments._relevant(server, "petshop", 200)  # type: ignore[arg-type]
    assert [line for _, line in found] == ["- [said 2026-11-26] petshop ships on Fridays."]


def test_a_small_session_start_budget_holds_memories_not_the_flattened_profile(
    tmp_path: Path,
) -> None:
    """Found trying the product: at a 100-token budget the session start held no memory. The
    profile (the core memories strung together) hid them as repeats of itself and, one long
    line, did not fit; the date, layer and id of every line and recall's own head and "N more"
    lines took the rest. Those left out are counted in the hook's own "N more" line: recall's
    three and the decision the budget had no room for."""
    ids = "(id 01a21b25-90ec-75c1-a7f8-e5dcf78d6941)"
    context = "\n".join(
        [
            "Core memory digest (cortex-mcp; no query given):",
            "- [2026-11-27 · core · profile] # User profile My name is Dmitri.; I prefer short "
            "answers, no emojis High-value information for this user: - I prefer short answers, "
            "no emojis Active projects: - We upgraded the project to python 3.12 today - We "
            f"switched the CI from Jenkins to GitHub Actions last month {ids}",
            f"- [2026-11-27 · core · identity] My name is Dmitri. {ids}",
            f"- [2026-11-27 · core · preference] I prefer short answers, no emojis {ids}",
            f"- [2026-11-27 · core · decision] We upgraded the project to python 3.12 today {ids}",
            "3 more: ask cortex_recall with a query.",
        ]
    )
    settings = dict(FALLBACK_SETTINGS) | {"session_start_tokens": 100}
    moments = Moments(tmp_path, settings, 1.0)
    server = CannedRecall({"context": context, "memories": [], "conversation": []})
    moments.connect = lambda: server  # type: ignore[assignment,method-assign,return-value]

    digest = moments.session_start(Event("claude-code", "session-start", "s1", None, "", "", ""))

    assert digest.splitlines()[1:3] == [
        "- [identity] My name is Dmitri.",
        "- [preference] I prefer short answers, no emojis",
    ], digest
    assert "profile" not in digest and "(id " not in digest
    assert digest.splitlines()[3] == "4 more: ask cortex_recall with a query.", digest


def test_a_memory_naming_the_product_asked_about_is_injected(tmp_path: Path) -> None:
    """Found reading the change: with names alone no shared words, "do we still use Kafka?"
    lost its one answer ("Kafka" is capitalised like a speaker's name); names count against
    logged lines only, where two speakers' names are in every line."""
    floor = float(FALLBACK_SETTINGS["relevance_floor"])
    kafka = {"id": "m1", "category": "project_state", "content": "We use Kafka for the event bus."}
    said = {"exchange_id": "e1", "created_at": "2026-11-20T10:00:00Z", "role": "user"}
    server = CannedRecall(
        {
            "memories": [kafka | {"score": floor + 0.2}],
            "conversation": [said | {"content": "Gina: Thanks, Jon! Kafka talk was fun."}],
        }
    )
    moments = Moments(tmp_path, dict(FALLBACK_SETTINGS), 1.0)

    found = moments._relevant(server, "do we still use Kafka, Jon?", 200)  # type: ignore[arg-type]

    assert [line for _, line in found] == ["- [project_state] We use Kafka for the event bus."]
