"""Bad input met while playing the tool as its users do: each gets one clear paragraph naming the
file, the place and the rule, the documented exit code, and nothing written."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.clihelpers import fails, run
from tests.conftest import GERMAN_GT1, Game, start_cli_game, start_game

ATTACK = GERMAN_GT1.split("[standing]")[0]


@pytest.fixture
def game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Game:
    return start_cli_game(tmp_path, monkeypatch)


# --- a file of another kind where a state (or an order file) is expected -----------------------

def test_an_order_file_given_as_the_state_is_named_as_such(game: Game, tmp_path: Path) -> None:
    orders = game.write_orders(ATTACK)
    for args in (["status", orders], ["audit", orders], ["template", orders, "--side", "german"],
                 ["adjudicate", orders, orders, "--key", "soviet.key"], ["check", orders, orders]):
        r = fails(tmp_path, 2, args, f"{orders}: an order file (kind \"orders\"), not a state")
        assert "schema violation" not in r.output


def test_a_state_given_as_the_orders_is_named_as_such(game: Game, tmp_path: Path) -> None:
    r = fails(tmp_path, 2, ["check", "game/0001.state.toml", "game/0001.state.toml"],
              "game/0001.state.toml: a state (kind \"state\"), not an order, join, reply or reveal file")
    assert "schema violation" not in r.output


def test_a_view_given_to_adjudicate_says_the_referee_adjudicates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pbem.exchange.keys import write_key_files
    from tests.test_referee import Refereed

    monkeypatch.chdir(tmp_path)
    g = Refereed(tmp_path / "game")
    for p, key in g.keys.items():
        write_key_files(key, tmp_path / p)
    view = "game/0001-german.view.toml"
    run(["template", view, "--side", "german", "-o", "draft.orders.toml"])
    run(["sign", "draft.orders.toml", "--key", "german.key", "--state", view])
    r = fails(tmp_path, 2, ["adjudicate", view, "draft.orders.toml", "--key", "german.key"],
              f"{view}: a side's view of a state (kind \"view\"), not a state", "the referee adjudicates from the full state")
    assert "schema violation" not in r.output


# --- an over-long value is not echoed back whole -----------------------------------------------

def test_an_over_long_path_is_cut_in_the_schema_message(game: Game, tmp_path: Path) -> None:
    path = ", ".join(['"1816N"'] * 5000)
    orders = game.write_orders(f'[[move]]\nunits = ["3Pz"]\npath = [{path}]\n', sign=False)
    r = fails(tmp_path, 2, ["check", "game/0001.state.toml", orders], f"{orders}: move[0].path: ['1816N', ",
              "... (5000 items) is too long [schema proud-monster/orders-body]")
    assert len(r.output) < 1000, r.output


def test_a_short_value_is_still_quoted_whole(game: Game, tmp_path: Path) -> None:
    orders = game.write_orders('[[move]]\nunits = ["3Pz"]\npath = "2817N"\n', sign=False)
    fails(tmp_path, 2, ["check", "game/0001.state.toml", orders], "move[0].path: '2817N' is not of type 'array'")


# --- a game file changed in the folder after its adjudication ----------------------------------

def test_verify_names_an_order_file_whose_seal_was_broken_after_adjudication(game: Game, tmp_path: Path) -> None:
    orders = game.write_orders(ATTACK)
    game.adjudicate(orders)
    run(["verify", "game"])
    text = orders.read_text(encoding="utf-8")
    sig = re.search(r'signature = "(.)', text)
    assert sig is not None
    flipped = "A" if sig.group(1) != "A" else "B"
    orders.write_text(text.replace(f'signature = "{sig.group(1)}', f'signature = "{flipped}', 1), encoding="utf-8")
    fails(tmp_path, 3, ["verify", "game"], f"game/{orders.name}: the signature does not match the content")


def test_verify_names_an_order_file_changed_and_left_with_its_old_seal(game: Game, tmp_path: Path) -> None:
    orders = game.write_orders(ATTACK)
    game.adjudicate(orders)
    text = orders.read_text(encoding="utf-8")
    orders.write_text(text.replace("[[attack]]", '[[move]]\nunits = ["3Pz"]\npath = ["2817N"]\n\n[[attack]]', 1), encoding="utf-8")
    fails(tmp_path, 3, ["verify", "game"], f"game/{orders.name}: the signature does not match the content")


# --- the Soviet MR template offers only hexes that take units ----------------------------------

GOLDEN_CAMPAIGN = Path(__file__).parent / "golden" / "campaign"


def test_the_mr_template_offers_no_all_sea_hex_next_to_a_military_district_city(tmp_path: Path) -> None:
    from pbem.games.proud_monster.data import load_scenario

    sea = {h.id for h in load_scenario("campaign").map.hexes.values() if h.water}
    state = GOLDEN_CAMPAIGN / "0003.state.toml"  # awaits GT2/MR/soviet; Odessa 2512S is an MD city on the coast
    text = run(["template", state, "--side", "soviet"]).output
    line = next(x for x in text.splitlines() if x.startswith("# Entry hexes (8.7):"))
    offered = re.findall(r"\d{4}[NS]", line)
    assert "2512S" in offered and "2412S" in offered  # Odessa, and a land hex next to it
    assert not sea & set(offered), f"all-sea hexes offered: {sorted(sea & set(offered))}"


# --- a loss reply's template says what the rules allow -----------------------------------------

TANK_SCENARIO = """
# A Soviet attack with two tank divisions and a rifle division on a German infantry division (test data).
[scenario]
id = "tank-losses"
game = "proud-monster"
title = "Attacker's losses with tanks (test data)"
ruleset = "basic"
first_turn = 2
last_turn = 3
map = "{catalog}/map.toml"
units = "{catalog}/units.toml"
charts = "{charts}"
free_setup = true

