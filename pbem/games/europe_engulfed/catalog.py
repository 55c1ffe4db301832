"""Europe Engulfed's part of the rules catalog (pbem/catalog.py; the format in
tests/games/europe_engulfed/catalog/README.md): the state a case starts from, on a bundled
scenario (``1941-barbarossa`` unless the case names another), and the expectations only its cases
have."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pbem.engine.model import Event
from pbem.errors import Problem
from pbem.games.base import table_failures

from . import parties as pty
from .context import context, nation_code, step_name
from .data import Turn

CASE_PREFIX = "EE"
UNIT_KEYS = ("at", "block", "steps", "oos", "flags", "nation", "elite", "item", "lost")
POSITION_EXTRA = ("weather", "gs", "gs_oos", "contested", "fortifications", "beachheads", "sa", "werps", "fleets", "transport", "strat",
                  "politics", "assets", "next_allowed", "free", "strategic")
KEYS = {
    "case": ("referee", "scenario"),
    "position": ("turn", "side", "phase", "only", "units", "control", "pending", "at_war", *POSITION_EXTRA),
    "expect": ("units", "control", "vp", "gone", "pending", *POSITION_EXTRA),
}
PHASES = {"move": "move", "combat": "combat", "breakthrough": "breakthrough"}


def _unit(u: str, v: Any, scenario_blocks: dict[str, Any]) -> dict[str, Any]:
    """A case's block: an area (a block type and full steps from the id's nation) or a table of
    its state; a new id's block type must be given (``block``)."""
    spec = {"at": v} if isinstance(v, str) else copy.deepcopy(v)
    block = str(spec.get("block", ""))
    if block:
        bt = scenario_blocks[block]
        spec.setdefault("steps", bt.steps)
        spec.setdefault("elite", bt.elite)
        spec.setdefault("nation", bt.nation)
    return spec


def case_state(new_game: Callable[[str, dict[str, Any]], dict[str, Any]], case: dict[str, Any], folder: Path) -> dict[str, Any]:
    """The scenario's start with the case's position: with ``only`` no block but those listed;
    ``units`` placed (an area, or a table: at, block, steps, oos, flags; a new id needs its
    ``block``); ``control`` given; the turn, the phasing side and the phase (``move``, ``combat``,
    ``breakthrough``) whose file is played; the position's other tables as given (without
    ``assets`` the information track holds no U-boat, so that the compulsory U-boat attack, 2.0,
    rolls no die unless the case asks for it)."""
    meta, p = case["case"], case.get("position", {})
    scenario = str(meta.get("scenario", "")) or "1941-barbarossa"
    game = new_game(scenario, dict(case.get("options", {})))
    from .data import load_scenario

    sc = load_scenario(scenario)
    pos = game["position"]
    units = {} if p.get("only") else pos["units"]
    for u, v in p.get("units", {}).items():
        base = copy.deepcopy(units.get(u, {}))
        spec = _unit(u, v, sc.units.blocks)
        if not base and "block" not in spec and not ("item" in spec and "nation" in spec):  # a hidden block: its nation
            raise ValueError(f"position.units.{u}: a block not in the scenario's set-up needs its block type")
        base.update(spec)
        if "item" in spec:  # fog of war: a hidden block (its type too, unless the case gives it: ID.N)
            base.pop("steps", None)
            if "block" not in (v if isinstance(v, dict) else {}):
                base.pop("block", None)
        if "nation" in base and base["nation"] == "neutral":
            base["nation"] = sc.map.areas[str(base["at"])].country
        units[u] = base
    pos["units"] = units
    if "gs" in p or p.get("only"):
        pos["gs"] = copy.deepcopy(p.get("gs", {}))
    pos["control"] = {**pos["control"], **p.get("control", {})}
    if "assets" not in p:  # 2.0: no U-boat on the track unless the case gives it (the compulsory attack rolls 2 dice)
        pos["assets"]["uboats"] = 0
    for k in POSITION_EXTRA:
        if k in p and k != "gs":
            pos[k] = copy.deepcopy(p[k])
    for pair in p.get("at_war", []):  # wars declared before the case (1.23), added to the scenario's
        war = pos["politics"]["war"]
        if sorted(pair) not in war:
            pos["politics"]["war"] = sorted([*war, sorted(pair)])
        if set(pair) == {"germany", "ussr"}:
            pos["politics"]["pact"] = False
    parties: dict[str, Any] = {s: {} for s in pty.parties(game["options"])}  # (three players: axis, west, ussr)
    if meta.get("referee", True):  # the rules are played refereed: every block's type and steps known
        parties["referee"] = {}
    side = str(p.get("side", "axis"))
    turn = Turn.parse(str(p.get("turn", sc.start.key)))
    phase = PHASES[str(p.get("phase", "move"))]
    n = int(p.get("pending", {}).get("breakthroughs", 0)) + 1 if phase == "breakthrough" else 0
    state: dict[str, Any] = {
        "pbem": {"scenario": scenario, "module": "europe-engulfed", "game": "catalog"},
        "parties": parties,
        "options": game["options"],
        "clock": {"turn": turn.key, "side": side, "phase": phase},
        "position": pos,
        "standing": copy.deepcopy(case.get("standing", {})),
        "awaits": {"kind": "orders", "step": step_name(turn, side, phase, n), "from": pty.awaited(game["options"], side),
                   "adjudicator": "x"},
    }
    if "pending" in p:
        state["pending"] = copy.deepcopy(p["pending"])
    elif phase == "breakthrough":
        state["pending"] = {"breakthroughs": 0, "battles": []}
    from .victory import victory_points
    state["position"]["vp"] = victory_points(context(state))
    return state


def case_failures(case: dict[str, Any], problems: list[Problem], state: dict[str, Any], events: list[Event]) -> list[str]:
    """The blocks named (where, and any of their state's fields given), the blocks ``gone``
    (eliminated), control of the areas named, the VP, and the position's other tables (each key
    given)."""
    exp = case["expect"]
    if problems:
        return []
    out = []
    units = state["position"]["units"]
    for u, want in exp.get("units", {}).items():
        if u not in units:
            out.append(f"{u}: expected on the map, but it is not (eliminated)")
            continue
        got = units[u]
        want = {"at": want} if isinstance(want, str) else want
        for k, v in want.items():
            if got.get(k) != v:
                out.append(f"{u}: expected {k} {v}, got {got.get(k)}")
    for u in exp.get("gone", []):
        if u in units:
            out.append(f"{u}: expected eliminated, but it is in {units[u]['at']}")
    for a, side in exp.get("control", {}).items():
        if state["position"]["control"].get(a, "neutral") != side:
            out.append(f"control of {a}: expected {side}, got {state['position']['control'].get(a, 'neutral')}")
    if "vp" in exp and state["position"]["vp"] != exp["vp"]:
        out.append(f"vp: expected {exp['vp']}, got {state['position']['vp']}")
    if "pending" in exp and state.get("pending") != exp["pending"]:
        out.append(f"pending: expected {exp['pending']}, got {state.get('pending')}")
    for k in POSITION_EXTRA:
        if k in exp:
            out += table_failures(k, exp[k], state["position"].get(k))
    return out


__all__ = ["KEYS", "case_failures", "case_state", "nation_code"]
