"""The Snowball stemmers search uses (porter, english), loaded without the other languages'
(#28 item 6).

`import snowballstemmer` imports all 36 of its stemmers: 3 MiB of the serving
process for the two used here. Its directory is read here under a private package name, so
only the two modules, their base class and `Among` load, and `snowballstemmer` itself stays as
it is for any other importer. Where PyStemmer is installed (snowballstemmer then answers with
its C stemmers) the package is imported as before, so the stems do not change.
"""

import importlib
import importlib.util
import sys
from types import ModuleType
from typing import Protocol

PACKAGE = "_cortex_snowballstemmer"
"""The private name snowballstemmer's directory is imported under."""


class Stemmer(Protocol):
    """A Snowball stemmer: one word in, its stem out."""

    def stemWord(self, word: str) -> str:
        """The stem of `word` (snowballstemmer's name for it)."""


def _modules() -> ModuleType:
    """A package of snowballstemmer's directory, none of its modules imported yet."""
    if PACKAGE in sys.modules:
        return sys.modules[PACKAGE]
    spec = importlib.util.find_spec("snowballstemmer")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("snowballstemmer is not installed")
    package = ModuleType(PACKAGE)
    package.__path__ = list(spec.submodule_search_locations)
    sys.modules[PACKAGE] = package
    return package


def snowball(language: str) -> Stemmer:
    """A stemmer of `language` ("porter", "english"), as `snowballstemmer.stemmer` makes it."""
    if importlib.util.find_spec("Stemmer") is None:  # else PyStemmer: the package's own choice
        try:
            module = importlib.import_module(f"{_modules().__name__}.{language}_stemmer")
            made: Stemmer = getattr(module, f"{language.capitalize()}Stemmer")()
            return made
        except (ImportError, AttributeError):  # another layout of the package: load it whole
            pass
    import snowballstemmer  # type: ignore[import-untyped]

    stemmer: Stemmer = snowballstemmer.stemmer(language)
    return stemmer
