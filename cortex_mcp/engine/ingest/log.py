"""The conversation log, written: what is said is kept, verbatim after redaction.

Every ingested exchange and every flushed message is appended before anything is extracted
from it, so nothing said is lost whatever the LLM does; each message is then linked to the
memories extracted from it, and marked when an LLM extraction is still owed. (Recall reads the
log in `recall.log`.)
"""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from cortex_mcp.clock import to_text
from cortex_mcp.engine.runtime import Runtime
from cortex_mcp.errors import InvalidInput
from cortex_mcp.models import new_memory_id
from cortex_mcp.store import conversation as log
from cortex_mcp.store import episodes as flushed
from cortex_mcp.store import exchanges
from cortex_mcp.store.db import Connection


@dataclass(frozen=True)
class Logged:
    """Where an exchange went in the log: its id and each message's sequence number."""

    exchange_id: str
    seqs: list[int]


EARLIEST_SAID = 1970
"""The earliest year a message may be said in (as the hooks read a transcript's times)."""


def when_said(moment: datetime | None, now: datetime, field: str) -> datetime | None:
    """When a message was said, as the log keeps it: None when not given; a time after now is
    now (a clock ahead is no message from the future); a year before EARLIEST_SAID is
    InvalidInput naming `field` (year 1 with an offset overflowed on the way to UTC)."""
    if moment is None:
        return None
    if moment.year < EARLIEST_SAID:
        raise InvalidInput(field, f"{moment.year} is before {EARLIEST_SAID}")
    return min(moment, now)


def new_exchange_id(now: datetime) -> str:
    """A time-ordered id for the messages of one ingest or one flush."""
    return new_memory_id(int(now.timestamp() * 1000))


async def append_exchange(
    rt: Runtime,
    messages: Sequence[tuple[str, str]],
    *,
    agent_id: str,
    session_id: str | None,
    origin: str,
    hashes: list[str] | None = None,
    said_at: Sequence[datetime | None] = (),
) -> Logged:
    """Append (role, content) messages as one exchange, in one transaction; empty ones are
    skipped (their sequence number is -1), and so are those whose `hashes` the session
    already logged (a message flushed twice is logged once, whichever process flushed it) and
    those `cortex_ingest` logged for the session (`ingested`). `said_at`: when each was said
    (None, or none given: now)."""
    now = rt.clock()
    exchange = new_exchange_id(now)
    async with rt.db.write() as conn:
        fresh = [True] * len(messages)
        if hashes is not None and session_id:
            fresh = await flushed.claim_messages(conn, agent_id, session_id, hashes)
            said = await ingested(conn, messages, agent_id, session_id)
            fresh = [new and not was for new, was in zip(fresh, said, strict=True)]
        kept = [m if new else (m[0], "") for m, new in zip(messages, fresh, strict=True)]
        seqs = await append_in(
            conn, kept, agent_id, session_id, (exchange, origin), now, said_at=said_at
        )
    embed_logged(rt, seqs)
    return Logged(exchange, seqs)


async def ingested(
    conn: Connection, messages: Sequence[tuple[str, str]], agent_id: str, session_id: str
) -> list[bool]:
    """Inside a write transaction: for each flushed message, whether `cortex_ingest` logged it
    for the session. A user's message and the reply after it (tool messages between them
    aside) are one exchange ingest logged when its texts are the same; each ingested exchange
    stands for one flushed exchange only, in this flush or any later one (a claim in the
    session's flushed hashes), so a "yes" said again after compaction is logged again. An agent
    that ingests every exchange and flushes its context before compaction, as the tools ask,
    logs each message once; the exchange's tool messages too, when ingest logged its tool calls
    (the hooks' Stop sends them in one block, PreCompact one message a call)."""
    waiting: dict[tuple[str, str], list[str]] = {}
    with_tools: set[str] = set()
    for exchange, user, reply, tools in await flushed.ingested_exchanges(
        conn, agent_id, session_id
    ):
        waiting.setdefault((user, reply), []).append(exchange)
        if tools:
            with_tools.add(exchange)
    found = [False] * len(messages)
    for at, (role, text) in enumerate(messages):
        if role != "user" or not waiting:
            continue
        answer = _reply_to(messages, at)
        reply = messages[answer][1] if answer is not None else ""
        claimed = await _claim_one(conn, agent_id, session_id, waiting.get((text, reply), []))
        if claimed is not None:
            found[at] = True
            if answer is not None:
                found[answer] = True
            if claimed in with_tools:
                for step in _tool_steps(messages, at):
                    found[step] = True
        elif (
            reply
            and await _claim_one(conn, agent_id, session_id, waiting.get((text, ""), []))
            is not None
        ):
            found[at] = True  # ingested without a reply: the reply is new
    return found


def _turn_after(messages: Sequence[tuple[str, str]], at: int) -> list[int]:
    """The messages after message `at`, before the next user message (its reply and tools)."""
    turn = []
    for later in range(at + 1, len(messages)):
        if messages[later][0] == "user":
            break
        turn.append(later)
    return turn


