"""docs/proud-monster-ambiguities.md stays true to the code: one entry for each item of the digest's
Part E (1-59, in order), each with its fields; every option whose note names an ambiguity listed in
that ambiguity's entry, with the values and the default the code has; every option the page names
exists; the code each entry names exists; every catalog case it cites exists."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from pbem.games.proud_monster.options import DEFAULT_OPTIONS, OPTION_NOTES, OPTION_VALUES
from tests.games.docs_checks import resolve as docs_resolve
from tests.paths import ROOT

DOC = ROOT / "docs" / "proud-monster-ambiguities.md"
CATALOG = Path(__file__).parent / "catalog"
PART_E = 59  # the digest's Part E: 59 numbered ambiguities and translation notes
FIELDS = ("Rules", "Question", "Answer", "Options", "Where", "Cases")
HEADING = re.compile(r"^### (\d+)\. (\S.*)$", re.M)
OPTION_LINE = re.compile(r"^  - `(\w+)` = (.+?) — \S", re.M)
CODE_BASES = ("pbem.games.proud_monster", "pbem")


def entries() -> dict[int, str]:
    """The page's entries by number, in the page's order: each entry's text after its heading."""
    text = DOC.read_text(encoding="utf-8")
    heads = list(HEADING.finditer(text))
    out: dict[int, str] = {}
    for k, m in enumerate(heads):
        end = heads[k + 1].start() if k + 1 < len(heads) else len(text)
        n = int(m.group(1))
        assert n not in out, f"Ambiguity {n} has two entries"
        out[n] = text[m.end():end]
    return out


def field(body: str, name: str) -> str:
    """The text of an entry's ``- **Name:**`` bullet, its continuation and sub-bullets included."""
    m = re.search(rf"^- \*\*{name}:\*\*(.*?)(?=^- \*\*|\Z)", body, re.M | re.S)
    return m.group(1).rstrip() if m else ""


def toml_value(text: str) -> Any:
    return tomllib.loads(f"v = {text}")["v"]


def options_of(body: str) -> dict[str, tuple[tuple[Any, ...], list[Any]]]:
    """The options an entry lists: name -> (the values, in order; the values marked default)."""
    out: dict[str, tuple[tuple[Any, ...], list[Any]]] = {}
    for m in OPTION_LINE.finditer(field(body, "Options")):
        spec = m.group(2)
        values = tuple(toml_value(v) for v in re.findall(r"`([^`]+)`", spec))
        defaults = [toml_value(v) for v in re.findall(r"`([^`]+)` \(default\)", spec)]
        out[m.group(1)] = (values, defaults)
    return out


def resolve(ref: str) -> object:
    """A dotted name of the Where field (tests.games.docs_checks.resolve)."""
    return docs_resolve(ref, CODE_BASES)


def test_one_entry_per_ambiguity_in_order() -> None:
    assert list(entries()) == list(range(1, PART_E + 1))


@pytest.mark.parametrize("n", range(1, PART_E + 1))
def test_each_entry_has_its_fields(n: int) -> None:
    body = entries()[n]
    for name in FIELDS:
        assert field(body, name).strip(), f"Ambiguity {n}: no {name}"
    assert re.search(r"\d+\.\d+", field(body, "Rules")), f"Ambiguity {n}: the Rules name no rule number"
    options = field(body, "Options").strip()
    assert options == "none" or options_of(body), f"Ambiguity {n}: Options is neither 'none' nor a list of options"


def test_every_ambiguity_option_is_in_its_entry() -> None:
    pages = entries()
    noted = {name: int(m.group(1)) for name, note in OPTION_NOTES.items() if (m := re.match(r"Ambiguity (\d+) ", note))}
    assert noted, "no option note names an ambiguity"
    for name, n in sorted(noted.items()):
        assert name in options_of(pages[n]), f"option {name} (note: Ambiguity {n}) is not listed in entry {n}"
    for n, body in pages.items():
        for name in options_of(body):
            assert noted.get(name) == n, f"entry {n} lists {name}, whose note does not name Ambiguity {n}"


def test_every_option_named_exists_with_its_values_and_default() -> None:
    for n, body in entries().items():
        for name, (values, defaults) in options_of(body).items():
            assert name in DEFAULT_OPTIONS, f"entry {n}: {name} is no option"
            assert defaults == [DEFAULT_OPTIONS[name]], f"entry {n}: {name}'s default is {DEFAULT_OPTIONS[name]!r}, not {defaults}"
            assert values == OPTION_VALUES[name], f"entry {n}: {name}'s values are {OPTION_VALUES[name]}, not {values}"
    text = DOC.read_text(encoding="utf-8")
    named = re.findall(r"option `(\w+)`", text)
    assert named
    for name in named:
        assert name in DEFAULT_OPTIONS, f"the page names the option {name}, which does not exist"
    for name, value in re.findall(r"`(\w+)=(\w+)`", text):  # --option NAME=VALUE
        assert name in DEFAULT_OPTIONS and value in (str(v) for v in OPTION_VALUES[name]), f"{name}={value}"


@pytest.mark.parametrize("n", range(1, PART_E + 1))
def test_the_code_each_entry_names_exists(n: int) -> None:
    refs = re.findall(r"`([^`]+)`", field(entries()[n], "Where"))
    assert refs, f"Ambiguity {n}: Where names no code"
    for ref in refs:
        assert re.fullmatch(r"[a-z_]+(\.\w+)+", ref), f"Ambiguity {n}: `{ref}` is not a dotted name"
        resolve(ref)


def test_every_cited_case_exists() -> None:
    ids = {tomllib.loads(p.read_text(encoding="utf-8"))["case"]["id"] for p in CATALOG.glob("PM-*.toml")}
    text = DOC.read_text(encoding="utf-8")
    cited = set(re.findall(r"\bPM-\d{3}\b", text))
    assert cited
    assert sorted(cited - ids) == []
    for n, body in entries().items():
        cases = field(body, "Cases").strip()
        assert re.search(r"\bPM-\d{3}\b", cases) or cases.startswith("none"), f"Ambiguity {n}: Cases cites nothing"


def test_the_readme_and_the_game_page_link_the_page() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "(docs/proud-monster-ambiguities.md)" in readme
    page = (ROOT / "docs" / "proud-monster.md").read_text(encoding="utf-8")
    assert "(proud-monster-ambiguities.md)" in page
