"""The context block a recall answers with: relation lines, the memories, then what was said
in earlier conversations, each part cut to what the token budget leaves."""

from cortex_mcp.engine.recall.log import repeats
from cortex_mcp.models import LogHit, Memory, RecallItem
from cortex_mcp.search.budget import estimate_tokens, fit_lines
from cortex_mcp.search.entities import relation_line
from cortex_mcp.store.relations import Relation

CONTEXT_HEADER = "Relevant memories (cortex-mcp; most relevant first):"
CONTEXT_EMPTY = "No stored memory matches this query."
LOG_HEADER = "Said in earlier conversations (verbatim from the conversation log, not memories):"
LOG_LINE_CHARS = 400
LONG_MEMORY = 2
"""A memory longer than this many times its relation's line is answered by the line."""


def memory_line(memory: Memory) -> str:
    """One memory as a line of the context block: date, layer, category, content, id."""
    day = memory.created_at.date().isoformat()
    flat = " ".join(memory.content.split())
    return f"- [{day} · {memory.layer} · {memory.category}] {flat} (id {memory.id})"


def context_block(memories: list[Memory], max_tokens: int, header: str) -> tuple[str, int]:
    """The memories as a block for the prompt, cut to the token budget; and how many fit."""
    if not memories:
        return CONTEXT_EMPTY, 0
    lines = fit_lines(header, [memory_line(m) for m in memories], "", max_tokens)
    return "\n".join([header, *lines]), len(lines)


def to_item(memory: Memory, score: float, slot_answer: bool = False) -> RecallItem:
    """The short form of a recalled memory (`slot_answer`: it answers the slot asked about)."""
    return RecallItem(
        id=memory.id,
        layer=memory.layer,
        category=memory.category,
        content=memory.content,
        importance=memory.importance,
        score=round(score, 6),
        created_at=memory.created_at,
        slot_answer=slot_answer,
    )


def tokens_of(block: str) -> int:
    """The token estimate of a context block."""
    return estimate_tokens(block)


def snippet(text: str, terms: list[str]) -> str:
    """The message on one line; a long one cut to a window around the first query term."""
    flat = " ".join(text.split())
    if len(flat) <= LOG_LINE_CHARS:
        return flat
    folded = flat.casefold()
    at = min((i for t in terms if (i := folded.find(t.casefold())) >= 0), default=0)
    start = max(0, min(at - LOG_LINE_CHARS // 4, len(flat) - LOG_LINE_CHARS))
    cut = flat[start : start + LOG_LINE_CHARS]
    return ("…" if start else "") + cut + ("…" if start + LOG_LINE_CHARS < len(flat) else "")


def log_line(hit: LogHit, terms: list[str]) -> str:
    """One log hit as a line of the context block: date, who said it, the message."""
    day = hit.created_at.date().isoformat()
    return f"- [{day} · said by {hit.role}] {snippet(hit.content, terms)}"


def distinct_said(said: list[LogHit], terms: list[str]) -> list[LogHit]:
    """The log hits whose lines repeat no earlier one: two long messages (a reply quoting
    another) can be cut to the same window."""
    kept: list[LogHit] = []
    shown: list[str] = []
    for hit in said:
        line = snippet(hit.content, terms)
        if not repeats(line, shown):
            kept.append(hit)
            shown.append(line)
    return kept


def recall_block(
    memories: list[Memory], said: list[LogHit], terms: list[str], max_tokens: int
) -> tuple[str, int, int]:
    """The context block: the memories, then a labelled section of log hits in what budget is
    left; with how many of each fit."""
    if not said:
        block, fitted = context_block(memories, max_tokens, CONTEXT_HEADER)
        return block, fitted, 0
    parts: list[str] = []
    fitted = 0
    if memories:
        lines = fit_lines(CONTEXT_HEADER, [memory_line(m) for m in memories], "", max_tokens)
        parts, fitted = [CONTEXT_HEADER, *lines], len(lines)
    left = max_tokens - estimate_tokens("\n".join(parts)) - 1
    said_lines: list[str] = []
    if left > estimate_tokens(LOG_HEADER) + 8:
        said_lines = fit_lines(LOG_HEADER, [log_line(h, terms) for h in said], "", left)
    if said_lines:
        parts += [LOG_HEADER, *said_lines]
    return ("\n".join(parts) or CONTEXT_EMPTY), fitted, len(said_lines)


def answer_lines(relations: list[Relation], shown: list[Memory]) -> list[str]:
    """The relations worth a line of their own: no memory shown says them, or theirs is long."""
    by_id = {m.id: m for m in shown}
    lines = []
    for relation in relations:
        line = relation_line(relation.subject, relation.predicate, relation.object)
        memory = by_id.get(relation.source_memory_id or "")
        if memory is None or len(memory.content) > LONG_MEMORY * len(line):
            lines.append(f"- {line}")
    return list(dict.fromkeys(lines))


RELATIONS_HEADER = "Known relations (cortex-mcp entity graph):"


def with_relations(block: str, lines: list[str], empty: str) -> str:
    """The context block with the relation lines first; the lines alone for an empty block."""
    if not lines:
        return block
    section = "\n".join([RELATIONS_HEADER, *lines])
    return section if block == empty else f"{section}\n{block}"
