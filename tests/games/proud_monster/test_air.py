"""Ground support and Flak (10.1-10.4) beyond the catalog: the sequence of play, the 17.8 chart
loader, templates, `pbem show`, pictures, reports and a supported attack through the exchange layer."""

from __future__ import annotations

import copy
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from pbem import FILE_FORMAT
from pbem.demo import order_text
from pbem.engine.model import Submission
from pbem.errors import Problem
from pbem.exchange.chain import verify
from pbem.exchange.files import read_toml
from pbem.exchange.game import document_problems, load_doc
from pbem.games.proud_monster import air
from pbem.games.proud_monster.data import _load_air, load_scenario
from pbem.games.proud_monster.module import ProudMonster
from pbem.games.proud_monster.picture import position_svg
from pbem.games.proud_monster.sequence import PLAYER_TURN, SEQUENCE_START, TURN_START, phases
from tests.clihelpers import run
from tests.conftest import EXCHANGE_SCENARIO, Game, start_game

M = ProudMonster()
NS = "{http://www.w3.org/2000/svg}"
ON = {"ground_support": True, "flak": True}


def names(group: Any, turn: int, side: str = "", pts: int = 0, options: dict[str, Any] | None = None) -> list[str]:
    return [p.name for p in phases(options or ON, group, turn, side=side, pts=pts)]


def test_the_commitment_phases_are_in_the_sequence_of_play() -> None:
    """10.2: the German commits in every player turn before GT12; 10.4: the Soviet in GT12 only
    ("DEC only"); GT12 opens with the air units' departure and arrival, its first sequence with the
    Flak withdrawal (10.1). None of it without the options."""
    assert "ground-support" in names(PLAYER_TURN, 1, "german") and "ground-support" in names(PLAYER_TURN, 11, "german")
    assert "ground-support" not in names(PLAYER_TURN, 12, "german")
    assert "ground-support" not in names(PLAYER_TURN, 11, "soviet") and "ground-support" in names(PLAYER_TURN, 12, "soviet")
    assert names(PLAYER_TURN, 3, "german").index("ground-support") < names(PLAYER_TURN, 3, "german").index("movement")
    assert "december-air" in names(TURN_START, 12) and "december-air" not in names(TURN_START, 11)
    assert "flak-withdrawal" in names(SEQUENCE_START, 12, pts=1) and "flak-withdrawal" not in names(SEQUENCE_START, 12, pts=2)
    assert "flak-withdrawal" not in names(SEQUENCE_START, 11, pts=1)
    basic = {"ground_support": False, "flak": False}
    assert "ground-support" not in names(PLAYER_TURN, 3, "german", options=basic)
    assert not {"december-air", "flak-withdrawal"} & {*names(TURN_START, 12, options=basic), *names(SEQUENCE_START, 12, pts=1, options=basic)}
    full = M.new_game(EXCHANGE_SCENARIO, {"ruleset": "full"})["options"]
    assert full["ground_support"] is True and full["flak"] is True
    assert M.new_game(EXCHANGE_SCENARIO, {})["options"]["ground_support"] is False


def test_the_air_chart_is_data_and_its_sequences_are_checked() -> None:
    """17.8 in charts.toml: the German units with their points per sequence (one on GT1, two on every
    other GT, 5.4), VIII Fliegerkorps with its 10.3 shift, provisional; the Soviet unit of 10.4."""
    charts = load_scenario("training").charts.air
    assert charts.provisional and "not in the rulebook text" in charts.note
    ids = [a.id for a in charts.german]
    assert "VIII" in ids and len(ids) == len(set(ids))
    viii = charts.unit("VIII")
    assert viii is not None and viii.shift == 1 and viii.name == "VIII Fliegerkorps"
    assert all(a.shift == 0 for a in charts.german if a.id != "VIII")
    for a in charts.german:
        assert len(a.points[1]) == 1 and all(len(a.points[t]) == 2 for t in range(2, 12)) and 12 not in a.points
    assert charts.soviet is not None and charts.soviet.points_in(12, 1) == charts.soviet.points_in(12, 2) == 5
    assert charts.soviet.points_in(11, 2) == 0 and charts.soviet.shift == 0
    problems: list[Problem] = []
    bad = _load_air({"german": [{"id": "X", "points": {"1": [2, 2], "2": [3]}}, {"id": "X", "points": {}}]}, "air", problems)
    assert bad.german[0].points_in(2, 1) == 3 and bad.german[0].points_in(2, 2) == 0
    assert sorted((p.where, p.rule) for p in problems) == [("air", "17.8"), ("air.german[0].points.1", "5.4"),
                                                          ("air.german[0].points.2", "5.4")]


def test_module_check_lists_the_provisional_air_schedule() -> None:
    rows = json.loads(run(["module", "check", "proud-monster", "--json"]).output)["rows"]
    gs = [r for r in rows if r["item"] == "German GS point schedule 17.8"]
    assert [r["status"] for r in gs] == ["provisional"] and "VIII Fliegerkorps" in gs[0]["note"]


