"""Red Steel pictures (SVG): the documented layers, every unit once in its hex, the markers of 13.x,
7.x, 11.x and 17.x, the activation track, turn arrows, determinism, speed, and a real rendering by
headless Chromium."""

from __future__ import annotations

import os
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from pbem.engine.model import Event
from pbem.games.red_steel import picture
from pbem.games.red_steel.data import OFF_MAP, load_scenario, scenario_names
from pbem.games.red_steel.module import RedSteel
from tests.games.proud_monster.test_pictures import chromium, png_pixels, render

LAB = str((Path(__file__).parent / "data" / "lab" / "scenario.toml").resolve())
NS = "{http://www.w3.org/2000/svg}"
LAYERS = ("places", "borders", "hexids", "roads", "zoc", "works", "supply", "towns", "units", "bridges")


def game(scenario: str = LAB, units: dict[str, dict[str, Any]] | None = None, side: str = "axis",
         **position: Any) -> dict[str, Any]:
    """A state of ``scenario``; with ``units``, only those on the map (each ``{at, ...}``)."""
    g = RedSteel().new_game(scenario, {})
    pos = g["position"]
    if units is not None:
        for u in pos["units"]:
            pos["units"][u] = {"at": "eliminated", "lost": 0}
        for u, s in units.items():
            pos["units"][u] = {"lost": 0, **s}
    pos.update(position)
    return {"pbem": {"scenario": scenario}, "options": g["options"], "clock": {"turn": 1, "side": side, "phase": "movement"},
            "position": pos, "standing": {}}


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def layer(root: ET.Element, name: str) -> ET.Element:
    found = [e for e in root.iter(f"{NS}g") if e.get("id") == name]
    assert len(found) == 1, name
    return found[0]


def classes(e: ET.Element) -> list[str]:
    return e.get("class", "").split()


def stacks(root: ET.Element) -> list[ET.Element]:
    return [e for e in layer(root, "units") if "units" in classes(e)]


def test_position_picture_has_the_layers_and_every_unit_once_in_its_hex() -> None:
    state = game()
    root = parse(picture.position_svg(state))
    for name in (*LAYERS, "title", "map", "activation", "legend"):
        layer(root, name)
    sc_units = state["position"]["units"]
    on_map = {u: s["at"] for u, s in sc_units.items() if s["at"] not in OFF_MAP}
    seen: dict[str, str] = {}
    for g in stacks(root):
        assert classes(g)[1] in ("axis", "soviet")
        for u in g.get("data-units", "").split():
            assert u not in seen, f"{u} drawn twice"
            seen[u] = g.get("data-place", "")
        top = [c for c in g if "counter" in classes(c)]
        assert len(top) == 1 and top[0].get("data-unit") == g.get("data-units", "").split()[0]
        count = [c for c in g if "count" in classes(c)]
        n = len(g.get("data-units", "").split())
        assert (count[0].find(f"{NS}text").text if count else "1") == str(n)  # type: ignore[union-attr]
    assert seen == on_map
    # the three units of 0904 (NKVD and two AA companies, lab set-up): one stack, the NKVD counter on top in dark red
    kish = next(g for g in stacks(root) if g.get("data-place") == "0904")
    assert kish.get("class") == "units soviet" and len(kish.get("data-units", "").split()) == 3
    top = next(c for c in kish if "counter" in classes(c))
    assert top.get("data-unit") == "S-NKVD175" and top.find(f"{NS}rect").get("fill") == picture.NKVD[0]  # type: ignore[union-attr]
    shades = {c.get("data-unit"): c.find(f"{NS}rect").get("fill")  # type: ignore[union-attr]
              for c in layer(root, "units").iter(f"{NS}g") if "counter" in classes(c)}
    assert shades["G-I/1"] == picture.NAT_COLOURS["german"][0] and shades["R-I/5"] == picture.NAT_COLOURS["romanian"][0]
    assert shades["S-Tk/87"] == picture.NAT_COLOURS["soviet"][0]
    # the unit's short label (the id without its nationality prefix) is written on the counter
    texts = {t.text for t in layer(root, "units").iter(f"{NS}text")}
    assert {"I/1", "Tk/87", "HQ95"} <= texts
    # towns, Kishinev, the Prut and the river, the printed bridges, the roads
    towns = {e.get("data-place"): classes(e) for e in layer(root, "towns")}
    assert towns["0404"] == ["town"] and "kishinev" in towns["0904"]
    assert {"Cornesti", "Lapusna (1)"} <= {t.text for t in layer(root, "towns").iter(f"{NS}text")}
    borders = {tuple(classes(e)) for e in layer(root, "borders")}
    assert borders == {("border", "prut"), ("border", "river")}
    bridges = {(e.get("data-border"), classes(e)[1]) for e in layer(root, "bridges")}
    assert ("0204 0304", "printed") in bridges and ("0704 0804", "printed") in bridges
    assert {classes(e)[0] for e in layer(root, "roads")} == {"road", "main-road"}


def test_markers_of_status_supply_artillery_and_steps_and_hex_markers() -> None:
    units = {"S-1/161": {"at": "0603", "status": "disrupted", "supply": "oos", "lost": 1},
             "S-2/161": {"at": "0604", "status": "demoralized", "supply": "isolated"},
             "G-AR/1": {"at": "0204", "mode": "towed", "ammo": 1},
             "G-I/1": {"at": "0504"}, "G-HQ": {"at": "0104"}, "S-HQ95": {"at": "0905"}}
    state = game(units=units, entrenchments={"0603": {"side": "soviet", "state": "done", "unit": "S-1/161", "since": 1},
                                             "0604": {"side": "soviet", "state": "building", "unit": "S-2/161", "since": 1}},
                 bridges={"0305-0405": {"side": "axis", "unit": "G-Br/1", "state": "building", "since": 1}})
    root = parse(picture.position_svg(state))
    counters = {c.get("data-unit"): c for c in layer(root, "units").iter(f"{NS}g") if "counter" in classes(c)}
    assert set(counters) == set(units)

    def markers(u: str) -> set[str]:
        return {" ".join(classes(m)[1:]) for m in counters[u] if "marker" in classes(m)}

    assert markers("S-1/161") == {"status disrupted", "supply oos", "steps"}
    assert markers("S-2/161") == {"status demoralized", "supply isolated", "steps"}
    assert markers("G-AR/1") == {"mode towed", "ammo"}
    assert markers("G-I/1") == {"steps"}
    d = next(m for m in counters["S-1/161"] if "status" in classes(m))
    assert d.find(f"{NS}text").text == "d"  # type: ignore[union-attr]
    z = next(m for m in counters["S-2/161"] if "status" in classes(m))
    assert z.find(f"{NS}text").text == "Z"  # type: ignore[union-attr]
    steps = next(m for m in counters["S-1/161"] if "steps" in classes(m))
    assert steps.get("data-lost") == "1"
    assert next(m for m in counters["G-AR/1"] if "ammo" in classes(m)).get("data-ammo") == "1"
    works = {e.get("data-place"): classes(e) for e in layer(root, "works")}
    assert works == {"0603": ["entrenchment", "done", "soviet"], "0604": ["entrenchment", "building", "soviet"]}
    assert ("0305 0405", "building") in {(e.get("data-border"), classes(e)[1]) for e in layer(root, "bridges")}
    # 4.1: the Soviet side (not moving) has a ZOC around 0504's neighbours... and never the Axis's
    zoc = layer(root, "zoc")
    assert classes(zoc) == ["zoc", "soviet"] and zoc.findall(f"{NS}polygon")
    assert all(classes(p) == ["zoc", "soviet"] for p in zoc)
    # 7.21, 7.41: each HQ's road route to its edge, or a ring where it has none
    hqs = {e.get("data-unit"): classes(e)[0] for e in layer(root, "supply")}
    assert set(hqs) == {"G-HQ", "S-HQ95"} and set(hqs.values()) <= {"hq-route", "hq-cut"}


def test_the_activation_track_shows_each_box_and_the_formations_drawn() -> None:
    state = game(activation={"track": ["95", "44"], "reserve": "", "out": []})
    root = parse(picture.position_svg(state))
    boxes = [e for e in layer(root, "activation") if "box" in classes(e)]
    printed = load_scenario(LAB).charts.activation.boxes
    assert [b.get("data-box") for b in boxes] == [str(k + 1) for k in range(len(printed))]
    assert [[t.text for t in b.iter(f"{NS}text")][0] for b in boxes] == [str(n) for n in printed]
    assert [classes(b) for b in boxes[:3]] == [["box", "drawn"], ["box", "drawn"], ["box"]]
    assert [t.text for t in boxes[0].iter(f"{NS}text")][1] == "95"
    assert [t.text for t in boxes[1].iter(f"{NS}text")][1] == "44"


def turn_events() -> list[Event]:
    return [
        Event("move", "5.1", {"index": 0, "units": ["G-I/1"], "start": "0303", "path": ["0403", "0503"]}),
        Event("combat", "9.18", {"target": "0604", "attackers": [{"unit": "G-I/1", "hex": "0503", "attack": 5},
                                                                 {"unit": "G-II/1", "hex": "0504", "attack": 5}],
                                 "attack_support": [{"unit": "G-AR/1", "value": 6}], "defense_support": [{"unit": "S-AR/95", "value": 4}],
                                 "final": "2:1", "result": "1/2"}),
        Event("retreat", "9.41", {"side": "soviet", "units": ["S-2/161"], "start": "0604", "path": ["0705", "0806"]}),
        Event("advance", "9.5", {"target": "0604", "path": ["0604"], "units": [{"unit": "G-II/1", "path": ["0604"]}]}),
        Event("bombardment", "8.2", {"target": "0605", "artillery": [{"unit": "G-AR/1", "value": 6}], "result": "d"}),
        Event("air", "8.2", {"target": "0603", "aircraft": "Ju87-1", "result": "0"}),
        Event("combat", "9.18", {"target": "nowhere", "attackers": "garbled"}),  # read defensively: drawn nowhere
    ]


def turn_state() -> dict[str, Any]:
    return game(units={"G-I/1": {"at": "0503"}, "G-II/1": {"at": "0604"}, "G-AR/1": {"at": "0204", "mode": "deployed", "ammo": 1},
                       "S-2/161": {"at": "0806"}, "S-3/161": {"at": "0605"}, "S-1/161": {"at": "0603"},
                       "S-AR/95": {"at": "0705", "mode": "deployed", "ammo": 1}}, side="axis")


def test_turn_picture_draws_moves_combats_support_bombardment_retreats_and_advances() -> None:
    root = parse(picture.turn_svg(turn_state(), turn_events(), "Red Steel: T1/axis/combat"))
    turn = layer(root, "turn")
    drawn = [(classes(e), e.get("data-target") or e.get("data-place") or e.get("data-units") or e.get("data-unit")) for e in turn]
    assert (["move"], "G-I/1") in drawn
    assert (["attack"], "0604") in drawn and sum(1 for c, t in drawn if c == ["attack"]) == 2  # from 0503 and 0504
    assert (["support", "attack"], "0604") in drawn and (["support", "defense"], "0604") in drawn
    assert (["bombard"], "0605") in drawn and (["air"], "0603") in drawn
    assert (["retreat"], "S-2/161") in drawn and (["advance"], "G-II/1") in drawn
    move = next(e for e in turn if classes(e) == ["move"])
    assert len(move.get("points", "").split()) == 3  # 0303, 0403, 0503
    result = next(e for e in turn if classes(e) == ["combat-result"])
    assert result.get("data-place") == "0604" and [t.text for t in result.iter(f"{NS}text")] == ["2:1 1/2"]
    assert any(t.text == "Red Steel: T1/axis/combat" for t in layer(root, "title").iter(f"{NS}text"))
    assert layer(root, "legend").findall(f".//{NS}line")  # the arrows are explained


def test_turn_picture_of_a_real_move() -> None:
    """module.turn_picture draws the move events of a transition (5.1), over the position after it."""
    state = turn_state()
    state["pbem"]["sequence"] = 3
    prev = {**state, "awaits": {"step": "T1/axis/move"}}
    events = [Event("move", "5.1", {"units": ["G-I/1"], "from": "0303", "path": ["0403", "0503"]})]
    svg = RedSteel().turn_picture(prev, state, events)
    assert svg is not None
    assert [classes(e) for e in layer(parse(svg), "turn")] == [["move"]]
    assert RedSteel().turn_picture(prev, state, [Event("phase", "3.33", {})]) is None


def test_a_long_title_is_written_smaller_to_fit() -> None:
    title = "Red Steel: " + "a very long title of a transition " * 4
    root = parse(picture.turn_svg(turn_state(), [], title))
    text = next(layer(root, "title").iter(f"{NS}text"))
    assert text.text == title
    assert float(text.get("font-size", "0")) * 0.62 * len(title) <= float(root.get("width", "0")) - 8


def test_same_input_same_bytes() -> None:
    a = picture.turn_svg(turn_state(), turn_events(), "t")
    b = picture.turn_svg(turn_state(), turn_events(), "t")
    assert a == b and a.encode() == b.encode()
    assert picture.position_svg(game()) == picture.position_svg(game())


@pytest.mark.parametrize("name", [*(n for n in ("kishinev", "training") if n in scenario_names()), LAB])
def test_bundled_scenarios_render_quickly(name: str) -> None:
    state = game(name)
    picture.position_svg(state)  # the scenario's data loaded once
    t = time.process_time()  # CPU time: a guard against a pathological slowdown; benchmarks/ measure speed
    svg = picture.position_svg(state)
    assert time.process_time() - t < 0.5
    root = parse(svg)
    placed = [u for u, s in state["position"]["units"].items() if s["at"] not in OFF_MAP]
    assert sorted(u for g in stacks(root) for u in g.get("data-units", "").split()) == sorted(placed)
    assert float(root.get("width", "0")) >= 480


@pytest.mark.skipif(chromium() is None and not os.environ.get("CI"), reason="no Chromium on this machine (.ci/run installs it)")
def test_a_red_steel_picture_renders_to_png_with_chromium(tmp_path: Path) -> None:
    svg = tmp_path / "turn.svg"
    svg.write_text(picture.turn_svg(turn_state(), turn_events(), "Red Steel: T1/axis/combat"), encoding="utf-8")
    root = parse(svg.read_text(encoding="utf-8"))
    width, height = round(float(root.get("width", "0"))), round(float(root.get("height", "0")))
    png = tmp_path / "turn.png"
    render(svg, png, width, height, tmp_path / "profile")
    w, h, ch, rows = png_pixels(png.read_bytes())
    assert (w, h) == (width, height)
    painted = {bytes(r[i:i + 3]) for r in rows[::3] for i in range(0, w * ch, ch * 2)}
    for colour in (picture.NAT_COLOURS["german"][0], picture.NAT_COLOURS["soviet"][0], picture.FILL["clear"],
                   picture.ARROWS["attack"]):
        assert bytes.fromhex(colour[1:]) in painted, f"{colour} is painted"  # the counters, the map and the arrows
