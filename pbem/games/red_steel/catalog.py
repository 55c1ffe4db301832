"""Red Steel's part of the rules catalog (pbem/catalog.py; the format in
tests/games/red_steel/catalog/README.md): the state a case starts from, on a bundled scenario
(the catalog's own test scenario ``tests/games/red_steel/data/lab`` unless the case names a bundled one), and the expectations only its cases have."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pbem.engine.model import Event
from pbem.errors import Problem
from pbem.games.base import table_failures

from .context import context, step_name
from .data import ELIMINATED, SIDES, load_scenario

CASE_PREFIX = "RS"
UNIT_KEYS = ("at", "lost", "status", "supply", "mode", "ammo", "flags", "since")
POSITION_EXTRA = ("entrenchments", "bridges", "ammo", "replacements", "aircraft", "activation", "garrison_released")
KEYS = {
    "case": ("referee", "scenario"),
    "position": ("turn", "side", "phase", "only", "units", "control", *POSITION_EXTRA),
    "expect": ("units", "control", "vp", *POSITION_EXTRA),
}


def _unit(v: Any) -> dict[str, Any]:
    return {"at": v, "lost": 0} if isinstance(v, str) else {"lost": 0, **copy.deepcopy(v)}


def case_state(new_game: Callable[[str, dict[str, Any]], dict[str, Any]], case: dict[str, Any], folder: Path) -> dict[str, Any]:
    """The scenario's start with the case's position: its ``units`` placed (a hex, or a table of a
    unit's state: at, lost, status, supply, mode, ammo, flags), with ``only`` every other unit
    eliminated; ``control`` given; the turn, the phasing side and the phase (``intro``: the
    Soviet's Introductory Segment, 3.1; ``move``, ``combat``) whose file is played; the position's other tables as given."""
    meta, p = case["case"], case.get("position", {})
    scenario = str(meta.get("scenario", "")) or str((folder.parent / "data" / "lab" / "scenario.toml").resolve())
    game = new_game(scenario, dict(case.get("options", {})))
    pos = game["position"]
    units = pos["units"]
    if p.get("only"):
        units = {u: {"at": ELIMINATED, "lost": len(load_scenario(scenario).units[u].steps)} for u in units}
    for u, v in p.get("units", {}).items():
        units[u] = _unit(v)
    pos["units"] = units
    pos["control"] = {**pos["control"], **p.get("control", {})}
    for k in POSITION_EXTRA:
        if k in p:
            pos[k] = copy.deepcopy(p[k])
    parties: dict[str, Any] = {s: {} for s in SIDES}
    if meta.get("referee", True):  # the rules are played refereed; the secrets without a referee in test_secrets.py
        parties["referee"] = {}
    side, turn, phase = str(p.get("side", "axis")), int(p.get("turn", 1)), str(p.get("phase", "move"))
    sender = "soviet" if phase == "intro" else side  # 3.1: the Introductory Segment is the Soviet's step
    state = {
        "pbem": {"scenario": scenario, "module": "red-steel", "game": "catalog"},
        "parties": parties,
        "options": game["options"],
        "clock": {"turn": turn, "side": side, "phase": {"move": "movement", "intro": "intro"}.get(phase, "combat")},
        "position": pos,
        "standing": copy.deepcopy(case.get("standing", {})),
        "awaits": {"kind": "orders", "step": step_name(turn, sender, phase), "from": [sender], "adjudicator": "x"},
    }
    ctx = context(state)
    from .module import victory_points
    state["position"]["vp"] = victory_points(ctx)
    return state


def case_failures(case: dict[str, Any], problems: list[Problem], state: dict[str, Any], events: list[Event]) -> list[str]:
    """The units named (where, and any of their state's fields given), control of the hexes
    named, the VP, and the position's other tables (each key given)."""
    exp = case["expect"]
    if problems:
        return []
    out = []
    units = state["position"]["units"]
    for u, want in exp.get("units", {}).items():
        got = units.get(u, {})
        want = {"at": want} if isinstance(want, str) else want
        for k, v in want.items():
            have = got.get(k, 0 if k == "lost" else None)
            if have != v:
                out.append(f"{u}: expected {k} {v}, got {have}")
    for h, side in exp.get("control", {}).items():
        if state["position"]["control"].get(h) != side:
            out.append(f"control of {h}: expected {side}, got {state['position']['control'].get(h)}")
    if "vp" in exp and state["position"]["vp"] != exp["vp"]:
        out.append(f"vp: expected {exp['vp']}, got {state['position']['vp']}")
    for k in POSITION_EXTRA:
        if k in exp:
            out += table_failures(k, exp[k], state["position"].get(k))
    return out
