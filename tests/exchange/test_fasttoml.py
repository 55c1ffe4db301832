"""The fast reader of pbem's own TOML layout (pbem/exchange/fasttoml.py): wherever it answers, it
answers what tomllib does; wherever tomllib refuses a text, it gives up (and files.py lets tomllib
refuse it, with tomllib's message)."""

from __future__ import annotations

import time
import tomllib
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.errors import MalformedFileError
from pbem.exchange import fasttoml
from pbem.exchange.files import parse_toml

ROOT = Path(__file__).resolve().parents[2]


def fast_or_none(text: str) -> dict[str, Any] | None:
    try:
        return fasttoml.loads(text)
    except fasttoml.Unsupported:
        return None


def reference(text: str) -> dict[str, Any] | None:
    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError, ValueError):
        return None


def agrees(text: str) -> bool:
    """The fast reader gives up, or gives tomllib's data; it never answers where tomllib refuses."""
    fast = fast_or_none(text)
    if fast is None:
        return True
    ref = reference(text)
    assert ref is not None, f"the fast reader accepted a text tomllib refuses:\n{text}"
    assert fast == ref, f"the fast reader read differently from tomllib:\n{text}"
    assert _types(fast) == _types(ref)
    return True


def _types(v: Any) -> Any:
    """The shape of a value with its types (True == 1 in Python: compare the types too)."""
    if isinstance(v, dict):
        return {k: _types(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_types(x) for x in v]
    return type(v).__name__


def repo_toml_files() -> list[Path]:
    places = ["tests/games", "scenarios", "pbem", "tests/cli", "tests/exchange", "docs"]
    return sorted(p for place in places for p in (ROOT / place).rglob("*.toml"))


def test_every_toml_file_of_the_project_reads_alike() -> None:
    files = repo_toml_files()
    assert len(files) > 1000
    answered = 0
    for p in files:
        text = p.read_text(encoding="utf-8")
        assert agrees(text)
        answered += fast_or_none(text) is not None
    assert answered > len(files) // 2


def test_every_file_pbem_wrote_in_the_golden_games_is_read_fast() -> None:
    """The speed is the point: each state, view, join and order file pbem wrote takes the fast path."""
    written = [p for p in (ROOT / "tests/games").glob("*/golden/*/*.toml")]
    assert len(written) > 400
    for p in written:
        text = p.read_text(encoding="utf-8")
        if "#" in text:  # a few order files of the demo are hand-written examples, with comments
            continue
        assert fasttoml.loads(text) == tomllib.loads(text), p


# --- cases ---------------------------------------------------------------------------------------

SAME = [
    "",
    "a = 1\n",
    'a = "x"\nb = true\nc = false\nd = -0\ne = 9223372036854775807\n',
    '"quoted key" = 1\n"" = 2\n',
    "a = []\nb = [\n]\n",
    "a = [\n    1,\n    [\n        2,\n        [],\n    ],\n]\n",
    'a = [\n    { x = 1, y = [1, 2], z = { w = "v" } },\n    {},\n]\n',
    "[a]\n[a.b]\n",
    "[a.b]\nx = 1\n[a]\ny = 2\n",  # a made implicitly, then defined once
    "[[a]]\nx = 1\n[[a]]\nx = 2\n[a.b]\ny = 3\n",  # [a.b] is in a's last table
    "[[a]]\n[a.b]\n[[a]]\n[a.b]\n",
    "[[a.b]]\n[[a.b]]\n[a]\nc = 1\n",
    '[a."b.c".d]\n',
    "# a comment\na = 1\n#\n",
    'a = "tab\tinside"\n',
    'a = "é ü 日本"\n',
    'a = "\u2028\x85\ufeff"\n# \u2028 \x85 \ufeff\n',  # no newline or whitespace to tomllib: plain characters
    '["\t"]\n"\t" = "\t"\n',
    "a = -9223372036854775808\nb = 1234567890123456789\nc = [-0, 0]\n",
    'a = ["]", "[", ", ", "#"]\n"a = 1" = 1\n',  # brackets, commas and signs inside strings
    "a = [ 1 ]\nb = { }\nc = [ ]\nd = [{ } ]\ne = [ [] ]\n",  # the optional space inside brackets
    "a = [\n1,\n  2,\n    ]",  # any indent, no newline at the end
    "[1.2]\n[_]\n[-.-]\n",
    '[a]\n["a".b]\n[a."c"]\n',  # quoted and bare keys naming the same table
    "[[a]]\n[[a.b]]\n[a.b.c]\n[[a.b]]\n[a.b.c]\n",  # each new last element may be reached into again
    "[[a]]\nb = [{}]\n[[a]]\n[[a.b]]\n",  # b is static in a's first table only
]

DIFFERENT_OR_REFUSED = [
    "a = 1\na = 2\n",  # a key twice
    'a = 1\n"a" = 2\n',
    "[a]\n[a]\n",  # a table twice
    "[a]\nb = 1\n[a.b]\n",  # into a value
    "[a]\nb = {}\n[a.b]\n",  # into an inline table
    "a = [{}]\n[[a]]\n",  # append to a static array
    "[a.b]\n[a]\nb = 1\n",
    "[[a]]\n[a]\n",
    "[a]\n[[a]]\n",
    "a = [\n    1,\n",  # not closed
    "a = [\n    1,\n],\n",  # a comma after the outer array
    "a = [\n    [\n        1,\n    ]\n]\n",  # no comma after the inner array
    "[a]]\n",
    "[[a]\n",
    "a = 01\n",
    "a = 1_000\n",
    "a = +1\n",
    "a = 1.5\n",
    "a = 1979-05-27\n",
    "a = 0x1F\n",
    "a = 99999999999999999999\n",
    "a = inf\n",
    'a = "x" # comment\n',
    'a = """x"""\n',
    "a = 'x'\n",
    'a = "\\u0041"\n',
    "a.b = 1\n",
    "a=1\n",
    "a  = 1\n",
    "a = 1 \n",
    " a = 1\n",
    "a = 1\r\n",
    "a = [1,2]\n",
    "a = [1, 2,]\n",
    "a = {x = 1}\n",
    "a = { x = 1, x = 2 }\n",
    "a = { x = 1, }\n",
    "a = trueish\n",
    "# \x01\n",
    'a = "\x01"\n',
    "[ a ]\n",
    "[a . b]\n",
    "a = [\n\n    1,\n]\n",  # a blank line in an array
    "a = [\n    1, 2,\n]\n",
    "a = [\n    # note\n    1,\n]\n",
    "\ufeffa = 1\n",
    "a = " + "[" * 40 + "]" * 40 + "\n",
    "a = [\n" + "    [\n" * 40 + "    ],\n" * 40 + "]\n",
    # characters other programs take for line breaks or spaces are neither to TOML
    "a = 1\x0c\n", "\x0ca = 1\n", "a = 1\n\x0b\n", "a = 1\n\u2028\n", "a\u2028 = 1\n", "a = 1\n\x85\n",
    'a = "\x0b"\n', "# \x0c\n", "a = 1\n\x00\n", '"\x7f" = 1\n', " \n", "\t\n", "a = 1\r", "a = 1\n\r\n",
    # values running into other characters
    "a = [1]x\n", "a = []]\n", "a = { x = 1 }}\n", "a = [true-]\n", "a = [falsey]\n", "a = [0x1]\n", "a = [1e1]\n",
    "a = [07:32:00]\n", "a = [1979-05-27]\n", "a = [-inf]\n", "a = { x = 1_0 }\n", "a = {  }\n", "a = [  ]\n",
    # tables: static arrays written across lines, headers naming a table or an array of tables twice
    "[a]\nb = [\n]\n[[a.b]]\n", "[a]\nb = [\n]\n[a.b]\n", "[a]\nb = { c = {} }\n[a.b.c]\n", "[[a]]\n[a.b]\n[a.b]\n",
    "[a.b]\n[[a.b]]\n", "[[a.b]]\n[a.b]\n", '[[""]]\n[""]\n', 'a = 1\n["a"]\n', '"" = 1\n"" = 2\n',
    "a = [\n    [\n    ],\n    ],\n]\n",  # one closer too many
    "a = [\n    1,\n]\n    \n",
]


@pytest.mark.parametrize("text", SAME)
def test_the_layout_reads_as_tomllib_reads_it(text: str) -> None:
    fast, ref = fasttoml.loads(text), tomllib.loads(text)
    assert fast == ref
    assert _types(fast) == _types(ref)


@pytest.mark.parametrize("text", DIFFERENT_OR_REFUSED)
def test_text_outside_the_layout_is_left_to_tomllib(text: str) -> None:
    with pytest.raises(fasttoml.Unsupported):
        fasttoml.loads(text)


def test_a_long_line_of_spaces_in_an_array_is_given_up_on_in_linear_time() -> None:
    """An item's indent is not tried at every split: 60,000 spaces took seconds, and the 2 MB a file
    may have would take hours (tomllib refuses such a file in milliseconds)."""
    for line in (" " * 60_000 + "x", " " * 60_000):
        started = time.perf_counter()
        with pytest.raises(fasttoml.Unsupported):
            fasttoml.loads(f"a = [\n{line}\n]\n")
        assert time.perf_counter() - started < 2


def test_a_file_outside_the_layout_is_read_by_tomllib_and_refused_with_its_place() -> None:
    assert parse_toml(b"a = 1.5  # a float\n[b]\nc = 'x'\n", "f.toml") == {"a": 1.5, "b": {"c": "x"}}
    with pytest.raises(MalformedFileError, match=r"f\.toml: not valid TOML: .*line 2"):
        parse_toml(b"a = 1\na = 2\n", "f.toml")
    with pytest.raises(MalformedFileError, match="64-bit"):
        parse_toml(b"a = -9999999999999999999\n", "f.toml")  # read fast, then out of bounds


# --- generated documents and their mutations -----------------------------------------------------

KEYS = st.one_of(st.sampled_from(["a", "b", "units", "1RD", "x-y_z", "", "a.b", "a b", '"', "é"]),
                 st.text(max_size=6))
SCALARS = st.one_of(st.booleans(), st.integers(min_value=-(2**63), max_value=2**63 - 1),
                    st.integers(), st.text(max_size=12),
                    st.sampled_from(['"', "\\", "\t", "\n", "\x7f", "#", "=", "[", "]", "{", "}", ","]))


def values(depth: int = 3) -> st.SearchStrategy[Any]:
    if depth == 0:
        return SCALARS
    inner = values(depth - 1)
    return st.one_of(SCALARS, st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=4))


