"""Skirmish's part of the rules catalog (pbem/catalog.py; the format in the catalog's README): the
state a case starts from, on the scenario crossroads, and the expectations only its cases have
(units, control, VP)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pbem.engine.model import Event
from pbem.errors import Problem

from . import rules
from .data import ELIMINATED, SIDES

CASE_PREFIX = "SK"
SCENARIO = "crossroads"
KEYS = {
    "case": ("referee",),
    "position": ("turn", "side", "step", "only", "units", "control"),
    "expect": ("units", "control", "vp"),
}


def case_state(new_game: Callable[[str, dict[str, Any]], dict[str, Any]], case: dict[str, Any], folder: Path) -> dict[str, Any]:
    """The scenario's start with the case's position: its `units` placed (with `only`, every other
    unit eliminated), its `control` given, the side and turn whose orders are played (`step =
    "setup"`: the set-up of the option hidden, 7.2, awaiting blue and green, adjudicated by red); a
    refereed game's parties with `referee`."""
    meta, p = case["case"], case.get("position", {})
    game = new_game(SCENARIO, dict(case.get("options", {})))
    units = game["position"]["units"]
    if p.get("only"):
        units = {u: {"at": ELIMINATED} for u in units}
    for u, at in p.get("units", {}).items():
        units[u] = {"at": at}
    parties: dict[str, Any] = {s: {} for s in SIDES}
    if meta.get("referee"):
        parties["referee"] = {}
    side, turn = str(p.get("side", "red")), int(p.get("turn", 1))
    state = {
        "pbem": {"scenario": SCENARIO, "module": "skirmish", "game": "catalog"},
        "parties": parties,
        "options": game["options"],
        "clock": {"turn": turn, "side": side, "phase": "movement"},
        "position": {"units": units, "control": {**game["position"]["control"], **p.get("control", {})}, "vp": {}},
        "standing": copy.deepcopy(case.get("standing", {})),
        "awaits": {"kind": "orders", "step": rules.step_name(turn, side), "from": [side], "adjudicator": "x"},
    }
    if p.get("step") == rules.SETUP_STEP:
        state["clock"]["phase"] = "setup"
        state["awaits"] = {"kind": "orders", "step": rules.SETUP_STEP, "from": list(SIDES[1:]), "adjudicator": SIDES[0]}
    state["position"]["vp"] = rules.vp(rules.context(state))
    return state


def case_failures(case: dict[str, Any], problems: list[Problem], state: dict[str, Any], events: list[Event]) -> list[str]:
    """Where the units named are at the end, who controls the areas named, the VP of every side."""
    exp = case["expect"]
    if problems:
        return []  # an illegal file: the runner compares its problems
    out = []
    units = state["position"]["units"]
    for u, at in exp.get("units", {}).items():
        if units.get(u, {}).get("at") != at:
            out.append(f"{u}: expected in {at}, is in {units.get(u, {}).get('at')}")
    for area, side in exp.get("control", {}).items():
        if state["position"]["control"].get(area) != side:
            out.append(f"control of {area}: expected {side}, got {state['position']['control'].get(area)}")
    if "vp" in exp and state["position"]["vp"] != exp["vp"]:
        out.append(f"vp: expected {exp['vp']}, got {state['position']['vp']}")
    return out
