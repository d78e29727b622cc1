"""The five moments: what each one reads, which tool it calls on the running server, and
what it injects. Standard library only (the hook command's hot path): the transcript reader,
the pre-check and the socket client are imported by the moments that use them, so a prompt
the pre-check skips or the parent of a detached save imports neither."""

from __future__ import annotations

from pathlib import Path

from cortex_mcp.guidance import (
    DIGEST_HEADER,
    DIGEST_MORE,
    HOOK_BLOCK,
    hook_note,
    is_digest_more,
)
from cortex_mcp.hooks.event import Event as Event  # where the moments' callers find it
from cortex_mcp.hooks.messages import FLUSH_BATCH, exchange_arguments, flush_messages
from cortex_mcp.hooks.paths import socket_path
from cortex_mcp.hooks.shared_words import content_words as content_words  # bench, tests
from cortex_mcp.hooks.shared_words import names_in, strongly_first
from cortex_mcp.hooks.state import count_injection, saving, session_state
from cortex_mcp.project_names import project_of_folder

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at run time
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from cortex_mcp.hooks.client import Connection
    from cortex_mcp.hooks.transcripts import Message

RECENT_CHARS = 300
"""Each recent transcript message adds at most this much to a prompt's query."""
ANSWERED_WORDS = 2
"""A prompt of this many content words or fewer that a slot memory answers ("what's my
name?", "where do I live?") gets no conversation lines: those sharing its one word were
small talk ("Pixel is a great name for a cat", "I can't check live listings"; round
seventeen's re-test)."""
QUERY_CHARS = 1800
SAID_CHARS = 600
"""A conversation-log line injected is cut here; the budget decides how many fit."""
DIGEST_MEMORIES = 50
"""The memories the session start asks recall for (the most cortex_recall gives): its token
budget decides how many are shown, not recall's default of eight."""
INJECTION_HEAD = f"{HOOK_BLOCK}, relevant to this prompt:"
DIGEST_HEAD = f"{HOOK_BLOCK}:"


def estimate_tokens(text: str) -> int:
    """Tokens of `text`, roughly: a wide (CJK) character each, four other characters each."""
    wide = sum(1 for ch in text if ord(ch) >= 0x2E80)
    return wide + (len(text) - wide + 3) // 4


def fitting(lines: list[str], tokens: int) -> list[int]:
    """The indexes of the `lines` that fit in `tokens`, in order: a line too long for what is
    left is skipped, a shorter one after it may still fit."""
    kept: list[int] = []
    used = 0
    for index, line in enumerate(lines):
        cost = estimate_tokens(line) + 1
        if used + cost > tokens:
            continue
        kept.append(index)
        used += cost
    return kept


def within(text: str, tokens: int) -> str:
    """The lines of `text` that fit in `tokens`, in order (`fitting`; "" when none fits)."""
    lines = text.splitlines()
    return "\n".join(lines[index] for index in fitting(lines, tokens)).strip()


def digest_within(
    text: str, settings: dict[str, Any], listed: Sequence[str] = (), more: int = 0
) -> str:
    """A session-start digest (head first, then the memory lines `listed`) within its budget,
    with the guidance line under it (`guidance.hook_note`); "" when no line but the head fits.
    The memories left out, `more` (recall's "N more") and the `listed` ones the budget left
    out, are counted in a last line ("5 more: ask cortex_recall with a query."), which the
    budget keeps room for: the agent learns the rest exist."""
    budget = int(settings["session_start_tokens"])
    saving = bool(settings["stop"] or settings["pre_compact"] or settings["session_end"])
    note = hook_note(settings["tools"], saving)
    room = budget - estimate_tokens(note) - 1 if note else budget
    lines = [*text.splitlines(), *listed]
    first = len(lines) - len(listed)
    counted = [i for i in range(first, len(lines)) if memory_category(lines[i]) != "profile"]
    kept = fitting(lines, room)
    left_out = more + len(set(counted) - set(kept))
    if left_out:  # fitted again, with room for the line that counts them
        said = DIGEST_MORE.format(more=more + len(counted))  # as long as it can get
        kept = fitting(lines, room - estimate_tokens(said) - 1)
        left_out = more + len(set(counted) - set(kept))
    shown = "\n".join(lines[index] for index in kept).strip()
    if shown in ("", DIGEST_HEAD):
        return ""
    if left_out:
        shown += "\n" + DIGEST_MORE.format(more=left_out)
    return f"{shown}\n{note}" if note else shown


