"""Red Steel combat rules the catalog's counters cannot show: overwhelming armor (10.2, no lab
counter has armor 5) and the loss shortfall (9.22, A-42: the stand-in CRT never asks both sides
for more steps than they have)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from pbem.games.red_steel import combat
from pbem.games.red_steel.context import Ctx, context
from pbem.games.red_steel.module import RedSteel
from pbem.mechanics.dice import ForcedDice
from pbem.mechanics.odds import Odds
from pbem.mechanics.tables import Result

LAB = str((Path(__file__).parent / "data" / "lab" / "scenario.toml").resolve())


def lab_ctx(units: dict[str, Any], options: dict[str, Any] | None = None) -> Ctx:
    game = RedSteel().new_game(LAB, options or {})
    pos = game["position"]
    for u in pos["units"]:
        pos["units"][u] = {"at": "eliminated", "lost": 9}
    for u, at in units.items():
        pos["units"][u] = {"at": at, "lost": 0}
    state = {"pbem": {"scenario": LAB}, "options": game["options"], "clock": {"turn": 2, "side": "axis", "phase": "combat"},
             "position": pos, "standing": {}}
    return context(state, ForcedDice(in_order=[]))


def test_overwhelming_armor_adds_a_column_beyond_the_cap() -> None:
    ctx = lab_ctx({"G-Pz/1": "0504", "G-I/1": "0504", "S-1/161": "0604", "S-2/161": "0604"})
    spec = ctx.sc.units["G-Pz/1"]
    heavy = dataclasses.replace(spec, steps=(dataclasses.replace(spec.steps[0], ar=5),))
    ctx.sc = dataclasses.replace(ctx.sc, units={**ctx.sc.units, "G-Pz/1": heavy})
    c = combat.Combat("0604", ["G-Pz/1", "G-I/1"], ["S-1/161", "S-2/161"], [], {})
    shifts, info = combat._shifts(ctx, c)
    armor = [(s.rule, s.columns) for s in shifts if s.rule.startswith("10.")]
    assert info["defender_anti_armor"] == 1  # S-1/161 supported by S-2/161 (10.3)
    assert armor == [("10.1", 3), ("10.2", 1)]  # 5 - 1 = 4, at most 3; 5:1 adds one more
    ctx.options = {"overwhelming_armor": "none"}
    shifts, _ = combat._shifts(ctx, c)
    assert [(s.rule, s.columns) for s in shifts if s.rule.startswith("10.")] == [("10.1", 3)]


def test_a_shortfall_cuts_the_other_sides_loss() -> None:
    ctx = lab_ctx({"G-I/1": "0504", "S-Cav/11": "0604"})
    ctx.units["G-I/1"]["lost"] = 2  # one step left
    c = combat.Combat("0604", ["G-I/1"], ["S-Cav/11"], [], {})
    _, info = combat._shifts(ctx, c)
    combat._apply(ctx, c, Result(4, 4), info, {})  # the attacker owes 2 of its 1 step: the defender's 2 become 1
    losses = next(e for e in ctx.events if e.kind == "losses")
    assert losses.data["shortfall_cut"] == {"attacker": 0, "defender": 1}
    assert losses.data["defender_losses"] == 1
    assert ctx.units["S-Cav/11"]["lost"] == 1
    assert ctx.units["G-I/1"]["at"] == "eliminated"


def test_clipping_keeps_the_support_needed_to_reach_the_cap() -> None:
    kept, clipped, counted = combat._clip([("A", 6), ("B", 7), ("C", 2)], 8)
    assert kept == [("A", 6), ("B", 7)] and clipped == ["C"] and counted == 8  # the weakest first (6.8 b)
    kept, clipped, counted = combat._clip([("A", 3)], 8)
    assert kept == [("A", 3)] and clipped == [] and counted == 3


def test_nearest_odds() -> None:
    assert Odds.nearest(18, 5).label == "4:1" and Odds.of(18, 5).label == "3:1"
    assert Odds.nearest(5, 12).label == "1:2" and Odds.of(5, 12).label == "1:3"
