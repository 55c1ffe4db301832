"""docs/red-steel-ambiguities.md stays true to the code: one entry for each ambiguity of the digest's
section 5 (A-1 to A-92, in order), each with its fields; every option of options.py on the page with
its values and default, an A-nn option in the entry of its ambiguity and any other in "Other
options"; the code each entry names exists; every catalog case it cites exists, and every case
that sets an option is cited in that option's entry; docs/red-steel.md links the page."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from pbem.games.red_steel.options import BY_NAME, OPTIONS
from tests.games.docs_checks import ambiguity_of, field, options_in
from tests.games.docs_checks import resolve as docs_resolve
from tests.paths import ROOT

DOC = ROOT / "docs" / "red-steel-ambiguities.md"
CATALOG = Path(__file__).parent / "catalog"
SECTION_5 = 92  # the digest's section 5
FIELDS = ("Rules", "Question", "Answer", "Options", "Where", "Cases")
HEADING = re.compile(r"^### A-(\d+)\. (\S.*)$", re.M)
SECTION = re.compile(r"^##+ ", re.M)
OTHER = "## Other options"
CODE_BASES = ("pbem.games.red_steel", "pbem")
CASE_ID = re.compile(r"\bRS-\d{3}\b")


def text() -> str:
    return DOC.read_text(encoding="utf-8")


def entries() -> dict[int, str]:
    """The page's entries by number, in the page's order: each entry's text after its heading, up
    to the next heading of any level."""
    page = text()
    out: dict[int, str] = {}
    for m in HEADING.finditer(page):
        nxt = SECTION.search(page, m.end())
        n = int(m.group(1))
        assert n not in out, f"A-{n} has two entries"
        out[n] = page[m.end():nxt.start() if nxt else len(page)]
    return out


def other_options() -> str:
    """The section of the options that settle no ambiguity."""
    page = text()
    start = page.index(OTHER) + len(OTHER)
    nxt = SECTION.search(page, start)
    return page[start:nxt.start() if nxt else len(page)]


def resolve(ref: str) -> object:
    """A dotted name of the Where field (tests.games.docs_checks.resolve)."""
    return docs_resolve(ref, CODE_BASES)


def test_one_entry_per_ambiguity_in_order() -> None:
    assert list(entries()) == list(range(1, SECTION_5 + 1))


@pytest.mark.parametrize("n", range(1, SECTION_5 + 1))
def test_each_entry_has_its_fields(n: int) -> None:
    body = entries()[n]
    for name in FIELDS:
        assert field(body, name).strip(), f"A-{n}: no {name}"
    assert re.search(r"\d+\.\d+", field(body, "Rules")), f"A-{n}: the Rules name no rule number"
    opts = field(body, "Options").strip()
    assert opts.startswith("none") or options_in(opts), f"A-{n}: Options is neither 'none' nor a list of options"


def test_every_option_is_on_the_page_with_its_values_and_default() -> None:
    pages = entries()
    listed: dict[str, tuple[list[Any], list[Any]]] = {}
    for n, body in pages.items():
        for name, spec in options_in(field(body, "Options")).items():
            assert name in BY_NAME, f"A-{n} lists {name}, which is no option"
            assert ambiguity_of(BY_NAME[name]) == n, f"A-{n} lists {name}, an option of {BY_NAME[name].ambiguity}"
            listed[name] = spec
    for name, spec in options_in(other_options()).items():
        assert name in BY_NAME, f"Other options lists {name}, which is no option"
        assert ambiguity_of(BY_NAME[name]) is None, f"{name} settles {BY_NAME[name].ambiguity}: list it in that entry"
        assert name not in listed, f"{name} is listed twice"
        listed[name] = spec
    assert sorted(listed) == sorted(o.name for o in OPTIONS), "every option of options.py, once"
    for opt in OPTIONS:
        values, defaults = listed[opt.name]
        assert defaults == [opt.default], f"{opt.name}: the default is {opt.default!r}, the page says {defaults}"
        if opt.integer:
            assert sorted(set(values)) == sorted({opt.default, *opt.choices}), f"{opt.name}: from {opt.choices[0]} to {opt.choices[1]}"
        else:
            assert tuple(values) == opt.choices, f"{opt.name}: the values are {opt.choices}, the page says {values}"


def test_every_option_the_page_names_exists() -> None:
    named = re.findall(r"option `(\w+)`", text())
    assert named
    for name in named:
        assert name in BY_NAME, f"the page names the option {name}, which does not exist"


@pytest.mark.parametrize("n", range(1, SECTION_5 + 1))
def test_the_code_each_entry_names_exists(n: int) -> None:
    refs = re.findall(r"`([^`]+)`", field(entries()[n], "Where"))
    assert refs, f"A-{n}: Where names no code"
    for ref in refs:
        assert re.fullmatch(r"[a-z_]+(\.\w+)+", ref), f"A-{n}: `{ref}` is not a dotted name"
        resolve(ref)


def cases() -> dict[str, dict[str, Any]]:
    out = {}
    for p in sorted(CATALOG.glob("RS-*.toml")):
        case = tomllib.loads(p.read_text(encoding="utf-8"))
        out[str(case["case"]["id"])] = case
    return out


def test_every_cited_case_exists() -> None:
    ids = set(cases())
    cited = set(CASE_ID.findall(text()))
    assert cited
    assert sorted(cited - ids) == []
    for n, body in entries().items():
        cited_here = field(body, "Cases").strip()
        assert CASE_ID.search(cited_here) or cited_here.startswith("none"), f"A-{n}: Cases cites nothing"


def test_every_case_that_sets_an_option_is_cited_in_its_entry() -> None:
    pages = entries()
    seen = 0
    for cid, case in sorted(cases().items()):
        for name in sorted(case.get("options", {})):
            n = ambiguity_of(BY_NAME[name])
            if n is None:
                continue
            seen += 1
            assert cid in CASE_ID.findall(field(pages[n], "Cases")), f"{cid} sets {name}: cite it in A-{n}"
    assert seen


def test_the_players_page_links_this_page() -> None:
    page = (ROOT / "docs" / "red-steel.md").read_text(encoding="utf-8")
    assert "(red-steel-ambiguities.md)" in page
    assert DOC.is_file()
