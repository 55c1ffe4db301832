"""Soviet naval movement and invasions (11.1-11.4) beyond the catalog cases: the map data checks,
the report lines, `pbem show`, the order template, the turn picture, the order schema and the
position record of a player turn's naval moves."""

from __future__ import annotations

import copy
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from pbem import FILE_FORMAT
from pbem.engine.model import Submission
from pbem.exchange.chain import verify
from pbem.exchange.game import document_problems
from pbem.games.proud_monster import render
from pbem.games.proud_monster.data import load_scenario, on_south_coast
from pbem.games.proud_monster.picture import turn_svg
from pbem.games.proud_monster.validation import validate_scenario
from pbem.mechanics.dice import ForcedDice
from tests.conftest import start_game
from tests.games.proud_monster.pmcase import CATALOG, MODULE, build_state, load_case, run_case, scenario_of
from tests.games.proud_monster.test_scenario_data import hexes, problems
from tests.paths import ROOT

NAVAL = str(CATALOG / "naval-scenario.toml")


def case(name: str) -> dict[str, Any]:
    return load_case(next(CATALOG.glob(f"{name}-*.toml")))


def report(events: list[Any]) -> str:
    return "\n".join(line for e in events for line in render.event_lines(e))


# --- map data (11.4) -------------------------------------------------------------------------------

def test_the_black_sea_catalog_scenario_fits_the_rules() -> None:
    sc = load_scenario(NAVAL)
    assert validate_scenario(sc) == []
    assert sorted(h for h, x in sc.map.hexes.items() if x.port) == ["2512S", "2919S", "4022S"]  # 9.17, 11.2
    beaches = {h: x.beach for h, x in sc.map.hexes.items() if x.beach}
    assert beaches == {"2817S": "2717S", "2819S": "2719S", "3019S": "3020S", "3119S": "3120S", "3219S": "3220S",
                       "3319S": "3320S"}


def test_the_crimean_south_coast_is_2817S_to_3620S_in_hex_id_order() -> None:
    assert on_south_coast("2817S") and on_south_coast("3620S") and on_south_coast("3119S") and on_south_coast("2901S")
    assert not on_south_coast("2816S") and not on_south_coast("3621S") and not on_south_coast("3119N")


BEACH = '"2717S" = { t = "sea" }'
BROKEN_BEACHES = {
    "beach outside 2817S-3620S": [hexes(BEACH, '"2716S" = { t = "clear", beach = "2717S" }')],
    "beach on a sea hex": [hexes(BEACH, '"2817S" = { t = "sea", beach = "2717S" }')],
    "beach naming a hex off the map": [hexes('"2817S" = { t = "clear", beach = "2717S" }')],
    "beach naming a sea hex not adjacent": [hexes('"2719S" = { t = "sea" }', '"2817S" = { t = "clear", beach = "2719S" }')],
    "beach naming a land hex": [hexes('"2818S" = { t = "clear" }', '"2817S" = { t = "clear", beach = "2818S" }')],
}


@pytest.mark.parametrize("name", list(BROKEN_BEACHES))
def test_a_wrong_beach_gives_exactly_its_problem(tmp_path: Path, name: str) -> None:
    found = problems(tmp_path, *BROKEN_BEACHES[name])
    assert len(found) == 1 and found[0][1] == "11.4" and found[0][0] in ("hex 2716S", "hex 2817S")


def test_a_beach_on_the_south_coast_naming_its_sea_hex_gives_no_problem(tmp_path: Path) -> None:
    assert problems(tmp_path, hexes(BEACH, '"2817S" = { t = "clear", beach = "2717S" }')) == []


# --- orders ----------------------------------------------------------------------------------------

def test_only_the_soviet_moves_by_sea() -> None:
    c = {"case": {"scenario": "naval-scenario.toml"}, "options": {"naval": True},
         "position": {"side": "german", "units": {"Ro1": "2412S", "R1": "2512S"}},
         "orders": {"sea": [{"units": ["Ro1"], "to": "2919S"}]}}
    got = run_case(c)
    assert [(p.where, p.rule, p.message) for p in got["problems"]] == [("sea", "11.1", "only Soviet units move by sea")]


