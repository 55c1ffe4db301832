"""Untried Soviet units (2.15, option untried_units) through the whole exchange: the draw uses the
committed dice, is in the report and `audit`, verifies, and every presentation shows an untried
unit as ?-?-MF until it is drawn (the catalog cases PM-092 to PM-099 test the rule itself)."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem.cli import cli
from pbem.exchange.chain import verify
from pbem.exchange.files import dumps, write_new
from pbem.exchange.game import make_join, new_game
from pbem.exchange.keys import KeyPair
from pbem.games.proud_monster.module import ProudMonster
from pbem.games.proud_monster.rules.untried import counter_pool
from tests.conftest import Game, joined_salt
from tests.games.proud_monster.pmcase import CATALOG, build_state

SCENARIO = str(CATALOG / "reply-scenario.toml")  # R1 and R2 in 4916N, Pz1 and Pz2 next to them
RIFLE_POOL = ["1-1", "1-2", *["2-3"] * 8, "3-3"]  # the catalog's rifle divisions, MF 5
M = ProudMonster()


def start(folder: Path) -> Game:
    folder.mkdir(parents=True)
    keys = {s: KeyPair.from_seed(f"untried {s}".encode()) for s in ("german", "soviet")}
    state = new_game("proud-monster", SCENARIO, {s: k.public_text for s, k in keys.items()}, None, keys["german"],
                     "pm-untried", {"untried_units": True})
    write_new(folder / "0000.state.toml", dumps(state))
    g = Game(folder, keys)
    joins = []
    for side in ("german", "soviet"):
        p = folder / f"0000-{side}.join.toml"
        write_new(p, dumps(make_join(g.state(), side, keys[side], {"loss_policy": "fewest-steps-first"}, salt=joined_salt(g.state(), side, keys[side]))))
        joins.append(p)
    g.adjudicate(*joins)
    return g


def test_the_first_combat_draws_each_counter_with_the_committed_dice(tmp_path: Path) -> None:
    g = start(tmp_path / "game")
    before = g.state().data
    assert all("tried" not in u for u in before["position"]["units"].values()), "nothing is drawn before a combat"
    runner = CliRunner()
    shown = runner.invoke(cli, ["show", str(g.state_path)])
    assert shown.exit_code == 0 and "R1 ?-?-5" in shown.output and "R2 ?-?-5" in shown.output
    tpl = runner.invoke(cli, ["template", str(g.state_path), "--side", "german"])
    assert tpl.exit_code == 0 and "R1 ?-?-5" in tpl.output

    g.play('\n[[attack]]\ntarget = "4916N"\nunits = ["Pz1", "Pz2"]\nlosses = ["Pz1", "Pz2", "Pz1", "Pz2"]\n')
    st = g.state().data
    dice = st["transition"]["dice"]
    draws = [d for d in dice if d["label"].startswith("2.15|")]
    assert [(d["label"], d["sides"]) for d in draws] == [("2.15|GT1/1/german|attack 1|R1|counter", 11),
                                                        ("2.15|GT1/1/german|attack 1|R2|counter", 10)]
    units = st["position"]["units"]
    first = RIFLE_POOL[draws[0]["face"] - 1]
    rest = list(RIFLE_POOL)
    rest.remove(first)
    assert units["R1"]["tried"] == first and units["R2"]["tried"] == rest[draws[1]["face"] - 1]
    report = (g.folder / "0002.report.md").read_text(encoding="utf-8")
    assert f"die `2.15|GT1/1/german|attack 1|R1|counter` (d11) = {draws[0]['face']}" in report
    assert f"it is a {first}-5 (2.15)" in report
    assert "of the 11 left (1-1 ×1 (#1), 1-2 ×1 (#2), 2-3 ×8 (#3-10), 3-3 ×1 (#11))" in report  # the pool, numbered

    audit = runner.invoke(cli, ["audit", str(g.state_path)])
    assert audit.exit_code == 0 and "2.15|GT1/1/german|attack 1|R2|counter" in audit.output and "mod 10 + 1" in audit.output
    assert verify([g.folder]).transitions == 2
    alive = [u for u in ("R1", "R2") if units[u]["at"] != "dead"]
    shown = runner.invoke(cli, ["show", str(g.state_path)])
    for u in alive:
        assert f"{u} {units[u]['tried']}-5" in shown.output


def test_text_template_and_picture_show_an_untried_unit_as_question_marks() -> None:
    case = {"case": {}, "options": {"untried_units": True},
            "position": {"units": {"R1": "4817N", "R2": "4817N", "Gd1": "4818N", "Pz1": "4716N"}, "tried": {"R2": "1-2"}}}
    state = build_state(case)
    state["parties"] = {"german": {"index": 0}, "soviet": {"index": 0}}
    text = M.render_position(state, None)
    assert "R1 ?-?-5" in text and "R2 1-2-5" in text and "Gd1 4-3-7 [2/2]" in text
    svg = M.render_svg(state, None)
    unit = svg.split('id="unit-R1"', 1)[1].split("</g>", 1)[0]
    assert ">?-?-5<" in unit
    assert ">1-2-5<" in svg.split('id="unit-R2"', 1)[1].split("</g>", 1)[0]
    assert "R1 ?-?-5" in M.template(state, "german", [])
    off = copy.deepcopy(state)
    off["options"]["untried_units"] = False  # the basic game: printed values (A.4)
    assert "R1 2-3-5" in M.render_position(off, None)


def test_the_pool_keeps_drawn_counters_out_and_an_untried_unit_has_no_combat_factors() -> None:
    case = {"case": {}, "options": {"untried_units": True},
            "position": {"units": {"R1": "4817N", "R2": "dead", "R3": "4817N"}, "tried": {"R2": "3-3", "R3": "2-3"}}}
    state = build_state(case)
    ctx = M._ctx(state, None)
    assert counter_pool(ctx, "R1") == ["1-1", "1-2", *["2-3"] * 7]
    assert ctx.mf("R1") == 5 and ctx.factors("R3") == (2, 3, 5)
    with pytest.raises(RuntimeError, match="untried"):
        ctx.factors("R1")