def distinct(lines: list[str]) -> list[str]:
    """A digest's lines as the session start injects them: each memory once, as "- [category]
    text" (its date, layer and id cut: the hook's model acts through the tools, whose answers
    keep them), and the profile only when no other memory is shown (without an LLM it strings
    the core memories together, and as one flattened line it crowded them out of a 100-token
    budget); the digest's head and "N more" lines are left out (the hook says both)."""
    texts = [memory_text(line) for line in lines]
    others = sum(1 for line in lines if memory_category(line) not in (None, "profile"))
    kept: list[str] = []
    for index, (line, text) in enumerate(zip(lines, texts, strict=True)):
        if not line.strip() or line == DIGEST_HEADER or is_digest_more(line):
            continue
        category = memory_category(line)
        if category is None or text is None:
            kept.append(line)
            continue
        if category == "profile" and others:
            continue
        if any(
            other is not None and text in other and (text != other or at < index)
            for at, other in enumerate(texts)
            if at != index and memory_category(lines[at]) != "profile"
        ):
            continue  # the identity said twice, or a memory a longer one holds
        shown = line.split("] ", 1)[1]
        end = shown.rfind(" (id ")
        kept.append(f"- [{category}] {shown[:end] if end > 0 and shown.endswith(')') else shown}")
    return kept


def memory_category(line: str) -> str | None:
    """The category of a memory's line of a context block ("- [2026-11-26 · core · identity]
    I'm Dana." → "identity"); None for any other line."""
    if not line.startswith("- [") or "] " not in line:
        return None
    return line[3 : line.index("] ")].split(" · ")[-1].strip()


def memory_text(line: str) -> str | None:
    """The text of a memory's line of a context block ("- [2026-11-26 · core · identity] I'm
    Dana. (id …)" → "i'm dana."), folded for comparing; None for any other line."""
    if not line.startswith("- [") or "] " not in line:
        return None
    text = line.split("] ", 1)[1]
    end = text.rfind(" (id ")
    return " ".join((text[:end] if end >= 0 else text).casefold().split())


