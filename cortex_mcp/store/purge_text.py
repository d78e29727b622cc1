"""Where a purge (or a forget) by text finds it: ignoring case, and how its whitespace is
spaced, since the Markdown page writes a memory on one line, a newline or a run of spaces as
one space, and the user copies the text from there. SQL finds the rows holding the text's
longest piece without whitespace; a pattern then tells which hold the text.
"""

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from cortex_mcp.store.db import Connection, fetch_all

_LIST_ITEM = re.compile(r"^\s*[-*+]\s+")
"""A page's list marker before a line copied from it."""


def as_copied(text: str) -> str:
    """The text a needle copied from a page stands for: without the whitespace around it (a
    whole line copies its line break) or the page's list marker (`- `)."""
    return _LIST_ITEM.sub("", text).strip()


def spaced(text: str) -> re.Pattern[str]:
    """`text` (`as_copied`) as a pattern ignoring case, each run of whitespace in it matching
    any run: a page writes a memory on one line, a newline or a run of spaces as one space,
    and the user copies the text from there."""
    pieces = [p for p in re.split(r"(\s+)", as_copied(text)) if p]
    return re.compile("".join(r"\s+" if p.isspace() else re.escape(p) for p in pieces), re.I)


def spaced_any(texts: Iterable[str]) -> re.Pattern[str] | None:
    """One pattern finding any of `texts` as `spaced` does, the longest first, each without
    the whitespace around it; None when none has more than whitespace. For the copies a purge
    scrubs outside the store (the mirror's pages, the backups of edited pages)."""
    needles = sorted(dict.fromkeys(t.strip() for t in texts if t.strip()), key=len, reverse=True)
    if not needles:
        return None
    return re.compile("|".join(f"(?:{spaced(n).pattern})" for n in needles), re.I)


def _piece(text: str) -> str:
    """The longest piece of `text` SQL can look for: no whitespace (every row holding `text`
    in any spacing holds it), and no letter outside ASCII that has a case (SQLite's `lower()`
    folds ASCII only: `SCHLÜSSEL` is `schlÜssel` there). SQL finds the rows, `spaced` tells."""
    kept = "".join(c if c.isascii() or c.lower() == c.upper() else " " for c in as_copied(text))
    return max(kept.split(), key=len, default="")


def _strings(value: Any) -> Iterator[str]:
    """Every string in a JSON value, keys too."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


async def _memory_rows(conn: Connection, text: str, agent_id: str | None) -> list[Any]:
    """(id, content, metadata) of the memories that may hold `text` in any spacing."""
    piece = _piece(text)
    return await fetch_all(
        conn,
        "select id, content, metadata from memories"
        " where (instr(lower(content), lower(:t)) > 0 or instr(lower(metadata), :j) > 0)"
        " and (cast(:agent_id as text) is null or agent_id = :agent_id) order by seq",
        {"t": piece, "j": json_lower(piece), "agent_id": agent_id},
    )


async def _message_rows(conn: Connection, text: str, agent_id: str | None) -> list[Any]:
    """(seq, content) of the logged messages that may hold `text` in any spacing."""
    return await fetch_all(
        conn,
        "select seq, content from conversation_log where instr(lower(content), lower(:t)) > 0"
        " and (cast(:agent_id as text) is null or agent_id = :agent_id) order by seq",
        {"t": _piece(text), "agent_id": agent_id},
    )


def _in_metadata(pattern: re.Pattern[str], text: str, metadata: str) -> bool:
    """True when a memory's metadata holds `text` as written in its JSON or, in any spacing,
    in one of its strings."""
    return json_lower(text) in metadata.lower() or any(
        pattern.search(s) for s in _strings(json.loads(metadata))
    )


async def matching_memories(
    conn: Connection, text: str, agent_id: str | None = None
) -> tuple[list[str], list[str]]:
    """Ids of memories (any agent, or only `agent_id`'s; any state) whose content contains
    `text`, ignoring case and how whitespace is spaced, and of those whose metadata only (a
    context, a snapshot) does."""
    pattern, held, mentioned = spaced(text), [], []
    for memory_id, content, metadata in await _memory_rows(conn, text, agent_id):
        if pattern.search(content):
            held.append(memory_id)
        elif _in_metadata(pattern, text, metadata):
            mentioned.append(memory_id)
    return held, mentioned


async def matching_messages(conn: Connection, text: str, agent_id: str | None = None) -> list[int]:
    """Sequence numbers of the logged messages (any agent, or only `agent_id`'s; hidden ones
    too) whose text contains `text`, ignoring case and spacing, as memories are matched."""
    pattern = spaced(text)
    rows = await _message_rows(conn, text, agent_id)
    return [int(row[0]) for row in rows if pattern.search(row[1])]


async def stored_forms(conn: Connection, text: str, agent_id: str | None = None) -> list[str]:
    """`text` as memories' content and metadata and logged messages hold it (its spacing and
    case there), each once: a purge by text scrubs every form it was found in."""
    pattern, held = spaced(text), []
    for _, content, metadata in await _memory_rows(conn, text, agent_id):
        held += [content, *_strings(json.loads(metadata))]
    held += [row[1] for row in await _message_rows(conn, text, agent_id)]
    forms = {m.group(0).lower(): m.group(0) for s in held for m in pattern.finditer(s)}
    return list(forms.values())


async def places_with(conn: Connection, texts: list[str]) -> dict[str, int]:
    """How many queue entries, log entries and recall queries contain one of `texts` (a
    preview)."""
    counts = {}
    for name, sql in (
        ("queue_entries", "select id from extraction_queue where instr(lower(payload), ?) > 0"),
        ("log_entries", "select id from lifecycle_log where instr(lower(details), ?) > 0"),
        ("access_entries", "select id from access_log where instr(lower(query), ?) > 0"),
    ):
        found: set[Any] = set()
        for text in texts:
            needle = text.lower() if name == "access_entries" else json_lower(text)
            found |= {row[0] for row in await fetch_all(conn, sql, (needle,))}
        counts[name] = len(found)
    return counts


def json_lower(text: str) -> str:
    """`text` in lower case as a JSON string holds it (without the quotes)."""
    return json.dumps(text.lower(), ensure_ascii=False)[1:-1]
