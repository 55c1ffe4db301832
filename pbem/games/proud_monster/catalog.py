"""Proud Monster's part of the rules catalog (pbem/catalog.py; the format in the catalog's README):
the state a case starts from, and the expectations only this game's cases have (units, untried
counters, attacks and mobile assaults, VP, control, position keys, works)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pbem.catalog import subset
from pbem.engine.model import Event
from pbem.errors import Problem

from .air import placement
from .data import Scenario, load_scenario
from .options import BASIC_RULES, DEFAULT_OPTIONS
from .rules.weather import WEATHER_FLAGS, initial_weather
from .rules.works import initial_works
from .rwr import initial_position

CASE_PREFIX = "PM"
DEFAULT_SCENARIO = "scenario.toml"  # the catalog scenario, in the case's folder
# 14.40 hedgehogs in force; 14.41 the GT each ArKo was formed; 8.1-8.11: what the MR phase awaits,
# units that entered the RVGK, entries per hex this GT, diversions under way; 11.3 when units entered
# the Box; 9.18 the air supply markers' hexes, 9.20 the units under supply concentration, 9.19 the
# Pause; 8.15 the replacement steps left; 8.20 the GT of each refit made; 8.16 the withdrawals made in
# the GT's first sequence (option withdrawal_sequence = "either")
COPIED = ("hedgehogs", "arko", "mr", "rvgk_used", "entered", "diverting", "box_entry", "air_supply",
          "concentration", "pause", "replacements", "refits_used", "withdrawals_made")
KEYS = {
    "case": ("scenario",),
    "position": ("turn", "pts", "side", "step", "from_scenario", "units", "tried", "control", "vp", "moscow_rolled",
                 "weather", *WEATHER_FLAGS, "forts", "stalin", *COPIED, "ground_support", "soviet_air"),
    "expect": ("units", "untried", "attack", "assault", "vp", "control", "position", "no_position", "forts", "stalin"),
}


def scenario_of(case: dict[str, Any], folder: Path) -> str:
    """The catalog scenario, or another scenario file of the catalog folder named by the case."""
    return str(folder / case["case"].get("scenario", DEFAULT_SCENARIO))


def _unit(sc: Scenario, u: str, v: str | dict[str, Any]) -> dict[str, Any]:
    """A unit of ``position.units``: a hex (full strength) or ``{at, steps}``."""
    if isinstance(v, str):
        return {"at": v, "steps": sc.units[u].steps}
    return {"at": v["at"], "steps": int(v.get("steps", sc.units[u].steps))}


def setup_state(new_game: Callable[[str, dict[str, Any]], dict[str, Any]], case: dict[str, Any], folder: Path, step: str) -> dict[str, Any]:
    """A state awaiting a set-up step (3.2-3.7): the scenario's position of a new game with the case's
    options, its `units` overriding (for `setup/german`, the Soviet set-up already made)."""
    scenario = scenario_of(case, folder)
    base = new_game(scenario, {**{k: False for k in BASIC_RULES}, **case.get("options", {})})
    p = case.get("position", {})
    sc = load_scenario(scenario)
    for u, v in p.get("units", {}).items():
        base["position"]["units"][u] = _unit(sc, u, v)
    side = step.split("/")[1]
    return {
        "pbem": {"scenario": scenario, "module": "proud-monster", "game": "catalog"},
        "parties": {"german": {}, "soviet": {}},
        "options": base["options"],
        "clock": {"turn": sc.first_turn, "pts": 0, "side": side, "phase": "setup"},
        "position": base["position"],
        "standing": copy.deepcopy(case.get("standing", {})),
        "awaits": {"kind": "orders", "step": step, "from": [side], "adjudicator": "x"},
    }


def case_state(new_game: Callable[[str, dict[str, Any]], dict[str, Any]], case: dict[str, Any], folder: Path) -> dict[str, Any]:
    """The state a case starts from: the phasing side's movement phase of the case's GT and sequence
    (`position.step`: a set-up step instead), only the units the case lists in play (or, with
    `from_scenario`, the scenario's too), every rule option off but those the case names, and the
    markers and pools of the rules in force as a game starts them, overridden by the case's."""
    step = str(case.get("position", {}).get("step", ""))
    if step.startswith("setup/"):
        return setup_state(new_game, case, folder, step)
    scenario = scenario_of(case, folder)
    sc = load_scenario(scenario)
    base = new_game(scenario, {})
    p = case.get("position", {})
    options = case.get("options", {})
    units = {} if not p.get("from_scenario") else dict(base["position"]["units"])
    for u, v in p.get("units", {}).items():
        units[u] = _unit(sc, u, v)
    for u, v in p.get("tried", {}).items():  # 2.15: the counter already drawn for a tried unit
        units[u]["tried"] = str(v)
    position = base["position"]
    position["units"] = units
    position["control"].update(p.get("control", {}))
    position["vp"] = int(p.get("vp", 0))
    position["moscow_rolled"] = bool(p.get("moscow_rolled", False))
    if options.get("weather"):  # 13.2: as a game with the weather rules starts (Dry)
        position.update(initial_weather())
    if "weather" in p:
        position.setdefault("weather", {"NZ": "D", "SZ": "D"}).update(p["weather"])
    for flag in WEATHER_FLAGS:  # 13.8-13.10: the permanent weather effects already in force
        if flag in p:
            position[flag] = bool(p[flag])
    if options.get("fortifications"):  # 14.24, 14.30: as a game with forts starts
        position.update(initial_works(sc))
        position["forts"].update(p.get("forts", {}))
        position["stalin"].update(p.get("stalin", {}))
    position.update(initial_position(options))  # 8.15 the pool of 28, 8.20 no refit yet
    for key in COPIED:
        if key in p:
            position[key] = copy.deepcopy(p[key])
    if "ground_support" in p:  # 10.2, 10.4: air units committed to stacks, as their commitment phase left them
        air = {}
        for a, v in p["ground_support"].items():
            unit = sc.charts.air.unit(a)
            if unit is None:
                raise KeyError(f"no air unit {a} in the charts")
            side = "soviet" if unit is sc.charts.air.soviet else "german"
            given = {"hex": v} if isinstance(v, str) else dict(v)
            air[a] = {**placement(sc, side, unit, given.pop("hex"), int(p.get("turn", 2)), int(p.get("pts", 1))), **given}
        position["ground_support"] = air
    if "soviet_air" in p:  # 10.4: the Soviet GS unit received at the start of GT12
        position["soviet_air"] = bool(p["soviet_air"])
    side = p.get("side", "german")
    return {
        "pbem": {"scenario": scenario, "module": "proud-monster", "game": "catalog"},
        "parties": {"german": {}, "soviet": {}},
        # every rule option is off unless the case names it (the basic-game rules of BASIC_RULES too)
        "options": {**DEFAULT_OPTIONS, **{k: False for k in BASIC_RULES}, **options},
        "clock": {"turn": int(p.get("turn", 2)), "pts": int(p.get("pts", 1)), "side": side, "phase": "movement"},
        "position": position,
        "standing": copy.deepcopy(case.get("standing", {})),
        "awaits": {"kind": "orders", "step": f"GT{p.get('turn', 2)}/{p.get('pts', 1)}/{side}", "from": [side],
                   "adjudicator": "x"},
    }


def _shifts(e: Event) -> list[str]:
    return [s["label"] + " " + s["rule"] for s in e.data["shifts"]]


def problems_failures(problems: list[Problem]) -> list[str]:
    """The place programs read (Problem.place) is the one the where text names."""
    out = []
    for g in problems:
        ok = g.place is not None and (g.where == g.place.text or g.where.startswith(g.place.text + " ")
                                      if g.place.path else g.place.map_place in g.message)
        if not ok:
            out.append(f"the problem's place is not the one its text names: {g.render()} ({g.place})")
    return out


def case_failures(case: dict[str, Any], problems: list[Problem], state: dict[str, Any], events: list[Event]) -> list[str]:
    """Every unit an order names (moved, attacking, set up, at sea) has its result asserted, and is
    where and as the case expects; the units still untried; one result per attack order (odds,
    shifts, die, CRT cell...) and per mobile assault round; VP, control, position keys present and
    absent, the works named."""
    exp = case["expect"]
    if exp.get("legal", True) is False:
        return problems_failures(problems)
    if problems:
        return []  # the runner says the orders were refused
    out: list[str] = []
    orders = case.get("orders", {})
    position = state["position"]
    units = position["units"]
    moved = {u for m in orders.get("move", []) for u in m["units"]} | {u for a in orders.get("attack", []) for u in a["units"]}
    moved |= {u for us in orders.get("setup", {}).values() for u in us}  # 3.2-3.7: every unit set up
    moved |= {u for s in orders.get("sea", []) for u in s.get("units", [])}  # 11.2-11.4
    missing = moved - set(exp.get("units", {}))
    if missing:
        out.append(f"every ordered unit's result is asserted: missing {sorted(missing)}")
    for u, v in exp.get("units", {}).items():
        if u not in units:
            out.append(f"units.{u}: not in the position")
            continue
        out += subset({"at": v} if isinstance(v, str) else v, units[u], f"units.{u}")
    for u in exp.get("untried", []):
        if u not in units:
            out.append(f"units.{u}: not in the position")
        elif "tried" in units[u]:
            out.append(f"units.{u} should still be untried, but is {units[u].get('tried')}")
    exp_attacks = exp.get("attack", [])
    if len(exp_attacks) != len(orders.get("attack", [])):
        out.append("one [[expect.attack]] per attack order")
    by_index: dict[int, Event] = {}
    for e in events:
        if e.kind in ("attack", "attack-skipped"):
            by_index[e.data["index"]] = e  # the last resolution of an attack (after a reply) counts
    for i, ea in enumerate(exp_attacks):
        if i not in by_index:
            out.append(f"attack {i} was not resolved")
            continue
        e = by_index[i]
        if ea.get("skipped"):
            if e.kind != "attack-skipped":
                out.append(f"attack[{i}]: expected skipped, was resolved")
            continue
        out += subset({k: v for k, v in ea.items() if k != "shifts"}, e.data, f"attack[{i}]")
        if "shifts" in ea and _shifts(e) != ea["shifts"]:
            out.append(f"attack[{i}] shifts: expected {ea['shifts']}, got {_shifts(e)}")
    for ea in exp.get("assault", []):  # one per mobile assault round (15.2, 15.6), by move index
        found = [e for e in events if e.kind == "mobile-assault" and e.data["index"] == ea["move"]
                 and e.data["round"] == ea.get("round", 1)]
        if not found:
            out.append(f"no mobile assault in move {ea['move']} round {ea.get('round', 1)}")
            continue
        out += subset({k: v for k, v in ea.items() if k not in ("shifts", "move")}, found[-1].data, f"assault[{ea['move']}]")
        if "shifts" in ea and _shifts(found[-1]) != ea["shifts"]:
            out.append(f"assault[{ea['move']}] shifts: expected {ea['shifts']}, got {_shifts(found[-1])}")
    if "vp" in exp and position["vp"] != exp["vp"]:
        out.append(f"vp: expected {exp['vp']}, got {position['vp']}")
    for h, c in exp.get("control", {}).items():
        if position["control"].get(h) != c:
            out.append(f"control of {h}: expected {c}, got {position['control'].get(h)}")
    out += subset(exp.get("position", {}), position, "position")
    for key in exp.get("no_position", []):  # position keys that must be absent (markers not in force)
        if key in position:
            out.append(f"position.{key} should be absent, but is {position[key]!r}")
    for key in ("forts", "stalin"):  # 14.24-14.26, 14.30: the state of the works named
        for h, v in exp.get(key, {}).items():
            if position.get(key, {}).get(h) != v:
                out.append(f"{key}.{h}: expected {v}, got {position.get(key, {}).get(h)}")
    return out
