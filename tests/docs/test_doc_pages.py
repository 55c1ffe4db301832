"""The documentation holds together: every relative link of the README and of docs/ names a file
that exists (and a heading of it, for a link with #anchor), every page the README's "More
documentation" and "Games" sections promise is linked from it, and a long page opens with a table
of contents whose entries are its headings."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.paths import ROOT

# Red Steel's pages are written with the game, which is in progress: not checked here yet
PAGES = [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").glob("*.md") if not p.name.startswith("red-steel"))]
LONG = 150  # lines: a page longer than this has a table of contents


def anchor(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def headings(text: str) -> list[str]:
    body = re.sub(r"```.*?```", "", text, flags=re.S)
    return [m.group(2) for m in re.finditer(r"^(#{1,6}) (.+)$", body, re.M)]


def anchors(text: str) -> set[str]:
    """Every heading's anchor; a repeated one gets -1, -2, ... as GitHub gives it."""
    seen: dict[str, int] = {}
    out = set()
    for h in headings(text):
        a = anchor(h)
        out.add(f"{a}-{seen[a]}" if a in seen else a)
        seen[a] = seen.get(a, 0) + 1
    return out


def links(text: str) -> list[str]:
    body = re.sub(r"```.*?```", "", text, flags=re.S)
    return [t for t in re.findall(r"\]\(([^)\s]+)\)", body) if "://" not in t and not t.startswith("mailto:")]


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_every_relative_link_resolves(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    for target in links(text):
        path, _, frag = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        assert dest.exists(), f"{page.name}: link to {target}: no such file"
        if frag and dest.suffix == ".md":
            assert frag in anchors(dest.read_text(encoding="utf-8")), f"{page.name}: link to {target}: no such heading in {dest.name}"


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_a_long_page_has_a_table_of_contents(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    if text.count("\n") <= LONG:
        return
    assert "\n## Contents\n" in text, f"{page.name}: {text.count(chr(10))} lines and no ## Contents"
    toc = text.split("\n## Contents\n", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"\]\(#([^)]+)\)", toc)
    second = [anchor(m.group(1)) for m in re.finditer(r"^## (.+)$", re.sub(r"```.*?```", "", text, flags=re.S), re.M)]
    assert listed and set(second) - {"contents"} <= set(listed), f"{page.name}: sections missing from its contents"
    assert set(listed) <= anchors(text), f"{page.name}: its contents list a heading it does not have"


def test_the_readme_links_every_page_and_keeps_what_a_newcomer_needs() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    for page in sorted((ROOT / "docs").glob("*.md")):
        if page.name.endswith("-ambiguities.md") and page.name != "proud-monster-ambiguities.md":
            continue  # a game's ambiguities page is linked from its game's page
        assert f"(docs/{page.name})" in text, f"the README does not link docs/{page.name}"
    sections = [h for h in headings(text)]
    for needed in ("Contents", "A game by e-mail, step by step", "Hexes and orders", "E-mail", "Commands", "Exit codes",
                   "Games"):
        assert needed in sections, needed
    games = text.split("\n## Games\n", 1)[1].split("\n## ", 1)[0]
    for name, page in [("Proud Monster", "docs/proud-monster.md"), ("Skirmish", "docs/skirmish.md"),
                       ("Red Steel", "docs/red-steel.md")]:
        assert f"**{name}**" in games and f"({page})" in games
