"""A fast reader for the TOML layout pbem writes; where it answers, its answer is tomllib's.

pbem writes every file with tomli_w, in one layout: a table header per line (``[a."b"]``,
``[[a.b]]``), one ``key = value`` per line with a single space each side of the ``=``, arrays
written one item per line and closed by ``]`` on a line of its own, strings without escapes,
decimal integers, booleans, inline tables inside arrays. Reading that layout line by line with a few
regular expressions is several times faster than tomllib, which reads any TOML character by
character, and a long game's history is mostly such files.

The reader accepts a strict subset of TOML 1.0 and gives up (``Unsupported``) on anything else: a
comment after a value, other spacing, a float, a date, a dotted key, an escape, a string spanning
lines, a table header that reopens or reaches into a table it did not make, a key given twice.
Its caller (files.py) then parses the whole text with tomllib, so a file that is not TOML, or is
TOML outside the subset, is read (or refused, with tomllib's message) exactly as before. Where the
reader answers, the data equals tomllib's for the same text: the tests compare the two on every
file of the golden games, on generated documents written by tomli_w, and on random mutations of
their lines (tests/exchange/test_fasttoml.py).
"""

from __future__ import annotations

import re
from typing import Any


class Unsupported(Exception):  # noqa: N818 - not an error: the text is for tomllib to read
    """The text is outside the layout this reader knows: parse it with tomllib."""


# Characters a basic string holds as they are: not '"', not '\\' and no control character but tab.
_CHARS = r'[^"\\\x00-\x08\x0a-\x1f\x7f]*'
_STRING = rf'"({_CHARS})"'  # a string, its content captured
_BARE = r"[A-Za-z0-9_-]+"
_KEY = rf'(?:{_BARE}|"{_CHARS}")'  # a key, nothing captured
_KEY_PART = re.compile(rf"({_BARE})|{_STRING}")  # one part of a key: bare or a string
_HEADER = re.compile(rf"(\[\[?)({_KEY}(?:\.{_KEY})*)(\]\]?)")
_KEY_VALUE = re.compile(rf"(?:({_BARE})|{_STRING}) = (.+)")
# the values most lines hold, whole: a string, a decimal integer of at most 19 digits, a boolean
_SIMPLE = re.compile(rf"{_STRING}|(-?(?:0|[1-9][0-9]{{0,18}}))|(true|false)")
# the indent is taken whole (possessive): otherwise a long line of spaces is tried at every split, in
# quadratic time (a 2 MB file would take hours to give up on)
_ITEM = re.compile(r" *+(.+),")
_COMMENT = re.compile(r"#[^\x00-\x08\x0a-\x1f\x7f]*")
_TOKEN = re.compile(rf"{_STRING}|(-?(?:0|[1-9][0-9]{{0,18}}))(?![0-9_.eExob:+-])|(true|false)(?![A-Za-z0-9_-])|(\[ ?|\{{ ?)")
MAX_INLINE_DEPTH = 32  # arrays and tables nested deeper are tomllib's to read (and refuse: files.MAX_DEPTH)


def _key(bare: str | None, quoted: str | None) -> str:
    """A key from a match of a bare key or a string (``findall`` gives '' for the part not matched)."""
    return bare or quoted or ""


