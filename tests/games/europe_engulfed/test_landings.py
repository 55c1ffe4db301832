"""Europe Engulfed's landings (7.2, 7.3, 5.5, 6.85, 6.86): the helpers other modules call
(ports, fortress entry and limits), hidden blocks in invasions and drops (claims, fog of war), and
checking that walks the orders in turn on the working context."""

from __future__ import annotations

from typing import Any

from pbem.errors import Problem
from pbem.games.europe_engulfed import landings
from pbem.games.europe_engulfed.context import Ctx, context
from tests.games.europe_engulfed.states import state_with


def ctx_with(units: dict[str, dict[str, Any]], side: str = "allies", secret: bool = False, **pos: Any) -> Ctx:
    return context(state_with(units, side, secret, **pos))


def test_port_on_needs_a_friendly_port_on_the_sea_or_a_beachhead() -> None:
    c = ctx_with({}, beachheads={"normandy": "allies"})
    assert landings.port_on(c, "london", "atlantic", "allies")
    assert not landings.port_on(c, "london", "mediterranean", "allies")
    assert not landings.port_on(c, "brittany", "atlantic", "allies")  # enemy port
    assert landings.port_on(c, "normandy", "atlantic", "allies")  # 7.22: a beachhead is a friendly port
    assert landings.port_on(c, "normandy", "atlantic", "axis")  # still the Axis's port: it controls the area
    # Glossary "Fortress", A-01: the Crimea is a port while Sevastopol is friendly and not contested
    c = ctx_with({}, contested={"sevastopol": "old"})
    assert not landings.port_on(c, "crimea", "black-sea", "allies")


def test_may_enter_fortress_names_the_enemy_in_the_surrounding_area() -> None:
    c = ctx_with({"su.90": {"nation": "ussr", "at": "crimea", "block": "su-inf", "steps": 4}})
    reason = landings.may_enter_fortress(c, "axis", "sevastopol")
    assert "su.90" in reason and "(6.85)" in reason
    assert landings.may_enter_fortress(c, "allies", "sevastopol") == ""
    assert landings.may_enter_fortress(c, "axis", "malta") == ""  # no surrounding area
    assert landings.may_enter_fortress(c, "axis", "crimea") == ""  # not a fortress


def test_fortress_limits_soviet_two_others_one_attack_twice() -> None:
    c = ctx_with({"su.90": {"nation": "ussr", "at": "minsk", "block": "su-inf", "steps": 4},
                  "gb.90": {"nation": "britain", "at": "london", "block": "gb-inf", "steps": 4}})
    assert landings.fortress_limit(c, ["su.90"]) == 2
    assert landings.fortress_limit(c, ["gb.90"]) == 1
    assert landings.attack_limit(c, "allies", "sevastopol", ["su.90"]) == 4  # twice the attacker's own
    assert landings.attack_limit(c, "allies", "tobruk", ["gb.90"]) == 2


def test_hidden_invader_records_a_claim_of_its_type() -> None:
    """Fog of war: a hidden block that invades claims to be infantry-class (7.2); its owner's
    opening is checked against it."""
    units = {"gb.90": {"nation": "britain", "elite": False, "at": "london", "item": "gb.90"},
             "de.90": {"nation": "germany", "at": "normandy", "block": "de-inf", "steps": 4}}
    c = ctx_with(units, secret=True, sa={"britain": 1}, fleets={"atlantic": {"britain": 2}})
    problems: list[Problem] = []
    landings.check(c, {"invade": [{"units": ["gb.90"], "sea": "atlantic", "area": "normandy"}]}, problems)
    assert problems == []
    claims = [cl for owner, item, cl in c.claims if item == "gb.90" and cl["rule"] == "7.2"]
    assert claims and "armor" not in claims[0]["types"]
    assert [cl["rule"] for _, item, cl in c.claims if item == "gb.90"] == ["9.33", "7.2"]  # 9.33: no British militia abroad


def test_hidden_airborne_claims_type_and_full_strength() -> None:
    units = {"de.90": {"nation": "germany", "elite": False, "at": "warsaw", "item": "de.90"}}
    c = ctx_with(units, side="axis", secret=True, sa={"germany": 1})
    problems: list[Problem] = []
    landings.check(c, {"drop": [{"unit": "de.90", "area": "minsk"}]}, problems)
    assert problems == []
    claims = [(cl.get("types"), cl.get("steps")) for _, item, cl in c.claims if item == "de.90"]
    assert (["airborne"], None) in claims and (None, "full") in claims


def test_checking_walks_the_orders_in_turn_sa_spent_once() -> None:
    """The second invasion sees the SA the first spent (the working context)."""
    units = {"gb.90": {"nation": "britain", "at": "london", "block": "gb-inf", "steps": 4},
             "gb.91": {"nation": "britain", "at": "scotland", "block": "gb-inf", "steps": 4}}
    c = ctx_with(units, sa={"britain": 1}, fleets={"atlantic": {"britain": 5}})
    problems: list[Problem] = []
    landings.check(c, {"invade": [{"units": ["gb.90"], "sea": "atlantic", "area": "normandy"},
                                  {"units": ["gb.91"], "sea": "atlantic", "area": "oslo"}]}, problems)
    assert [(p.where, p.rule) for p in problems] == [("invade[1].nation", "7.2")]


def test_two_drops_into_one_area_cost_one_sa() -> None:
    units = {"de.90": {"nation": "germany", "at": "warsaw", "block": "de-abn", "steps": 3},
             "de.91": {"nation": "germany", "at": "east-prussia", "block": "de-abn", "steps": 3}}
    c = ctx_with(units, side="axis", sa={"germany": 1})
    landings.resolve(c, {"drop": [{"unit": "de.90", "area": "lithuania"}, {"unit": "de.91", "area": "lithuania"}]})
    assert c.sa("germany") == 0
    assert [e.data["sa"] for e in c.events if e.kind == "drop"] == [1, 0]
    assert c.pos["free"]["dropped"] == {"de.90": "1941-may", "de.91": "1941-may"}


def test_a_drop_on_lone_enemy_gs_eliminates_them_and_keeps_control() -> None:
    """6.64: enemy GS alone are eliminated; the area is not contested, so its control waits for
    the first combat phase (Glossary "Control")."""
    units = {"de.90": {"nation": "germany", "at": "warsaw", "block": "de-abn", "steps": 3}}
    c = ctx_with(units, side="axis", sa={"germany": 1})
    c.pos["gs"] = {"lithuania": {"ussr": 1}}
    landings.resolve(c, {"drop": [{"unit": "de.90", "area": "lithuania"}]})
    assert c.gs_in("lithuania") == {}
    assert c.controller("lithuania") == "allies" and not c.contested("lithuania")
    assert [e.kind for e in c.events] == ["sa-spent", "drop", "gs-eliminated", "landed-control"]
    landings.after_combat(c)
    assert c.controller("lithuania") == "axis"
    assert "lithuania" not in c.pos.get("beachheads", {})  # a drop leaves no beachhead (7.22 is the invader's)
