"""The rule coverage table of Proud Monster is true: statuses, notes and catalog cases agree."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from pbem.games.proud_monster.module import ProudMonster
from tests.games.docs_checks import catalog_rules, check_coverage_rows
from tests.games.proud_monster.pmcase import CATALOG
from tests.paths import ROOT

DIGEST = ROOT.parent / "shared" / "rules" / "proud-monster.md"
STATUSES = {"implemented", "planned", "not-applicable", "needs-data"}


def catalog() -> dict[str, list[str]]:
    return catalog_rules(CATALOG, "PM")


def test_every_row_has_a_valid_status_and_the_right_cases() -> None:
    rows = ProudMonster().coverage()
    check_coverage_rows(rows, catalog(), STATUSES)



def test_every_cited_rule_is_implemented() -> None:
    status = {r["rule"]: r["status"] for r in ProudMonster().coverage()}
    for cid, rules in catalog().items():
        for rule in rules:
            assert status.get(rule) == "implemented", f"{cid} cites {rule}, which the table does not list as implemented"


def test_table_is_in_sync_with_the_catalog() -> None:
    res = subprocess.run([sys.executable, str(ROOT / "tools" / "sync_coverage.py"), "--check"], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout


@pytest.mark.skipif(not DIGEST.exists(), reason="the rules digest is not beside the project")
def test_every_rule_number_of_the_digest_is_listed() -> None:
    text = DIGEST.read_text(encoding="utf-8")
    numbers = set(re.findall(r"^\*\*([0-9]+\.[0-9]+)", text, re.M))
    listed = {r["rule"].rstrip("b") for r in ProudMonster().coverage()}
    assert numbers <= listed, sorted(numbers - listed)