def test_the_order_schema_takes_sea_entries_and_refuses_other_keys() -> None:
    head = {"format": FILE_FORMAT, "kind": "orders", "game": "g", "module": "proud-monster", "side": "soviet", "answers": "sha256:" + "0" * 64, "step": "x"}
    ok = {"pbem": head, "sea": [{"units": ["R1"], "to": "ports-box"}, {"units": ["R2"], "invade": "3119S"}]}
    assert document_problems(ok, "orders", "proud-monster", "o.toml") == []
    bad = {"pbem": head, "sea": [{"units": ["R1"], "path": ["2919S"]}]}
    assert document_problems(bad, "orders", "proud-monster", "o.toml")


def test_the_turn_record_lasts_the_player_turn_and_survives_an_awaited_reply() -> None:
    c = case("PM-460")
    state = build_state(c)
    sub = Submission("orders", "soviet", c["orders"], "sha256:case")
    t = MODULE.resolve(state, [sub], ForcedDice(in_order=[4, 1]))
    pos = t.state["position"]
    assert t.state["awaits"]["kind"] == "reply"
    assert pos["naval"]["invasion"] == {"target": "3119S", "sea": "3120S", "units": ["R1", "R2", "R3"], "index": 0}
    assert {pos["units"][u]["at"] for u in ("R1", "R2", "R3")} == {"3120S"}  # waiting at sea (12.14)
    assert "naval" not in run_case(c)["state"]["position"]  # dropped when the player turn ends
    assert "naval" not in run_case(case("PM-440"))["state"]["position"]


def test_the_invaders_are_supplied_only_by_the_override() -> None:
    """PM-456 without the naval record: the same units in the all-sea hex are out of supply (9.4)."""
    from pbem.games.proud_monster.supply import out_of_supply

    state = build_state({"case": {"scenario": "naval-scenario.toml"}, "options": {"supply": True},
                         "position": {"side": "soviet", "units": {"R1": "3120S", "Inf1": "3119S"}}})
    assert out_of_supply(MODULE._ctx(state, None), ["R1", "Inf1"]) == ["R1"]


def test_the_same_orders_give_the_same_bytes() -> None:
    a, b = run_case(case("PM-451")), run_case(case("PM-451"))
    assert a["state"] == b["state"] and report(a["events"]) == report(b["events"])


# --- reports, show, template, picture -------------------------------------------------------------

def test_reports_explain_every_naval_move_and_invasion_with_its_rules() -> None:
    text = report(run_case(case("PM-440"))["events"])
    assert ("Sea move 1 (11.2): R1, TB1 from 2512S Odessa to 2919S Sevastopol by sea on the Black Sea (11.1); no further "
            "ground movement and no attack this player turn (11.2). Naval capacity used: 2 of 5 units") in text
    assert "NI1 from 4022S Novorossisk to the Southern Ports Holding Box" in text and "leave it only by sea (11.3)" in text
    text = report(run_case(case("PM-449"))["events"])
    assert "all-sea hex 3020S nearest 3019S (Balaklava), which holds no enemy unit: they go ashore at once" in text
    text = report(run_case(case("PM-451"))["events"])
    assert "which enemy units hold: they wait there, may not move, and make the invasion PA" in text
    assert "**Attack 2 is the invasion PA on 3119S** (11.4), resolved first of the phase (14.5)" in text
    assert "count as fully supplied this player turn (11.4)" in text and "Shift 1L: amphibious invasion (11.4)." in text
    assert text.index("Attack 2 on 3119S") < text.index("Attack 1 on 2412S")
    assert "R1, R2, R3 go ashore, as an advance after combat (14.39, Ambiguity 31)" in text
    text = report(run_case(case("PM-452"))["events"])
    assert ("every invading unit is eliminated, R2; there is no evacuation from a beach (11.4); the units that joined it "
            "from land are not eliminated: R3 (Ambiguity 31)") in text


