"""Proud Monster catalog cases (tests/games/proud_monster/catalog/*.toml) for tests beyond the catalog: a
case's starting state and its step, as the catalog runner (pbem/catalog.py) and the game's hooks
build and play them; see catalog/README.md beside this file for the format.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pbem.catalog import load_case, play
from pbem.games.proud_monster import catalog
from pbem.games.proud_monster.module import ProudMonster

CATALOG = Path(__file__).parent / "catalog"
SCENARIO = str(CATALOG / "scenario.toml")
MODULE = ProudMonster()

__all__ = ["CATALOG", "MODULE", "SCENARIO", "build_state", "load_case", "run_case", "scenario_of"]


def scenario_of(case: dict[str, Any]) -> str:
    """The catalog scenario, or another scenario file of the catalog folder named by the case."""
    return catalog.scenario_of(case, CATALOG)


def build_state(case: dict[str, Any]) -> dict[str, Any]:
    """The state the case starts from (the game's catalog_state)."""
    return MODULE.catalog_state(case, CATALOG)


def run_case(case: dict[str, Any]) -> dict[str, Any]:
    """What happened: problems, or the final game part, all events and the dice rolled."""
    got = play(case, MODULE, CATALOG)
    return {"problems": got.problems, "state": got.state, "events": got.events, "rolled": got.rolled}
