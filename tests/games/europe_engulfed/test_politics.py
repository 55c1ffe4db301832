"""Politics (section 9) and conquest (10.0, NOT IN SOURCE: the provisional chart ``conquest``): the
parts clearer as unit tests than as catalog cases."""

from __future__ import annotations

import copy
from typing import Any

from pbem.errors import Problem
from pbem.games.europe_engulfed import allied_powers, politics, production
from pbem.games.europe_engulfed.context import Ctx, context
from pbem.games.europe_engulfed.data import Turn
from pbem.games.europe_engulfed.module import EuropeEngulfed


def _ctx(scenario: str = "1939", turn: str = "1939-sep", side: str = "axis",
         units: dict[str, dict[str, Any]] | None = None) -> Ctx:
    state = EuropeEngulfed().new_game(scenario, {})
    if units is not None:
        state["position"]["units"] = copy.deepcopy(units)
    state.update({"pbem": {"scenario": scenario}, "clock": {"turn": turn, "side": side, "phase": "move"},
                  "parties": {"axis": {}, "allies": {}, "referee": {}}})
    return context(state)


def test_conquest_needs_every_listed_area_held_by_a_side_at_war() -> None:
    """10.0 (provisional): Poland falls when the Axis, at war with it, holds Warsaw and Krakow."""
    ctx = _ctx(units={})
    assert not politics.conquered(ctx, "poland")
    ctx.control["warsaw"] = "axis"
    assert not politics.conquered(ctx, "poland")  # Krakow still Polish
    ctx.control["krakow"] = "axis"
    assert politics.conqueror(ctx, "poland") == "axis"
    assert politics.conquered(ctx, "poland")
    assert not politics.conquered(ctx, "usa")  # listed with no area: never conquered
    assert not politics.conquered(ctx, "sweden")  # neutral, nobody at war with it


def test_conquest_is_recorded_at_the_end_of_the_phase_and_starts_the_pact() -> None:
    """I.D: Germany conquers Poland -> the Nazi-Soviet Pact (9.25), with an event each."""
    ctx = _ctx(units={})
    ctx.control["warsaw"] = ctx.control["krakow"] = "axis"
    politics.end_phase(ctx, "1.23")
    assert ctx.pos["politics"]["conquered"] == {"poland": "axis"}
    assert ctx.pos["politics"]["pact"] is True
    kinds = [(e.kind, e.rule) for e in ctx.events]
    assert ("nation-conquered", "10.0") in kinds and ("pact", "9.25") in kinds
    assert [e for e in ctx.events if e.kind == "nation-conquered"][0].data["provisional"] is True
    ctx.control["warsaw"] = "allies"
    assert politics.conquered(ctx, "poland")  # a conquest stays
    n = len(ctx.events)
    politics.end_phase(ctx, "1.24")
    assert len(ctx.events) == n  # recorded once


def test_soviet_declaration_conditions() -> None:
    """9.23 (A-49): (a) not checked before 1940; (c) Germany at war with Turkey; free from 1942."""
    ctx = _ctx(units={"de.90": {"at": "warsaw", "block": "de-inf", "nation": "germany", "elite": False, "steps": 4}},
               turn="1939-nov", side="allies")
    assert politics.soviet_may_declare(ctx)[0] is False  # 1 German unit, but (a) counts from Jan/Feb 1940
    ctx.turn = Turn.parse("1940-jan")
    ok, why = politics.soviet_may_declare(ctx)
    assert ok and why.startswith("(a) 1 German ground unit")
    ctx.units.update({f"de.9{i}": {"at": "krakow", "block": "de-inf", "nation": "germany", "elite": False, "steps": 4}
                      for i in range(1, 6)})
    assert politics.soviet_may_declare(ctx)[0] is False  # 6 units, 5 or more
    ctx.pos["politics"]["war"].append(["germany", "turkey"])
    assert politics.soviet_may_declare(ctx) == (True, "(c) Germany has declared war on or conquered Turkey")
    ctx.pos["politics"]["war"].pop()
    ctx.turn = Turn.parse("1942-jan")
    assert politics.soviet_may_declare(ctx)[0] is True


