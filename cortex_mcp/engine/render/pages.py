"""The Markdown mirror's pages, as pure functions of memories: MEMORY.md, a working day, an
archive month, the relations. Every page starts with front matter naming cortex-mcp as its
generator, which is also how stale generated pages are told from the user's own files."""

from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

from cortex_mcp.clock import to_text
from cortex_mcp.engine.render.memory import render_core_markdown
from cortex_mcp.models import Category, Memory
from cortex_mcp.search.budget import estimate_tokens
from cortex_mcp.store.relations import Relation

GENERATOR = "generator: cortex-mcp"
MERMAID_EDGES = 100
RECALL_POINTER = (
    "_{more} more: ask cortex_recall. {shown} of {total} core memories are shown here, the "
    "most important and recent first; `cortex_recall` with a query searches them all, and the "
    "working and archive layers._"
)


def is_generated(path: Path) -> bool:
    """True for a page this generator wrote (its front matter says so)."""
    with path.open(encoding="utf-8", errors="replace") as file:
        return file.readline().strip() == "---" and file.readline().strip() == GENERATOR


def front_matter(**fields: object) -> list[str]:
    """YAML front matter lines with the generator marker first."""
    return ["---", GENERATOR, *(f"{key}: {value}" for key, value in fields.items()), "---", ""]


def without_front_matter(page: str) -> str:
    """A generated page's body: what follows its front matter."""
    head = "---\n" + GENERATOR + "\n"
    if not page.startswith(head):
        return page
    end = page.find("\n---\n", len(head) - 1)
    return page[end + len("\n---\n") :].lstrip("\n") if end >= 0 else page


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _weight(memory: Memory) -> tuple[float, datetime, str]:
    return memory.importance, memory.updated_at, memory.id


def render_memory_md(
    core: Iterable[Memory],
    max_lines: int,
    max_bytes: int,
    total: int | None = None,
    max_tokens: int | None = None,
) -> str:
    """MEMORY.md: core memory by category within the line, byte and token budget, filled by
    importance and recency, with a pointer to cortex_recall when some did not fit. The page
    changes only when core memory does (its date is that of the latest change). `total`: how
    many core memories there are, when `core` holds only the weightiest of them."""
    ranked = sorted((m for m in core if m.category != Category.PROFILE), key=_weight, reverse=True)
    total = len(ranked) if total is None else total

    latest = max((m.updated_at for m in ranked), default=None)
    changed = to_text(latest) if latest else "never"

    def page(count: int) -> str:
        head = front_matter(updated_at=changed, total_entries=total, shown=count)
        body = render_core_markdown(ranked[:count])
        if count < total:
            pointer = RECALL_POINTER.format(more=total - count, shown=count, total=total)
            body += "\n" + pointer + "\n"
        return "\n".join(head) + body

    def fits(text: str) -> bool:
        within_tokens = max_tokens is None or estimate_tokens(text) <= max_tokens
        return text.count("\n") <= max_lines and len(text.encode()) <= max_bytes and within_tokens

    if len(ranked) == total and fits(whole := page(total)):
        return whole
    low, high = 0, min(len(ranked) - 1, max_lines)
    while low < high:  # the largest count that fits; pages grow with the count
        middle = (low + high + 1) // 2
        low, high = (middle, high) if fits(page(middle)) else (low, middle - 1)
    return page(low)


def render_working_day(day: str, memories: list[Memory]) -> str:
    """memory/working/YYYY-MM-DD.md: that day's working memories in order."""
    ordered = sorted(memories, key=lambda m: (m.created_at, m.id))
    lines = front_matter(type="working", date=day, entries=len(ordered))
    lines += [f"# Working memory {day}", ""]
    for m in ordered:
        lines.append(f"- [{m.created_at:%H:%M}] ({m.category.value}) {_one_line(m.content)}")
    if not ordered:  # only a resource asks for an empty day: the mirror writes no such page
        lines.append("_No working memory of this day._")
    return "\n".join(lines) + "\n"


def render_archive_month(period: str, entries: list[Memory], summaries: list[Memory]) -> str:
    """memory/archive/YYYY-MM.md: the month's summary, then its entries, most recalled first."""
    compressed = sum(1 for m in entries if m.metadata.get("compressed_into"))
    lines = front_matter(type="archive", period=period, entries=len(entries), compressed=compressed)
    lines += [f"# Archive {period}", ""]
    if summaries:
        lines += ["## Summary", "", *(_one_line(s.content) for s in summaries), ""]
    if not entries and not summaries:
        lines.append("_Nothing archived in this month._")
    if entries:
        lines += ["## Entries", ""]
        by_use = sorted(entries, key=lambda m: (-m.access_count, -m.importance, m.created_at))
        for m in by_use:
            mark = " _(compressed)_" if m.metadata.get("compressed_into") else ""
            lines.append(
                f"- [{m.created_at:%Y-%m-%d}] ({m.category.value}) {_one_line(m.content)}{mark}"
            )
    return "\n".join(lines).rstrip() + "\n"


def render_relations(relations: list[Relation]) -> str:
    """memory/relations.md: every relation, and a Mermaid graph of the first ones."""
    lines = front_matter(type="relations", relations=len(relations))
    lines += ["# Relations", ""]
    if not relations:
        lines.append("No relations yet.")
        return "\n".join(lines) + "\n"
    lines += [f"- {r.subject} ──{r.predicate}──▶ {r.object}{_ended(r)}" for r in relations]
    return "\n".join([*lines, "", *mermaid_graph(relations[:MERMAID_EDGES])]) + "\n"


def mermaid_graph(relations: list[Relation]) -> list[str]:
    """A Mermaid flowchart of these relations, as lines of a fenced block."""
    nodes: dict[str, str] = {}
    graph = ["```mermaid", "graph LR"]
    for r in relations:
        subject = nodes.setdefault(r.subject, f"n{len(nodes)}")
        target = nodes.setdefault(r.object, f"n{len(nodes)}")
        arrow = "-->" if r.live else "-.->"
        graph.append(
            f'  {subject}["{_label(r.subject)}"] {arrow}|"{_label(r.predicate + _ended(r))}"| '
            f'{target}["{_label(r.object)}"]'
        )
    return [*graph, "```"]


def _ended(relation: Relation) -> str:
    """ " (ended YYYY-MM-DD)" for a relation that no longer holds; nothing for a live one."""
    return f" (ended {relation.valid_to:%Y-%m-%d})" if relation.valid_to else ""


def _label(text: str) -> str:
    return _one_line(text).replace('"', "#quot;")
