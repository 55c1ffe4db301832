"""Reinforcements through the exchange layer (8.1-8.8): the Soviet's Mutual Reinforcement step is
awaited, templated, checked, signed and adjudicated like any step; German units enter from the
OKH area; the RVGK is hidden from the German in a refereed game's views (8.1, 14.7)."""

from __future__ import annotations

import copy
from pathlib import Path

from click.testing import CliRunner

from pbem.cli import cli
from pbem.exchange.chain import verify
from pbem.games.proud_monster.module import ProudMonster
from tests.conftest import Game, start_game

SCENARIO = str(Path(__file__).parent / "catalog" / "mr-game-scenario.toml")


def to_mr_step(tmp_path: Path) -> Game:
    g = start_game(tmp_path / "game", SCENARIO, "pm-mr")
    for _ in range(4):  # GT2: both sequences, nothing ordered
        g.play("")
    return g


def test_the_soviet_mr_step_is_awaited_templated_and_adjudicated(tmp_path: Path) -> None:
    g = to_mr_step(tmp_path)
    st = g.state().data
    assert st["awaits"] == {"kind": "orders", "step": "GT3/MR/soviet", "from": ["soviet"], "adjudicator": "german"}
    assert st["clock"]["phase"] == "mutual-reinforcement" and st["position"]["mr"] == {"place": ["R10", "R11"]}
    assert st["position"]["units"]["Inf4"]["at"] == "okh-north"
    r = CliRunner().invoke(cli, ["template", str(g.state_path), "--side", "soviet"])
    assert r.exit_code == 0, r.output
    assert "# To place: R10 (infantry XX), R11 (infantry XX)." in r.output
    assert "# Entry hexes (8.7): 4914N, 4916N, 4917N, 5017N, 5116N; next to a Military District city:" in r.output
    assert '[[place]]\nunits = ["R10", "R11"]\nhex = "4914N"' in r.output
    body = r.output.split("dice_index = ", 1)[1].split("\n", 1)[1]
    orders = g.write_orders(body)  # the template's proposal: both in the first entry hex
    assert CliRunner().invoke(cli, ["check", str(g.state_path), str(orders)]).exit_code == 0
    nxt = g.adjudicate(orders)
    st = g.state().data
    assert st["awaits"]["step"] == "GT3/1/german" and "mr" not in st["position"]
    assert st["position"]["units"]["R10"]["at"] == st["position"]["units"]["R11"]["at"] == "4914N"
    report = nxt.with_name(nxt.name.replace(".state.toml", ".report.md")).read_text(encoding="utf-8")
    assert "- R10, R11 enter play in 4914N Klin (8.7)." in report
    g.play('[[move]]\nunits = ["Inf4"]\npath = ["4613N", "4713N"]\n')
    assert g.state().data["position"]["units"]["Inf4"]["at"] == "4713N"
    res = verify([g.folder])  # raises on any failure
    assert res.transitions == 7 and res.reports == 7


def test_mr_orders_that_leave_a_unit_unplaced_are_illegal(tmp_path: Path) -> None:
    g = to_mr_step(tmp_path)
    orders = g.write_orders('[[place]]\nunits = ["R10"]\nhex = "4917N"\n')
    r = CliRunner().invoke(cli, ["check", str(g.state_path), str(orders)])
    assert r.exit_code == 1 and "not placed: R11" in r.output and "8.1" in r.output


def test_the_rvgk_is_hidden_from_the_german_with_fog_of_war() -> None:
    m = ProudMonster()
    base = m.new_game(SCENARIO, {"fog_of_war": True})
    state = {"pbem": {"scenario": SCENARIO}, "options": base["options"], "position": copy.deepcopy(base["position"]),
             "standing": {}}
    state["position"]["units"]["R10"]["at"] = "rvgk"
    state["position"]["units"]["R11"]["at"] = "rvgk"
    seen = m.view_position(state, "german")
    assert "R10" not in seen["units"] and "R11" not in seen["units"] and seen["hidden"] == {"rvgk": 2}
    assert m.view_position(state, "soviet")["units"]["R10"]["at"] == "rvgk"
    state["options"]["fog_of_war"] = False
    assert m.view_position(state, "german")["units"]["R10"]["at"] == "rvgk"


def test_no_mr_orders_by_the_deadline_applies_the_default_placement(tmp_path: Path) -> None:
    """A referee's --no-orders on the MR step: each unit in the first entry hex that takes it (8.7)."""
    from pbem.engine.model import Submission
    from pbem.mechanics.dice import ForcedDice

    g = to_mr_step(tmp_path)
    st = g.state().data
    m = ProudMonster()
    sub = Submission("orders", "soviet", {}, "")
    assert m.check(st, sub) == []
    t = m.resolve(st, [sub], ForcedDice())
    assert [e.kind for e in t.events][:3] == ["phase", "mr-default", "placement"]
    assert t.state["position"]["units"]["R10"]["at"] == "4914N" and t.state["awaits"]["step"] == "GT3/1/german"
    assert m.check(st, Submission("orders", "soviet", {}, "sha256:x"))[0].rule == "8.1"  # sent, but empty: illegal
