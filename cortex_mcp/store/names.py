"""How a store is named in messages and stats: never with its password."""

import re

_PASSWORD = re.compile(r"(//[^:/@]+):[^@]*@")


def display_url(url: str) -> str:
    """A database URL without its password (postgresql://user:***@host/db)."""
    return _PASSWORD.sub(r"\1:***@", url)
