"""docs/europe-engulfed-ambiguities.md stays true to the code: one entry for each ambiguity of the
digest's Part VIII.A (A-01 to A-77, A-66 after A-31 where the digest gives it), in the digest's
order, each with its fields; an ambiguity of sections 8 and 9 planned with the whole war; every
option of options.py on the page with its values and default, an A-nn option in the entry of its
ambiguity and any other in "Other options"; the code each entry names exists; every catalog case
it cites exists and shows that ambiguity (it cites the A-nn or sets one of the entry's options, or
the test says why not); every case that sets an option is cited in that option's entry; the
readings that differ are listed at the top; docs/europe-engulfed.md and the README link the page."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from pbem.games.europe_engulfed.options import BY_NAME, OPTIONS
from tests.games.docs_checks import ambiguity_of, field, options_in
from tests.games.docs_checks import resolve as docs_resolve
from tests.paths import ROOT

DOC = ROOT / "docs" / "europe-engulfed-ambiguities.md"
CATALOG = Path(__file__).parent / "catalog"
DIGEST = ROOT.parent / "shared" / "rules" / "europe-engulfed.md"
# The digest's Part VIII.A in its order: given inside A-31 (both the heavy
# fortification's); no number is missing.
ORDER = [*range(1, 32), 66, *range(32, 66), *range(67, 78)]
FIELDS = ("Rules", "Question", "Default", "Answer", "Options", "Where", "Cases")
HEADING = re.compile(r"^### A-(\d+)\. (\S.*)$", re.M)
SECTION = re.compile(r"^##+ ", re.M)
OTHER = "## Other options"
DIFFER = "## Readings that differ from the digest's default"
PLANNED = "Planned with the whole war"
LATER = ("9.",)  # the whole war still planned: politics (strategic warfare, 2, and naval operations, 8, are played)
CODE_BASES = ("pbem.games.europe_engulfed", "pbem")
CASE_ID = re.compile(r"\bEE-\d{3}\b")
# Cases an entry cites that neither name its A-nn (in their rules or title) nor set its options:
# each is a worked case of the rule the ambiguity reads, written before the A-nn was cited.
EXPLAINED = {
    ("EE-011", 60): "the 5.14 example: three 4-step Soviet units held by 3 German steps (steps against units)",
    ("EE-012", 60): "the 5.14 example the other way: 2 steps are too few against three units",
    ("EE-015", 60): "a rearguard that moves in counts its steps against the enemy's units",
    ("EE-020", 61): "the strait crossed as the whole move, from the area next to it",
    ("EE-023", 61): "armor does not cross a strait into an enemy-controlled area",
    ("EE-024", 26): "the strait crossing flags the unit for the 6.83 bonus (5.16b and 6.83 are one bonus)",
    ("EE-004", 67): "an area with enemy ground units stops armor",
    ("EE-007", 67): "enemy GS alone do not make an area enemy-occupied (6.64)",
    ("EE-102", 22): "a newly contested area is fought whether named or not",
    ("EE-104", 22): "the compulsory combats are fought without orders; older ones are not",
    ("EE-106", 57): "one halving: 15 dice rounded down to 7, the digest's rounding",
    ("EE-117", 57): "the Swamp halving of the class total",
    ("EE-132", 57): "the OOS halving of the class total",
    ("EE-118", 25): "a Swamp in Snow gives the Rough bonus",
    ("EE-125", 66): "the field fortification's first round, the heavy one's model",
    ("EE-152", 66): "no fortification bonus in the counterattack",
    ("EE-129", 24): "one GS unit per supported unit, from the support table",
    ("EE-145", 36): "reinforcement where the defender has units (the rules' example)",
    ("EE-401", 36): "an uncontested invasion is not fought, so nothing reinforces it",
    ("EE-420", 34): "a drop reaches 2 areas",
    ("EE-421", 34): "a drop reaches 2 areas or one air-route, not 3",
    ("EE-431", 33): "an uncontested landing leaves a beachhead in the invaded area",
    ("EE-128", 63): "the airborne assault's first-round bonus at infantry-class targets",
    ("EE-151", 63): "the bonus in the counterattack of the first round against an invasion",
    ("EE-149", 59): "the counterattack brings a unit and GS; the phasing side neither retreats nor reinforces",
    ("EE-151", 59): "in the counterattack the roles swap, and the original defenders keep the first round's bonus",
    ("EE-144", 74): "the retreat by standing instruction, not made without an SA",
    ("EE-216", 70): "a unit through a beachhead counts 2",
    ("EE-230", 70): "GS units count as units of supply demand",
    ("EE-219", 13): "an OOS unit that did not move recovers by tracing",
    ("EE-034", 64): "the stand-in until section 9: a neutral area is not entered",
    ("EE-267", 17): "maintenance taken first from the WERPs produced",
    ("EE-255", 15): "Alexandria gives Britain nothing without a British ground unit",
    ("EE-280", 29): "Italy fortifies in the South zone",
    ("EE-282", 30): "at war with Germany the USSR builds anywhere",
    ("EE-283", 31): "the count of heavy fortifications built is kept",
    ("EE-285", 32): "SAs bought up to the limit",
    ("EE-353", 20): "a breakthrough movement: armor within 2 areas moves 1 area next to the designated area",
}


# The coverage of each rule: an entry whose rules are all still planned is planned too.
STATUS = {str(r["rule"]): str(r["status"]) for r in tomllib.loads(
    (ROOT / "pbem" / "games" / "europe_engulfed" / "coverage.toml").read_text(encoding="utf-8"))["rule"]}


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
        assert n not in out, f"A-{n:02d} has two entries"
        out[n] = page[m.end():nxt.start() if nxt else len(page)]
    return out


def section(title: str) -> str:
    page = text()
    start = page.index(title) + len(title)
    nxt = SECTION.search(page, start)
    return page[start:nxt.start() if nxt else len(page)]


def cases() -> dict[str, dict[str, Any]]:
    out = {}
    for p in sorted(CATALOG.glob("EE-*.toml")):
        case = tomllib.loads(p.read_text(encoding="utf-8"))
        out[str(case["case"]["id"])] = case
    return out


def test_one_entry_per_ambiguity_in_the_digests_order() -> None:
    assert list(entries()) == ORDER


@pytest.mark.skipif(not DIGEST.exists(), reason="the rules digest is not beside the project")
def test_the_digest_has_these_ambiguities() -> None:
    page = DIGEST.read_text(encoding="utf-8")
    part = page[page.index("### VIII.A"):page.index("### VIII.B")]
    assert [int(n) for n in re.findall(r"\*\*A-(\d+)\b", part)] == ORDER


@pytest.mark.parametrize("n", ORDER)
def test_each_entry_has_its_fields(n: int) -> None:
    body = entries()[n]
    for name in FIELDS:
        assert field(body, name).strip(), f"A-{n:02d}: no {name}"
    rules = re.findall(r"\d+\.\d+", field(body, "Rules"))
    assert rules, f"A-{n:02d}: the Rules name no rule number"
    opts = field(body, "Options").strip()
    assert opts.startswith("none") or options_in(opts), f"A-{n:02d}: Options is neither 'none' nor a list of options"
    planned = field(body, "Answer").strip().startswith(PLANNED)
    if all(r.startswith(LATER) and STATUS.get(r, "planned") == "planned" for r in rules):
        assert planned, f"A-{n:02d} reads rules of sections 2, 8 or 9 only: it is planned with the whole war"
    if planned:
        assert "digest's default" in field(body, "Answer"), f"A-{n:02d}: say the default pbem will take"
        assert field(body, "Cases").strip().startswith("none") or n == 64, f"A-{n:02d} is planned: no case shows it yet"


def test_every_option_is_on_the_page_with_its_values_and_default() -> None:
    listed: dict[str, tuple[list[Any], list[Any]]] = {}
    for n, body in entries().items():
        for name, spec in options_in(field(body, "Options")).items():
            assert name in BY_NAME, f"A-{n:02d} lists {name}, which is no option"
            assert ambiguity_of(BY_NAME[name]) == n, f"A-{n:02d} lists {name}, an option of {BY_NAME[name].ambiguity}"
            listed[name] = spec
    for name, spec in options_in(section(OTHER)).items():
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
    named = re.findall(r"option `(\w+)`", text()) + re.findall(r"option (\w+) =", text())
    assert named
    for name in named:
        assert name in BY_NAME, f"the page names the option {name}, which does not exist"


@pytest.mark.parametrize("n", ORDER)
def test_the_code_each_entry_names_exists(n: int) -> None:
    where = field(entries()[n], "Where").strip()
    if where == "none":
        assert field(entries()[n], "Answer").strip().startswith(PLANNED), f"A-{n:02d}: only a planned entry names no code"
        return
    refs = re.findall(r"`([^`]+)`", where)
    assert refs, f"A-{n:02d}: Where names no code"
    for ref in refs:
        assert re.fullmatch(r"[a-z_]+(\.\w+)+", ref), f"A-{n:02d}: `{ref}` is not a dotted name"
        docs_resolve(ref, CODE_BASES)


def test_every_cited_case_exists_and_shows_its_ambiguity() -> None:
    known = cases()
    cited = set(CASE_ID.findall(text()))
    assert cited
    assert sorted(cited - set(known)) == []
    used = set()
    for n, body in entries().items():
        here = field(body, "Cases").strip()
        ids = CASE_ID.findall(here)
        assert ids or here.startswith("none"), f"A-{n:02d}: Cases cites nothing"
        mine = set(options_in(field(body, "Options")))
        tag = f"A-{n:02d}"
        for cid in ids:
            c = known[cid]
            shows = (tag in c["case"]["rules"] or tag in c["case"]["title"] or bool(mine & set(c.get("options", {}))))
            if not shows:
                assert (cid, n) in EXPLAINED, f"{cid} is cited in {tag} but neither cites it nor sets its options: explain why"
                used.add((cid, n))
    assert sorted(set(EXPLAINED) - used) == [], "explanations of cases the page no longer cites"


def test_every_case_that_sets_an_option_is_cited_in_its_entry() -> None:
    pages = entries()
    seen = 0
    for cid, case in sorted(cases().items()):
        for name in sorted(case.get("options", {})):
            n = ambiguity_of(BY_NAME[name])
            if n is None:
                continue
            seen += 1
            assert cid in CASE_ID.findall(field(pages[n], "Cases")), f"{cid} sets {name}: cite it in A-{n:02d}"
    assert seen


def test_the_readings_that_differ_are_listed_at_the_top() -> None:
    heads = " ".join(re.findall(r"^- \*\*(.+?)\*\*", section(DIFFER), re.M))
    listed = {int(n) for n in re.findall(r"A-(\d+)", heads)}
    differs = {n for n, body in entries().items() if "**differs**" in field(body, "Answer")}
    assert differs
    assert listed == differs, f"listed {sorted(listed)}, the entries say {sorted(differs)}"
    assert text().index(DIFFER) < text().index("### A-01.")


def test_the_players_page_and_the_readme_link_this_page() -> None:
    page = (ROOT / "docs" / "europe-engulfed.md").read_text(encoding="utf-8")
    assert "(europe-engulfed-ambiguities.md)" in page
    assert "(docs/europe-engulfed-ambiguities.md)" in (ROOT / "README.md").read_text(encoding="utf-8")
    assert DOC.is_file()
