"""Proud Monster supply (9.3-9.20, 17.10) where a catalog case does not fit: the contract of the
functions other rules call (supply_state, lake_supplied), a decision awaited after a GAST roll,
the rendering of the new events, `pbem show`, templates, views and pictures."""

from __future__ import annotations

import copy
import xml.etree.ElementTree as ET
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.engine.model import Event, Submission
from pbem.games.proud_monster import render, supply
from pbem.games.proud_monster.module import ProudMonster
from pbem.games.proud_monster.orders import Declarations
from pbem.games.proud_monster.picture import position_svg
from pbem.games.proud_monster.rules.context import Ctx
from tests.games.proud_monster.pmcase import CATALOG, build_state, run_case

SUPPLY = "supply-scenario.toml"
M = ProudMonster()
NS = "{http://www.w3.org/2000/svg}"


def state_of(units: dict[str, str], side: str = "german", supply_on: bool = True, **position: Any) -> dict[str, Any]:
    case = {"case": {"id": "PM-000", "scenario": SUPPLY}, "options": {"supply": supply_on},
            "position": {"turn": 3, "side": side, "units": units, **position}}
    return build_state(case)


def ctx_of(state: dict[str, Any]) -> Ctx:
    return M._ctx(state, None)


# --------------------------------------------------------------------------- the functions other rules call

LENINGRAD_LAKE = {"Inf1": "4101N", "Inf2": "4202N", "Inf3": "4301N"}  # the overland ways out of Leningrad
LENINGRAD_CUT = {**LENINGRAD_LAKE, "Mtn1": "4401N", "Cav1": "4500N"}  # and the ways across Lake Ladoga


@pytest.mark.parametrize(("germans", "leningrad", "lake"), [
    ({}, "supplied", False),
    (LENINGRAD_LAKE, "lake", True),
    (LENINGRAD_CUT, "oos", False),
])
def test_lake_supplied_and_the_soviet_hex_state_of_leningrad(germans: dict[str, str], leningrad: str, lake: bool) -> None:
    """9.16: lake supply when every Soviet line crosses a lake; OOS when there is none (the contract
    of lake_supplied: False then, soviet_hex_state says "oos"). Whether a Soviet unit is there does not matter."""
    for soviet in ({}, {"R1": "4201N"}):
        ctx = ctx_of(state_of({**germans, **soviet}))
        assert supply.soviet_hex_state(ctx, supply.LENINGRAD) == leningrad
        assert supply.lake_supplied(ctx, supply.LENINGRAD) is lake
        if soviet:
            assert supply.supply_state(ctx, "R1") == leningrad


def test_oranienbaum_answers_as_leningrad_while_leningrad_is_in_supply() -> None:
    """9.13: cut off itself (4000N, 4001N, 4101N), Oranienbaum shares Leningrad's state; with
    Leningrad cut it has its own (here none: OOS)."""
    own_cut = {"Inf4": "4000N", "Mtn1": "4001N", "Inf1": "4101N"}
    ctx = ctx_of(state_of({**own_cut, "R2": "4100N"}))
    assert supply.supply_state(ctx, "R2") == "supplied" and not supply.lake_supplied(ctx, supply.ORANIENBAUM)
    ctx = ctx_of(state_of({**own_cut, **LENINGRAD_LAKE, "R2": "4100N"}))
    assert supply.supply_state(ctx, "R2") == "lake" and supply.lake_supplied(ctx, supply.ORANIENBAUM)
    ctx = ctx_of(state_of({**own_cut, **LENINGRAD_CUT, "Rgt1": "4001N", "R2": "4100N"}))
    assert supply.supply_state(ctx, "R2") == "oos"
    ctx = ctx_of(state_of({**LENINGRAD_CUT, "Inf4": "4000N", "R2": "4100N"}))  # 4001N free: its own line
    assert supply.supply_state(ctx, "R2") == "supplied"


