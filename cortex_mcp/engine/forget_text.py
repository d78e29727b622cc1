"""Forget by text: how an agent honours "forget my locker code" without knowing any id.

The first call previews: the agent's memories holding the text (ignoring case), how many of its
logged messages do (a purge counts the rest of the exchanges its memories came from too: it
erases them with them), and a `confirm` token. The agent shows the user what would go; called again
with that token, the same forget runs (soft: restorable memories, hidden messages; `purge`:
erased for good). The token is a digest of what the preview found, so a second call whose
matches changed in between (a new memory, another text) is refused and must preview again; it
holds no secret and no state, so any process serving the store accepts it.

Only the agent's own memories and messages are touched; shared memory is changed by id.
"""

import hashlib

from pydantic import BaseModel, Field

from cortex_mcp.engine import forget, purge
from cortex_mcp.engine.runtime import Runtime
from cortex_mcp.errors import InvalidInput
from cortex_mcp.store import conversation as log
from cortex_mcp.store import memories as rows
from cortex_mcp.store import purge_text as finding

SHOWN = 20
"""Matching memories listed in a preview."""


class ForgetMatching(BaseModel):
    """A preview of a forget by text (with its `confirm` token), or what it did."""

    matching: str
    purge: bool
    done: bool = Field(description="False: a preview; nothing changed yet.")
    memories: list[dict[str, str]] = Field(description="Memories holding the text (id, text).")
    memory_count: int
    messages: int = Field(
        description="Logged messages holding the text (a purge: and the rest of their exchange)."
    )
    exchanges: list[str] = Field(
        default_factory=list, description="Exchanges hidden (cortex_restore takes them)."
    )
    confirm: str | None = Field(
        default=None, description="Pass back as `confirm` to do it (previews only)."
    )
    note: str | None = None


async def _found(
    rt: Runtime, text: str, agent: str, erasing: bool
) -> tuple[list[str], list[int], str | None]:
    """The agent's memories and messages a forget (or purge) by `text` would take, and a note
    on the messages a purge takes without holding the text (the rest of their exchange)."""
    async with rt.db.read() as conn:
        ids, _ = await finding.matching_memories(conn, text, agent)
        if erasing:  # the messages the erase takes, listed by its own code
            seqs, holding = await purge.messages_matching(conn, text, agent)
            return ids, seqs, purge.messages_note(seqs, holding)
        found = await rows.memories_by_id(conn, ids)
        seqs = await finding.matching_messages(conn, text, agent)
        # a forget leaves what is already forgotten (or hidden) as it is
        ids = [i for i in ids if i in found and found[i].deleted_at is None]
        seqs = await log.visible_of(conn, seqs)
    return ids, seqs, None


def confirm_token(agent: str, text: str, erasing: bool, ids: list[str], seqs: list[int]) -> str:
    """The digest a preview hands out and the confirming call must match."""
    found = "\0".join([agent, text.lower(), str(erasing), *ids, *map(str, seqs)])
    return hashlib.sha256(found.encode("utf-8")).hexdigest()[:16]


async def forget_matching(
    rt: Runtime, text: str, agent: str, *, erasing: bool, confirm: str | None, reason: str | None
) -> ForgetMatching:
    """A preview (no `confirm`), or the forget (or purge) the preview's token confirms."""
    if len(text.strip()) < 3:
        raise InvalidInput("matching", "needs at least 3 characters")
    ids, seqs, note = await _found(rt, text, agent, erasing)
    token = confirm_token(agent, text, erasing, ids, seqs)
    async with rt.db.read() as conn:
        found = await rows.memories_by_id(conn, ids)
    listed = [{"id": i, "content": found[i].content[:120]} for i in ids[:SHOWN] if i in found]
    result = ForgetMatching(
        matching=text,
        purge=erasing,
        done=False,
        memories=listed,
        memory_count=len(ids),
        messages=len(seqs),
        note=note if ids or seqs else await purge.nothing_stored(rt, text, erasing),
    )
    if confirm is None:
        return result.model_copy(update={"confirm": token})
    if confirm != token:
        raise InvalidInput(
            "confirm",
            "is not the token of a preview of this request (same text and purge, same matches"
            " now): call again without confirm to preview",
        )
    if erasing:
        report = await purge.purge_matching(rt, text, agent)
        done = {"done": True, "messages": report.messages, "note": report.note or result.note}
        return result.model_copy(update=done)
    for memory_id in ids:
        try:
            await forget.forget(rt, memory_id, reason, agent)
        except InvalidInput:  # forgotten meanwhile, with another of its exchange
            continue
    async with rt.db.write() as conn:  # some went with the memories they gave, the rest now
        await log.hide_messages(conn, seqs, rt.clock())
        hidden = await log.exchanges_of(conn, seqs)
    return result.model_copy(update={"done": True, "exchanges": hidden})
