"""Failures a caller can act on. Their text is shown to the model, so it is one line: `field: rule`.

- CortexError: the base; the MCP edge turns every one into a tool error.
  - InvalidInput(field, rule): an argument breaks a rule the signature cannot express.
    - MemoryNotFound(memory_id): no visible memory has that id.
  - ProviderUnavailable: an LLM or embedding provider failed; never reaches a tool caller.
"""


class CortexError(Exception):
    """A failure the caller can act on; its message is shown to the model."""


class InvalidInput(CortexError):
    """An argument breaks a rule; nothing was changed."""

    def __init__(self, field: str, rule: str) -> None:
        super().__init__(f"{field}: {rule}")
        self.field = field
        self.rule = rule


class MemoryNotFound(InvalidInput):
    """No memory with this id is visible to the caller."""

    def __init__(self, memory_id: str, field: str = "memory_id") -> None:
        super().__init__(field, f"no memory with id {memory_id!r}")
        self.memory_id = memory_id


class ProviderUnavailable(CortexError):
    """Every configured provider failed or none is configured; callers degrade instead."""