def test_supply_states_of_ports_boxes_air_and_the_gas_line() -> None:
    """supply_state: a port and the Southern Ports Holding Box are in supply (9.17); AS east of the
    GAS line (9.3), also under concentration (Ambiguity 23); air under a marker only for a unit that
    cannot trace a line (9.18); everything "supplied" with the option off."""
    units = {"R1": "2512S", "R2": "2611S", "R3": "ports-box", "Inf1": "4203N", "Inf2": "4003N",
             "Pz1": "4303N", "R4": "4302N", "R5": "4203N", "R6": "4204N", "R7": "4304N", "R8": "4403N", "R10": "4404N"}
    units["Inf1"] = "4103N"
    ctx = ctx_of(state_of(units, air_supply=["4303N", "4103N"]))
    states = {u: supply.supply_state(ctx, u) for u in ("R1", "R2", "R3", "Inf1", "Inf2", "Pz1")}
    assert states == {"R1": "supplied", "R2": "oos", "R3": "supplied", "Inf1": "attenuated", "Inf2": "supplied",
                      "Pz1": "air"}
    assert supply.gast_liable(ctx, "Pz1", "air") and supply.gast_liable(ctx, "Inf1", "attenuated")
    ctx = ctx_of(state_of(units, concentration=["Inf1"], air_supply=["4303N"]))
    assert supply.supply_state(ctx, "Inf1") == "attenuated" and not supply.gast_liable(ctx, "Inf1", "attenuated")
    assert supply.supply_state(ctx, "Pz1") == "oos"  # Ambiguity 25: no air supply under concentration
    ctx = ctx_of(state_of(units, pause={"state": "completed", "declared": 2, "first": "GT3/1", "last": "GT4/1"}))
    assert supply.supply_state(ctx, "Inf1") == "supplied"  # Ambiguity 27
    ctx = ctx_of(state_of(units, supply_on=False))
    assert {supply.supply_state(ctx, u) for u in units} == {"supplied"}
    assert not supply.lake_supplied(ctx, supply.LENINGRAD) and supply.soviet_hex_state(ctx, "2611S") == "supplied"


def test_a_decision_after_the_gast_keeps_its_die() -> None:
    """A German loss decision awaited after an attack that rolled the GAST: the reply resumes the
    attack with the same GAST and CRT dice (both labelled `attack 1`, kept in the pending state)."""
    case = {"case": {"id": "PM-000", "scenario": SUPPLY}, "options": {"supply": True},
            "position": {"turn": 3, "side": "german", "units": {"Inf1": "4203N", "Inf2": "4204N", "R1": "4303N"}},
            "standing": {"soviet": {"loss_policy": "fewest-steps-first"}},
            "orders": {"attack": [{"target": "4303N", "units": ["Inf1", "Inf2"]}]},
            "dice": {"faces": [2, 3]},  # GAST 2: 1L, 2:1 -> 1:1; CRT 3 at 1:1: 1/1, the German chooses
            "reply": [{"losses": ["Inf2"]}]}
    got = run_case(case)
    assert not got["problems"]
    attacks = [e for e in got["events"] if e.kind == "attack"]
    assert len(attacks) == 2 and [a.data["gast"]["die"] for a in attacks] == [2, 2]
    assert attacks[-1].data["final"] == "1:1" and attacks[-1].data["result"] == "1/1"
    assert got["rolled"] == 2
    assert got["state"]["position"]["units"]["Inf2"]["steps"] == 1


# --------------------------------------------------------------------------- reports, show, templates, views


def lines(kind: str, rule: str = "9.19", **data: Any) -> str:
    return "\n".join(render.event_lines(Event(kind, rule, data)))


