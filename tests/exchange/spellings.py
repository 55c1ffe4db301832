"""Hypothesis strategies for the other spellings of a game file (docs/protocol.md: one spelling).

``toml_spellings(data)`` writes the same data as TOML in another way: basic or literal strings,
escapes, integers in hex, octal, binary or with underscores, quoted keys, inline tables, dotted
keys, comments, blank lines and CRLF line endings. Every such text parses to the same data, so it
must give the same digest and the same dice.

``respelled_values(data)`` changes the spelling of one value (a string's case, white space,
Unicode normal form, full-width digits, invisible characters, base64 padding bits and alphabet,
a hex prefix): text that means the same to a lenient reader but is other data. Any such file must
be refused, or give the same digest.
"""

from __future__ import annotations

import base64
import copy
import random
import unicodedata
from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

Path_ = tuple[str | int, ...]

_BARE = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


# --- the same data, written otherwise ----------------------------------------------------------

def _key(rnd: random.Random, k: str) -> str:
    if k and set(k) <= _BARE and not rnd.randint(0, 4) == 0:
        return k
    if "'" not in k and rnd.random() < 0.5:
        return f"'{k}'"
    return _basic(rnd, k)


def _basic(rnd: random.Random, s: str) -> str:
    out = []
    for c in s:
        if c == '"':
            out.append('\\"')
        elif c == "\\":
            out.append("\\\\")
        elif ord(c) < 0x20 or c == "\x7f":
            out.append(f"\\u{ord(c):04X}")
        elif rnd.randint(0, 9) == 0:  # an escape for an ordinary character
            out.append(rnd.choice([f"\\u{ord(c):04x}", f"\\u{ord(c):04X}", f"\\U{ord(c):08x}"]) if ord(c) < 0x10000
                       else f"\\U{ord(c):08X}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def _string(rnd: random.Random, s: str) -> str:
    if "'" not in s and "\n" not in s and all(ord(c) >= 0x20 and c != "\x7f" for c in s) and rnd.random() < 0.5:
        return f"'{s}'"
    return _basic(rnd, s)


def _int(rnd: random.Random, n: int) -> str:
    form = rnd.randint(0, 5)
    if n >= 0 and form == 1:
        return hex(n)
    if n >= 0 and form == 2:
        return "0o" + format(n, "o")
    if n >= 0 and form == 3:
        return "0b" + format(n, "b")
    if form == 4 and abs(n) >= 10:
        digits = str(abs(n))
        return ("-" if n < 0 else "") + digits[0] + "_" + digits[1:]
    if form == 5 and n >= 0:
        return "+" + str(n)
    return str(n)


def _value(rnd: random.Random, v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return _int(rnd, v)
    if isinstance(v, str):
        return _string(rnd, v)
    if isinstance(v, list):
        sep = rnd.choice([", ", ",", " , ", ",\n  "])
        trailing = "," if v and rnd.random() < 0.5 else ""
        return "[" + sep.join(_value(rnd, x) for x in v) + trailing + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_key(rnd, k)} = {_value(rnd, x)}" for k, x in v.items()) + "}"
    raise TypeError(type(v))


def _is_table_array(v: Any) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(x, dict) for x in v)


def _emit_table(rnd: random.Random, path: list[str], table: dict[str, Any], out: list[str], header: str | None) -> None:
    scalars = {k: v for k, v in table.items() if not isinstance(v, dict) and not _is_table_array(v)}
    tables = {k: v for k, v in table.items() if isinstance(v, dict)}
    arrays = {k: v for k, v in table.items() if _is_table_array(v)}
    inline: dict[str, Any] = {}
    for k, v in list(tables.items()) + list(arrays.items()):
        if rnd.randint(0, 3) == 0:  # written inline, as a value of this table
            inline[k] = v
    if header is not None and (scalars or inline or not (tables or arrays)):
        out.append(header)
    items = list(scalars.items()) + list(inline.items())
    order = rnd.sample(range(len(items)), len(items))
    for i in order:
        k, v = items[i]
        if rnd.randint(0, 6) == 0:
            out.append("# a comment, not signed")
        out.append(f"{_key(rnd, k)}{rnd.choice([' = ', '=', '  =  '])}{_value(rnd, v)}")
    for k, v in tables.items():
        if k in inline:
            continue
        sub = path + [k]
        _emit_table(rnd, sub, v, out, "[" + ".".join(_key(rnd, x) for x in sub) + "]")
    for k, arr in arrays.items():
        if k in inline:
            continue
        sub = path + [k]
        for item in arr:
            out.append("")
            _emit_table(rnd, sub, item, out, "[[" + ".".join(_key(rnd, x) for x in sub) + "]]")
            if not item:
                pass


