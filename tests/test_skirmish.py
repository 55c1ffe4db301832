"""The Skirmish module beyond its rules catalog: its data checks, a renderer for every event kind,
its pictures, its templates (from a state and from a view), the state checks, the built-in player
and the demo hooks."""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

import pytest

from pbem.engine.model import Event, Submission
from pbem.errors import MalformedFileError, ModuleDataError, Problem
from pbem.exchange.canonical import seal, unsealed
from pbem.exchange.files import dumps
from pbem.exchange.game import load_state
from pbem.exchange.views import view_body
from pbem.games.skirmish import rules
from pbem.games.skirmish.data import TYPES, load_scenario
from pbem.games.skirmish.module import Skirmish
from pbem.games.skirmish.render import EVENT_TEXT, event_lines
from pbem.mechanics.dice import ForcedDice
from tests.exchange_neutral.conftest import RED_T1, reply_body, start_game

MODULE = Skirmish()
# the event kinds the module's docstring lists ("Event kinds: phase, move, ...; and the core's joined and no-orders.")
KINDS = set(re.findall(r"[a-z]+(?:-[a-z]+)*", sys.modules[Skirmish.__module__].__doc__.split("Event kinds:")[1])) - {"and", "the", "core", "s"}


def test_the_scenario_and_map_are_what_the_rules_say() -> None:
    sc = load_scenario("crossroads")
    assert len(sc.map.place_ids()) == 12 and sc.turns == 3
    assert [sc.home(s) for s in ("red", "blue", "green")] == ["redhold", "bluehold", "greenhold"]
    assert {u.side for u in sc.units.values()} == {"red", "blue", "green"}
    assert {(t.name, t.allowance, t.strength) for t in TYPES.values()} == {("infantry", 2, 2), ("cavalry", 3, 1), ("artillery", 1, 3)}
    assert sum(1 for b in sc.map.all_borders() if "river" in b.features) == 3
    assert MODULE.data_digest("crossroads") == sc.digest and sc.digest.startswith("sha256:")