def test_every_new_event_renders_with_its_rule() -> None:
    seqs = ["GT3/1", "GT3/2", "GT4/1"]
    assert "declares the von Paulus Pause at the end of GT2 (9.19)" in lines(
        "pause", state="declared", declared=2, sequences=seqs, step="GT2/2/german")
    assert "in force for GT3/1, GT3/2, GT4/1" in lines("pause", state="in-force", declared=2, sequences=seqs, step="GT2/2")
    assert "ignores the GAS line" in lines("pause", state="completed", declared=2, sequences=seqs, step="GT4/1")
    assert "no benefit" in lines("pause", state="cancelled", declared=2, sequences=seqs, step="GT3/1/german", was="in-force")
    conc = {"units": ["Inf1"], "before": [], "air_removed": ["4303N"], "step": "GT3/1/german"}
    text = lines("concentration", "9.20", state="declared", **conc)
    assert "(9.20)" in text and "Ambiguity 25" in text and "marker in 4303N is taken off" in text
    assert "stays in force" in lines("concentration", "9.20", state="in-force", **{**conc, "air_removed": []})
    assert "cancelled (9.20)" in lines("concentration", "9.20", state="cancelled", **{**conc, "units": []})
    assert "4503N (Pz1, Inf1) (9.18)" in lines("air-supply", "9.18", hexes=["4503N"], units={"4503N": ["Pz1", "Inf1"]},
                                               before=[], step="GT3/1/german")
    assert "taken off the map (9.18)" in lines("air-supply", "9.18", hexes=[], units={}, before=["4503N"], step="x")
    assert "goes with its stack to 4602N (move 1; 9.18)" in lines(
        "air-supply-moved", "9.18", origin="4503N", to="4602N", how="move 1", merged=False, units=["Pz1"])
    assert "no German-side unit is left" in lines("air-supply-lost", "9.18", hexes=["4503N"], how="attack 2")
    assert "Pz1 MF 8 limited to 6 (mechanized)" in lines("supply", "9.18", when="move-air", index=0, units=["Pz1"],
                                                          mf={"Pz1": [8, 6]})
    assert "Inf1 keep their full combat factors (9.18)" in lines(
        "supply", "9.8", when="prepared assault", index=0, attackers=[], defenders=[], air=["Inf1"])


def test_the_gast_line_of_an_attack_names_its_die_and_the_provisional_table() -> None:
    got = run_case({"case": {"id": "PM-000", "scenario": SUPPLY}, "options": {"supply": True},
                    "position": {"turn": 3, "units": {"Inf1": "4203N", "R1": "4303N"}},
                    "standing": {"soviet": {"loss_policy": "fewest-steps-first"}},
                    "orders": {"attack": [{"target": "4303N", "units": ["Inf1"]}]}, "dice": {"faces": [1, 6]}})
    attack = next(e for e in got["events"] if e.kind == "attack")
    text = "\n".join(render.event_lines(attack))
    assert "GAST (17.10, provisional table)" in text
    assert "die `9.6|GT3/1/german|attack 1|4303N|GAST` = 1: 2L to the German odds" in text
    assert "Shift 2L" not in text  # the GAST line explains its shift
    assert text.index("GAST") < text.index("Final odds 1:3") < text.index("14.31|GT3/1/german")


def test_show_and_template_list_the_supply_markers_and_the_measures() -> None:
    units = {"Inf1": "4203N", "Pz1": "4503N", "R1": "4201N", "R2": "4401N", "R3": "4402N", "R4": "4403N",
             "R5": "4404N", "R6": "4405N", "Inf2": "4101N", "Inf3": "4202N", "Inf4": "4301N"}
    st = state_of(units, concentration=["Inf1"])
    ctx = ctx_of(st)
    supply.markers(ctx)
    st["position"] = ctx.position
    text = M.render_position(st, None)
    assert "Inf1 4-4-5 [2/2] AS CONC" in text and "Pz1 8-6-8 [4/4] OOS" in text and "R1 2-3-5 LAKE" in text
    assert "Supply concentration (9.20): 1 of 18 markers: Inf1" in text
    st = state_of(units, air_supply=["4503N"],
                  pause={"state": "cancelled", "declared": 2, "first": "GT3/1", "last": "GT4/1", "cancelled": "GT3/1/german"})
    ctx = ctx_of(st)
    supply.markers(ctx)
    st["position"] = ctx.position
    assert st["position"]["air"] == ["Pz1"] and st["position"]["lake"] == ["R1"] and "Inf1" in st["position"]["attenuated"]
    text = M.render_position(st, None)
    assert "Inf1 4-4-5 [2/2] AS" in text and "Pz1 8-6-8 [4/4] AIR" in text
    assert "von Paulus Pause (9.19): cancelled (GT3/1/german)" in text
    assert "Air supply markers (9.18): 4503N" in text
    st["parties"] = {"german": {"index": 0}, "soviet": {"index": 1}}
    st["pbem"]["of"] = "sha256:" + "0" * 64
    tpl = M.template(st, "german", [])
    assert "# Air supply markers (9.18): 4503N." in tpl
    for key in ("# concentration = [", "# air_supply = [", "# pause = true", "# air_supply = true"):
        assert key in tpl


