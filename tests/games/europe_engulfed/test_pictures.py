"""Europe Engulfed pictures (SVG): valid documents with the documented layers, areas coloured by
control, every block once in its area with its steps when known and blank when hidden, GS markers,
OOS, contested areas (new ones apart), fortifications and beachheads, fleets, the weather and SAs in
the legend, a step's moves as arrows and battles as bursts, the same bytes for the same input, and
`pbem show --svg` and `pbem demo` writing them."""

from __future__ import annotations

import copy
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from pbem.engine.model import Event
from pbem.games.europe_engulfed import picture
from pbem.games.europe_engulfed.module import EuropeEngulfed
from tests.clihelpers import run

NS = "{http://www.w3.org/2000/svg}"
LAYERS = ("links", "borders", "places", "terrain", "names", "contested", "works", "fleets", "blocks", "gs")


def game(**position: Any) -> dict[str, Any]:
    """The demo scenario's set-up (every block known: a refereed or open game)."""
    g = EuropeEngulfed().new_game("1941-barbarossa", {})
    g["position"].update(copy.deepcopy(position))
    return {"pbem": {"scenario": "1941-barbarossa"}, **g, "standing": {}}


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def layer(root: ET.Element, name: str) -> ET.Element:
    found = [e for e in root.iter(f"{NS}g") if e.get("id") == name]
    assert len(found) == 1, name
    return found[0]


def classes(e: ET.Element) -> list[str]:
    return e.get("class", "").split()


def blocks(root: ET.Element) -> dict[str, ET.Element]:
    return {str(e.get("data-unit")): e for e in layer(root, "blocks").iter(f"{NS}g") if "block" in classes(e)}


def test_the_position_is_valid_svg_with_every_layer_and_every_place() -> None:
    state = game()
    root = parse(picture.position_svg(state))
    assert root.tag == f"{NS}svg"
    for name in (*LAYERS, "map", "title", "legend"):
        layer(root, name)
    places = {e.get("id") for e in layer(root, "places") if str(e.get("id", "")).startswith("place-")}
    assert len(places) == 129
    assert "Barbarossa" in str(root.find(f"{NS}title").text)  # type: ignore[union-attr]


def test_areas_are_filled_by_their_controller() -> None:
    state = game()
    state["position"]["control"]["minsk"] = "axis"
    state["position"]["control"].pop("sweden", None)
    state["position"]["control"]["lyon"] = "vichy"
    root = parse(picture.position_svg(state))
    fill = {e.get("id"): e.get("fill") for e in layer(root, "places")}
    assert fill["place-minsk"] == picture.CONTROL_FILL["axis"] == fill["place-berlin"]
    assert fill["place-moscow"] == picture.CONTROL_FILL["allies"]
    assert fill["place-lyon"] == picture.CONTROL_FILL["vichy"]
    assert fill["place-sweden"] == picture.CONTROL_FILL["neutral"]
    assert fill["place-baltic"] == picture.SEA_FILL
    assert len({picture.CONTROL_FILL[s] for s in ("axis", "allies", "vichy", "neutral")}) == 4


def test_every_block_once_in_its_area_with_its_steps_in_its_nations_colour() -> None:
    state = game()
    root = parse(picture.position_svg(state))
    found = blocks(root)
    assert sorted(found) == sorted(state["position"]["units"])
    for g in layer(root, "blocks"):
        for b in g:
            assert state["position"]["units"][b.get("data-unit")]["at"] == g.get("data-place")
    u = "de.05"
    s = state["position"]["units"][u]
    b = found[u]
    assert b.get("data-steps") == str(s["steps"])
    assert [t.text for t in b.iter(f"{NS}text")] == [str(s["steps"])]
    assert classes(b)[:3] == ["block", "axis", "germany"]
    rect = b.find(f"{NS}rect")
    assert rect is not None and rect.get("fill") == picture.COLOUR_NAMES["grey"]
    elite = found["de-e.01"]
    assert "elite" in classes(elite)
    er = elite.find(f"{NS}rect")
    assert er is not None and er.get("fill") not in (picture.COLOUR_NAMES["grey"], None)
    soviet = found["su.05"].find(f"{NS}rect")
    assert soviet is not None and soviet.get("fill") == picture.COLOUR_NAMES["red-orange"]
    romanian = found["ro.01"].find(f"{NS}rect")
    assert romanian is not None and romanian.get("fill") == picture.COLOUR_NAMES["yellow"]  # the Axis minors' pool