def test_an_invasion_whose_force_is_lost_says_so() -> None:
    c = copy.deepcopy(case("PM-452"))
    c["orders"]["attack"][0]["losses"] = ["R1", "R2"]
    c["dice"] = {"faces": [1]}  # 1:2, roll 1: 2/0, both invaders lost to the attacker's result
    text = report(run_case(c)["events"])
    assert "The invasion PA does not clear 3119S; no invading unit is left (11.4)" in text


def test_show_lists_the_box_with_the_units_that_entered_it_this_gt() -> None:
    state = build_state({"case": {"scenario": "naval-scenario.toml"}, "options": {"naval": True},
                         "position": {"turn": 3, "side": "soviet", "units": {"R1": "ports-box", "R2": "ports-box"},
                                      "box_entry": {"R2": {"turn": 3, "pts": 0}}}})
    text = MODULE.render_position(state, None)
    assert ("  in the Southern Ports Holding Box: R1, R2; entered in this GT: R2 in the Mutual Reinforcement phase of "
            "GT3\n") in text


def test_the_soviet_template_shows_the_ports_the_box_and_the_sea_keys() -> None:
    state = build_state({"case": {"scenario": "naval-scenario.toml"}, "options": {"naval": True},
                         "position": {"turn": 3, "pts": 1, "side": "soviet",
                                      "units": {"R1": "2512S", "R2": "ports-box", "R3": "ports-box", "Ro1": "3119S"},
                                      "box_entry": {"R3": {"turn": 3, "pts": 0}}, "control": {"4022S": "german"}}})
    state["parties"] = {"german": {"index": 0}, "soviet": {"index": 1}}
    text = MODULE.template(state, "soviet", [])
    assert "#   2512S Odessa (soviet-controlled): R1" in text
    assert "#   4022S Novorossisk (german-controlled): -" in text
    assert "#   the Holding Box: R2, R3\n#     not in this sequence, having entered the Box in this GT (11.3): R3\n" in text
    assert '# to = "HEX"' in text and '"ports-box" (11.2)' in text and '# invade = "HEX"' in text
    state["awaits"]["from"] = ["german"]
    assert "[[sea]]" not in MODULE.template(state, "german", [])
    state["options"]["naval"] = False
    assert "[[sea]]" not in MODULE.template(state, "soviet", [])


def test_the_turn_picture_draws_sea_moves_the_box_and_landings() -> None:
    for name, want in (("PM-440", {("sea", "2919S"), ("sea", "ports-box")}), ("PM-449", {("sea", "3020S"), ("landing", "3019S")}),
                       ("PM-451", {("sea", "3120S")})):
        c = case(name)
        got = run_case(c)
        svg = turn_svg(load_scenario(scenario_of(c)), got["state"], got["events"], name)
        assert svg is not None
        root = ET.fromstring(svg)
        lines = {(e.get("class"), e.get("data-to") or e.get("data-hex")) for e in root.iter()
                 if e.get("class") in ("sea", "landing")}
        assert lines == want, name
        assert (root.find(".//*[@id='ports-box']") is not None) == (name == "PM-440")


