"""The politics of the Axis (9.13-9.19, 9.41-9.47): the parts clearer as unit tests than as catalog
cases — the scenarios' starting politics, the Russian winter and the free minor step on hidden
blocks (fog of war: claims), neutral Italy at sea, the Italian GS in the USSR, the collapsed
Italian fleet."""

from __future__ import annotations

import copy
from typing import Any

from pbem.errors import Problem
from pbem.games.europe_engulfed import axis_powers, naval, production
from pbem.games.europe_engulfed.context import Ctx, context
from pbem.games.europe_engulfed.module import EuropeEngulfed


def _ctx(units: dict[str, dict[str, Any]], *, secret: bool = False, turn: str = "1941-may", scenario: str = "1941-barbarossa",
         politics: dict[str, Any] | None = None) -> Ctx:
    state = EuropeEngulfed().new_game(scenario, {})
    state["position"]["units"] = copy.deepcopy(units)
    if politics:
        state["position"]["politics"].update(politics)
    state.update({"pbem": {"scenario": scenario}, "clock": {"turn": turn, "side": "axis", "phase": "move"},
                  "parties": {"axis": {}, "allies": {}} if secret else {"axis": {}, "allies": {}, "referee": {}}})
    return context(state)


def test_the_scenarios_start_with_italy_and_the_minors_as_their_politics_say() -> None:
    p1939 = EuropeEngulfed().new_game("1939", {})["position"]["politics"]
    assert p1939["italy"] == "neutral" and p1939["minors_joined"] is False
    p1941 = EuropeEngulfed().new_game("1941-barbarossa", {})["position"]["politics"]
    assert p1941["italy"] == "war" and p1941["minors_joined"] is True
    assert ["britain", "romania"] in p1941["war"]  # 9.15: at war alongside Germany


def test_the_russian_winter_on_hidden_blocks_is_claimed() -> None:
    """9.13 with fog of war: an unnamed hidden block in the USSR loses a step (claimed infantry with
    2 steps or more); one spared as a cadre is claimed at 1 step; one spared by type, not infantry."""
    units = {"de.01": {"nation": "germany", "elite": False, "at": "minsk", "item": "de.01"},
             "de.02": {"nation": "germany", "elite": False, "at": "minsk", "item": "de.02"},
             "de.03": {"nation": "germany", "elite": False, "at": "minsk", "item": "de.03"}}
    ctx = _ctx(units, secret=True, turn="1942-jan")
    ctx.control["minsk"] = "axis"
    problems: list[Problem] = []
    axis_powers.production_start(ctx, {"winter_spared": {"de.02": "cadre", "de.03": "type"}}, problems)
    assert problems == []
    assert ctx.units["de.01"]["lost"] == 1 and "lost" not in ctx.units["de.02"] and "lost" not in ctx.units["de.03"]
    claims = {(item, tuple(sorted(c))): c for _, item, c in ctx.claims}
    by_item: dict[str, list[dict[str, Any]]] = {}
    for _, item, c in ctx.claims:
        by_item.setdefault(item, []).append(c)
    assert claims
    assert {c.get("rule") for c in by_item["de.01"]} == {"9.13"}
    assert any(c.get("types") == ["infantry"] for c in by_item["de.01"])
    assert any(c.get("steps") == ">=" and c.get("n") == 2 and c.get("lost") == 1 for c in by_item["de.01"])
    assert by_item["de.02"] == [{"unit": "de.02", "step": "", "steps": "==", "n": 1, "rule": "9.13",
                                 "why": "the Russian winter of Jan/Feb 1942: spared as a cadre"}]
    assert "infantry" not in by_item["de.03"][0]["types"]
    winter = [e for e in ctx.events if e.kind == "russian-winter"]
    assert winter and winter[0].data["units"] == ["de.01"] and winter[0].data["provisional"] is True


