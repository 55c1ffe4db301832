"""The rule coverage table of Europe Engulfed is true: statuses, titles, notes and catalog cases
agree, and every rule of the digest's Part IV is listed."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from pbem.games.europe_engulfed.module import EuropeEngulfed
from tests.games.docs_checks import catalog_rules, check_coverage_rows
from tests.paths import ROOT

CATALOG = ROOT / "tests" / "games" / "europe_engulfed" / "catalog"
DIGEST = ROOT.parent / "shared" / "rules" / "europe-engulfed.md"
STATUSES = {"implemented", "not-applicable", "planned"}
LATER = ("2.", "8.", "9.")  # the whole war: strategic warfare, naval operations, politics
RULE = re.compile(r"^[0-9]+\.[0-9]+$")
AMBIGUITY = re.compile(r"^A-[0-9]+$")


def catalog() -> dict[str, list[str]]:
    return catalog_rules(CATALOG, "EE")


def test_every_row_has_a_valid_status_a_title_and_the_right_cases() -> None:
    rows = EuropeEngulfed().coverage()
    check_coverage_rows(rows, catalog(), STATUSES)
    for r in rows:
        assert r["title"] and not re.fullmatch(r"rule [0-9.]+", r["title"]), f"{r['rule']} has no real title"
        if r["status"] == "planned":
            assert r.get("note"), f"{r['rule']} is planned without a note saying what is missing"


def test_the_whole_war_is_planned_and_says_so() -> None:
    for r in EuropeEngulfed().coverage():
        if r["rule"].startswith(LATER) and r["status"] == "planned":
            assert "the whole war" in r["note"], f"{r['rule']}: {r['note']}"


def test_every_cited_rule_is_implemented() -> None:
    status = {r["rule"]: r["status"] for r in EuropeEngulfed().coverage()}
    for cid, rules in catalog().items():
        assert rules, f"{cid} cites no rule"
        for rule in rules:
            assert RULE.match(rule) or AMBIGUITY.match(rule), f"{cid} cites {rule}, neither a rule nor an ambiguity (A-nn)"
            if RULE.match(rule):
                assert status.get(rule) == "implemented", f"{cid} cites {rule}, which the table does not list as implemented"


def test_table_is_in_sync_with_the_catalog() -> None:
    res = subprocess.run([sys.executable, str(ROOT / "tools" / "sync_coverage.py"), "--check"], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout


@pytest.mark.skipif(not DIGEST.exists(), reason="the rules digest is not beside the project")
def test_every_rule_number_of_the_digest_is_listed() -> None:
    text = DIGEST.read_text(encoding="utf-8")
    rules = text[text.index("## Part IV"):text.index("## Part V ")]
    numbers = set(re.findall(r"^(?:#### |\*\*)([0-9]\.[0-9]+)\b", rules, re.M)) | set(re.findall(r"^### ([0-9]\.[0-9]+) ", rules, re.M))
    listed = {r["rule"] for r in EuropeEngulfed().coverage()}
    assert len(numbers) > 190, "the digest's rules were found"
    assert numbers == listed, (sorted(numbers - listed), sorted(listed - numbers))


@pytest.mark.skipif(not DIGEST.exists(), reason="the rules digest is not beside the project")
def test_every_cited_ambiguity_is_in_the_digest() -> None:
    text = DIGEST.read_text(encoding="utf-8")
    known = set(re.findall(r"^\* \*\*(A-[0-9]+) ", text, re.M)) | set(re.findall(r"\*\*(A-[0-9]+)\*\*", text))
    assert len(known) > 60
    for cid, rules in catalog().items():
        for rule in rules:
            if AMBIGUITY.match(rule):
                assert rule in known, f"{cid} cites {rule}, not an ambiguity of the digest's Part VIII"
