"""Reading other memory files, as pure functions: MEMORY.md and dated daily logs (Markdown),
and the official MCP memory server's knowledge graph (JSON lines).

Markdown: one memory per list item (continuation lines joined) or paragraph; section headings
choose the category (our own headings exactly, others by keyword in English, Chinese and
Japanese); a leading `[YYYY-MM-DD]` or `[YYYY-MM]` dates the item and a `(category)` after it
sets the category. Front matter, code blocks, our own recall pointer and every placeholder our
pages render ("No core memories yet. …") are skipped: they are no memories.

Our own export puts working days and archive months after core memory ("# Working memory
YYYY-MM-DD", "# Archive YYYY-MM"): their items keep their layer (`Draft.layer`), so a working
memory such as a flush's session summary never comes back as a permanent core memory.
"""

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from cortex_mcp.engine.render.memory import CATEGORY_HEADINGS, NO_CORE_MEMORIES, NO_PROFILE
from cortex_mcp.engine.transfer.validate import Problems
from cortex_mcp.errors import InvalidInput
from cortex_mcp.models import Category, Layer

EXACT_HEADINGS = {heading.lower(): category for category, heading in CATEGORY_HEADINGS.items()}
KEYWORD_HEADINGS: list[tuple[tuple[str, ...], Category]] = [
    (("who ", "identity", "about me", "about the user", "用户画像", "身份", "プロフィール"),
     Category.IDENTITY),
    (("preference", "habit", "convention", "rule", "偏好", "习惯", "规范", "好み"),
     Category.PREFERENCE),
    (("decision", "决策", "决定", "決定"), Category.DECISION),
    (("correction", "修正", "订正"), Category.CORRECTION),
    (("summar", "history", "历史", "摘要", "履歴"), Category.SUMMARY),
    (("to-do", "todo", "task", "待办", "タスク"), Category.TODO),
    (("project", "项目", "プロジェクト"), Category.PROJECT_STATE),
    (("skill", "技能", "スキル"), Category.SKILL),
    (("people", "relation", "organi", "实体", "关系", "人物"), Category.RELATIONSHIP),
    (("insight", "opinion", "lesson", "见解", "经验"), Category.INSIGHT),
    (("context", "background", "背景"), Category.CONTEXT),
    (("fact", "事实", "事実"), Category.FACT),
]  # fmt: skip
DATED = re.compile(r"^\[(\d{4}-\d{2}(?:-\d{2})?)(?:[ T]\d{2}:\d{2})?\]\s*(?:\((\w+)\)\s*)?")
CLOCK = re.compile(r"^\[\d{2}:\d{2}\]\s*(?:\((\w+)\)\s*)?")
LIST_ITEM = re.compile(r"^\s{0,3}(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?(.*)$")
DAILY_LOG = re.compile(r"^(\d{4}-\d{2}-\d{2})\.md$")
SKIPPED_LINES = frozenset(
    [
        NO_CORE_MEMORIES,
        "No core memories yet.",
        "No relations yet.",
        *(p.strip() for p in NO_PROFILE.split("\n\n")[1:]),
    ]
)
"""Placeholders our pages render where there is nothing to show."""
WORKING_DAY = re.compile(r"^Working memory (\d{4}-\d{2}-\d{2})$")
ARCHIVE_MONTH = re.compile(r"^Archive (\d{4}-\d{2})$")
OUR_SECTIONS = frozenset(["core memory", "relations", "user profile", "summary", "entries"])
"""Headings of our own pages that name no category."""
COMPRESSED_MARK = " _(compressed)_"
RELATION_LINE = re.compile(r"^\S.* ──\S.*──▶ \S")
"""`Harry ──lives in──▶ Tokyo`: a line of memory/relations.md or an export's relations."""


@dataclass
class Draft:
    """A memory read from a file, before it has an id."""

    content: str
    category: Category
    written: datetime | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    line: int = 0
    layer: Layer | None = None
    """Working or archive for an item of our export's working days or archive months."""


@dataclass
class Graph:
    """The official memory server's graph: memories from entities, and relations."""

    drafts: list[Draft] = field(default_factory=list)
    relations: list[tuple[str, str, str]] = field(default_factory=list)


