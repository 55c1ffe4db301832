"""Red Steel: supply (7.x), the Introductory Segment (3.1), engineering (17.2, 17.4) and the end of
the player turn (13.3) where a unit test says more than a catalog case: markers removed, the
4 July date of the reserve (15.14, A-74), placed bridges as bridges (Ctx.bridged)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from pbem.games.red_steel import endturn, intro, status
from pbem.games.red_steel.context import Ctx, context
from pbem.games.red_steel.data import ELIMINATED, Turn, load_scenario
from pbem.games.red_steel.module import RedSteel
from pbem.mechanics.dice import ForcedDice

LAB = str((Path(__file__).parent / "data" / "lab" / "scenario.toml").resolve())


def lab_ctx(units: dict[str, Any], side: str = "axis", turn: int = 2, faces: list[int] | None = None, **extra: Any) -> Ctx:
    game = RedSteel().new_game(LAB, {})
    sc = load_scenario(LAB)
    pos = game["position"]
    pos["units"] = {u: {"at": ELIMINATED, "lost": len(sc.units[u].steps)} for u in pos["units"]}
    for u, v in units.items():
        pos["units"][u] = {"at": v, "lost": 0} if isinstance(v, str) else {"lost": 0, **v}
    pos.update(extra)
    state = {"pbem": {"scenario": LAB}, "options": {}, "clock": {"turn": turn, "side": side, "phase": "movement"},
             "position": pos, "standing": {}}
    return context(state, ForcedDice(in_order=list(faces or [])))


def test_a_unit_that_traces_loses_its_marker() -> None:
    ctx = lab_ctx({"G-HQ": "0104", "G-I/1": {"at": "0303", "supply": "isolated"}, "G-II/1": {"at": "0305", "supply": "oos"}})
    status.determine_supply(ctx)
    assert "supply" not in ctx.units["G-I/1"]
    assert "supply" not in ctx.units["G-II/1"]
    assert [e.rule for e in ctx.events if e.kind == "supply" and not e.data["hq"]] == ["7.72", "7.72"]


def test_supply_never_crosses_the_prut_without_a_bridge_and_a_placed_bridge_is_one() -> None:
    ctx = lab_ctx({"G-HQ": "0104", "G-Br/1": "0205"})
    assert not ctx.bridged("0205", "0305")
    assert ctx.bridged("0204", "0304")  # printed
    assert not status.crosses(ctx, "axis", "0205", "0305")
    ctx.pos["bridges"] = {"0205-0305": {"side": "axis", "unit": "G-Br/1", "state": "building", "since": 1}}
    assert not ctx.bridged("0305", "0205")
    ctx.pos["bridges"]["0205-0305"]["state"] = "placed"
    assert ctx.bridged("0305", "0205")
    assert status.crosses(ctx, "axis", "0205", "0305")
    assert not status.crosses(ctx, "soviet", "0204", "0304")  # 5.5, 15.3: never a Soviet line


def test_the_north_edge_counts_from_north_edge_from() -> None:
    assert status.edges_of(lab_ctx({}, turn=4), "axis") == ["west"]
    assert status.edges_of(lab_ctx({}, turn=5), "axis") == ["west", "north"]
    assert status.edges_of(lab_ctx({}, turn=5), "soviet") == ["east"]


def test_ukrainian_artillery_draws_on_the_romanian_stockpile() -> None:
    assert status.stockpile_of("ukrainian") == "romanian"
    assert status.stockpile_of("german") == "german"


def _with_turns(ctx: Ctx, turns: dict[int, Turn]) -> Ctx:
    ctx.sc = dataclasses.replace(ctx.sc, turns=turns)
    return ctx


def test_the_reserve_is_named_from_the_4_july_turn_on() -> None:
    turns = {1: Turn(1, "3 July", "am"), 2: Turn(2, "3 July", "midday"), 3: Turn(3, "4 July", "am")}
    early = _with_turns(lab_ctx({"S-HQ95": "0905"}, side="axis", turn=1), turns)
    intro.reserve(early, {"reserve": "95RD"})
    assert early.pos["activation"]["reserve"] == ""
    assert early.events[-1].data["state"] == "refused"
    later = _with_turns(lab_ctx({"S-HQ95": "0905"}, side="axis", turn=3), turns)
    intro.reserve(later, {"reserve": "95RD"})
    assert later.pos["activation"]["reserve"] == "95RD"
    assert later.events[-1].data["from_turn"] == 3


def test_a_segment_rolls_air_militia_replacements_in_order() -> None:
    ctx = lab_ctx({"G-HQ": "0104", "S-Mil/1": "pool", "S-Mil/2": "pool"}, turn=5, faces=[3, 6, 5, 4, 2, 4])
    ctx.standing = {"soviet": {"mobilise": True, "militia": ["0904"]}}
    intro.segment(ctx)
    labels = [r.label for r in ctx.dice.log]  # type: ignore[union-attr]
    air = "16.0|T5/soviet/intro|aircraft"
    assert labels == [air, f"{air}|draw 1", f"{air}|draw 2", f"{air}|draw 3", "17.3|T5/soviet/intro|militia",
                      "12.2|T5/soviet/intro|replacements"]
    assert ctx.pos["aircraft"] == {"drawn": ["Ju87-2", "Ju87-1", "IAR37-1"], "used": []}
    assert ctx.at("S-Mil/1") == "0904" and ctx.at("S-Mil/2") == "pool"
    assert ctx.pos["replacements"] == 2


def test_recovery_clears_the_marker_and_the_turn_flags() -> None:
    ctx = lab_ctx({"G-HQ": "0104", "G-I/1": {"at": "0303", "status": "disrupted"},
                   "G-Br/1": {"at": "0205", "flags": ["no-move"]}})
    endturn.end_player_turn(ctx)
    assert "status" not in ctx.units["G-I/1"]
    assert "flags" not in ctx.units["G-Br/1"]
