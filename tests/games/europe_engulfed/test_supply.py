"""Supply (3.x) in Europe Engulfed: the allocation of the sea capacity (3.31, A-70), the traces
other rules ask for, and the shared supply lines that end in a place they do not cross."""

from __future__ import annotations

from typing import Any

from pbem.games.europe_engulfed import supply
from pbem.games.europe_engulfed.context import Ctx, context
from pbem.games.europe_engulfed.module import EuropeEngulfed
from pbem.mechanics.supply import supplied


def _ctx(units: dict[str, dict[str, Any]], control: dict[str, str] | None = None,
         fleets: dict[str, dict[str, int]] | None = None, side: str = "allies") -> Ctx:
    st = EuropeEngulfed().new_game("1941-barbarossa", {})
    st["pbem"] = {"scenario": "1941-barbarossa"}
    st["parties"] = {"axis": {}, "allies": {}, "referee": {}}
    st["position"]["units"] = units
    st["position"]["gs"] = {}
    st["position"]["control"].update(control or {})
    st["position"]["fleets"] = fleets if fleets is not None else {}
    return context(st, side=side)


def _r(zones: tuple[str, ...], **demand: int) -> supply.Route:
    return supply.Route(zones, tuple(sorted(demand.items())))


def test_allocate_supplies_the_most_units_then_by_priority() -> None:
    cheap, cape = _r(("mediterranean", "atlantic"), mediterranean=1, atlantic=1), _r(("red-sea", "atlantic"), atlantic=4)
    only_med = _r(("mediterranean", "atlantic"), mediterranean=1, atlantic=1)
    items = [("egypt1", [cheap, cape]), ("egypt2", [cheap, cape]), ("malta", [only_med])]
    # Mediterranean 1, Atlantic 9: the Malta unit needs the one Mediterranean point, so both Egypt
    # units go around the Cape; taking the cheap route for egypt1 would supply only two.
    got = supply.allocate(items, {"mediterranean": 1, "atlantic": 9})
    assert sorted(got) == ["egypt1", "egypt2", "malta"]
    assert got["malta"] == only_med
    assert got["egypt1"] == got["egypt2"] == cape
    assert sorted(supply.allocate(items, {"mediterranean": 1, "atlantic": 6})) == ["egypt1", "egypt2"]


def test_allocate_ties_go_to_the_first_items() -> None:
    r = _r(("atlantic",), atlantic=1)
    got = supply.allocate([("b", [r]), ("a", [r]), ("c", [r])], {"atlantic": 2})
    assert sorted(got) == ["a", "b"]


def test_allocate_nothing_fits() -> None:
    r = _r(("atlantic",), atlantic=4)
    assert supply.allocate([("a", [r])], {"atlantic": 3}) == {}


def test_priority_reverses_the_losses_list() -> None:
    ctx = _ctx({})
    ctx.standing = {"axis": {"losses": ["de.02", "de.03"]}}
    assert supply.priority(ctx, "axis", ["de.01", "de.02", "de.03", "de.04"]) == ["de.01", "de.04", "de.03", "de.02"]


def test_traces_overland_and_by_sea() -> None:
    ctx = _ctx({}, control={"latvia": "axis", "leningrad": "axis", "pskov": "axis"})
    assert supply.traces(ctx, "smolensk", "ussr")
    assert not supply.traces(ctx, "estonia", "ussr")  # cut off, no Soviet FP in the Baltic
    ctx2 = _ctx({}, control={"latvia": "axis", "leningrad": "axis", "pskov": "axis"}, fleets={"baltic": {"ussr": 1}})
    assert supply.traces(ctx2, "estonia", "ussr")


def test_mediterranean_capacity_reductions() -> None:
    ctx = _ctx({}, control={"crete": "axis", "sicily": "axis", "malta": "allies"},
               fleets={"mediterranean": {"britain": 2, "italy": 2}})
    assert supply.Net(ctx, "allies").capacity("western")["mediterranean"] == 4  # 4 - 1 (Sicily) - 1 (Crete)
    assert supply.Net(ctx, "axis").capacity("axis")["mediterranean"] == 4  # 3 - 1 (Malta)
    ctx.control["malta"] = "axis"
    assert supply.Net(ctx, "axis").capacity("axis")["mediterranean"] == 6


def test_supplied_ends_are_reached_but_not_crossed() -> None:
    ctx = _ctx({}, control={"bessarabia": "axis", "brest-litovsk": "axis", "pripet-marshes": "axis"})
    places = ctx.sc.map.places
    closed = {p for p, a in ctx.sc.map.areas.items() if not a.ground or ctx.controller(p) != "allies"}
    reach = supplied(places, ["moscow"], closed, supply._border_open, ends={"kiev"})
    assert "kiev" in reach and "lvov" not in reach  # Lvov's only Allied neighbour is Kiev
    assert "lvov" in supplied(places, ["moscow"], closed, supply._border_open)
