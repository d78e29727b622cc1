"""Failures a caller can act on. Their text is shown to the model, so it is one line: `field: rule`.

- CortexError: the base; the MCP edge turns every one into a tool error.
  - InvalidInput(field, rule): an argument breaks a rule the signature cannot express.
    - MemoryNotFound(memory_id): no visible memory has that id.
  - ProviderUnavailable: an LLM or embedding provider failed; never reaches a tool caller.
  - ConfigError(where, rule, fix): a start-up setting or the data folder is unusable; the CLI
    prints it as one line and exits 2.
  - StoreUnavailable(cause): the database cannot be used (disk full, read-only file, corrupt
    pages); a tool call reports it as `database: <cause>`.
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


class ConfigError(CortexError):
    """A setting, the data folder or the database file is unusable at start-up; one line."""

    def __init__(self, where: str, rule: str, fix: str) -> None:
        super().__init__(f"{where}: {rule}; {fix}")
        self.where = where
        self.rule = rule
        self.fix = fix


class StoreUnavailable(CortexError):
    """SQLite refused the work: disk full, read-only file, corrupt pages, unreadable file."""

    def __init__(self, cause: str) -> None:
        super().__init__(f"database: {cause}")
        self.cause = cause