def test_step_costs_of_section_9() -> None:
    """9.38 (A-44) the British +1; 9.24d the Soviet cadre at the normal cost at war until 1943; 9.24g
    the Soviet +1 from 1945 after Emergency Conscription."""
    ctx = _ctx(scenario="1941-barbarossa", turn="1941-may", units={})
    assert production.step_cost(ctx, "gb-inf") == 2 and production.step_cost(ctx, "gb-inf", cadre=True) == 3
    assert production.step_cost(ctx, "su-inf", cadre=True) == 2  # at peace: the cadre doubled (4.43b)
    ctx.pos["politics"]["war"].append(["germany", "ussr"])
    assert production.step_cost(ctx, "su-inf", cadre=True) == 1  # 9.24d
    ctx.turn = Turn.parse("1943-jan")
    assert production.step_cost(ctx, "su-inf", cadre=True) == 2
    ctx.turn = Turn.parse("1945-jan")
    assert production.step_cost(ctx, "su-inf") == 1
    ctx.pos["politics"]["conscription"] = "1942-mar"
    assert production.step_cost(ctx, "su-inf") == 2  # 9.24g
    assert production.step_cost(ctx, "gb-inf") == 1  # 9.38: no +1 from Jan/Feb 1944


def test_usa_box_invasions() -> None:
    """9.37: from the U.S.A. box only Vichy Morocco or Axis-held British sites are invaded."""
    ctx = _ctx(scenario="1941-barbarossa", turn="1942-may", side="allies", units={})
    assert allied_powers.usa_box(ctx, "usa", "morocco", "invade[0]", invasion=True) == []
    (p,) = allied_powers.usa_box(ctx, "usa", "normandy", "invade[0]", invasion=True)
    assert p.rule == "9.37"
    assert allied_powers.usa_box(ctx, "london", "normandy", "invade[0]", invasion=True) == []


def test_who_holds_an_allied_area() -> None:
    """9.28: Soviet home areas and, under the Pact, the Pact areas are Soviet; Allied units decide."""
    ctx = _ctx(scenario="1941-barbarossa", units={"gb.90": {"at": "lvov", "block": "gb-inf", "nation": "britain",
                                                             "elite": False, "steps": 4}})
    ctx.pos["gs"] = {}
    assert allied_powers.holder(ctx, "moscow") == "ussr"
    assert allied_powers.holder(ctx, "lvov") == "west"  # a British unit there
    assert allied_powers.holder(ctx, "lithuania") == "ussr"  # a Pact area
    assert allied_powers.holder(ctx, "iraq") == "west"
    assert allied_powers.holder(ctx, "warsaw") == ""  # Axis-controlled
    ctx.pos["gs"] = {"lvov": {"ussr": 1}}
    assert allied_powers.holder(ctx, "lvov") == ""  # both halves of the Allies there


def test_hidden_production_with_conscripts_and_free_elite_units() -> None:
    """9.24e-f with fog of war: the conscript steps announced and the free elite units are worth
    WERPs the hidden items' costs add up to beyond those announced (fog.py's claim)."""
    state = EuropeEngulfed().new_game("1941-barbarossa", {})
    state["position"]["units"] = {"su.01": {"nation": "ussr", "elite": False, "at": "moscow", "item": "su.01"},
                                  "su-e.01": {"nation": "ussr", "elite": True, "at": "gorky", "item": "su-e.01"}}
    state["position"]["politics"].update(war=[["britain", "germany"], ["germany", "ussr"]], pact=False,
                                         conscription="1942-jan", free_elite="1942-jan", soviet_war="1941-may/axis")
    state.update({"pbem": {"scenario": "1941-barbarossa"}, "clock": {"turn": "1942-jan", "side": "allies", "phase": "move"},
                  "parties": {"axis": {}, "allies": {}}})
    prod = {"replace": [{"unit": "su.01"}], "build": [{"nation": "ussr", "area": "gorky", "id": "su-e.01", "free": True}],
            "conscripts": {"ussr": 2}, "hidden_werps": {"ussr": 1}}
    problems: list[Problem] = []
    production.check(context(state), {"production": prod}, problems)
    assert problems == []
    ctx = context(state)
    assert allied_powers.free_werps(ctx, prod, "ussr") == 2 + (2 + 3 * 2)  # 2 conscript steps, an elite cadre and 3 steps
    too_many = {**prod, "conscripts": {"ussr": 21}}
    production.check(context(state), {"production": too_many}, problems)
    assert [(p.where, p.rule) for p in problems] == [("production.conscripts.ussr", "9.24f")]