[options]
untried_units = false
step_loss_exceptions = true     # 14.35 exceptions 1 and 2

[[setup]]
unit = "Inf1"
hex = "4916N"

[[setup]]
unit = "T1"
hex = "5016N"

[[setup]]
unit = "T2"
hex = "5016N"

[[setup]]
unit = "R1"
hex = "5016N"
"""
SOVIET_ATTACK = '[[attack]]\ntarget = "4916N"\nunits = ["T1", "T2", "R1"]\nadvance = []\n'


def tank_loss_question(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    """A state that awaits the Soviet attacker's losses with tanks and a rifle division among the
    participants (14.35 exception 1: the first step from a tank unit). The dice come from the
    committed seed, so the first of a few fixed game ids whose roll costs the attacker a step."""
    catalog = Path(__file__).parent / "catalog" / "proud-monster"
    scenario = tmp_path / "tank-losses.toml"
    scenario.write_text(TANK_SCENARIO.format(catalog=catalog, charts=catalog.parent.parent.parent / "scenarios" / "proud-monster" / "charts.toml"),
                        encoding="utf-8")
    for n in range(40):
        g = start_game(tmp_path / f"tanks-{n}", str(scenario), game_id=f"pm-tanks-{n}", soviet_policy="ask")
        g.play("")  # the German's GT2 player turn: nothing
        path = g.play(SOVIET_ATTACK)
        q = tomllib.loads(path.read_text(encoding="utf-8")).get("pending", {}).get("question", {})
        if q.get("kind") == "losses" and q.get("role") == "attacker" and q.get("constraints", {}).get("first_from"):
            return path, q
    raise AssertionError("no game id of 40 gave the Soviet attacker a loss")


def test_the_loss_reply_template_names_the_step_loss_exceptions(tmp_path: Path) -> None:
    state, q = tank_loss_question(tmp_path)
    tanks = ", ".join(q["constraints"]["first_from"])
    among = ", ".join(f"{u} (1 step)" if s == 1 else f"{u} ({s} steps)" for u, s in q["units"].items())
    assert set(q["units"]) - set(q["constraints"]["first_from"]), "other units than tanks take part"
    text = run(["template", state, "--side", "soviet"]).output
    assert f"among {among} (14.35)." in text
    assert f"# The rules: the first step from a tank unit: {tanks} (14.35 exception 1)." in text
    status = run(["status", state]).output
    assert f"among {tanks} (14.35)" in status  # the same units the status names
    report = state.with_name(state.name.replace(".state.toml", ".report.md")).read_text(encoding="utf-8")
    assert re.search(rf"\*\*Decision needed from soviet\*\*: .*; the first step from a tank unit: {re.escape(tanks)} "
                     r"\(14\.35 exception 1\).*The adjudication stops here\.", report)
