"""Every data problem of a loaded scenario (`pbem module check`): its map's and counters' (data.py),
its fixed set-up's under the set-up rules (3.2-3.8, 6.x, 7.x: setup.py) and its reinforcements'."""

from __future__ import annotations

from pbem.errors import Problem

from .data import Scenario, component_problems, reinforcement_problems
from .setup import scenario_problems


def validate_scenario(sc: Scenario) -> list[Problem]:
    """Every way a loaded scenario's data breaks the rules (docs/map-format.md), each with its rule:
    the map and counters (data.component_problems), the fixed set-up (setup.scenario_problems), the
    reinforcement schedule (data.reinforcement_problems)."""
    return component_problems(sc) + scenario_problems(sc) + reinforcement_problems(sc)
