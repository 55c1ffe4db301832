"""Runs one Proud Monster catalog case (tests/catalog/proud-monster/*.toml) against the game module.

A case gives a position, the orders of the phasing side, the die faces, and the expected result of
every order; see tests/catalog/README.md for the format.
"""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path
from typing import Any

from pbem.engine.model import Submission
from pbem.games.proud_monster.air import placement
from pbem.games.proud_monster.module import ProudMonster
from pbem.games.proud_monster.options import BASIC_RULES, DEFAULT_OPTIONS
from pbem.games.proud_monster.rules.weather import WEATHER_FLAGS, initial_weather
from pbem.games.proud_monster.rules.works import initial_works
from pbem.games.proud_monster.rwr import initial_position
from pbem.mechanics.dice import ForcedDice

CATALOG = Path(__file__).parent / "catalog" / "proud-monster"
SCENARIO = str(CATALOG / "scenario.toml")
MODULE = ProudMonster()


def load_case(path: Path) -> dict[str, Any]:
    with path.open("rb") as f:
        return tomllib.load(f)


def scenario_of(case: dict[str, Any]) -> str:
    """The catalog scenario, or another scenario file of the catalog folder named by the case."""
    name = case["case"].get("scenario")
    return str(CATALOG / name) if name else SCENARIO


def build_setup_state(case: dict[str, Any], step: str) -> dict[str, Any]:
    """A state awaiting a set-up step (3.2-3.7): the scenario's position of a new game with the case's
    options, its `units` overriding (for `setup/german`, the Soviet set-up already made)."""
    scenario = scenario_of(case)
    base = MODULE.new_game(scenario, {**{k: False for k in BASIC_RULES}, **case.get("options", {})})
    p = case.get("position", {})
    sc = MODULE.scenario({"pbem": {"scenario": scenario}})
    for u, v in p.get("units", {}).items():
        base["position"]["units"][u] = {"at": v, "steps": sc.units[u].steps} if isinstance(v, str) else \
            {"at": v["at"], "steps": int(v.get("steps", sc.units[u].steps))}
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


def build_state(case: dict[str, Any]) -> dict[str, Any]:
    step = str(case.get("position", {}).get("step", ""))
    if step.startswith("setup/"):
        return build_setup_state(case, step)
    scenario = scenario_of(case)
    base = MODULE.new_game(scenario, {})
    p = case.get("position", {})
    units = {} if not p.get("from_scenario") else dict(base["position"]["units"])
    for u, v in p.get("units", {}).items():
        spec = MODULE.scenario({"pbem": {"scenario": scenario}}).units[u]
        if isinstance(v, str):
            units[u] = {"at": v, "steps": spec.steps}
        else:
            units[u] = {"at": v["at"], "steps": int(v.get("steps", spec.steps))}
    for u, v in p.get("tried", {}).items():  # 2.15: the counter already drawn for a tried unit
        units[u]["tried"] = str(v)
    position = base["position"]
    position["units"] = units
    position["control"].update(p.get("control", {}))
    position["vp"] = int(p.get("vp", 0))
    position["moscow_rolled"] = bool(p.get("moscow_rolled", False))
    if case.get("options", {}).get("weather"):  # 13.2: as a game with the weather rules starts (Dry)
        position.update(initial_weather())
    if "weather" in p:
        position.setdefault("weather", {"NZ": "D", "SZ": "D"}).update(p["weather"])
    for flag in WEATHER_FLAGS:  # 13.8-13.10: the permanent weather effects already in force
        if flag in p:
            position[flag] = bool(p[flag])
    if case.get("options", {}).get("fortifications"):  # 14.24, 14.30: as a game with forts starts
        position.update(initial_works(MODULE.scenario({"pbem": {"scenario": scenario}})))
        position["forts"].update(p.get("forts", {}))
        position["stalin"].update(p.get("stalin", {}))
    position.update(initial_position(case.get("options", {})))  # 8.15 the pool of 28, 8.20 no refit yet
    # 14.40 hedgehogs in force; 14.41 the GT each ArKo was formed; 8.1-8.11: what the MR phase
    # awaits, units that entered the RVGK, entries per hex this GT, diversions under way; 11.3 when
    # units entered the Box; 9.18 the air supply markers' hexes, 9.20 the units under supply
    # concentration, 9.19 the Pause; 8.15 the replacement steps left; 8.20 the GT of each refit made;
    # 8.16 the withdrawals made in the GT's first sequence (option withdrawal_sequence = "either")
    for key in ("hedgehogs", "arko", "mr", "rvgk_used", "entered", "diverting", "box_entry", "air_supply",
                "concentration", "pause", "replacements", "refits_used", "withdrawals_made"):
        if key in p:
            position[key] = copy.deepcopy(p[key])
    if "ground_support" in p:  # 10.2, 10.4: air units committed to stacks, as their commitment phase left them
        sc = MODULE.scenario({"pbem": {"scenario": scenario}})
        air = {}
        for a, v in p["ground_support"].items():
            unit = sc.charts.air.unit(a)
            assert unit is not None, f"no air unit {a} in the charts"
            side = "soviet" if unit is sc.charts.air.soviet else "german"
            given = {"hex": v} if isinstance(v, str) else dict(v)
            air[a] = {**placement(sc, side, unit, given.pop("hex"), int(p.get("turn", 2)), int(p.get("pts", 1))), **given}
        position["ground_support"] = air
    if "soviet_air" in p:  # 10.4: the Soviet GS unit received at the start of GT12
        position["soviet_air"] = bool(p["soviet_air"])
    side = p.get("side", "german")
    state = {
        "pbem": {"scenario": scenario, "module": "proud-monster", "game": "catalog"},
        "parties": {"german": {}, "soviet": {}},
        # every rule option is off unless the case names it (the basic-game rules of BASIC_RULES too)
        "options": {**DEFAULT_OPTIONS, **{k: False for k in BASIC_RULES}, **case.get("options", {})},
        "clock": {"turn": int(p.get("turn", 2)), "pts": int(p.get("pts", 1)), "side": side, "phase": "movement"},
        "position": position,
        "standing": copy.deepcopy(case.get("standing", {})),
        "awaits": {"kind": "orders", "step": f"GT{p.get('turn', 2)}/{p.get('pts', 1)}/{side}", "from": [side], "adjudicator": "x"},
    }
    return state


def run_case(case: dict[str, Any]) -> dict[str, Any]:
    """Returns what happened: problems, or the final game part and all events."""
    state = build_state(case)
    side = state["clock"]["side"]
    orders = case.get("orders", {})
    # [case] no_orders = true: the side sent nothing by the deadline (a referee's --no-orders)
    sub = Submission("orders", side, orders, "" if case["case"].get("no_orders") else "sha256:case")
    problems = MODULE.check(state, sub)
    if problems:
        return {"problems": problems, "state": state, "events": []}
    d = case.get("dice", {})
    dice = ForcedDice(by_label=dict(d.get("by_label", {})), in_order=list(d.get("faces", [])))
    t = MODULE.resolve(state, [sub], dice)
    events = list(t.events)
    out = t.state
    for reply in case.get("reply", []):
        nxt = {**state, **out}
        rsub = Submission("reply", nxt["awaits"]["from"][0], {"reply": dict(reply)}, "sha256:reply")
        rp = MODULE.check(nxt, rsub)
        if rp:
            return {"problems": rp, "state": nxt, "events": events}
        t = MODULE.resolve(nxt, [rsub], dice)
        events += list(t.events)
        out = t.state
    return {"problems": [], "state": out, "events": events, "rolled": len(dice.log)}
