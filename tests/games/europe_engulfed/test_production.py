"""Production (4.x, 6.9x, 7.1, 7.8): the parts clearer as unit tests than as catalog cases — the
costs of 4.43, the SA limits of 7.11, and the hidden values and claims of a game without a referee
(4.5)."""

from __future__ import annotations

import copy
from typing import Any

from pbem.errors import Problem
from pbem.games.europe_engulfed import production
from pbem.games.europe_engulfed.context import Ctx, context
from pbem.games.europe_engulfed.module import EuropeEngulfed


def _ctx(units: dict[str, dict[str, Any]], secret: bool, turn: str = "1941-may", side: str = "axis") -> Ctx:
    state = EuropeEngulfed().new_game("1941-barbarossa", {})
    state["position"]["units"] = copy.deepcopy(units)
    state.update({"pbem": {"scenario": "1941-barbarossa"}, "clock": {"turn": turn, "side": side, "phase": "move"},
                  "parties": {"axis": {}, "allies": {}} if secret else {"axis": {}, "allies": {}, "referee": {}}})
    return context(state)


def test_step_costs_follow_4_43() -> None:
    ctx = _ctx({}, False)
    assert production.step_cost(ctx, "de-arm-e", cadre=True) == 8  # the 4.43 example
    assert production.step_cost(ctx, "de-arm-e") == 4
    assert production.step_cost(ctx, "de-mil", cadre=True) == 1  # militia: no cadre doubling
    assert production.step_cost(ctx, "su-abn", cadre=True) == 4
    assert production.build_cost(ctx, "de-inf", 4) == 5


def test_sa_limits_by_year() -> None:
    assert production.sa_limit(_ctx({}, False, "1942-nov"), "germany") == 5
    assert production.sa_limit(_ctx({}, False, "1943-jan"), "germany") == 4
    assert production.sa_limit(_ctx({}, False, "1944-jan"), "germany") == 3
    assert production.sa_limit(_ctx({}, False, "1941-may"), "usa") == 0
    assert production.sa_limit(_ctx({}, False, "1942-may"), "usa") == 1
    assert production.sa_limit(_ctx({}, False, "1941-may"), "finland") == 0


def test_hidden_replacements_are_paid_from_the_hidden_werps() -> None:
    """4.5: with fog of war production checks a replacement and pays the announced hidden WERPs; the
    block's new value (a new version of its item, or a new item for a revealed block) is fog.py's."""
    units = {"de.01": {"nation": "germany", "elite": False, "at": "berlin", "item": "de.01"},
             "de.02": {"nation": "germany", "elite": False, "at": "minsk", "block": "de-inf", "steps": 2}}
    ctx = _ctx(units, True)
    ctx.control["minsk"] = "axis"
    problems: list[Problem] = []
    body = {"production": {"replace": [{"unit": "de.01"}, {"unit": "de.02"}], "hidden_werps": {"germany": 3}}}
    production.resolve(ctx, body)
    production.check(_ctx(units, True), body, problems)
    assert [p.where for p in problems] == ["production.replace[1].unit"]  # Minsk is not Axis-controlled there
    assert ctx.units["de.01"]["item"] == "de.01" and ctx.units["de.02"]["steps"] == 2  # fog.py's to change
    assert ctx.pos["werps"]["germany"] == 32 - 3  # 28 and Swedish ore (9.14) and Ploesti (9.15)
    replaced = [e for e in ctx.events if e.kind == "replaced"]
    assert [e.data["unit"] for e in replaced] == ["de.01", "de.02"] and not any("steps" in e.data for e in replaced)


def test_a_hidden_build_in_a_swamp_claims_no_armor() -> None:
    """4.41: fog.py placed the hidden block before the production phase; production claims it is
    not armor, built in a swamp."""
    units = {"su.01": {"nation": "ussr", "elite": False, "at": "moscow", "block": "su-inf", "steps": 4},
             "su.02": {"nation": "ussr", "elite": False, "at": "pripet-marshes", "item": "su.02"}}
    ctx = _ctx(units, True, side="allies")
    production.resolve(ctx, {"production": {"build": [{"nation": "ussr", "area": "pripet-marshes", "id": "su.02"}],
                                            "hidden_werps": {"ussr": 2}}})
    swamp = next(c for _, item, c in ctx.claims if item == "su.02" and c["rule"] == "4.41")
    assert "armor" not in swamp["types"] and "infantry" in swamp["types"]
    assert any(e.kind == "built" and e.data.get("hidden") for e in ctx.events)


def test_hidden_builds_need_their_werps_announced() -> None:
    problems: list[Problem] = []
    ctx = _ctx({}, True)
    production.check(ctx, {"production": {"build": [{"nation": "germany", "area": "berlin"}]}}, problems)
    assert [(p.where, p.rule) for p in problems] == [("production.hidden_werps", "4.5")]
    problems = []
    production.check(_ctx({}, True), {"production": {"hidden_werps": {"germany": 3}}}, problems)
    assert [(p.where, p.rule) for p in problems] == [("production.hidden_werps.germany", "4.5")]


def test_no_sa_is_bought_at_a_lowered_limit() -> None:
    """7.11, A-32: no SA is bought while the nation holds its limit or more (Germany's 3 in 1944)."""
    for held in (3, 4):
        ctx = _ctx({}, False, "1944-jan")
        ctx.pos["sa"] = {"germany": held}
        problems: list[Problem] = []
        production.check(ctx, {"production": {"buy": {"sa": {"germany": 1}}}}, problems)
        assert [p.rule for p in problems] == ["7.11"]


def test_a_friends_resource_area_is_no_conquest() -> None:
    """4.11, 4.7a: the USSR's income lists the resource areas it conquered, garrisoned or not, and
    never an area of a friend held by the Allies (Belgium, Alexandria); its own garrison in a
    friend's area is counted as before."""
    ctx = _ctx({}, False, side="allies")
    for a in ("belgium", "alexandria"):
        ctx.control[a] = "allies"
    whys = [str(line) for line in production.income(ctx, "ussr")]
    assert not any("Belgium" in w or "Alexandria" in w for w in whys), whys
    ctx.pos.setdefault("politics", {}).setdefault("war", []).append(["romania", "ussr"])
    ctx.control["ploesti"] = "allies"  # Ploesti, of Romania at war with the USSR, taken but not garrisoned
    whys = [str(line) for line in production.income(ctx, "ussr")]
    assert any("Ploesti" in w and "not garrisoned" in w for w in whys), whys
