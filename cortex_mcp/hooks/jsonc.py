"""A host's settings file edited in place: JSON, or JSON with comments as Gemini CLI reads it
(`//` and `/* */` comments blanked, then strict JSON: no trailing commas). An edit rewrites
only the values that change, so everything else in the file stays as it was, byte for byte:
comments, indentation, key order, line endings. Standard library only."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from difflib import SequenceMatcher
from typing import Any

COMMENT_OR_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\r\n]*|/\*.*?(?:\*/|\Z)', re.DOTALL)
DECODER = json.JSONDecoder()
DEFAULT_UNIT = "  "


class CommentWouldBeLost(Exception):
    """An edit would delete a comment that is not inside a value it may drop."""

    def __init__(self, line: int) -> None:
        super().__init__(f"line {line}")
        self.line = line


def blank_comments(text: str) -> str:
    """`text` with every comment turned into spaces (line breaks kept, so positions, lines and
    columns stay those of `text`); strings are left alone. An unclosed `/*` runs to the end."""

    def blank(found: re.Match[str]) -> str:
        part = found.group()
        return part if part.startswith('"') else re.sub(r"[^\r\n]", " ", part)

    return COMMENT_OR_STRING.sub(blank, text)


def parse(text: str, comments: bool) -> Any:
    """The value in `text` (json.JSONDecodeError, with its line, when it is not valid or
    names a key twice in one object: which one counts is not clear, so neither is edited)."""
    plain = blank_comments(text) if comments else text
    value = json.loads(plain, parse_constant=_no_constant)
    locate(plain)
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


class Node:
    """Where one value sits in the text: [start, end), and for an object or an array its
    items (a member's item starts at its key)."""

    __slots__ = ("end", "items", "start")

    def __init__(self, start: int, end: int, items: list[Item] | None = None) -> None:
        self.start = start
        self.end = end
        self.items = items


class Item:
    """One member of an object (with its key) or one element of an array."""

    __slots__ = ("key", "node", "start")

    def __init__(self, start: int, key: str | None, node: Node) -> None:
        self.start = start
        self.key = key
        self.node = node


def locate(plain: str, pos: int = 0) -> Node:
    """The value starting at or after `pos` in `plain` (valid JSON, comments blanked)."""
    pos = _skip(plain, pos)
    opening = plain[pos]
    if opening not in "{[":  # a string, number, true, false or null
        return Node(pos, DECODER.raw_decode(plain, pos)[1])
    items: list[Item] = []
    keys: set[str] = set()
    cursor = _skip(plain, pos + 1)
    while plain[cursor] not in "]}":
        key, start = None, cursor
        if opening == "{":
            key, cursor = DECODER.raw_decode(plain, cursor)
            if key in keys:
                raise json.JSONDecodeError(f"the key {key!r} appears twice", plain, start)
            keys.add(key)
            cursor = _skip(plain, cursor) + 1  # the colon
        node = locate(plain, cursor)
        items.append(Item(start, key, node))
        cursor = _skip(plain, node.end)
        if plain[cursor] == ",":
            cursor = _skip(plain, cursor + 1)
    return Node(pos, cursor + 1, items)


def _skip(plain: str, pos: int) -> int:
    while plain[pos] in " \t\r\n":
        pos += 1
    return pos


def edit(text: str, new: Any, droppable: Callable[[Any], bool]) -> str:
    """`text` holding `new` instead of what it holds now: only what changes is rewritten.
    A comment inside a deleted or replaced value is deleted with it when `droppable(value)`;
    otherwise CommentWouldBeLost names its line and nothing is changed."""
    if not text.strip():
        return json.dumps(new, indent=2, ensure_ascii=False) + "\n"
    return Edit(text, droppable).of(new)


Dropped = list[tuple[int, Node, Any]]
"""Items an edit deletes or replaces: where each starts (its key, for a member), its value's
node and the value."""


class Edit:
    """The changes to one text, collected as (start, end, order, replacement) and applied
    last to first."""

    def __init__(self, text: str, droppable: Callable[[Any], bool]) -> None:
        self.text = text
        self.plain = blank_comments(text)
        self.droppable = droppable
        self.changes: list[tuple[int, int, int, str]] = []
        self.newline = "\r\n" if "\r\n" in text else "\n"
        unit = re.search(r"^([ \t]+)\S", text, re.MULTILINE)
        self.unit = unit.group(1) if unit else DEFAULT_UNIT

    def of(self, new: Any) -> str:
        """The text with `new` in it."""
        old = json.loads(self.plain)
        self.diff(locate(self.plain), old, new)
        out, limit = self.text, len(self.text)
        for start, end, _, replacement in sorted(self.changes, reverse=True):
            assert end <= limit, "changes overlap"
            out, limit = out[:start] + replacement + out[end:], start
        return out

    def diff(self, node: Node, old: Any, new: Any) -> None:
        """`node`, which holds `old`, made to hold `new`."""
        if same(old, new):
            return
        if isinstance(old, dict) and isinstance(new, dict):
            self.diff_object(node, old, new)
        elif isinstance(old, list) and isinstance(new, list):
            self.diff_array(node, old, new)
        else:
            self.keep_comments(node.start, node.end, [(node.start, node, old)])
            self.change(node.start, node.end, self.render(new, self._indent_of(node.start)))

    def diff_object(self, node: Node, old: dict[str, Any], new: dict[str, Any]) -> None:
        """Members that stay are edited in place, members that go are deleted, new ones
        follow the last."""
        items = node.items or []
        for item in items:
            if item.key in new:
                self.diff(item.node, old[str(item.key)], new[str(item.key)])
        gone = [index for index, item in enumerate(items) if item.key not in new]
        runs = _runs(gone)
        added = [self.member(key, value, node) for key, value in new.items() if key not in old]
        if added and runs and runs[-1][1] == len(items):
            *runs, (first, stop) = runs
            self.replace_run(node, first, stop, added, old)
        elif added:
            self.replace_run(node, len(items), len(items), added, old)
        for first, stop in runs:
            self.replace_run(node, first, stop, [], old)

    def diff_array(self, node: Node, old: list[Any], new: list[Any]) -> None:
        """Elements that stay are kept, a changed object or list in place is edited in place."""
        keys = SequenceMatcher(None, [_key(v) for v in old], [_key(v) for v in new], False)
        items = node.items or []
        for tag, first, stop, new_first, new_stop in keys.get_opcodes():
            pairs = list(zip(range(first, stop), range(new_first, new_stop), strict=False))
            if (
                tag == "replace"
                and stop - first == new_stop - new_first
                and all(_kin(old[a], new[b]) for a, b in pairs)
            ):
                for a, b in pairs:
                    self.diff(items[a].node, old[a], new[b])
            elif tag != "equal":
                texts = [self.element(value, node) for value in new[new_first:new_stop]]
                self.replace_run(node, first, stop, texts, old)

    def member(self, key: str, value: Any, node: Node) -> str:
        """`key: value` as a member of `node`."""
        return f"{json.dumps(key, ensure_ascii=False)}: {self.element(value, node)}"

    def element(self, value: Any, node: Node) -> str:
        """`value` as an item of `node`: on one line in a one-line container that has items,
        else indented as its items are."""
        if node.items and self._single_line(node):
            return json.dumps(value, ensure_ascii=False)
        return self.render(value, self._items_indent(node))

    def replace_run(
        self, node: Node, first: int, stop: int, texts: list[str], old: dict[str, Any] | list[Any]
    ) -> None:
        """Items [first, stop) of `node` replaced by `texts` (none: deleted; an empty run:
        inserted before item `first`), separators and line breaks kept tidy."""
        items = node.items or []
        dropped: Dropped = [
            (item.start, item.node, old[str(item.key)] if isinstance(old, dict) else old[index])
            for index, item in enumerate(items[first:stop], first)
        ]
        if not texts:
            self.delete_run(node, items, first, stop, dropped)
        elif first < stop:  # in place of the run: the separators around it stay
            start, end = items[first].start, items[stop - 1].node.end
            self.keep_comments(start, end, dropped)
            self.change(start, end, self.joined(node, texts))
        else:
            self.insert(node, items, first, texts)

    def delete_run(
        self,
        node: Node,
        items: list[Item],
        first: int,
        stop: int,
        dropped: Dropped,
    ) -> None:
        """Items [first, stop) deleted with one comma, and their lines when they had lines of
        their own; all of them: the container left empty."""
        start, end = items[first].start, items[stop - 1].node.end
        whole_lines = self._starts_line(start)
        if stop < len(items):  # up to and with the comma after the run
            end = self.plain.index(",", end) + 1
            if whole_lines and self._blank_after(end):
                start, end = self._line_start(start), min(self._line_end(end) + 1, len(self.text))
            else:
                while self.text[end : end + 1] in (" ", "\t"):
                    end += 1
        elif first == 0 and (
            not self.plain[node.start + 1 : node.end - 1].strip()
            or self._only_dropped_comments(node, dropped)
        ):  # every item, and no comment of anyone else's: the container is left empty
            start, end = node.start + 1, node.end - 1
        else:  # the last items: the comma before them goes too
            after = node.start + 1
            if first > 0:
                comma = self.plain.index(",", items[first - 1].node.end)
                self.change(comma, comma + 1, "")
                after = comma + 1
            if whole_lines and self._blank_after(end):
                start = max(self._break_before(start), after)
            else:
                while start > after and self.text[start - 1] in " \t":
                    start -= 1
        self.keep_comments(start, end, dropped)
        self.change(start, end, "")

    def insert(self, node: Node, items: list[Item], before: int, texts: list[str]) -> None:
        """`texts` put before item `before` (or after the last), on lines of their own when
        the items are on lines of their own."""
        close = node.end - 1
        if not items:
            inner = self.plain[node.start + 1 : close]
            indent = self._indent_of(node.start)
            body = self.newline + self._items_indent(node) + self.joined(node, texts)
            if not inner.strip() and inner == self.text[node.start + 1 : close]:
                self.change(node.start + 1, close, body + self.newline + indent)
            elif self._starts_line(close):
                self.change(self._break_before(close), self._break_before(close), body)
            else:
                self.change(close, close, f" {self.joined(node, texts)} ")
        elif before == len(items):
            last = items[-1].node.end
            if self._starts_line(close) and self._starts_line(items[-1].start):
                self.change(last, last, ",")
                at = self._break_before(close)
                self.change(
                    at, at, self.newline + self._items_indent(node) + self.joined(node, texts)
                )
            else:
                self.change(last, last, ", " + self.joined(node, texts))
        else:
            at = items[before].start
            if self._starts_line(at):
                indent = self._items_indent(node)
                line = self._line_start(at)
                self.change(line, line, indent + self.joined(node, texts) + "," + self.newline)
            else:
                self.change(at, at, self.joined(node, texts) + ", ")

    def joined(self, node: Node, texts: list[str]) -> str:
        """Items' texts with the separator `node` uses."""
        items = node.items or []
        if self._single_line(node) and items:
            return ", ".join(texts)
        return ("," + self.newline + self._items_indent(node)).join(texts)

    def render(self, value: Any, indent: str) -> str:
        """`value` as JSON in this file's style, its lines after the first at `indent`."""
        return json.dumps(value, indent=self.unit, ensure_ascii=False).replace(
            "\n", self.newline + indent
        )

    def keep_comments(self, start: int, end: int, dropped: Dropped) -> None:
        """CommentWouldBeLost unless every comment in [start, end) is inside a value that
        may go."""
        if (line := self._lost_comment(start, end, dropped)) is not None:
            raise CommentWouldBeLost(line)

    def _lost_comment(self, start: int, end: int, dropped: Dropped) -> int | None:
        """The line of the first comment in [start, end) outside the values that may go."""
        free = [span for at, node, value in dropped for span in self._free(at, node, value)]
        for pos in range(start, end):
            if self.text[pos] != self.plain[pos] and not any(a <= pos < b for a, b in free):
                return self.text.count("\n", 0, pos) + 1
        return None

    def _free(self, start: int, node: Node, value: Any) -> list[tuple[int, int]]:
        """Where in a dropped value a comment may go: the whole of it when it may go, else
        its items that may go (our entries in a list that also holds someone else's)."""
        if self.droppable(value):
            return [(start, node.end)]
        if not isinstance(value, dict | list):
            return []
        return [
            span
            for index, item in enumerate(node.items or [])
            for span in self._free(
                item.start,
                item.node,
                value[str(item.key)] if isinstance(value, dict) else value[index],
            )
        ]

    def _only_dropped_comments(self, node: Node, dropped: Dropped) -> bool:
        return self._lost_comment(node.start + 1, node.end - 1, dropped) is None

    def change(self, start: int, end: int, replacement: str) -> None:
        """Replace [start, end) (inserts at one place keep the order they were made in)."""
        self.changes.append((start, end, len(self.changes), replacement))

    # -- lines and indentation ---------------------------------------------------------

    def _line_start(self, pos: int) -> int:
        return self.text.rfind("\n", 0, pos) + 1

    def _break_before(self, pos: int) -> int:
        """Where the line break before `pos`'s line starts."""
        at = self._line_start(pos) - 1
        return at - 1 if self.text[at - 1 : at] == "\r" else at

    def _line_end(self, pos: int) -> int:
        found = self.text.find("\n", pos)
        return len(self.text) if found < 0 else found

    def _starts_line(self, pos: int) -> bool:
        return not self.text[self._line_start(pos) : pos].strip(" \t")

    def _blank_after(self, pos: int) -> bool:
        return not self.text[pos : self._line_end(pos)].strip(" \t\r")

    def _indent_of(self, pos: int) -> str:
        line = self.text[self._line_start(pos) :]
        return line[: len(line) - len(line.lstrip(" \t"))]

    def _single_line(self, node: Node) -> bool:
        return "\n" not in self.text[node.start : node.end]

    def _items_indent(self, node: Node) -> str:
        for item in node.items or []:
            if self._starts_line(item.start):
                return self._indent_of(item.start)
        return self._indent_of(node.start) + self.unit


def same(a: Any, b: Any) -> bool:
    """Equal as JSON (true is not 1; key order does not count)."""
    return _key(a) == _key(b)


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _kin(a: Any, b: Any) -> bool:
    return (isinstance(a, dict) and isinstance(b, dict)) or (
        isinstance(a, list) and isinstance(b, list)
    )


def _runs(indexes: list[int]) -> list[tuple[int, int]]:
    """Consecutive indexes as [first, stop) runs."""
    runs: list[tuple[int, int]] = []
    for index in indexes:
        if runs and runs[-1][1] == index:
            runs[-1] = (runs[-1][0], index + 1)
        else:
            runs.append((index, index + 1))
    return runs