def _tool_steps(messages: Sequence[tuple[str, str]], at: int) -> list[int]:
    """The tool messages after message `at`, before the next user message."""
    return [later for later in _turn_after(messages, at) if messages[later][0] == "tool"]


def _reply_to(messages: Sequence[tuple[str, str]], at: int) -> int | None:
    """The first assistant message after message `at`, before the next user message."""
    turn = _turn_after(messages, at)
    return next((later for later in turn if messages[later][0] == "assistant"), None)


async def _claim_one(
    conn: Connection, agent_id: str, session_id: str, exchanges: list[str]
) -> str | None:
    """Take the oldest of these ingested exchanges no flush has stood for yet (and remove it
    from the list); its id, or None when every one has been."""
    while exchanges:
        exchange = exchanges.pop(0)
        if (await flushed.claim_messages(conn, agent_id, session_id, [f"ingested:{exchange}"]))[0]:
            return exchange
    return None


@dataclass(frozen=True)
class Settled:
    """An exchange's extraction known before its messages are logged (cortex_ingest decides
    and writes the fast channel first): the state of every message, and the memories taken
    from each (by position)."""

    state: str
    links: dict[int, list[str]]

    def linked(self, at: int) -> list[str]:
        """The memories of message `at`, distinct and in the order `link_memories` leaves
        them (SQL's union: sorted)."""
        return sorted(set(self.links.get(at, [])))


async def append_in(
    conn: Connection,
    messages: Sequence[tuple[str, str]],
    agent_id: str,
    session_id: str | None,
    exchange: tuple[str, str],
    now: datetime,
    settled: Settled | None = None,
    said_at: Sequence[datetime | None] = (),
) -> list[int]:
    """Inside a write transaction: append (role, content) messages under `exchange` (its id,
    its origin); each message's sequence number, -1 for an empty one (not logged). `settled`:
    what was already extracted from each message and whether an LLM extraction is owed, written
    with the rows (what `settle_in` would write after them, without its updates). `said_at`:
    when each was said, its row's time (None, or none given: `now`)."""
    exchange_id, origin = exchange
    seqs: list[int] = []
    for at, (role, content) in enumerate(messages):
        if not content.strip():
            seqs.append(-1)
            continue
        seq = await log.append_message(
            conn,
            agent_id=agent_id,
            session_id=session_id,
            exchange_id=exchange_id,
            origin=origin,
            role=role,
            content=content,
            created_at=to_text((said_at[at] if said_at else None) or now),
            extraction=settled.state if settled else "none",
            memory_ids=settled.linked(at) if settled else None,
        )
        seqs.append(seq)
    return seqs


def embed_logged(rt: Runtime, seqs: list[int]) -> None:
    """After the log write committed: the background loop embeds the new messages (#23)."""
    if rt.vectors.configured and any(seq >= 0 for seq in seqs):
        rt.wake.set()


async def settle_extraction(
    rt: Runtime,
    seqs: list[int],
    links: dict[int, list[str]],
    state: str,
    exchange: tuple[str, list[str]] | None = None,
) -> None:
    """Record what was extracted from which message and whether an LLM extraction is owed;
    `exchange` (its id, memory ids) links those memories to it (forget follows the link)."""
    async with rt.db.write() as conn:
        await settle_in(conn, rt.clock(), seqs, links, state, exchange)


async def settle_in(
    conn: Connection,
    now: datetime,
    seqs: list[int],
    links: dict[int, list[str]],
    state: str,
    exchange: tuple[str, list[str]] | None = None,
) -> None:
    """`settle_extraction` inside a write transaction already open."""
    for seq, memory_ids in links.items():
        if seq >= 0:
            await log.link_memories(conn, [seq], memory_ids)
    if exchange is not None and exchange[1]:
        await exchanges.link_exchange(conn, *exchange)
    due = now if state == "pending" else None
    await log.set_extraction(conn, [s for s in seqs if s >= 0], state, due)


def owed_state(rt: Runtime) -> str:
    """What an exchange the LLM could not extract becomes: `pending` (retried from the log in
    the background) when a configured provider can drain it, else `none` (kept in the log only:
    with no LLM nothing piles up)."""
    return "pending" if rt.llm.answers_in_background else "none"


def backoff_s(rt: Runtime, attempts: int) -> float:
    """Seconds until the next try of an exchange that failed `attempts` times before."""
    settings = rt.settings.sieve
    return float(min(settings.retry_interval_s * 2 ** (attempts + 1), settings.retry_max_backoff_s))


async def prune(rt: Runtime) -> int:
    """Erase messages older than the retention setting (none when it says keep)."""
    days = rt.settings.sieve.conversation_retention_days
    if not days:
        return 0
    async with rt.db.write() as conn:
        return await log.erase_older_than(conn, rt.clock() - timedelta(days=days))