def test_a_fog_view_shows_no_supply_marker_of_a_unit_it_does_not_see() -> None:
    st = state_of({"Inf1": "4203N", "Inf2": "4203N", "R1": "4303N"}, concentration=["Inf1", "Inf2"])
    st["options"]["fog_of_war"] = True
    ctx = ctx_of(st)
    supply.markers(ctx)
    st["position"] = ctx.position
    view = M.view_position(st, "soviet")
    assert view["attenuated"] == ["Inf1"] and view["concentration"] == ["Inf1"]  # Inf2 is under Inf1
    assert M.view_position(st, "german")["attenuated"] == ["Inf1", "Inf2"]


def test_pictures_draw_the_gas_line_air_supply_and_supply_markers() -> None:
    st = state_of({"Inf1": "4203N", "Pz1": "4503N", "R1": "4401N", "R2": "4402N", "R3": "4403N", "R4": "4404N",
                   "R5": "4405N", "R6": "4302N"}, air_supply=["4503N"],
                  pause={"state": "in-force", "declared": 2, "first": "GT3/1", "last": "GT4/1"})
    ctx = ctx_of(st)
    supply.markers(ctx)
    st["position"] = ctx.position
    root = ET.fromstring(position_svg(M.scenario(st), st))
    gas = [e for e in root.iter(f"{NS}line") if e.get("class") == "hexside gas"]
    assert len(gas) == 11
    air = [e for e in root.iter(f"{NS}g") if e.get("class") == "air-supply"]
    assert [e.get("data-hex") for e in air] == ["4503N"]
    unit = {e.get("id"): {x.get("class") for x in e.iter()} for e in root.iter(f"{NS}g") if e.get("id", "").startswith("unit-")}
    assert "as" in unit["unit-Inf1"] and "air" in unit["unit-Pz1"] and "concentration" not in unit["unit-Inf1"]
    assert "von Paulus Pause GT3/1 to GT4/1" in (root.find(f"{NS}title").text or "")
    st = state_of({"Inf1": "4203N", "Inf2": "4003N"}, concentration=["Inf1"])
    root = ET.fromstring(position_svg(M.scenario(st), st))
    unit = {e.get("id"): {x.get("class") for x in e.iter()} for e in root.iter(f"{NS}g") if e.get("id", "").startswith("unit-")}
    assert "concentration" in unit["unit-Inf1"] and "concentration" not in unit["unit-Inf2"]
    basic = state_of({"Inf1": "4203N"}, supply_on=False)
    assert 'id="supply"' not in position_svg(M.scenario(basic), basic)


def test_module_check_lists_the_gast_as_provisional() -> None:
    rows = {r["item"]: r for r in M.data_report()}
    assert rows["GAST 17.10"]["status"] == "provisional" and "not in the rulebook text" in rows["GAST 17.10"]["note"]


def test_a_soviet_turn_keeps_the_measures_and_the_next_german_turn_reconfirms_concentration() -> None:
    """9.20: a concentration without a `concentration` key stays in force (reconfirmed); the air
    supply markers stay where they are without an `air_supply` key (9.18)."""
    st = state_of({"Inf1": "4203N", "R1": "4404N"}, concentration=["Inf1"])
    sub = Submission("orders", "german", {}, "sha256:x")
    assert M.check(st, sub) == []
    ctx = ctx_of(copy.deepcopy(st))
    problems: list[Any] = []
    supply.declarations(ctx, Declarations(), problems)
    assert not problems and ctx.position["concentration"] == ["Inf1"]
    assert [e.data["state"] for e in ctx.events if e.kind == "concentration"] == ["in-force"]


def test_the_supply_map_is_a_catalog_file() -> None:
    assert (CATALOG / SUPPLY).is_file() and (CATALOG / "supply-map.toml").is_file()


# --- 14.32, Ambiguity 45: the backward search gives what a forward search per hex gives ---------

