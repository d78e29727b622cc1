"""Reading large import files a piece at a time, so an import's memory stays bounded.

A cortex-mcp JSON export is read in three passes over the bytes: one checks the nesting depth
and reads the top-level fields (format, version, and what `memories` and `relations` are);
the others yield the memories and relations one at a time (ijson). JSON lines are read a line
at a time. Nothing here touches the database.
"""

import io
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any, TypeVar

import ijson

from cortex_mcp.errors import InvalidInput

Source = Callable[[], IO[bytes]]
"""Opens the bytes of one file from the start (a file, or the text of one in memory)."""
MAX_DEPTH = 64
"""Deeper JSON is refused before it is built: nothing cortex writes nests beyond a few levels."""
BATCH = 500
T = TypeVar("T")


def text_source(text: str) -> Source:
    """A `Source` for text already in memory."""
    data = text.encode("utf-8", "surrogatepass")
    return lambda: io.BytesIO(data)


@dataclass
class ExportHeader:
    """The top level of a JSON document: its scalar fields and the kind of its others."""

    scalars: dict[str, Any] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)
    is_object: bool = False


def _json_error(error: Exception) -> InvalidInput:
    first = str(error).splitlines()[0] if str(error).strip() else type(error).__name__
    return InvalidInput("file", f"is not valid JSON ({first.strip()[:120]})")


def scan_header(source: Source) -> ExportHeader:
    """Check the whole document is JSON nested at most MAX_DEPTH deep; its top-level fields."""
    header, depth, key = ExportHeader(), 0, None
    try:
        with source() as data:
            for event, value in ijson.basic_parse(data, use_float=True):
                if depth == 0 and event == "start_map":
                    header.is_object = True
                if depth == 1 and event == "map_key":
                    key = value
                elif depth == 1 and key is not None:
                    header.kinds[key] = event
                    if event not in ("start_map", "start_array"):
                        header.scalars[key] = value
                    key = None
                if event in ("start_map", "start_array"):
                    depth += 1
                    if depth > MAX_DEPTH:
                        raise InvalidInput("file", f"is nested more than {MAX_DEPTH} levels deep")
                elif event in ("end_map", "end_array"):
                    depth -= 1
    except ijson.JSONError as error:
        raise _json_error(error) from error
    return header


def items_of(source: Source, key: str) -> Iterator[Any]:
    """The elements of the top-level list `key`, one at a time (scan_header first)."""
    try:
        with source() as data:
            yield from ijson.items(data, f"{key}.item", use_float=True)
    except ijson.JSONError as error:
        raise _json_error(error) from error


def lines_of(source: Source) -> Iterator[str]:
    """The lines of a UTF-8 text file, one at a time."""
    with source() as data:
        reader = io.TextIOWrapper(data, encoding="utf-8", newline=None)
        try:
            yield from (line.rstrip("\n") for line in reader)
        except UnicodeDecodeError as error:
            raise InvalidInput("file", "is not UTF-8 text") from error
        finally:
            reader.detach()


def batches(items: Iterable[T], size: int = BATCH) -> Iterator[list[T]]:
    """`items` in lists of at most `size`."""
    batch: list[T] = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch
