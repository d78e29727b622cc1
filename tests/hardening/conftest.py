"""The lifecycle tests' engines (real SQLite files, a frozen clock, no providers)."""

from tests.lifecycle.conftest import engine, settings  # noqa: F401 - fixtures