def heading_category(heading: str, default: Category) -> Category:
    """The category a section heading stands for, or `default`."""
    text = heading.strip().lower()
    if text in EXACT_HEADINGS:
        return EXACT_HEADINGS[text]
    for keywords, category in KEYWORD_HEADINGS:
        if any(k in text for k in keywords):
            return category
    return default


def _dated(text: str, category: Category, line: int) -> Draft:
    """A draft from an item's text, reading a leading date and (category); a date that is no
    real day is left in the text."""
    match = DATED.match(text) or CLOCK.match(text)
    written, named = None, None
    if match is not None and match.re is DATED:
        stamp = match.group(1)
        try:
            written = datetime.fromisoformat(stamp if len(stamp) == 10 else stamp + "-01")
        except ValueError:
            return Draft(" ".join(text.split()), category, None, line=line)
        written = written.replace(tzinfo=UTC)
        named = match.group(2)
    elif match is not None:
        named = match.group(1)
    if named is not None and named in {c.value for c in Category}:
        category = Category(named)
    if match is None or (category == Category.SUMMARY and match.re is DATED):
        body = text  # a summary keeps the period it is about
    else:
        body = text[match.end() :]
    return Draft(" ".join(body.split()), category, written, line=line)


def _without_front_matter(lines: list[str]) -> tuple[int, list[str]]:
    """(how many lines the front matter took, the lines after it)."""
    stripped = [line.strip() for line in lines[:200]]
    if stripped[:1] == ["---"] and "---" in stripped[1:]:
        start = stripped.index("---", 1) + 1
        return start, lines[start:]
    return 0, lines


def _blocks(text: str) -> list[tuple[str, str, int]]:
    """("heading" | "item" | "paragraph", text, first line number) blocks of a Markdown
    document."""
    blocks: list[list[Any]] = []
    fenced = in_paragraph = False
    skipped, lines = _without_front_matter(text.splitlines())
    for number, line in enumerate(lines, start=skipped + 1):
        stripped = line.strip()
        if stripped.startswith("```"):
            fenced, in_paragraph = not fenced, False
        elif fenced or not stripped or stripped.startswith("<!--"):
            in_paragraph = False
        elif stripped.startswith("#"):
            blocks.append(["heading", stripped.lstrip("#").strip(), number])
            in_paragraph = False
        elif (item := LIST_ITEM.match(line)) is not None:
            blocks.append(["item", item.group(1), number])
            in_paragraph = False
        elif in_paragraph or (blocks and blocks[-1][0] == "item" and line[:1] in " \t"):
            blocks[-1][1] += " " + stripped  # a paragraph's next line, or an item's
        else:
            blocks.append(["paragraph", stripped, number])
            in_paragraph = True
    return [(kind, body, number) for kind, body, number in blocks]


def parse_markdown(text: str, default: Category) -> list[Draft]:
    """Memories of a MEMORY.md-style document: one per list item or paragraph."""
    drafts: list[Draft] = []
    category = default
    layer: Layer | None = None
    day: datetime | None = None
    for kind, body, number in _blocks(text):
        if kind == "heading":
            layer, day, category = _section(body, layer, day, category, default)
            continue
        body = body.strip().removesuffix(COMPRESSED_MARK).strip()
        pointer = body.startswith("_") and "cortex_recall" in body
        relation = RELATION_LINE.match(body) is not None  # an export's relations section
        if body and not pointer and not relation and not is_placeholder(body):
            draft = _dated(body, category, number)
            draft.layer = layer
            if layer == Layer.WORKING and day is not None and draft.written is None:
                draft.written = _at_clock(day, body)
            drafts.append(draft)
    return [d for d in drafts if d.content]


def is_placeholder(body: str) -> bool:
    """A line our pages render where there is nothing to show, however emphasised."""
    return body.strip().strip("_*>").strip() in SKIPPED_LINES


def _section(
    heading: str,
    layer: Layer | None,
    day: datetime | None,
    category: Category,
    default: Category,
) -> tuple[Layer | None, datetime | None, Category]:
    """(layer, day, category) from a heading: our working-day and archive-month headings set
    the layer, "Core memory" and "Relations" return to core, others set the category."""
    if (working := WORKING_DAY.match(heading)) is not None:
        return Layer.WORKING, _day(working.group(1)), default
    if (archived := ARCHIVE_MONTH.match(heading)) is not None:
        return Layer.ARCHIVE, _day(archived.group(1) + "-01"), default
    name = heading.strip().lower()
    if name in ("core memory", "relations"):
        return None, None, default
    if name in OUR_SECTIONS:
        return layer, day, category if name != "summary" else Category.SUMMARY
    return layer, day, heading_category(heading, default)