def test_a_scenario_that_does_not_fit_its_map_is_refused(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parent.parent / "scenarios" / "skirmish"
    text = (root / "crossroads" / "scenario.toml").read_text(encoding="utf-8")
    text = text.replace('map = "../map.toml"', f'map = "{root / "map.toml"}"')
    bad = text.replace('G1 = { side = "green", type = "infantry", at = "west-fields" }',
                       'G1 = { side = "green", type = "infantry", at = "west-woods" }').replace(
        'R5 = { side = "red", type = "artillery", at = "redhold" }', 'R5 = { side = "red", type = "artillery", at = "atlantis" }')
    p = tmp_path / "bad.toml"
    p.write_text(bad, encoding="utf-8")
    with pytest.raises(ModuleDataError) as e:
        load_scenario(str(p))
    found = {(x.rule, x.message.split(";")[0]) for x in e.value.problems}
    assert ("1.4", "'atlantis' is not an area of the map") in found
    assert ("3.3", "west-woods holds units of green, red") in found
    assert MODULE.owns_scenario(str(p)) and not MODULE.owns_scenario("training")


def test_every_event_kind_has_its_renderer(tmp_path: Path) -> None:
    """Each kind the module documents has a renderer, and a whole game's events (joins, moves,
    attacks, a reply, the end) render without falling back to raw data."""
    assert KINDS <= set(EVENT_TEXT), sorted(KINDS - set(EVENT_TEXT))
    g = start_game(tmp_path / "game", scenario="crossroads", standing={}, seed="auto 2")
    while g.state().data["awaits"]["kind"] != "none":
        g.auto()
    reports = "".join(p.read_text(encoding="utf-8") for p in sorted(g.folder.glob("*.report.md")))
    assert "- Joined: blue, green, red" in reports and "**Game over: " in reports and "reply: " in reports
    assert not re.search(r"^- [a-z-]+ \([0-9.]+\): \{", reports, re.M), "an event shown as raw data"
    assert event_lines(Event("no-orders", "referee", {"sides": ["blue"], "step": "T1/blue"}))[0].startswith(
        "- No blue submission for `T1/blue` by the deadline")


def test_pictures_show_units_control_and_the_turn(tmp_path: Path) -> None:
    g = start_game(tmp_path / "game")
    svg = MODULE.render_svg(g.state().data, None)
    assert svg.count('class="units ') == 9 and 'class="control red" data-place="redhold"' in svg
    assert '<polyline class="border river" data-border="crossroads mill"' in svg
    g.play(RED_T1)
    turn = (g.folder / "0002.turn.svg").read_text(encoding="utf-8")
    assert "<title>Skirmish: T1/red, state 0002</title>" in turn
    assert turn.count('class="move"') == 2, "R4's path: two borders"
    assert turn.count('marker-end="url(#arrow-attack)" data-target="west-fields"') == 2, "from west-woods and from orchard"
    assert MODULE.render_svg(g.state().data, None) == MODULE.render_svg(g.state().data, None)


def test_templates_from_a_state_and_from_a_view(tmp_path: Path) -> None:
    g = start_game(tmp_path / "game", referee=True)
    text = MODULE.template(g.state().data, "red", ["[pbem]", 'side = "red"'])
    assert "# R5 artillery in orchard: allowance 1, strength 3; next to crossroads, east-fields (green), greenhold (green), " \
           "west-fields (green)" in text
    g.play(RED_T1)
    view = view_body(g.state().data, "green")
    reply = MODULE.template(view, "green", ["[pbem]"])
    q = view["question"]
    assert f"# Decision (6.2): {q['text']}." in reply
    losses = tomllib.loads(reply)["reply"]["losses"]
    assert len(losses) == q["loss"] and losses[0] == "G4", "weakest first: the cavalry"
    assert not MODULE.check({**view, "pending": {"question": q}}, Submission("reply", "green", tomllib.loads(reply), "x"))


def test_a_state_with_a_unit_off_the_map_is_refused_before_any_rule(tmp_path: Path) -> None:
    g = start_game(tmp_path / "game")
    p = g.folder / "0001.state.toml"
    data = tomllib.loads(p.read_text(encoding="utf-8"))
    data["position"]["units"]["R1"]["at"] = "atlantis"
    data["position"]["units"]["G1"]["at"] = "west-woods"
    p.write_text(dumps(seal(unsealed(data), "red", g.keys["red"])), encoding="utf-8")
    with pytest.raises(MalformedFileError) as e:
        load_state(p)
    msgs = [(x.rule, x.message) for x in e.value.problems]
    assert ("1.2", "'atlantis' is not an area of the map") in msgs and ("3.3", "west-woods holds units of green, red") in msgs


def test_unit_type_is_the_one_place_a_type_is_read() -> None:
    """Allowance and strength come from unit_type; nothing else in the module reads a unit's type."""
    src = Path(__file__).resolve().parent.parent / "pbem" / "games" / "skirmish"
    readers = [f"{p.name}:{n}" for p in sorted(src.glob("*.py")) for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
               if re.search(r"\.units\[[^]]+\]\.type\b|\]\.type\]", line)]
    assert readers == ["rules.py:" + str(next(n for n, line in enumerate((src / "rules.py").read_text(encoding="utf-8").splitlines(), 1)
                                               if "return TYPES[ctx.sc.units[unit].type]" in line))]
    state = MODULE.new_game("crossroads", {})
    ctx = rules.Ctx(load_scenario("crossroads"), 1, "red", state["position"]["units"], state["position"]["control"], {}, 3,
                    ForcedDice())
    assert (rules.allowance(ctx, "R4"), rules.strength(ctx, "R4")) == (3, 1)


def test_each_move_records_its_distance(tmp_path: Path) -> None:
    """What a hidden type will have to explain: every move's cost is in its event (3.2)."""
    g = start_game(tmp_path / "game", scenario="crossroads", standing={}, seed="auto 2")
    while g.state().data["awaits"]["kind"] != "none":
        g.auto()
    sc = load_scenario("crossroads")
    moves = 0
    for n in range(2, int(g.state().data["pbem"]["sequence"]) + 1):
        text = (g.folder / f"{n:04d}.report.md").read_text(encoding="utf-8")
        for unit, path, cost in re.findall(r"^- Move \d+: (\S+) (.+?), cost (\d+)", text, re.M):
            areas = path.split(" → ")
            assert int(cost) == sum(2 if "river" in sc.map.border_features(a, b) else 1 for a, b in zip(areas, areas[1:], strict=False))
            assert int(cost) <= TYPES[sc.units[unit].type].allowance
            moves += 1
    assert moves > 5


def test_the_demo_hooks(tmp_path: Path) -> None:
    g = start_game(tmp_path / "game")
    st = g.state().data
    assert MODULE.demo_scenario() in MODULE.scenarios() and MODULE.demo_options(True) == {} and MODULE.demo_turn(st) == 1
    assert MODULE.demo_example("crossroads", "T1/red", "red") is None and MODULE.demo_standing("red") is None
    body, where = MODULE.demo_unscripted(st, "red")
    assert where == "proposed by the built-in player" and body == MODULE.demo_orders(st, "red", None)
    assert not MODULE.check(st, Submission("orders", "red", tomllib.loads(body), "x"))
    g.play(RED_T1)
    q = g.state().data["pending"]["question"]
    body, words = MODULE.demo_reply(g.state().data, "green")
    losses = tomllib.loads(body)["reply"]["losses"]
    assert len(losses) == q["loss"] and losses[0] == "G4" and words == "a reply: losses " + ", ".join(losses)
    assert reply_body(g.state().data) != body, "the tests' own reply names other units than the weakest"
    orders = {"move": [{"unit": "R1", "path": ["x"]}, {"unit": "R2", "path": ["y"]}], "attack": [{"target": "t", "units": ["R3"]}]}
    assert MODULE.demo_leave_out(orders, [Problem("move[1].path[0]", "m", "3.1")]) == \
        {"move": [{"unit": "R1", "path": ["x"]}], "attack": [{"target": "t", "units": ["R3"]}]}
    assert MODULE.demo_leave_out(orders, [Problem("end of movement: mill", "m", "3.4")]) == {"attack": [{"target": "t", "units": ["R3"]}]}
    assert MODULE.demo_leave_out(orders, [Problem("standing.loss_order[0]", "m", "6.1")]) is None
    assert MODULE.demo_summary((g.folder / "0002.report.md").read_text(encoding="utf-8")) == \
        "1 move(s), 1 attack(s), 1 control change(s)"