@st.composite
def toml_spellings(draw: st.DrawFn, data: dict[str, Any]) -> str:
    """``data`` written as TOML in one of its many spellings (the choices made from one drawn seed,
    so that a large file is cheap to draw)."""
    rnd = random.Random(draw(st.integers(0, 2**32 - 1)))
    out: list[str] = []
    _emit_table(rnd, [], data, out, None)
    text = "\n".join(out) + "\n"
    if rnd.random() < 0.5:
        text = text.replace("\n", "\r\n")
    return text


# --- one value spelled otherwise -----------------------------------------------------------------

def leaves(d: Any, path: Path_ = ()) -> list[Path_]:
    if isinstance(d, dict):
        return [p for k, v in d.items() for p in leaves(v, (*path, k))]
    if isinstance(d, list):
        return [p for i, v in enumerate(d) for p in leaves(v, (*path, i))]
    return [path]


def get(d: Any, path: Path_) -> Any:
    for k in path:
        d = d[k]
    return d


def put(d: Any, path: Path_, value: Any) -> None:
    for k in path[:-1]:
        d = d[k]
    d[path[-1]] = value


def _b64_variants(text: str) -> list[str]:
    """Other base64 spellings of the same bytes: padding bits set, padding dropped, URL-safe
    alphabet, white space."""
    prefix = ""
    if text.startswith("ed25519:"):
        prefix, text = "ed25519:", text[len("ed25519:"):]
    try:
        raw = base64.b64decode(text, validate=True)
    except ValueError:
        return []
    out = []
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    body = text.rstrip("=")
    pad = len(text) - len(body)
    if pad:
        last = alphabet.index(body[-1])
        spare = 4 if pad == 2 else 2  # padding bits in the last character
        for extra in range(1, 2**spare):
            out.append(body[:-1] + alphabet[last | extra] + "=" * pad)
        out.append(body)  # no padding
    out.append(base64.urlsafe_b64encode(raw).decode())
    out.append(text[:4] + " " + text[4:])
    out.append(text + "\n")
    return [prefix + x for x in out if x != text]


_FULLWIDTH = {str(i): chr(0xFF10 + i) for i in range(10)}


def _string_variants(s: str) -> list[str]:
    out = {s.upper(), s.lower(), s.swapcase(), " " + s, s + " ", s + "\n", "\ufeff" + s, s + "\u200b",
           unicodedata.normalize("NFD", s), "".join(_FULLWIDTH.get(c, c) for c in s)}
    if s.startswith("sha256:"):
        out |= {s.replace("sha256:", "SHA256:"), s.replace("sha256:", "sha256: "), "sha256:" + s[7:].upper()}
    elif s and all(c in "0123456789abcdef" for c in s):
        out |= {"0x" + s, " ".join(s[i:i + 2] for i in range(0, len(s), 2)), s[:-1] + s[-1].upper()}
    out |= set(_b64_variants(s))
    return sorted(x for x in out if x != s)


@st.composite
def respelled_values(draw: st.DrawFn, data: dict[str, Any]) -> tuple[Path_, dict[str, Any]]:
    """``data`` with one string value spelled otherwise (and the path of that value)."""
    paths = [p for p in leaves(data) if isinstance(get(data, p), str) and _string_variants(get(data, p))]
    path = draw(st.sampled_from(sorted(paths, key=repr)))
    new = draw(st.sampled_from(_string_variants(get(data, path))))
    d = copy.deepcopy(data)
    put(d, path, new)
    return path, d


Reader = Callable[[str], Any]
