"""Europe Engulfed's naval operations (8.x, naval.py): what the catalog cases do not show on their
own — checking never rolls a die, the order of naval losses (8.14) class by class, interdiction of
a hidden block (fog of war: claims, as 7.9), the supplied port a transfer needs (8.3), the report's
tables, and the built-in player's standing naval choice and fleet transfer."""

from __future__ import annotations

import tomllib
from typing import Any

from pbem.engine.model import Event, Submission
from pbem.games.europe_engulfed import naval
from pbem.games.europe_engulfed.context import Ctx, context
from pbem.games.europe_engulfed.module import EuropeEngulfed
from pbem.mechanics.dice import ForcedDice
from tests.games.europe_engulfed.states import state_with


def ctx_with(units: dict[str, dict[str, Any]], faces: list[int] | None = None, **kw: Any) -> Ctx:
    dice = ForcedDice(in_order=list(faces)) if faces is not None else None
    return context(state_with(units, **kw), dice)


def test_checking_a_sea_move_the_enemy_would_engage_rolls_nothing() -> None:
    st = state_with({"it.90": {"nation": "italy", "at": "naples", "block": "it-inf", "steps": 3}},
                    standing={"allies": {"naval": {"mediterranean": "always"}}})
    body = {"move": [{"units": ["it.90"], "path": ["tripoli"], "sea": "mediterranean"}],
            "strat": []}
    assert EuropeEngulfed().check(st, Submission("orders", "axis", body)) == []
    c = context(st)  # no dice: engage says when it will be decided
    lost, gs, note = naval.engage(c, "mediterranean", ["it.90"], {}, {"italy": 1}, "5.31", "a test")
    assert (lost, gs) == ([], {}) and "resolved" in note and not c.events


def test_losses_fall_on_unused_then_carrying_then_used_fps_by_the_owners_order_of_nations() -> None:
    c = ctx_with({}, fleets={"atlantic": {"britain": 3, "france": 2}}, transport={"atlantic": {"britain": 2, "france": 1}},
                 standing={"allies": {"naval_losses": ["france"]}})
    # france: 1 unused, 1 carrying; britain: 1 unused, 1 carrying, 1 used
    out = naval._lose(c, "atlantic", "western", {"britain": 3, "france": 2}, {"britain": 1, "france": 1}, 4)
    assert out == {"unused": {"france": 1, "britain": 1}, "carrying": {"france": 1, "britain": 1}}
    assert c.pos["fleets"]["atlantic"] == {"britain": 1}
    assert c.pos["transport"]["atlantic"] == {"britain": 1}  # the FP used earlier survives (8.14: last)


def test_a_hidden_block_interdicted_loses_a_step_with_a_claim_and_a_named_cadre_is_eliminated() -> None:
    units = {"it.90": {"nation": "italy", "at": "tripoli", "item": "it.90"},
             "it.91": {"nation": "italy", "at": "tripoli", "item": "it.91"}}
    c = ctx_with(units, faces=[6, 1, 1, 6, 1, 1], secret=True, fleets={"mediterranean": {"britain": 3, "italy": 3}})
    c.step = "1941-may/axis/move"
    lost = naval.interdict(c, ["mediterranean"], ["it.90", "it.91"], {}, cadres=["it.91"])
    assert lost == {}
    assert c.units["it.90"]["lost"] == 1 and "it.91" not in c.units
    claims = {item: claim for _owner, item, claim in c.claims}
    assert claims["it.90"]["steps"] == ">=" and claims["it.90"]["rule"] == "8.21"
    assert claims["it.91"]["steps"] == "==" and claims["it.91"]["n"] == 1


def test_a_hidden_block_whose_steps_are_told_takes_its_hits_from_them() -> None:
    units = {"it.90": {"nation": "italy", "at": "tripoli", "item": "it.90"},
             "it.91": {"nation": "italy", "at": "tripoli", "item": "it.91"}}
    c = ctx_with(units, faces=[6, 6, 1, 6, 1, 1], secret=True, fleets={"mediterranean": {"britain": 3, "italy": 3}})
    c.step = "1941-may/axis/move"
    naval.interdict(c, ["mediterranean"], ["it.90", "it.91"], {}, told={"it.90": 2, "it.91": 3})
    assert "it.90" not in c.units  # 2 hits on its 2 steps
    assert c.units["it.91"]["lost"] == 1
    claims = {item: claim for _owner, item, claim in c.claims}
    assert (claims["it.90"]["steps"], claims["it.90"]["n"], claims["it.90"]["lost"]) == ("==", 2, 2)
    assert (claims["it.91"]["steps"], claims["it.91"]["n"], claims["it.91"]["lost"]) == ("==", 3, 1)


def test_a_transfer_needs_a_supplied_friendly_port_in_the_destination() -> None:
    c = ctx_with({})
    assert naval.supplied_port(c, "mediterranean", "britain") in ("alexandria", "gibraltar", "malta")
    assert naval.supplied_port(c, "mediterranean", "italy")  # Italy's own ports
    # no friendly port on the Black Sea for the Axis in the Pact's 1941 position (Romania's coast aside)
    ports = [a for a, ar in c.sc.map.areas.items() if "black-sea" in ar.ports and c.controller(a) == "axis"]
    assert bool(naval.supplied_port(c, "black-sea", "germany")) == bool(ports)


def test_the_reports_tables_name_fps_dice_hits_and_losses_by_nation() -> None:
    e = Event("naval-combat", "8.1", {
        "sea": "atlantic", "what": "a test", "by_rule": "5.31", "engaging": "the Axis", "engaged": "the Western Allies",
        "choice": "always", "fp": {"germany": 1}, "enemy_fp": {"britain": 2}, "equal": False, "first_hit": 6,
        "excess_hit": 5, "dice": {"engaging": [6], "engaged": [2], "engaged_excess": [5]},
        "hits": {"engaging": 1, "engaged": 1}, "engaging_losses": {"unused": {"germany": 1}},
        "engaged_losses": {"carrying": {"britain": 1}}, "cargo_lost": ["gb.90"], "gs_lost": {}})
    lines = naval.RENDER["naval-combat"](e)
    assert "| the Axis | germany 1 | 6 | 1 | unused germany 1 |" in [x.strip() for x in lines]
    assert "| the Western Allies | britain 2 | 2 + excess 5 | 1 | carrying britain 1 |" in [x.strip() for x in lines]
    assert any("gb.90 lost at sea" in x and "8.14" in x for x in lines)


def test_the_built_in_player_sets_its_naval_choice_and_moves_a_british_fp_to_the_mediterranean() -> None:
    st = state_with({"gb.90": {"nation": "britain", "at": "alexandria", "block": "gb-inf", "steps": 4}}, side="allies")
    body = tomllib.loads(EuropeEngulfed().propose(st, "allies"))
    assert body["standing"]["naval"]["mediterranean"] == "stronger"
    assert body["fleet"] == [{"nation": "britain", "from": "atlantic", "to": "mediterranean", "fp": 1}]
