"""Red Steel's rules never fail on orders a player could send: any body the orders schema admits,
with unit ids and hexes of the scenario or not, for each kind of step, is either refused with
problems (each naming where, what and the rule) or played, and playing it never raises (Hypothesis,
seeded: the same cases every run)."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.engine.model import Submission
from pbem.errors import IllegalOrdersError
from pbem.exchange.files import schema_problems
from pbem.games.red_steel.catalog import case_state
from pbem.games.red_steel.data import load_scenario
from pbem.games.red_steel.module import RedSteel
from pbem.mechanics.dice import SeededDice
from tests.paths import ROOT

LAB = str(ROOT / "tests" / "games" / "red_steel" / "data" / "lab" / "scenario.toml")
MODULE = RedSteel()
SC = load_scenario(LAB)
UNITS = sorted(SC.units)
HEXES = sorted(SC.map.grid.place_ids())

unit = st.one_of(st.sampled_from(UNITS), st.sampled_from(["X-1", "G-HQ.c1", "S-Mil/9"]))
hex_ = st.one_of(st.sampled_from(HEXES), st.sampled_from(["0000", "9999", "0110"]))
units = st.lists(unit, min_size=1, max_size=4)
move = st.fixed_dictionaries({"units": units, "path": st.lists(hex_, max_size=5)},
                             optional={"strategic": st.booleans(), "tow": st.booleans(), "deploy": st.booleans(),
                                       "class": st.sampled_from(["foot", "mot"]), "exit": st.booleans()})
attack = st.fixed_dictionaries({"target": hex_, "units": units},
                               optional={"support": st.lists(unit, max_size=3), "advance": st.lists(hex_, max_size=3),
                                         "exclude": st.lists(unit, max_size=2), "advance_with": st.lists(unit, max_size=2)})
MOVE_BODY = st.fixed_dictionaries({}, optional={
    "move": st.lists(move, max_size=4), "ammo": st.lists(st.fixed_dictionaries({"unit": unit, "volleys": st.integers(1, 2)}), max_size=2),
    "entrench": st.lists(st.fixed_dictionaries({"unit": unit}), max_size=2),
    "breakdown": st.lists(st.fixed_dictionaries({"unit": unit}), max_size=2),
    "remove": st.lists(st.fixed_dictionaries({"unit": unit}), max_size=1),
    "replace": st.lists(st.fixed_dictionaries({"unit": unit}), max_size=2)})
COMBAT_BODY = st.fixed_dictionaries({}, optional={
    "attack": st.lists(attack, max_size=3),
    "bombard": st.lists(st.fixed_dictionaries({"target": hex_, "units": units}), max_size=2),
    "air": st.lists(st.fixed_dictionaries({"aircraft": st.sampled_from([*sorted(SC.aircraft), "Ju88-9"]), "target": hex_}), max_size=2)})


def state(side: str, phase: str, turn: int) -> dict[str, Any]:
    """The lab scenario's set-up, refereed, at the step given (its units where the scenario sets them)."""
    case = {"case": {"id": "RS-000", "title": "fuzz", "rules": ["3.0"]}, "position": {"turn": turn, "side": side, "phase": phase}}
    return case_state(MODULE.new_game, case, ROOT / "tests" / "games" / "red_steel" / "catalog")


def play(st_: dict[str, Any], side: str, body: dict[str, Any]) -> None:
    assert schema_problems(body, "red-steel/orders-body", "fuzz") == []
    sub = Submission("orders", side, body, "sha256:fuzz")
    problems = MODULE.check(st_, sub)
    for p in problems:
        assert p.where and p.message and p.rule, p
    if not problems:
        t = MODULE.resolve(st_, [sub], SeededDice(seed=b"fuzz"))
        assert t.state["awaits"]["kind"] in ("orders", "reply", "none")
        assert MODULE.check_state({**st_, **t.state}) == []
        for e in t.events:
            assert MODULE.render_event(e)


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(body=MOVE_BODY, side=st.sampled_from(["axis", "soviet"]), turn=st.sampled_from([1, 2, 4]))
def test_any_movement_file_is_refused_with_problems_or_played(body: dict[str, Any], side: str, turn: int) -> None:
    play(state(side, "move", turn), side, body)


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(body=COMBAT_BODY, side=st.sampled_from(["axis", "soviet"]), turn=st.sampled_from([1, 4]))
def test_any_combat_file_is_refused_with_problems_or_played(body: dict[str, Any], side: str, turn: int) -> None:
    st_ = state(side, "combat", turn)
    try:
        play(st_, side, body)
    except IllegalOrdersError as e:  # resolve's own safeguard names its problems too
        assert e.problems


def plausible_moves(draw: st.DrawFn, st_: dict[str, Any], side: str) -> list[dict[str, Any]]:
    """Moves a player might well send: units of the side, each along adjacent hexes from where it is."""
    at = {u: s["at"] for u, s in st_["position"]["units"].items() if SC.units[u].side == side and s["at"] in SC.map.grid.hexes}
    chosen = draw(st.lists(st.sampled_from(sorted(at)), max_size=6, unique=True)) if at else []
    out = []
    for u in chosen:
        path, cur = [], at[u]
        for _ in range(draw(st.integers(1, 3))):
            cur = draw(st.sampled_from(sorted(SC.map.grid.neighbours(cur))))
            path.append(cur)
        out.append({"units": [u], "path": path})
    return out


def plausible_attacks(draw: st.DrawFn, st_: dict[str, Any], side: str) -> list[dict[str, Any]]:
    """Attacks a player might well send: enemy hexes next to the side's units, with those units,
    its artillery as support, an advance into the hex."""
    units = st_["position"]["units"]
    mine = {u: s["at"] for u, s in units.items() if SC.units[u].side == side and s["at"] in SC.map.grid.hexes}
    theirs = {s["at"] for u, s in units.items() if SC.units[u].side != side and s["at"] in SC.map.grid.hexes}
    targets = sorted(h for h in theirs if any(n in mine.values() for n in SC.map.grid.neighbours(h)))
    out = []
    for t in draw(st.lists(st.sampled_from(targets), max_size=3, unique=True)) if targets else []:
        near = sorted(u for u, h in mine.items() if h in SC.map.grid.neighbours(t))
        guns = sorted(u for u in mine if SC.units[u].art is not None)
        order: dict[str, Any] = {"target": t, "units": draw(st.lists(st.sampled_from(near), min_size=1, max_size=4, unique=True))}
        if guns and draw(st.booleans()):
            order["support"] = draw(st.lists(st.sampled_from(guns), max_size=2, unique=True))
        if draw(st.booleans()):
            order["advance"] = [t]
        out.append(order)
    return out


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), side=st.sampled_from(["axis", "soviet"]), turn=st.sampled_from([2, 4]))
def test_plausible_orders_of_a_whole_player_turn_are_refused_or_played(data: st.DataObject, side: str, turn: int) -> None:
    """A movement file of plausible moves, then (from the position it leads to) a combat file of
    plausible attacks: each refused with problems or played; the game goes on."""
    st_ = state(side, "move", turn)
    body = {"move": plausible_moves(data.draw, st_, side)}
    sub = Submission("orders", side, body, "sha256:fuzz")
    if MODULE.check(st_, sub):
        return
    after = MODULE.resolve(st_, [sub], SeededDice(seed=b"fuzz move"))
    st2 = {**st_, **after.state}
    assert st2["awaits"]["step"].endswith("/combat")
    combat = {"attack": plausible_attacks(data.draw, st2, side)}
    try:
        play(st2, side, combat)
    except IllegalOrdersError as e:
        assert e.problems
