"""Where the tests find the repository and the data they share across folders: each game's test
folder, its rules catalog and its golden games."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the repository
TESTS = ROOT / "tests"
PM_TESTS = TESTS / "games" / "proud_monster"
PM_CATALOG = PM_TESTS / "catalog"  # the Proud Monster rules catalog, with its scenarios and maps
PM_GOLDEN = PM_TESTS / "golden"  # the golden demo and campaign
SK_TESTS = TESTS / "games" / "skirmish"
SK_CATALOG = SK_TESTS / "catalog"