def test_a_hidden_block_is_drawn_blank_and_its_steps_are_not_in_the_picture() -> None:
    state = game()
    units = state["position"]["units"]
    hidden = "su.05"
    units[hidden] = {k: v for k, v in units[hidden].items() if k not in ("block", "steps")} | {"item": "su.05"}
    svg = picture.position_svg(state)
    b = blocks(parse(svg))[hidden]
    assert "hidden" in classes(b)
    assert b.get("data-steps") is None
    assert [t.text for t in b.iter(f"{NS}text")] == []
    title = b.find(f"{NS}title")
    assert title is not None and title.text == "su.05 (hidden)"
    assert all("su-arm" not in str(t.text) for t in b.iter())


def test_a_sides_view_shows_its_own_steps_and_hides_the_others(tmp_path: Path) -> None:
    """`pbem show --svg --side` draws the view: what the view leaves out is blank."""
    state = game()
    view = copy.deepcopy(state)
    for s in view["position"]["units"].values():
        if s["nation"] == "ussr":
            s.pop("block")
            s.pop("steps")
    found = blocks(parse(EuropeEngulfed().render_svg(view, "axis")))
    assert found["su.05"].get("data-steps") is None and found["de.05"].get("data-steps") == "4"


def test_gs_oos_contested_fortifications_beachheads_and_fleets() -> None:
    state = game(contested={"brest-litovsk": "new", "lvov": "old"},
                 fortifications={"moscow": {"kind": "heavy", "nation": "ussr"}, "kiev": {"kind": "field", "nation": "ussr"}},
                 beachheads={"crete": "axis"})
    state["position"]["units"]["su.05"]["oos"] = "oos"
    root = parse(picture.position_svg(state))
    assert "oos" in classes(blocks(root)["su.05"]) and "oos" not in classes(blocks(root)["su.06"])
    con = {e.get("data-place"): classes(e) for e in layer(root, "contested")}
    assert con == {"brest-litovsk": ["contested", "new"], "lvov": ["contested", "old"]}
    gs = {(e.get("data-place"), classes(e)[2]): e.get("data-count") for e in layer(root, "gs")}
    assert gs == {(a, n): str(k) for a, by in state["position"]["gs"].items() for n, k in by.items()}
    works = {(e.get("data-place"), classes(e)[1]) for e in layer(root, "works")}
    assert works == {("moscow", "fortification"), ("kiev", "fortification"), ("crete", "beachhead")}
    assert "heavy" in classes(next(e for e in layer(root, "works") if e.get("data-place") == "moscow"))
    fleets = {(e.get("data-place"), classes(e)[1]): e.get("data-points") for e in layer(root, "fleets")}
    assert fleets == {(z, n): str(k) for z, by in state["position"]["fleets"].items() for n, k in by.items()}


def test_the_legend_gives_the_weather_of_each_zone_and_the_special_actions() -> None:
    state = game(weather={"west": "clear", "east": "mud", "south": "light-mud"}, sa={"germany": 3, "ussr": 1})
    legend = layer(parse(picture.position_svg(state)), "legend")
    texts = [str(t.text) for t in legend.iter(f"{NS}text")]
    assert "Weather (1.1): west clear, east mud, south light-mud" in texts
    assert "Special actions held (7.1): germany 3, ussr 1" in texts


