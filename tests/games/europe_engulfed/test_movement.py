"""Movement (5.x) on a working context: hidden blocks' claims (ctx.need, ctx.need_steps), the
breakthrough mode's limits (3.4, 5.15b), the strat-move allowance (5.24) and the end of a phase."""

from __future__ import annotations

from typing import Any

from pbem.errors import Problem
from pbem.games.europe_engulfed import movement
from pbem.games.europe_engulfed.catalog import case_state
from pbem.games.europe_engulfed.context import Ctx, context
from pbem.games.europe_engulfed.module import EuropeEngulfed


def make(units: dict[str, Any], **position: Any) -> Ctx:
    case = {"case": {"id": "EE-T"}, "position": {"only": True, "units": units, "at_war": [["germany", "ussr"]], **position}}
    state = case_state(EuropeEngulfed().new_game, case, None)  # type: ignore[arg-type]
    return context(state)


def hide(ctx: Ctx, u: str) -> None:
    ctx.units[u].pop("block")
    ctx.units[u].pop("steps")
    ctx.units[u]["item"] = u


def test_hidden_block_moving_two_areas_claims_armor_or_cavalry() -> None:
    ctx = make({"de.90": {"at": "warsaw", "block": "de-arm"}})
    hide(ctx, "de.90")
    problems: list[Problem] = []
    movement.move_group(ctx, {"units": ["de.90"], "path": ["brest-litovsk", "minsk"]}, "move[0]", problems)
    assert problems == []
    assert ctx.at("de.90") == "minsk"
    assert [c for _, item, c in ctx.claims if item == "de.90" and c["rule"] == "5.12"] == [
        {"unit": "de.90", "step": ctx.step, "types": ["armor", "cavalry"], "rule": "5.12", "why": "moved 2 areas to minsk"}]
    assert [c["rule"] for _, item, c in ctx.claims if item == "de.90"] == ["5.12", "9.12"]  # 9.12: no German militia in the USSR


def test_hidden_block_one_area_claims_nothing() -> None:
    ctx = make({"de.90": {"at": "warsaw", "block": "de-arm"}})
    hide(ctx, "de.90")
    movement.move_group(ctx, {"units": ["de.90"], "path": ["brest-litovsk"]}, "move[0]", [])
    assert ctx.claims == []


def test_hidden_block_entering_a_swamp_claims_infantry_class() -> None:
    ctx = make({"de.90": {"at": "brest-litovsk", "block": "de-inf"}}, control={"brest-litovsk": "axis"})
    hide(ctx, "de.90")
    movement.move_group(ctx, {"units": ["de.90"], "path": ["pripet-marshes"]}, "move[0]", [])
    (claim,) = [c for _, _, c in ctx.claims if c["rule"] != "9.12"]  # 9.12: no German militia in the USSR
    assert claim["rule"] == "5.15" and "armor" not in claim["types"] and "infantry" in claim["types"]


def test_hidden_rearguard_claims_steps() -> None:
    ctx = make({"de.90": {"at": "minsk", "block": "de-arm"}, "de.91": {"at": "minsk", "block": "de-inf"},
                "su.90": {"at": "minsk", "block": "su-inf"}, "su.91": {"at": "minsk", "block": "su-inf"},
                "su.92": {"at": "minsk", "block": "su-inf"}},
               control={"minsk": "axis", "brest-litovsk": "axis"}, contested={"minsk": "old"})
    hide(ctx, "de.91")
    problems: list[Problem] = []
    movement.move_group(ctx, {"units": ["de.90"], "path": ["brest-litovsk"]}, "move[0]", problems)
    assert problems == []
    (claim,) = [c for _, _, c in ctx.claims]
    assert claim["rule"] == "5.14" and claim["group_steps"]["at_least"] == 3 and claim["group_steps"]["known"] == 0
    assert claim["group_steps"]["units"] == ["de.91"]


def test_breakthrough_mode_no_move_out_of_a_swamp_nor_out_of_supply() -> None:
    ctx = make({"de.90": {"at": "pripet-marshes", "block": "de-inf"}, "de.91": {"at": "warsaw", "block": "de-inf", "oos": "oos"}},
               control={"pripet-marshes": "axis"})
    problems: list[Problem] = []
    movement.move_group(ctx, {"units": ["de.90"], "path": ["kiev"]}, "breakthrough.moves[0]", problems, "breakthrough")
    movement.move_group(ctx, {"units": ["de.91"], "path": ["brest-litovsk"]}, "breakthrough.moves[1]", problems, "breakthrough")
    assert [(p.rule, p.where) for p in problems] == [("5.15", "breakthrough.moves[0].path[0]"), ("3.4", "breakthrough.moves[1].units[0]")]
    assert ctx.at("de.90") == "pripet-marshes" and ctx.at("de.91") == "warsaw"


def test_a_unit_moves_again_in_a_later_phase() -> None:
    ctx = make({"de.90": {"at": "warsaw", "block": "de-arm"}})
    movement.move_group(ctx, {"units": ["de.90"], "path": ["brest-litovsk"]}, "move[0]", None)
    movement.end_phase(ctx, "1.23")
    problems: list[Problem] = []
    movement.move_group(ctx, {"units": ["de.90"], "path": ["minsk"]}, "breakthrough.moves[0]", problems, "breakthrough")
    assert problems == [] and ctx.at("de.90") == "minsk"


def test_strat_limit_by_year_and_floor() -> None:
    ctx = make({})
    assert movement.strat_limit(ctx, "germany") == 6
    assert movement.strat_limit(ctx, "usa") == 1  # no row before 1942: the floor (5.24)
    assert movement.strat_limit(ctx, "finland") == 1
    ctx.options["strat_limit_floor"] = 0
    assert movement.strat_limit(ctx, "usa") == 0


def test_a_breakthrough_strategic_phase_has_a_fresh_allotment() -> None:
    ctx = make({"it.90": {"at": "rome", "block": "it-inf"}, "it.91": {"at": "rome", "block": "it-inf"},
                "it.92": {"at": "naples", "block": "it-inf"}})
    movement.strategic(ctx, [{"units": ["it.90", "it.91"], "path": ["naples"]}])
    assert ctx.pos["strat"] == {"italy": 2}
    movement.end_phase(ctx, "1.24")
    assert ctx.pos["strat"] == {}
    problems: list[Problem] = []
    movement.strat_move(ctx, {"units": ["it.92"], "path": ["rome"]}, "breakthrough.moves[0]", problems, "breakthrough")
    assert problems == [] and ctx.pos["strat"] == {"italy": 1}


def test_a_move_found_illegal_while_resolving_is_skipped_and_said() -> None:
    ctx = make({"de.90": {"at": "warsaw", "block": "de-inf"}})
    movement.operational(ctx, {"move": [{"units": ["de.90"], "path": ["brest-litovsk", "minsk"]}]})
    assert ctx.at("de.90") == "warsaw"
    assert [e.kind for e in ctx.events] == ["move-refused"]