DOCS = st.dictionaries(KEYS, values(), max_size=6)


def dumped(doc: dict[str, Any]) -> str | None:
    try:
        return tomli_w.dumps(doc)
    except (TypeError, ValueError):
        return None


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(DOCS)
def test_documents_written_by_tomli_w_read_back_alike(doc: dict[str, Any]) -> None:
    text = dumped(doc)
    if text is None:
        return
    assert agrees(text)
    fast = fast_or_none(text)
    if fast is not None:
        assert fast == doc


EXTRA_LINES = ["[a]", "[[a]]", "[a.b]", "[[a.b]]", '[a."b"]', "a = 1", '"a" = 2', "b = [", "    [", "    ],", "]",
               "],", "    1,", "    {},", "a = {}", "a = []", "# c", "", "x = { a = 1 }", "[b]", "b = true"]


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(DOCS, st.lists(st.tuples(st.sampled_from(["delete", "duplicate", "swap", "insert", "char"]),
                                st.integers(min_value=0, max_value=10_000), st.sampled_from(EXTRA_LINES),
                                st.characters()), max_size=4))
def test_mutated_documents_are_read_alike_or_left_to_tomllib(doc: dict[str, Any], edits: list[tuple[str, int, str, str]]) -> None:
    text = dumped(doc)
    if text is None:
        return
    lines = text.split("\n")
    for op, at, extra, ch in edits:
        i = at % (len(lines) + 1)
        if op == "delete" and i < len(lines):
            del lines[i]
        elif op == "duplicate" and i < len(lines):
            lines.insert(i, lines[i])
        elif op == "swap" and i + 1 < len(lines):
            lines[i], lines[i + 1] = lines[i + 1], lines[i]
        elif op == "insert":
            lines.insert(i, extra)
        elif op == "char" and lines and lines[i % len(lines)]:
            line = lines[i % len(lines)]
            j = at % len(line)
            lines[i % len(lines)] = line[:j] + ch + line[j + 1:]
    assert agrees("\n".join(lines))


HEADERS = st.lists(st.tuples(st.booleans(), st.lists(st.sampled_from(["a", "b", '"a"', "c"]), min_size=1, max_size=3),
                             st.sampled_from(["", "x = 1", "a = 1", "b = {}", "c = []", "b = [\n    {},\n]"])), max_size=8)


@settings(max_examples=800, deadline=None)
@given(HEADERS)
def test_sequences_of_table_headers_read_alike_or_are_left_to_tomllib(headers: list[tuple[bool, list[str], str]]) -> None:
    """Tables and arrays of tables made, reopened and reached into in every order."""
    out = []
    for aot, path, body in headers:
        name = ".".join(path)
        out.append(f"[[{name}]]" if aot else f"[{name}]")
        if body:
            out.append(body)
    assert agrees("\n".join(out) + "\n")