def forward_distance(ctx: Ctx, units: list[str], start: str, sources: list[str], soviet: set[str]) -> int | None:
    """The cheapest legal path in MP from ``start`` to any source, searched forward (paths.cheapest)."""
    from pbem.games.proud_monster.rules.movement import hex_cost, hexside_cost
    from pbem.mechanics.paths import Neighbours, cheapest

    src = set(sources)
    if start in src:
        return 0

    def nbrs(h: str) -> list[str]:
        return [*ctx.sc.map.neighbours(h), *(["*"] if h in src else [])]

    def step(a: str, b: str) -> int | None:
        if b == "*":
            return 0
        if b in soviet:
            return None
        worst = 0
        for u in units:
            hc, sc_ = hex_cost(ctx, ctx.spec(u), b, a)[0], hexside_cost(ctx, ctx.spec(u), a, b)[0]
            if hc == "no" or sc_ == "no":
                return None
            worst = max(worst, ctx.mf(u) if sc_ == "all" else int(hc) + int(sc_))
        return worst

    found = cheapest(Neighbours(nbrs), start, "*", step)
    return None if found is None else found[0]


def test_retreat_distances_match_a_forward_search_per_hex() -> None:
    from pathlib import Path

    from pbem.exchange.files import read_toml
    from pbem.games.proud_monster.rules.combat.retreat import german_sources, supply_distances

    golden = Path(__file__).parent / "golden" / "campaign"
    state = read_toml(golden / "0040.state.toml")  # GT7, the MR step: both armies deep in the map
    ctx = M._ctx(state, None)
    soviet = {ctx.at(u) for u in ctx.units if ctx.on_map(u) and ctx.spec(u).side == "soviet"}
    stacks = sorted(ctx.stacks("german").items())[::5][:8]
    assert len(stacks) == 8
    compared = 0
    for hex_id, units in stacks:
        sources = german_sources(ctx, soviet, units)
        starts = [hex_id, *sorted(h for h in ctx.sc.map.neighbours(hex_id) if h in ctx.sc.map.hexes)]
        got = supply_distances(ctx, units, starts, sources, soviet)
        for s in starts:
            want = forward_distance(ctx, units, s, sources, soviet)
            if want is None:
                assert got[s][0] == 1, (hex_id, s, got[s])
            else:
                assert got[s] == (0, want), (hex_id, s, got[s], want)
                compared += 1
    assert compared > 30


# --------------------------------------------------------------------------- supply searches kept up to date

@settings(max_examples=40, deadline=None)
@given(st.data())
def test_a_supply_search_kept_up_to_date_is_the_whole_map_search_in_random_positions(data: st.DataObject) -> None:
    """supply._reached keeps one search per kind of line and brings it up to date from the hexes
    whose units changed (mechanics.supply.Reach); after any run of moves, eliminations and
    checkpoints gone back to, it gives what a whole-map search of the position gives."""
    from pbem.games.proud_monster.rules.context import checkpoint, rollback

    ctx = ctx_of(state_of({"Inf1": "4101N", "Inf2": "4202N", "R1": "4201N"}))
    hexes = sorted(ctx.sc.map.hexes)
    units = ["Inf1", "Inf2", "Inf3", "Mtn1", "Cav1", "R1"]
    kinds = ("german", "soviet")
    for u in units:
        ctx.units[u] = {"at": data.draw(st.sampled_from(hexes)), "steps": 1}
    saved = []
    for _ in range(data.draw(st.integers(1, 12))):
        op = data.draw(st.sampled_from(["move", "move", "dead", "checkpoint", "rollback"]))
        u = data.draw(st.sampled_from(units))
        if op == "move":
            ctx.units[u]["at"] = data.draw(st.sampled_from(hexes))
        elif op == "dead":
            ctx.units[u].update(at="dead", steps=0)
        elif op == "checkpoint":
            saved.append(checkpoint(ctx))
        elif saved:
            rollback(ctx, saved.pop())
        for kind in kinds:
            for overland in (False, True):
                kept = supply._reached(ctx, kind, overland)
                assert isinstance(kept, supply.Reach)
                assert kept.places() == supply._searched(ctx, kind, overland)