def test_winter_spared_names_hidden_axis_blocks_in_the_ussr_only() -> None:
    units = {"de.01": {"nation": "germany", "elite": False, "at": "berlin", "item": "de.01"}}
    problems: list[Problem] = []
    axis_powers.production_start(_ctx(units, secret=True, turn="1942-jan"), {"winter_spared": {"de.01": "cadre"}}, problems)
    assert [(p.where, p.rule) for p in problems] == [("production.winter_spared.de.01", "9.13")]
    problems = []
    axis_powers.production_start(_ctx(units, secret=True, turn="1942-mar"), {"winter_spared": {"de.01": "cadre"}}, problems)
    assert [(p.where, p.rule) for p in problems] == [("production.winter_spared", "9.13")]


def test_the_free_step_of_a_hidden_minor_block_is_worth_an_infantry_step() -> None:
    """9.15 with fog of war: the hidden costs add up to the WERPs announced plus the free step."""
    units = {"ro.01": {"nation": "romania", "elite": False, "at": "ploesti", "item": "ro.01"}}
    ctx = _ctx(units, secret=True)
    prod = {"replace": [{"unit": "ro.01", "free": True}], "hidden_werps": {"romania": 0}}
    assert axis_powers.free_werps(ctx, prod, "romania") == 1
    assert axis_powers.free_werps(ctx, prod, "hungary") == 0
    problems: list[Problem] = []
    production.check(ctx, {"production": prod}, problems)
    assert problems == []
    assert ctx.pos["politics"]["minor_step"] == {"nation": "romania", "turn": "1941-may"}


def test_neutral_italy_at_sea() -> None:
    """9.44: neutral Italy's units go by sea among Italy's lands only; Germany uses no Mediterranean FP."""
    units = {"it.01": {"nation": "italy", "elite": False, "at": "naples", "block": "it-inf", "steps": 3},
             "de.01": {"nation": "germany", "elite": False, "at": "naples", "block": "de-inf", "steps": 4}}
    ctx = _ctx(units, turn="1939-sep", scenario="1939")
    assert axis_powers.italy(ctx) == "neutral"
    out = axis_powers.entry_problems(ctx, ["it.01"], {}, "naples", "tripoli", final=True, strat=False, initial=True,
                                     seas=["mediterranean"])
    assert out == []
    out = axis_powers.entry_problems(ctx, ["it.01"], {}, "naples", "athens", final=True, strat=False, initial=True,
                                     seas=["mediterranean"])
    assert [r for _, r in out] == ["9.44"]
    out = axis_powers.entry_problems(ctx, ["de.01"], {}, "naples", "tripoli", final=True, strat=True, initial=True,
                                     seas=["mediterranean"])
    assert sorted(r for _, r in out) == ["9.44", "9.44"]


def test_one_italian_gs_in_the_ussr() -> None:
    ctx = _ctx({}, turn="1941-jul")
    ctx.pos["gs"] = {"odessa": {"italy": 1}}
    out = axis_powers.entry_problems(ctx, [], {"italy": 1}, "bessarabia", "kiev", final=True, strat=False, initial=True)
    assert [r for _, r in out] == ["9.41"] and "GS" in out[0][0]


def test_a_collapsed_italian_fleet_starts_no_naval_combat() -> None:
    """9.45b: Italian FPs neither engage nor interdict after the collapse; other Axis FPs still do."""
    ctx = _ctx({}, politics={"italy": "collapsed"})
    ctx.pos["fleets"] = {"mediterranean": {"italy": 4, "germany": 1, "britain": 3}}
    groups = naval._enemy_groups(ctx, "mediterranean", {"britain"}, "allies")
    assert all("italy" not in by for by in groups.values()) and any("germany" in by for by in groups.values())
    ctx = _ctx({})
    ctx.pos["fleets"] = {"mediterranean": {"italy": 4, "britain": 3}}
    assert any("italy" in by for by in naval._enemy_groups(ctx, "mediterranean", {"britain"}, "allies").values())