def _day(stamp: str) -> datetime | None:
    try:
        return datetime.fromisoformat(stamp).replace(tzinfo=UTC)
    except ValueError:
        return None


def _at_clock(day: datetime, body: str) -> datetime:
    """The time of a working-day item (`[HH:MM]`) on its day."""
    clock = re.match(r"^\[(\d{2}):(\d{2})\]", body)
    if clock is None or int(clock.group(1)) > 23 or int(clock.group(2)) > 59:
        return day
    return day.replace(hour=int(clock.group(1)), minute=int(clock.group(2)))


def daily_log_date(name: str) -> datetime | None:
    """The day a daily log file (YYYY-MM-DD.md) is about, or None for other names."""
    match = DAILY_LOG.match(name)
    if match is None:
        return None
    try:
        return datetime.fromisoformat(match.group(1)).replace(tzinfo=UTC)
    except ValueError:
        return None


ENTITY_CATEGORIES = {
    "user": Category.IDENTITY,
    "person": Category.RELATIONSHIP,
    "organization": Category.RELATIONSHIP,
    "organisation": Category.RELATIONSHIP,
    "company": Category.RELATIONSHIP,
    "project": Category.PROJECT_STATE,
    "preference": Category.PREFERENCE,
    "skill": Category.SKILL,
}
USER_NAMES = frozenset({"user", "default_user", "me", "the user"})


def parse_knowledge_graph(lines: Iterable[tuple[int, str]], problems: Problems) -> Graph:
    """Entities (each observation one memory) and relations of the memory server's JSONL,
    read from (line number, line) a line at a time: a bad line is counted in `problems`."""
    graph = Graph()
    for number, line in lines:
        if not line.strip():
            continue
        try:
            record = _record(line)
            if record.get("type") == "relation":
                graph.relations.append(_relation_triple(record))
            elif record.get("type") == "entity":
                graph.drafts += _entity_drafts(record, number)
            else:
                raise InvalidInput("type", 'must be "entity" or "relation"')
        except InvalidInput as error:
            problems.add(number, error)
    return graph


def _record(line: str) -> dict[str, Any]:
    try:
        record = json.loads(line)
    except RecursionError as err:
        raise InvalidInput("line", "is nested too deeply") from err
    except ValueError as err:
        raise InvalidInput("line", "is not JSON") from err
    if not isinstance(record, dict):
        raise InvalidInput("line", "must be a JSON object")
    return record


def _relation_triple(record: dict[str, Any]) -> tuple[str, str, str]:
    parts = (record.get("from"), record.get("relationType"), record.get("to"))
    for name, part in zip(("from", "relationType", "to"), parts, strict=True):
        if not isinstance(part, str) or not part.strip():
            raise InvalidInput(name, "must be a non-empty string")
    return str(parts[0]), str(parts[1]), str(parts[2])


def _entity_drafts(entity: dict[str, Any], line: int) -> list[Draft]:
    name, kind = entity.get("name"), entity.get("entityType") or "thing"
    if not isinstance(name, str) or not name.strip():
        raise InvalidInput("name", "must be a non-empty string")
    if not isinstance(kind, str):
        raise InvalidInput("entityType", "must be a string")
    category = ENTITY_CATEGORIES.get(kind.lower(), Category.FACT)
    if name.lower() in USER_NAMES:
        category = Category.IDENTITY
    metadata = {"entities": [name], "entity_type": kind}
    observations = entity.get("observations") or []
    if not isinstance(observations, list) or not all(isinstance(o, str) for o in observations):
        raise InvalidInput("observations", "must be a list of strings")
    kept = [o for o in observations if o.strip()]
    if not kept:
        return [Draft(f"{name} ({kind})", category, None, metadata, line)]
    return [Draft(" ".join(f"{name}: {o}".split()), category, None, metadata, line) for o in kept]


def has_markdown_structure(text: str) -> bool:
    """True when `text` has a Markdown heading or list item: what a memory file is made of
    (a script, a licence or /etc/passwd has neither)."""
    return any(kind != "paragraph" for kind, _, _ in _blocks(text))