def test_the_readme_naval_example_is_legal_orders() -> None:
    """docs/proud-monster.md's `[[sea]]` example, on the Black Sea catalog scenario (R4 and NI1 in Odessa, R1
    and R2 in Sevastopol, R3 next to Yalta, which a Romanian division holds)."""
    import tomllib

    text = (ROOT / "docs" / "proud-monster.md").read_text(encoding="utf-8")
    block = next(b.split("```", 1)[0] for b in text.split("```toml\n")[1:] if "[[sea]]" in b.split("```", 1)[0])
    orders = tomllib.loads(block)
    got = run_case({"case": {"scenario": "naval-scenario.toml"}, "options": {"naval": True},
                    "position": {"turn": 3, "side": "soviet",
                                 "units": {"R4": "2512S", "NI1": "2512S", "R1": "2919S", "R2": "2919S", "R3": "3118S",
                                           "Ro1": "3119S"}},
                    "orders": orders, "dice": {"faces": [6]}})
    assert got["problems"] == []
    units = got["state"]["position"]["units"]
    assert units["R4"]["at"] == units["NI1"]["at"] == "2919S"
    assert units["R1"]["at"] == units["R2"]["at"] == units["R3"]["at"] == "3119S" and units["Ro1"]["at"] == "dead"


def test_a_sea_move_and_an_invasion_through_the_exchange_verify_and_are_reported(tmp_path: Path) -> None:
    """Signed order files with [[sea]] entries: schema, check, dice, report, picture and replay."""
    def rel(name: str) -> str:
        return str(CATALOG / name).replace("\\", "/")

    scenario = tmp_path / "sea.toml"
    setup = {"Ro1": "3119S", "R1": "2919S", "R2": "2919S", "R3": "2512S"}
    scenario.write_text(
        f'[scenario]\nid = "sea"\ngame = "proud-monster"\ntitle = "Sea (test data)"\nfirst_turn = 1\nlast_turn = 3\n'
        f'map = "{rel("naval-map.toml")}"\nunits = "{rel("naval-units.toml")}"\n'
        f'charts = "{rel("../../../../scenarios/proud-monster/charts.toml")}"\nfree_setup = true\n\n[options]\nnaval = true\n'
        + "".join(f'\n[[setup]]\nunit = "{u}"\nhex = "{h}"\n' for u, h in setup.items()), encoding="utf-8")
    g = start_game(tmp_path / "game", str(scenario), "pm-sea")
    g.play("")  # the German's GT1: nothing
    g.play('\n[[sea]]\nunits = ["R3"]\nto = "2919S"\n\n[[sea]]\nunits = ["R1", "R2"]\ninvade = "3119S"\n'
           '\n[[attack]]\ntarget = "3119S"\nunits = ["R1", "R2"]\n')
    assert verify([g.folder]).transitions == 3
    text = sorted(g.folder.glob("*.report.md"))[-1].read_text(encoding="utf-8")
    assert "Sea move 1 (11.2): R3 from 2512S Odessa to 2919S Sevastopol" in text
    assert "**Attack 1 is the invasion PA on 3119S** (11.4)" in text and "Shift 1L: amphibious invasion (11.4)." in text
    units = g.state().data["position"]["units"]
    assert units["R3"]["at"] == "2919S"
    # the die depends on the game's digests, which name the scenario file's path: either result is checked
    cleared = units["Ro1"]["at"] == "dead"
    assert {units["R1"]["at"], units["R2"]["at"]} <= ({"3119S", "dead"} if cleared else {"dead"})  # dead: a step lost
    assert ("The invasion clears 3119S" if cleared else "The invasion PA does not clear 3119S") in text
    assert "naval" not in g.state().data["position"]
    svg = sorted(g.folder.glob("*.turn.svg"))[-1].read_text(encoding="utf-8")
    assert 'class="sea" data-units="R3" data-to="2919S"' in svg and 'data-to="3120S"' in svg


def test_no_sea_moves_in_the_mutual_reinforcement_step() -> None:
    got = run_case({"case": {"scenario": "naval-scenario.toml"}, "options": {"naval": True},
                    "position": {"turn": 3, "pts": 0, "side": "soviet", "units": {"R1": "2512S", "R2": "track"},
                                 "mr": {"place": ["R2"]}},
                    "orders": {"place": [{"units": ["R2"], "hex": "ports-box"}], "sea": [{"units": ["R1"], "to": "2919S"}]}})
    assert [(p.where, p.rule) for p in got["problems"]] == [("sea", "5.1")]