def _value(line: str, pos: int, depth: int) -> tuple[Any, int]:
    """The value at ``pos`` of ``line`` and the position after it (arrays ``[a, b]`` and inline
    tables ``{ k = v, k = v }`` as tomli_w writes them, on one line)."""
    m = _TOKEN.match(line, pos)
    if m is None or depth > MAX_INLINE_DEPTH:
        raise Unsupported
    s, i, b, opener = m.groups()
    if opener is None:
        return (s if s is not None else int(i) if i is not None else b == "true"), m.end()
    pos = m.end()
    if opener[0] == "[":
        items: list[Any] = []
        if line.startswith("]", pos):
            return items, pos + 1
        while True:
            v, pos = _value(line, pos, depth + 1)
            items.append(v)
            if line.startswith(", ", pos) and not line.startswith("]", pos + 2):
                pos += 2
            elif line.startswith(" ]", pos) or line.startswith("]", pos):
                return items, line.index("]", pos) + 1
            else:
                raise Unsupported
    table: dict[str, Any] = {}
    if line.startswith("}", pos):
        return table, pos + 1
    while True:
        k = _KEY_PART.match(line, pos)
        if k is None or not line.startswith(" = ", k.end()):
            raise Unsupported
        name = _key(*k.groups())
        if name in table:
            raise Unsupported
        table[name], pos = _value(line, k.end() + 3, depth + 1)
        if line.startswith(", ", pos):
            pos += 2
        elif line.startswith(" }", pos):
            return table, pos + 2
        else:
            raise Unsupported


def _whole_value(text: str) -> Any:
    m = _SIMPLE.fullmatch(text)
    if m is not None:
        s, i, b = m.groups()
        return s if s is not None else int(i) if i is not None else b == "true"
    v, end = _value(text, 0, 0)
    if end != len(text):
        raise Unsupported
    return v


def loads(text: str) -> dict[str, Any]:
    """The data of ``text``, as tomllib.loads gives it; ``Unsupported`` where the text is outside
    the layout (module docstring)."""
    if "\r" in text or "\\" in text:
        raise Unsupported
    root: dict[str, Any] = {}
    tables = {id(root)}  # made by table headers: a header may reach into them
    defined = {id(root)}  # made by a header naming them: a header may not name them again
    arrays_of_tables: set[int] = set()
    current = root
    stack: list[list[Any]] = []  # the arrays open across lines, innermost last
    for line in text.split("\n"):
        if stack:
            if line.lstrip(" ") in ("]", "],"):
                closed = stack.pop()
                if line.endswith(",") != bool(stack):
                    raise Unsupported
                del closed
                continue
            m = _ITEM.fullmatch(line)
            if m is not None:
                stack[-1].append(_whole_value(m.group(1)))
                continue
            if line.lstrip(" ") == "[" and len(stack) < MAX_INLINE_DEPTH:
                inner: list[Any] = []
                stack[-1].append(inner)
                stack.append(inner)
                continue
            raise Unsupported
        if not line:
            continue
        first = line[0]
        if first == "[":
            m = _HEADER.fullmatch(line)
            if m is None or len(m.group(1)) != len(m.group(3)):
                raise Unsupported
            parts = [_key(*p) for p in _KEY_PART.findall(m.group(2))]
            node = root
            for part in parts[:-1]:
                v = node.get(part)
                if v is None:
                    v = node[part] = {}
                    tables.add(id(v))
                elif isinstance(v, list) and id(v) in arrays_of_tables:
                    v = v[-1]
                elif not (isinstance(v, dict) and id(v) in tables):
                    raise Unsupported
                node = v
            last = parts[-1]
            v = node.get(last)
            if m.group(1) == "[[":
                if v is None:
                    v = node[last] = []
                    arrays_of_tables.add(id(v))
                elif not (isinstance(v, list) and id(v) in arrays_of_tables):
                    raise Unsupported
                current = {}
                v.append(current)
            else:
                if v is None:
                    current = node[last] = {}
                elif isinstance(v, dict) and id(v) in tables and id(v) not in defined:
                    current = v
                else:
                    raise Unsupported
            tables.add(id(current))
            defined.add(id(current))
        elif first == "#":
            if _COMMENT.fullmatch(line) is None:
                raise Unsupported
        else:
            m = _KEY_VALUE.fullmatch(line)
            if m is None:
                raise Unsupported
            bare, quoted, rest = m.groups()
            name = _key(bare, quoted)
            if name in current:
                raise Unsupported
            if rest == "[":
                opened: list[Any] = []
                current[name] = opened
                stack.append(opened)
            else:
                current[name] = _whole_value(rest)
    if stack:
        raise Unsupported
    return root