def _state(turn: int, pts: int, side: str, position: dict[str, Any] | None = None, **options: Any) -> dict[str, Any]:
    base = M.new_game(EXCHANGE_SCENARIO, {"ground_support": True, **options})
    base["position"].update(position or {})
    return {**base, "pbem": {"scenario": EXCHANGE_SCENARIO, "game": "t"}, "clock": {"turn": turn, "pts": pts, "side": side, "phase": "movement"},
            "awaits": {"kind": "orders", "step": f"GT{turn}/{pts}/{side}", "from": [side], "adjudicator": "x"}}


def test_the_template_lists_the_air_units_available_with_their_points() -> None:
    sc = load_scenario(EXCHANGE_SCENARIO)
    lines = air.template_lines(sc, _state(3, 2, "german"), "german")
    text = "\n".join(lines)
    assert "Ground Support Commitment phase (10.2)" in text and "provisional schedule" in text
    assert "#   VIII (VIII Fliegerkorps): 4 points, 1 column in your favour (10.3)" in lines
    assert "#   II (II Fliegerkorps): 3 points" in lines
    assert lines[0] == "" and lines[-3:] == ["# [[support]]", '# air = "VIII"', '# hex = "HEX"']
    assert "#   II (II Fliegerkorps): no points, not available" in air.template_lines(sc, _state(11, 1, "german"), "german")
    assert air.template_lines(sc, _state(12, 1, "german"), "german") == []
    assert air.template_lines(sc, _state(11, 2, "soviet"), "soviet") == []
    soviet = air.template_lines(sc, _state(12, 1, "soviet", {"soviet_air": True}), "soviet")
    assert "#   6IAC (6th Interceptor Air Corps): 5 points" in soviet and any("10 hexes from Moscow" in x for x in soviet)
    assert air.template_lines(sc, _state(12, 2, "soviet", {"soviet_air": False}), "soviet") == [
        "", "# Ground support (10.4): the Soviet GS unit was not received at the start of GT12."]
    off = _state(3, 1, "german")
    off["options"]["ground_support"] = False
    assert air.template_lines(sc, off, "german") == []


def _played(tmp_path: Path) -> Game:
    """The exchange scenario with ground support: the German commits VIII on Pz1 (4816N) and attacks
    R1 in 4916N with Pz1 and Inf1 (4817N); Pz1 advances, taking VIII along."""
    g = start_game(tmp_path / "game", EXCHANGE_SCENARIO, "pm-air", {"ground_support": True}, seed="air",
                   soviet_policy="fewest-steps-first")
    g.play('[[support]]\nair = "VIII"\nhex = "4816N"\n\n[[attack]]\ntarget = "4916N"\nunits = ["Pz1", "Inf1"]\n'
           'losses = ["Inf1"]\nadvance = ["Pz1"]\n')
    return g


def test_a_supported_attack_through_the_exchange_layer(tmp_path: Path) -> None:
    g = _played(tmp_path)
    last = read_toml(g.state_path)
    report = (g.folder / "0002.report.md").read_text(encoding="utf-8")
    assert "### Ground support phase, GT1/1/german (rule 10.2)" in report
    assert "- Ground support committed by the German: VIII Fliegerkorps (VIII, 6 points, 1 column, 10.3) on 4816N Mozhaisk (Pz1)" in report
    assert "  - Ground support: VIII Fliegerkorps (VIII, on 4816N) supports the attackers Pz1: 6 points" in report
    assert "  - Shift 1R: VIII Fliegerkorps supports the German attack (10.3)." in report
    assert "- German GS point schedule 17.8: the air units' points are a provisional stand-in." in report
    rec = last["position"]["ground_support"]["VIII"]
    assert rec == {"side": "german", "hex": last["position"]["units"]["Pz1"]["at"], "points": 6, "shift": 1,
                   "provisional": True, "step": "GT1/1/german"}
    assert verify([g.folder]).transitions == 2  # the replay gives the same states, reports and pictures
    shown = run(["show", str(g.state_path)]).output
    assert f"Ground support (10.2): VIII Fliegerkorps (VIII), 6 points, 1 column (10.3), provisional 17.8 points, on the German stack in {rec['hex']}" in shown
    turn = ET.fromstring((g.folder / "0002.turn.svg").read_text(encoding="utf-8"))
    markers = [e for e in turn.iter(f"{NS}g") if "ground-support" in e.get("class", "").split()]
    assert [(m.get("class"), m.get("data-air"), m.get("data-hex")) for m in markers] == [("ground-support german", "VIII", rec["hex"])]
    assert "VIII 6" in {t.text for t in markers[0].iter(f"{NS}text")}


def test_the_next_german_commitment_phase_replaces_the_placements(tmp_path: Path) -> None:
    """10.2: the air units stay until the next commitment phase begins; the Soviet turn keeps them,
    the German's next turn with no [[support]] ends them."""
    g = _played(tmp_path)
    g.play('\n[standing]\nloss_policy = "fewest-steps-first"\n')  # the Soviet's GT1: VIII still there
    assert "VIII" in read_toml(g.state_path)["position"]["ground_support"]
    g.play("# no air units committed\n")
    st = read_toml(g.state_path)
    assert "ground_support" not in st["position"]
    report = sorted(g.folder.glob("*.report.md"))[-1].read_text(encoding="utf-8")
    assert "- The air units committed before leave their stacks: VIII (" in report
    assert "- Ground support committed by the German: none (10.2;" in report
    assert "- Not committed: VIII (5 points), I (3 points), II (4 points), IV (3 points), V (3 points)." in report


