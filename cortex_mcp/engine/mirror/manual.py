"""A hand edit of MEMORY.md, kept as memory: each line the store does not hold yet takes the
path `cortex_remember` takes, so a slot it states replaces the memory holding the old value
and a correction replaces the closest memory ("I live in Porto." replaces "I'm now living in
Lisbon"); it was a plain insert, which left the old value live beside the new line. Other
edited pages (a working day) and dated or layered items are imported as before."""

import logging
from dataclasses import dataclass, field

from cortex_mcp.engine.ingest.remember import Remembering, remember
from cortex_mcp.engine.language.redaction import Cleaner
from cortex_mcp.engine.runtime import Runtime
from cortex_mcp.engine.transfer import import_text
from cortex_mcp.engine.transfer.load import IMPORTANCE
from cortex_mcp.engine.transfer.parse import Draft, parse_markdown
from cortex_mcp.errors import InvalidInput
from cortex_mcp.models import Category
from cortex_mcp.search.tokenize import normalised_content
from cortex_mcp.store.lifecycle import contents_present

logger = logging.getLogger(__name__)

CORE_PAGE = "MEMORY.md"


@dataclass
class KeptEdit:
    """What keeping an edit stored: new memories, and whether one replaced another."""

    added: list[str] = field(default_factory=list)
    """The memories remembered from MEMORY.md's new lines."""
    imported: int = 0
    """The memories imported as they were (a working day's lines, dated items)."""
    superseded: bool = False


async def keep_edit(rt: Runtime, clean: Cleaner, text: str, name: str) -> KeptEdit:
    """Store the edited page `name`'s new lines: MEMORY.md's as `cortex_remember` would,
    anything else as an import of the page."""
    kept = KeptEdit()
    taken: list[int] = []
    if name == CORE_PAGE:
        for draft in await new_core_lines(rt, clean, text):
            if await remember_line(rt, clean, draft, kept):
                taken.append(draft.line)
    report = await import_text(rt, clean, text, name, source="manual", taken_lines=taken)
    kept.imported = report.memories_added
    return kept


async def new_core_lines(rt: Runtime, clean: Cleaner, text: str) -> list[Draft]:
    """The page's undated core items whose text the agent has in no state yet."""
    drafts = [
        d for d in parse_markdown(text, Category.FACT) if d.layer is None and d.written is None
    ]
    async with rt.db.read() as conn:
        present = await contents_present(conn, rt.agent(None), [clean(d.content) for d in drafts])
    fresh = []
    for draft in drafts:
        key = normalised_content(clean(draft.content))
        if key not in present:
            present.add(key)
            fresh.append(draft)
    return fresh


async def remember_line(rt: Runtime, clean: Cleaner, draft: Draft, kept: KeptEdit) -> bool:
    """Remember one line as the agent's tool would; False when its rules refuse it (the
    import then reports the line)."""
    importance = IMPORTANCE.get(draft.category, 0.6)
    asked = Remembering(draft.category, importance, [], "agent", None, None, None)
    try:
        result = await remember(rt, clean, draft.content, asked, rt.agent(None))
    except InvalidInput as error:
        logger.info("MEMORY.md line %d left to the import: %s", draft.line, error)
        return False
    if result.action != "duplicate":
        kept.added.append(result.id)
    kept.superseded |= result.superseded_id is not None
    return True
