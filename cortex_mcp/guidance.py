"""What the agent is told about its memory, in one place: the server's instructions, the note an
ingest adds when no LLM is here, and the line the hooks put beside the session's digest. Each
names only the tools this server exposes (`CORTEX_TOOLS`; none named means all), so none points
at a tool the agent cannot call. Standard library only: the hook command reads it too."""

from collections.abc import Collection

HEAD = "cortex-mcp is your long-term memory of this user, kept across sessions and agents."
TAIL = "Memories are stored in the language they were written in; do not translate them."
STEPS = {  # tool: the bullet that tells the model when to call it
    "cortex_recall": """\
- Before answering anything that may depend on the past (who the user is, their preferences,
  decisions, projects, earlier corrections), call cortex_recall with the topic as the query.
  Call it with an empty query at the start of a conversation for the core memory digest.""",
    "cortex_remember": """\
- When the user states a lasting fact, preference or decision, or asks you to remember
  something, call cortex_remember. When they correct a memory, pass its id as `supersedes`.""",
    "cortex_ingest": """\
- After each exchange worth keeping, call cortex_ingest with the user's message and your reply;
  cortex extracts what matters from both sides and ignores small talk.""",
    "cortex_flush": """\
- Before your context is compacted or trimmed, call cortex_flush with the messages about to go.""",
    "cortex_forget": """\
- When a memory is wrong or unwanted, call cortex_forget with its id (or an exchange_id). When
  the user asks you to forget something ("forget my locker code"), call it with `matching`,
  show the user the preview, then call again with its `confirm`.""",
    "cortex_scratchpad": """\
- Keep the current focus, open questions and next steps in cortex_scratchpad (action=replace);
  it comes back with the digest in the next session.""",
}
EXTRACTOR = """\
  When its result says there is no LLM here, you are the extractor: save the lasting facts with
  cortex_remember."""
"""Added to the ingest bullet only when cortex_remember is exposed."""
HOOK_BLOCK = "Memory from earlier sessions (cortex-mcp)"
"""How the hooks' injected blocks begin (the instructions tell the model to recognise them)."""
SAVING_TOOLS = ("cortex_ingest", "cortex_flush")
DIGEST_HEADER = "Core memory digest (cortex-mcp; no query given):"
DIGEST_MORE = "{more} more: ask cortex_recall with a query."
"""The first and last lines of recall's digest; the session-start hook, whose head and note
say the same, leaves them out."""


def exposes(tools: Collection[str], name: str) -> bool:
    """True when `name` is exposed (an empty list exposes every tool)."""
    return not tools or name in tools


def instructions(tools: Collection[str]) -> str:
    """The server's instructions, naming only the exposed tools."""
    steps = []
    for name, step in STEPS.items():
        if not exposes(tools, name):
            continue
        extractor = name == "cortex_ingest" and exposes(tools, "cortex_remember")
        steps.append(step + "\n" + EXTRACTOR if extractor else step)
    saving = [name for name in SAVING_TOOLS if exposes(tools, name)]
    if saving:
        steps.append(
            f'- When a block headed "{HOOK_BLOCK}" is in your context, its hooks already'
            f" save each exchange and compaction: do not call {' or '.join(saving)} yourself."
        )
    return "\n".join([HEAD, *steps, TAIL])


EMPTY_WAYS = {  # tool: how a memory gets in through it
    "cortex_remember": "cortex_remember with a lasting fact",
    "cortex_ingest": "cortex_ingest after an exchange",
    "cortex_flush": "cortex_flush before your context is compacted",
}


def empty_store(tools: Collection[str]) -> str:
    """What recall says of an empty store: that it is empty, and how memories get in through
    the tools exposed (and the hooks, which save on their own)."""
    ways = [way for name, way in EMPTY_WAYS.items() if exposes(tools, name)]
    listed = " or ".join([", ".join(ways[:-1]), ways[-1]] if len(ways) > 1 else ways)
    hooks = "the cortex-mcp hooks save conversations on their own"
    if not ways:
        return f"Memory is empty: nothing is stored yet; {hooks}."
    return (
        f"Memory is empty: nothing is stored yet. Memories get in when you call {listed} ({hooks})."
    )


def ingest_note(tools: Collection[str]) -> str | None:
    """The request an ingest with no LLM makes of the calling agent; None when the tool it
    would point at is not exposed (there is nothing to ask)."""
    if not exposes(tools, "cortex_remember"):
        return None
    return "No LLM here: save the lasting facts of this exchange with cortex_remember."


def hook_note(tools: Collection[str], saving_hooks: bool) -> str:
    """The line the session-start hook puts under its digest: the hooks save the conversation
    (so the agent need not), and what is still the agent's to do, with exposed tools only."""
    parts = []
    saving = [name for name in SAVING_TOOLS if exposes(tools, name)]
    if saving_hooks and saving:
        parts.append(f"Hooks save this conversation: no need to call {' or '.join(saving)}.")
    if exposes(tools, "cortex_remember"):
        parts.append("When the user asks you to remember something, call cortex_remember.")
    if exposes(tools, "cortex_recall"):
        parts.append("For anything else from the past, call cortex_recall.")
    return f"({' '.join(parts)})" if parts else ""


def is_digest_more(line: str) -> bool:
    """True for the digest's DIGEST_MORE line ("4 more: ask cortex_recall with a query.")."""
    count, _, rest = line.partition(" ")
    return count.isdigit() and rest == DIGEST_MORE.format(more="").lstrip()