def test_a_commitment_problem_through_the_cli(tmp_path: Path) -> None:
    g = _played(tmp_path)
    g.play('\n[standing]\nloss_policy = "fewest-steps-first"\n')
    orders = g.write_orders('[[support]]\nair = "VIII"\nhex = "5017N"\n', sign=False)
    out = run(["check", str(g.state_path), str(orders)], 1).output
    assert "support[0].hex: 5017N holds no German-side unit: an air unit is placed on a stack of its side [10.2]" in out


def test_the_position_picture_draws_each_air_unit_on_its_stack() -> None:
    sc = load_scenario(EXCHANGE_SCENARIO)
    state = _state(12, 1, "soviet")
    state["position"]["ground_support"] = {"6IAC": air.placement(sc, "soviet", sc.charts.air.soviet, "5116N", 12, 1),  # type: ignore[arg-type]
                                "VIII": {"side": "german", "hex": "4816N", "points": 2, "shift": 1}}
    root = ET.fromstring(position_svg(sc, state))
    groups = {e.get("data-air"): e for e in root.iter(f"{NS}g") if "ground-support" in e.get("class", "").split()}
    assert groups["6IAC"].get("class") == "ground-support soviet" and groups["6IAC"].get("data-hex") == "5116N"
    assert groups["VIII"].get("class") == "ground-support german" and {t.text for t in groups["VIII"].iter(f"{NS}text")} == {"VIII 2"}
    plain = _state(3, 1, "german")
    assert 'id="ground-support"' not in position_svg(sc, plain)  # no layer at all without air units: pictures stay as they were


def test_report_lines_of_the_gt12_events() -> None:
    from pbem.engine.model import Event

    lines = M.render_event(Event("soviet-air", "10.4", {"turn": 12, "received": False, "why": "5017N is German-controlled",
                                                          "air": "6IAC", "name": "6th Interceptor Air Corps", "points": 5,
                                                          "moscow": ["5017N", "5116N"]}))
    assert lines == ["- The Soviet does not receive his GS unit (6th Interceptor Air Corps): 5017N is German-controlled "
                     "(10.4, 8.10, Ambiguity 18)."]
    lines = M.render_event(Event("flak-withdrawn", "10.1", {"turn": 12, "units": []}))
    assert lines == ["- The Flak corps are withdrawn for good in the first German RWR phase of GT12: none is left "
                     "(10.1, 8.16; this withdrawal may not be refused, 8.17)."]


def test_a_view_keeps_the_air_units(tmp_path: Path) -> None:
    """Air units sit on top of their stacks: a side's view shows the enemy's (14.7 hides units only)."""
    g = _played(tmp_path)
    state = copy.deepcopy(read_toml(g.state_path))
    state["options"]["fog_of_war"] = True
    assert M.view_position(state, "soviet")["ground_support"] == state["position"]["ground_support"]


def test_orders_with_support_pass_the_schema(tmp_path: Path) -> None:

    g = _played(tmp_path)
    g.play('\n[standing]\nloss_policy = "fewest-steps-first"\n')
    st = g.state()
    text = order_text(st.data, "german", '[[support]]\nair = "VIII"\nhex = "4916N"\n\n[[move]]\nunits = ["Pz1"]\n'
                                          'path = ["4915N"]\nsupport = ["VIII"]\n')
    p = g.folder / "draft.toml"
    p.write_text(text, encoding="utf-8")
    doc = load_doc(p, "orders")
    assert not document_problems(doc.data, "orders", "proud-monster", "draft")
    assert not M.check(st.data, Submission("orders", "german", doc.data, "sha256:x"))  # VIII follows Pz1
    bad = {**doc.data, "support": [{"air": "VIII"}]}
    assert [x.where for x in document_problems(bad, "orders", "proud-monster", "draft")] == ["draft: support[0]"]


def test_the_built_in_player_commits_its_air_units_next_to_the_enemy() -> None:
    """autoplay: the air unit with the most points on the strongest stack next to the enemy, and the
    [[support]] tables stay top-level tables of the order file (not values of its [pbem] table)."""
    import tomllib

    from pbem.games.proud_monster.autoplay import propose

    state = _state(3, 1, "german")
    state["position"]["units"] = {"Pz1": {"at": "4716N", "steps": 4}, "Inf1": {"at": "4612N", "steps": 2},
                                  "R1": {"at": "4717N", "steps": 1}}
    body = propose(M, state, "german")
    orders = tomllib.loads(f'[pbem]\nformat = {FILE_FORMAT}\n' + body)
    assert orders["support"] == [{"air": "VIII", "hex": "4716N"}] and set(orders["pbem"]) == {"format"}
    assert not M.check(state, Submission("orders", "german", {k: v for k, v in orders.items() if k != "pbem"}, "sha256:x"))