def test_the_same_state_gives_the_same_bytes() -> None:
    state = game(contested={"minsk": "new"})
    assert picture.position_svg(state) == picture.position_svg(copy.deepcopy(state))
    ev = [Event("move", "5.1", {"units": ["de.05"], "path": ["east-prussia", "lithuania"]})]
    assert picture.turn_svg(state, ev, "t") == picture.turn_svg(copy.deepcopy(state), list(ev), "t")


def test_a_steps_moves_are_arrows_along_their_paths_and_battles_bursts() -> None:
    state = game()
    ev = [Event("phase", "1.23", {"phase": "x"}),
          Event("move", "5.1", {"units": ["de.05", "de.06"], "path": ["east-prussia", "lithuania", "latvia"]}),
          Event("strat-move", "5.2", {"units": ["de.02"], "path": ["berlin", "silesia", "krakow"]}),
          Event("move", "5.1", {"units": ["de.07"], "path": ["east-prussia"]}),  # no move drawn for a path of one area
          Event("battle", "6.2", {"area": "lithuania"}), Event("battle", "6.2", {"area": "lithuania"}),
          Event("battle", "6.2", {"area": "nowhere"})]
    root = parse(picture.turn_svg(state, ev, "Europe Engulfed: 1941-may/axis/move"))
    turn = layer(root, "turn")
    moves = [e for e in turn if e.tag == f"{NS}polyline"]
    assert [(classes(e)[0], e.get("data-units")) for e in moves] == [("move", "de.05 de.06"), ("strat-move", "de.02")]
    assert len(str(moves[0].get("points")).split()) == 3 and moves[0].get("marker-end") == "url(#arrow-move)"
    assert [e.get("data-place") for e in turn if "battle" in classes(e)] == ["lithuania"]
    assert "arrow-strat-move" in picture.turn_svg(state, ev, "t")
    assert not [e for e in parse(picture.position_svg(state)).iter(f"{NS}g") if e.get("id") == "turn"]


def test_the_module_draws_a_turn_picture_only_for_moves_and_battles() -> None:
    state = game()
    state["pbem"]["sequence"] = 3
    prev = {**state, "awaits": {"step": "1941-may/axis/move"}}
    mod = EuropeEngulfed()
    assert mod.turn_picture(prev, state, [Event("phase", "1.23", {})]) is None
    svg = mod.turn_picture(prev, state, [Event("battle", "6.2", {"area": "minsk"})])
    assert svg is not None and "1941-may/axis/move, state 0003" in svg


def test_show_svg_and_demo_write_the_picture(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    run(["demo", "--game", "europe-engulfed", "--turns", "1", "--out", out])
    root = parse((out / "position.svg").read_text())
    assert len(blocks(root)) > 50
    states = sorted((out / "game").glob("*.state.toml"))
    svg = tmp_path / "side.svg"
    run(["show", states[-1], "--side", "allies", "--svg", svg])
    parse(svg.read_text())


def test_the_turn_picture_of_real_moves() -> None:
    """The events movement makes (a move into an enemy area, a strategic move) drawn as arrows."""
    from pbem.games.europe_engulfed import movement
    from pbem.games.europe_engulfed.context import context, position_of

    state = game()
    ctx = context(state)
    ctx.pos["politics"]["war"].append(["germany", "ussr"])  # 1.23: the war declared
    body = {"move": [{"units": ["de.05", "de.06"], "path": ["lithuania"]}],
            "strat": [{"units": ["de.02"], "path": ["berlin", "silesia"]}]}
    movement.operational(ctx, body)
    movement.strategic(ctx, body["strat"])
    state["position"] = position_of(ctx)
    turn = layer(parse(picture.turn_svg(state, ctx.events, "t")), "turn")
    assert [(classes(e)[0], e.get("data-units")) for e in turn] == [("move", "de.05 de.06"), ("strat-move", "de.02")]