class Moments:
    """Runs the moments against the server on the local socket of `data_home`."""

    def __init__(
        self,
        data_home: Path,
        settings: dict[str, Any],
        timeout: float,
        total: float | None = None,
    ) -> None:
        self.home = data_home
        self.settings = settings
        self.timeout = timeout
        self.total = total  # what a session with the server may take in all (None: no bound)

    def connect(self) -> Connection:
        """A session with the running server (NoServer when there is none)."""
        from cortex_mcp.hooks.client import Connection

        return Connection(socket_path(self.home), self.timeout, self.total)

    # -- injecting moments -------------------------------------------------------------

    def session_start(self, event: Event) -> str:
        """The digest (core memory and profile) and what memory says of this project."""
        budget = int(self.settings["session_start_tokens"])
        if budget <= 0:
            return ""
        project = project_of_folder(event.cwd) or ""  # the working folder's project (#26)
        with self.connect() as server:
            # twice the budget: each line loses its date, layer and id here (`distinct`)
            asked = {"max_results": DIGEST_MEMORIES, "max_tokens": max(50, budget * 2)}
            digest = server.call_tool(
                "cortex_recall", asked | ({"project": project} if project else {})
            )
            hits = self._relevant(server, project, budget, logged=False, project=project)
        known = {str(m.get("id")) for m in digest.get("memories", []) if isinstance(m, dict)}
        lines = str(digest.get("context", "")).strip().splitlines()
        head = lines.index(DIGEST_HEADER) if DIGEST_HEADER in lines else len(lines)
        pad, listed = lines[:head], lines[head:]  # the scratchpad comes first
        more = sum(int(line.split()[0]) for line in listed if is_digest_more(line))
        listed += [line for memory_id, line in hits if memory_id not in known]
        text = digest_within(
            "\n".join([DIGEST_HEAD, *distinct(pad)]), self.settings, distinct(listed), more
        )
        return self._counted(event, text)

    def prompt(self, event: Event) -> str:
        """The memories relevant to this prompt and the last turns, above the floor."""
        from cortex_mcp.hooks import precheck

        budget = int(self.settings["prompt_tokens"])
        if budget <= 0 or not precheck.should_retrieve(event.prompt):
            with session_state(self.home, event.host, event.session_id) as state:
                state["skipped"] += 1
            return ""
        recent = []
        if event.transcript is not None and self.settings["recent_messages"]:
            from cortex_mcp.hooks import transcripts

            count = int(self.settings["recent_messages"])
            recent = transcripts.recent_texts(event.host, event.transcript, count)
        query = " ".join([event.prompt[:QUERY_CHARS], *(m.text[:RECENT_CHARS] for m in recent)])[
            :QUERY_CHARS
        ]
        project = project_of_folder(event.cwd) or ""
        with self.connect() as server:
            session = event.session_id[:128]
            words_of = event.prompt[:QUERY_CHARS]  # a 4 MB prompt's words took 0.8 s
            found = self._relevant(server, query, budget, words_of, session, project=project)
        hits = [line for _, line in found]
        text = within("\n".join([INJECTION_HEAD, *hits]), budget) if hits else ""
        return self._counted(event, text if text != INJECTION_HEAD else "", prompt=True)

    def _relevant(
        self,
        server: Connection,
        query: str,
        budget: int,
        words_of: str = "",
        session: str = "",
        logged: bool = True,
        project: str = "",
    ) -> list[tuple[str, str]]:
        """(id, line) of what recall found for `query` that is worth injecting: memories at
        or above the relevance floor, and conversation-log messages (whose scores only rank
        them against each other); both sharing enough content words with `words_of` (the
        prompt; default the query), the memory recall ranked first fewer when it is strong
        (`strongly_first`); and the answer to a slot the query asks about. Never a message of
        `session` (the current one: it is in the model's context already, or in its compaction
        summary) nor one that only asks (a past question answers nothing; the server tells,
        with the language rules the hook does not import). `logged`: False for memories only.
        `project`: the folder's; nothing of another project's is injected (its rules clash)."""
        if not query:
            return []
        arguments = {"query": query, "max_results": 8, "max_tokens": max(50, budget * 2)}
        result = server.call_tool("cortex_recall", arguments | {"project": project})
        floor = float(self.settings["relevance_floor"])
        asked = content_words(words_of or query)
        names = frozenset(names_in(words_of or query))
        needed = min(int(self.settings["shared_words"]), len(asked))

        def shares(text: str, not_counted: frozenset[str] = frozenset()) -> bool:
            shared = asked & content_words(text)
            return len(shared) >= needed and (not needed or bool(shared - not_counted))

        memories = [hit for hit in result.get("memories", []) if isinstance(hit, dict)]
        memories = self._prompts_own(server, memories, query, words_of, arguments, project)
        answers = [hit for hit in memories if hit.get("slot_answer")]
        found = [
            (str(hit.get("id")), f"- [{hit.get('category')}] {hit.get('content')}")
            for hit in answers  # "what is my name?" shares no word with the name
        ]
        answered = {memory_id for memory_id, _ in found}
        found += [
            (str(hit.get("id")), f"- [{hit.get('category')}] {hit.get('content')}")
            for rank, hit in enumerate(memories)
            if str(hit.get("id")) not in answered
            and float(hit.get("score", 0)) >= floor
            and (
                shares(str(hit.get("content", "")))
                or (rank == 0 and strongly_first(hit, asked, floor))
            )
        ]
        if answers and len(asked) <= ANSWERED_WORDS:
            logged = False  # "what's my name?", answered: "Pixel is a great name for a cat" no
        for hit in result.get("conversation", []) if logged else []:
            if not isinstance(hit, dict) or hit.get("role") == "tool":
                continue  # a tool call's record: a file path is not what was said (found
                # trying the product: a session start spent its budget on an Edit's arguments)
            if hit.get("question") or (session and hit.get("session_id") == session):
                continue
            said = " ".join(str(hit.get("content", "")).split())
            if asked and shares(said, names):  # two speakers' names are in all their lines
                when = str(hit.get("created_at", ""))[:10]  # "yesterday" needs its date
                label = f"said {when}" if when else "said earlier"
                found.append((str(hit.get("exchange_id")), f"- [{label}] {said[:SAID_CHARS]}"))
        return found

    @staticmethod
    def _prompts_own(
        server: Connection,
        memories: list[dict[str, Any]],
        query: str,
        words_of: str,
        arguments: dict[str, Any],
        project: str,
    ) -> list[dict[str, Any]]:
        """The memories recall found for the prompt. The query carries the last turns too, and
        when recall marked a slot answer the prompt alone is asked again (one more recall,
        only then), whose memories are the prompt's: a slot a turn before asked about took
        the query over. After "我叫什么名字？", "我现在住在哪里？" got the name, not the home;
        after "Where do I live?", "Which database did we pick for billing?" got nothing, the
        billing decision scoring under the floor for the padded query (round seventeen's
        re-test, D7)."""
        if not words_of or words_of == query or not any(m.get("slot_answer") for m in memories):
            return memories
        alone = server.call_tool(
            "cortex_recall", arguments | {"query": words_of, "project": project}
        )
        return [hit for hit in alone.get("memories", []) if isinstance(hit, dict)]

    def _counted(self, event: Event, text: str, prompt: bool = False) -> str:
        with session_state(self.home, event.host, event.session_id) as state:
            state["prompts"] += int(prompt)
            count_injection(state, estimate_tokens(text) if text else 0)
        return text

    # -- saving moments -----------------------------------------------------------------

    def stop(self, event: Event) -> None:
        """The finished exchange to cortex_ingest (exchanges the hook missed: to flush)."""
        from cortex_mcp.hooks import transcripts
        from cortex_mcp.hooks.transcripts import Message

        with saving(self.home, event.host, event.session_id):
            messages, position = self._unsent(event)
            pending = transcripts.exchanges(messages)
            if not pending and event.prompt and event.inline_reply:
                pending = [
                    [Message("user", event.prompt), Message("assistant", event.inline_reply)]
                ]
            if not pending:
                self._saved(event, position)
                return
            *missed, last = pending
            with self.connect() as server:
                if missed:
                    self._flush(server, event, [m for e in missed for m in e], "stop")
                arguments = exchange_arguments(event, last, self.settings)
                if arguments["user_message"] or arguments["assistant_message"]:
                    server.call_tool("cortex_ingest", arguments)
            self._saved(event, position, ingested=1)

    def pre_compact(self, event: Event, reason: str = "compaction") -> None:
        """Everything not yet sent to memory, to cortex_flush; each line once. The flush
        writes the session's episode too. At session end, with nothing left to send, an empty
        flush of the session closes it: its episode is written from what it logged."""
        with saving(self.home, event.host, event.session_id):
            messages, position = self._unsent(event)
            closing = reason == "session-end" and event.session_id
            if messages or closing:
                with self.connect() as server:
                    self._flush(server, event, messages, reason)
            self._saved(event, position, flushed=len(messages), ended=reason == "session-end")

    def session_end(self, event: Event) -> None:
        """The rest of the session flushed, its episode written, the session marked ended."""
        self.pre_compact(event, reason="session-end")

    def _unsent(self, event: Event) -> tuple[list[Message], int]:
        """What the transcript holds past where the last save got to, and where it ends. The
        state's lock is held only to read that position: never while reading or sending."""
        from cortex_mcp.hooks import transcripts

        with session_state(self.home, event.host, event.session_id) as state:
            same = state["transcript"] == str(event.transcript)
            start = int(state["position"]) if same or event.transcript is None else 0
        if event.transcript is None:
            return [], start
        try:
            chunk = transcripts.read_since(event.host, event.transcript, start)
        except transcripts.BadTranscript:  # a file this version cannot read: the inline text
            return [], start
        return chunk.messages, chunk.position

    def _saved(
        self, event: Event, position: int, ingested: int = 0, flushed: int = 0, ended: bool = False
    ) -> None:
        """Where the save got to in the transcript, and what it sent, in the session's state
        (the prompt hook's counts, written meanwhile, kept)."""
        with session_state(self.home, event.host, event.session_id) as state:
            if event.transcript is not None:
                state["transcript"] = str(event.transcript)
            state["position"] = position
            state["ingested"] += ingested
            state["flushed"] += flushed
            state["ended"] = state["ended"] or ended

    def _flush(
        self, server: Connection, event: Event, messages: list[Message], reason: str
    ) -> None:
        flat = flush_messages(messages, self.settings)
        if not flat and not event.session_id:
            return
        for start in range(0, max(1, len(flat)), FLUSH_BATCH):  # none: the session closes
            arguments: dict[str, Any] = {
                "messages": flat[start : start + FLUSH_BATCH],
                "reason": reason,
            }
            if event.session_id:
                arguments["session_id"] = event.session_id[:128]
            if project := project_of_folder(event.cwd):  # (#26)
                arguments["project"] = project
            server.call_tool("cortex_flush", arguments)
