"""Unit tests of the Movement Phase (pbem/games/red_steel/movement.py) where a catalog case is
less clear: the one code path that checks and makes a move, and the costs of a step."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pbem.games.red_steel import movement
from pbem.games.red_steel.context import Ctx, context
from pbem.games.red_steel.module import RedSteel

LAB = str(Path(__file__).parent / "data" / "lab" / "scenario.toml")


def lab_ctx(units: dict[str, str], side: str = "axis", turn: int = 2) -> Ctx:
    game = RedSteel().new_game(LAB, {})
    pos = game["position"]
    pos["units"] = {u: ({"at": units[u], "lost": 0} if u in units else {"at": "eliminated", "lost": 1}) for u in pos["units"]}
    state: dict[str, Any] = {"pbem": {"scenario": LAB}, "clock": {"turn": turn, "side": side, "phase": "movement"},
                             "position": pos, "options": {}, "standing": {}}
    return context(state)


def test_a_move_made_illegal_by_an_earlier_move_is_skipped_with_its_reason() -> None:
    ctx = lab_ctx({"S-1/161": "0605", "G-I/1": "0101"}, side="soviet")
    movement.start_phase(ctx, {})
    movement.make_moves(ctx, [(0, {"units": ["S-1/161"], "path": ["0505"]}), (1, {"units": ["S-1/161"], "path": ["0405"]})])
    assert ctx.at("S-1/161") == "0505"
    skipped = [e for e in ctx.events if e.kind == "move-skipped"]
    assert len(skipped) == 1
    assert skipped[0].rule == "5.1"
    assert skipped[0].data["index"] == 1
    assert "already moved" in skipped[0].data["why"]
    assert movement.RENDER["move-skipped"](skipped[0]) == [
        "- Move 1 of S-1/161 is skipped: S-1/161 has already moved this Movement Phase (5.1)."]


def test_step_costs_read_the_tec_by_class_road_and_river() -> None:
    ctx = lab_ctx({})
    assert movement.step_cost(ctx, "foot", "0502", "0503") == 2  # woods
    assert movement.step_cost(ctx, "mot", "0502", "0503") == 3
    assert movement.step_cost(ctx, "mech", "0406", "0407") is None  # marsh prohibited
    assert movement.step_cost(ctx, "foot", "0703", "0803") == 3  # clear + river
    assert movement.step_cost(ctx, "foot", "0704", "0804") == 1  # bridge on the main road
    assert movement.step_cost(ctx, "foot", None, "0404") == 1  # entering from off the map: the town


def test_check_plays_the_moves_on_its_working_copy() -> None:
    ctx = lab_ctx({"G-I/1": "0303", "S-1/161": "1008"})
    problems: list[Any] = []
    movement.check(ctx, {"move": [{"units": ["G-I/1"], "path": ["0403"]}]}, problems)
    assert problems == []
    assert ctx.at("G-I/1") == "0403"  # later orders are checked on the position this one leaves
